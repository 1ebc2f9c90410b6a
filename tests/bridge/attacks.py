"""The abuse cases of issue 37 as maps, requests and a bystander, shared by the fault tests
(tests/bridge/serving/test_faults_stalls.py, test_faults_answers.py) and ``bench/fault_abuse.py``.

    bystander = Bystander(sidecar)              # another client, its own 8x8 grid
    sock = attacker(sidecar)                    # a raw, authorised socket
    sock.sendall(request(1, "graph.update", move_update("mesh", 2)))
    worst = max(bystander.trips(5))             # seconds; the heartbeat (graph.list) included
    assert not answered(sock)                   # the attack's work still runs
"""

from __future__ import annotations

import select
import socket
import time
from typing import Any

import msgpack
import numpy as np

from bridge.client import Client
from bridge.client.sidecar import Sidecar
from tests.bridge.faults import hello, read_answers, request

FLOOD_BUDGET = 4000
"""Expansions of each query of a flood: under the sidecar's inline budget (4,096)."""


def attacker(sidecar: Sidecar, *, receive_buffer: int | None = None, timeout: float = 60.0) -> socket.socket:
    """A raw socket that has said hello (``receive_buffer``: a small SO_RCVBUF, for a peer that
    does not read: the kernel then holds little of its answers)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if receive_buffer is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    sock.settimeout(timeout)
    sock.connect((sidecar.host, sidecar.port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.sendall(hello(sidecar))
    assert read_answers(sock, 1)[0][0][2] is None, "hello failed"
    return sock


def answered(sock: socket.socket) -> bool:
    """Whether anything (an answer, or the close) has arrived on ``sock``, without waiting."""
    return bool(select.select([sock], [], [], 0)[0])


def answers_waiting(sock: socket.socket) -> int:
    """How many whole messages have arrived on ``sock``, without taking them (a peek)."""
    timeout = sock.gettimeout()
    sock.setblocking(False)
    try:
        data = sock.recv(1 << 22, socket.MSG_PEEK)
    except BlockingIOError:
        data = b""
    finally:
        sock.settimeout(timeout)
    unpacker = msgpack.Unpacker(raw=False)
    unpacker.feed(data)
    return sum(1 for _ in unpacker)


class Bystander:
    """Another client, minding its own 8x8 grid: what every attack must not hold up."""

    def __init__(self, sidecar: Sidecar, graph_id: str = "bystander") -> None:
        self.client = sidecar.connect(timeout=120)
        self.graph_id = graph_id
        self.client.load_grid(graph_id, np.ones((8, 8)))
        self.trips(3)  # warm: the kernels are loaded

    def trips(self, count: int) -> list[float]:
        """Seconds of ``count`` round trips, each a one-step ``path.find`` then a ``graph.list``
        (the addon's heartbeat)."""
        seconds = []
        for _ in range(count):
            began = time.perf_counter()
            assert self.client.find(self.graph_id, (0, 0), (1, 0))["status"] == "found"
            self.client.call("graph.list")
            seconds.append(time.perf_counter() - began)
        return seconds

    def close(self) -> None:
        self.client.close()


def serpentine(width: int, height: int) -> np.ndarray:
    """A grid whose only way from ``(0, 0)`` to the far end winds through every other row: a path
    of about ``width * height / 2`` cells."""
    grid = np.ones((height, width), dtype=np.uint8)
    for row in range(1, height, 2):
        grid[row, :] = 0
        grid[row, width - 1 if row % 4 == 1 else 0] = 1
    return grid


def serpentine_end(width: int, height: int) -> tuple[int, int]:
    """The far end of :func:`serpentine`'s corridor."""
    last = height - 1 if height % 2 else height - 2
    return (width - 1 if (last // 2) % 2 == 0 else 0, last)


def walled_goal(size: int) -> np.ndarray:
    """An open grid whose far corner is walled off: a search to it expands until its budget ends."""
    grid = np.ones((size, size), dtype=np.uint8)
    grid[size - 2, size - 2 :] = 0
    grid[size - 2 :, size - 2] = 0
    return grid


def flood(graph_id: str, size: int, count: int, first_id: int = 1) -> bytes:
    """``count`` pipelined ``path.find`` to :func:`walled_goal`'s corner, each stopping after
    :data:`FLOOD_BUDGET` expansions (so each runs inline on the old sidecar)."""
    find = {
        "graph": graph_id,
        "start": [0, 0],
        "goal": [size - 1, size - 1],
        "options": {"max_expansions": FLOOD_BUDGET},
    }
    return b"".join(request(first_id + i, "path.find", find) for i in range(count))


def quad_region(region_id: int, side: int, offset: float = 0.0) -> dict[str, Any]:
    """A region of ``side x side`` unit squares (``side**2`` polygons) starting at x = ``offset``."""
    xs, ys = np.meshgrid(np.arange(side + 1), np.arange(side + 1))
    vertices = np.stack([xs.ravel() + offset, ys.ravel()], axis=1)
    polygons = []
    for y in range(side):
        for x in range(side):
            a = y * (side + 1) + x
            polygons.append([a, a + 1, a + side + 2, a + side + 1])
    return Client.region(region_id, vertices, polygons)


def move_update(graph_id: str, region_id: int, dx: float) -> dict[str, Any]:
    """A ``graph.update`` moving one region of a navmesh map by ``dx`` (the whole mesh is rebuilt)."""
    return {"id": graph_id, "regions": [{"op": "move", "id": region_id, "transform": [1, 0, 0, 1, dx, 0]}]}


def whole_map_field(graph_id: str, size: int, tile: int = 16) -> dict[str, Any]:
    """A ``field.request`` whose starts lie in every tile of a ``size x size`` grid: the whole field."""
    cells = [(x, y) for y in range(0, size, tile) for x in range(0, size, tile)]
    starts = np.asarray(cells, dtype="<i4").tobytes()
    return {"graph": graph_id, "goals": [[0, 0]], "starts": starts}


def packed_request(graph_id: str, starts: np.ndarray, goals: np.ndarray, **options: Any) -> dict[str, Any]:
    """A ``path.find_packed`` map of int32 cell pairs."""
    params: dict[str, Any] = {
        "graph": graph_id,
        "starts": np.asarray(starts, dtype="<i4").tobytes(),
        "goals": np.asarray(goals, dtype="<i4").tobytes(),
    }
    if options:
        params["options"] = options
    return params
