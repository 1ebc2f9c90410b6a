"""The attacks of issue 37 as rows of ``bench/fault_abuse.py``: for each, another client's worst
round trip (a one-step ``path.find`` on its own 8x8 grid, then the addon's heartbeat ``graph.list``)
while the attack runs, beside its idle baseline in the same run, and the sidecar's memory growth.

    .venv/bin/python bench/fault_abuse.py --case flood --case corridor     # two rows
    .venv/bin/python bench/fault_abuse.py --quick                          # smaller maps

Goals: the bystander's worst trip under 100 ms during every attack; memory growth under the
configured caps (``--max-answer-bytes`` 64 MiB a request, ``--max-unread-bytes`` 256 MiB in all).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import select
import socket
import subprocess
import threading
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from multiprocessing.synchronize import Event
from typing import Any

import numpy as np

from bridge.client import BridgeError
from bridge.client.sidecar import Sidecar, start_sidecar
from tests.bridge.attacks import (
    Bystander,
    attacker,
    flood,
    move_update,
    packed_request,
    quad_region,
    serpentine,
    serpentine_end,
    walled_goal,
    whole_map_field,
)
from tests.bridge.faults import read_answers, request, rss_bytes

MIB = 1024 * 1024
Row = tuple[str, str, str]
GOAL = "< 100 ms; growth < caps"


def _bystander(host: str, port: int, token: str, pipe: Connection, stop: Event) -> None:
    """In a process of its own (the bench's threads must not hold up its reads): the idle
    baseline, then round trips until ``stop``; sends both back through ``pipe``."""
    sidecar = Sidecar(None, host, port, token, 1)  # type: ignore[arg-type]  # only connect() is used
    bystander = Bystander(sidecar)
    try:
        idle = bystander.trips(50)
        pipe.send(idle)
        trips: list[float] = []
        while not stop.is_set():
            trips.extend(bystander.trips(1))
            time.sleep(0.01)
        pipe.send(trips)
    finally:
        bystander.close()


class _Watch:
    """The bystander's round trips (another process) and the sidecar's resident memory."""

    def __init__(self, sidecar: Sidecar) -> None:
        self.sidecar = sidecar
        context = multiprocessing.get_context("spawn")
        self._stop = context.Event()
        self._pipe, theirs = context.Pipe()
        args = (sidecar.host, sidecar.port, sidecar.token, theirs, self._stop)
        self._process = context.Process(target=_bystander, args=args, daemon=True)
        self._process.start()
        self.idle = max(self._pipe.recv())
        self.before = rss_bytes(sidecar.process.pid)
        self.peak = self.before
        self.trips: list[float] = []
        self._sampling = threading.Event()
        self._sampler = threading.Thread(target=self._sample)

    def __enter__(self) -> _Watch:
        self._sampler.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._sampling.set()
        self._sampler.join()
        self.trips = self._pipe.recv()
        self._process.join(30)

    def _sample(self) -> None:
        while not self._sampling.is_set():
            try:
                self.peak = max(self.peak, rss_bytes(self.sidecar.process.pid))
            except (OSError, AssertionError):  # the sidecar is gone
                return
            time.sleep(0.02)

    def figure(self, outcome: str) -> str:
        worst = max(self.trips) * 1e3 if self.trips else float("nan")
        grown = (self.peak - self.before) / MIB
        return (
            f"worst {worst:.0f} ms over {len(self.trips)} trips (idle {self.idle * 1e3:.0f} ms); "
            f"+{grown:.0f} MB; {outcome}"
        )


def _attack(
    name: str, prepare: Callable[[Sidecar], Any], attack: Callable[[Sidecar, Any], str], *args: str
) -> Row:
    """Start a sidecar, ``prepare`` it (its graphs), then measure while ``attack`` runs."""
    sidecar = start_sidecar("--log-level", "WARNING", "--threads", "2", *args, stderr=subprocess.DEVNULL)
    try:
        state = prepare(sidecar)
        with _Watch(sidecar) as watch:
            time.sleep(0.1)
            outcome = attack(sidecar, state)
        return (name, watch.figure(outcome), GOAL)
    finally:
        sidecar.stop()


def _answer(sock: socket.socket) -> str:
    """The attack's own answer: ``ok`` or its error code (``closed`` when the sidecar cut it)."""
    answers, closed = read_answers(sock, 1)
    if not answers:
        return "closed" if closed else "no answer"
    error = answers[0][2]
    return "ok" if error is None else str(error.get("code"))


def case_field_lock(quick: bool) -> Row:
    """``field.tiles`` of an unknown field and ``graph.drop`` of another graph, while a whole-map
    field builds."""
    size = 1024 if quick else 2048

    def prepare(sidecar: Sidecar) -> None:
        with sidecar.connect(timeout=600) as owner:
            owner.load_grid("big", np.ones((size, size), dtype=np.uint8))
            for i in range(20):
                owner.load_grid(f"other-{i}", np.ones((4, 4)))

    def attack(sidecar: Sidecar, _: None) -> str:
        began = time.perf_counter()
        with attacker(sidecar, timeout=600) as builder, sidecar.connect(timeout=600) as prober:
            builder.sendall(request(1, "field.request", whole_map_field("big", size)))
            for i in range(20):  # while the field builds
                time.sleep(0.1)
                with contextlib.suppress(BridgeError):  # unknown_point: the answer expected
                    prober.call("field.tiles", {"field": "f999", "tiles": [0]})
                prober.call("graph.drop", {"id": f"other-{i}"})
            outcome = _answer(builder)
        return f"field built in {time.perf_counter() - began:.1f} s: {outcome}"

    return _attack(f"field.tiles / graph.drop while a {size}x{size} field builds", prepare, attack)


def case_navmesh_move(quick: bool) -> Row:
    """A region ``move`` on a navmesh map of 25,600 (quick) or 64,009 polygons."""
    side = 160 if quick else 253

    def prepare(sidecar: Sidecar) -> None:
        with sidecar.connect(timeout=600) as owner:
            owner.load_navmap("mesh", [quad_region(1, side), quad_region(2, 4, offset=side + 10)])

    def attack(sidecar: Sidecar, _: None) -> str:
        began = time.perf_counter()
        with attacker(sidecar, timeout=600) as mover:
            mover.sendall(request(1, "graph.update", move_update("mesh", 2, 1.0)))
            outcome = _answer(mover)
        return f"moved in {time.perf_counter() - began:.1f} s: {outcome}"

    return _attack(f"navmesh region move, {side * side:,} polygons", prepare, attack)


def case_flood(quick: bool) -> Row:
    """One client pipelining small queries (each 4,000 expansions, under the inline budget)."""
    count, size = (6000 if quick else 20_000), 100

    def prepare(sidecar: Sidecar) -> None:
        with sidecar.connect() as owner:
            owner.load_grid("walled", walled_goal(size), diagonal="never")

    def attack(sidecar: Sidecar, _: None) -> str:
        began = time.perf_counter()
        with attacker(sidecar, timeout=600) as flooder:
            sender = threading.Thread(target=flooder.sendall, args=(flood("walled", size, count),))
            sender.start()
            answers, _ = read_answers(flooder, count)
            sender.join()
        return f"{len(answers)} answered in {time.perf_counter() - began:.1f} s"

    return _attack(f"{count:,} pipelined 4,000-expansion queries", prepare, attack)


def case_tiles_repeat(quick: bool) -> Row:
    """``field.tiles`` naming one tile id 100,000 times (a 0.3 MB request)."""

    def prepare(sidecar: Sidecar) -> str:
        with sidecar.connect() as owner:
            owner.load_grid("g", np.ones((256, 256)))
            field: str = owner.call(
                "field.request", {"graph": "g", "goals": [[0, 0]], "starts": [[255, 255]]}
            )["field"]
        return field

    def attack(sidecar: Sidecar, field: str) -> str:
        with attacker(sidecar) as sock:
            sock.sendall(request(1, "field.tiles", {"field": field, "tiles": [0] * 100_000, "costs": True}))
            return _answer(sock)

    return _attack("field.tiles: one tile id x 100,000", prepare, attack)


def case_corridor(quick: bool) -> Row:
    """``path.find_packed`` of 30 queries along a winding corridor (1M cells; quick: 250k)."""
    side = 708 if quick else 1414
    end = serpentine_end(side, side)

    def prepare(sidecar: Sidecar) -> None:
        with sidecar.connect(timeout=600) as owner:
            owner.load_grid("corridor", serpentine(side, side), diagonal="never")

    def attack(sidecar: Sidecar, _: None) -> str:
        starts, goals = np.zeros((30, 2)), np.tile(end, (30, 1))
        with attacker(sidecar, timeout=600) as sock:
            sock.sendall(request(1, "path.find_packed", packed_request("corridor", starts, goals)))
            return _answer(sock)

    cells = side * side // 2
    return _attack(f"path.find_packed x 30 along a {cells:,}-cell corridor", prepare, attack)


def case_unread(quick: bool) -> Row:
    """Peers that each ask for a 22 MB answer (100,000 paths of 12 points) and never read it: past
    ``--max-unread-bytes`` (quick: 64 MiB, else the default 256 MiB) the oldest are cut."""
    peers_count = 8 if quick else 30
    size = 12

    def prepare(sidecar: Sidecar) -> None:
        with sidecar.connect() as owner:
            owner.load_grid("small", np.ones((size, size)))

    def attack(sidecar: Sidecar, _: None) -> str:
        starts, goals = np.zeros((100_000, 2)), np.full((100_000, 2), size - 1)
        peers = []
        for i in range(peers_count):
            peer = attacker(sidecar, receive_buffer=4096, timeout=300)
            peer.sendall(request(i + 1, "path.find_packed", packed_request("small", starts, goals)))
            peers.append(peer)
        for peer in peers:  # every answer is under way (its first bytes arrived, or a close)
            select.select([peer], [], [], 300)
        time.sleep(1.0)
        cut = sum(_closed(peer) for peer in peers)
        for peer in peers:
            peer.close()
        return f"{cut} of {peers_count} slow readers cut"

    args = ("--max-unread-bytes", str(64 * MIB)) if quick else ()
    cap = "64 MiB" if quick else "256 MiB"
    return _attack(
        f"{peers_count} peers never reading 22 MB answers (unread cap {cap})", prepare, attack, *args
    )


def _closed(sock: socket.socket) -> bool:
    """Whether the sidecar closed ``sock`` (its unread answer dropped)."""
    sock.settimeout(0.5)
    try:
        while sock.recv(1 << 20):
            pass
    except TimeoutError:
        return False  # still open: the peer could read on
    except OSError:
        return True
    return True


def case_huge_cell(quick: bool) -> Row:
    """``field.request`` with a cell at 2^63."""

    def prepare(sidecar: Sidecar) -> None:
        with sidecar.connect() as owner:
            owner.load_grid("g", np.ones((8, 8)))

    def attack(sidecar: Sidecar, _: None) -> str:
        with attacker(sidecar) as sock:
            sock.sendall(request(1, "field.request", {"graph": "g", "goals": [[2**63, 0]], "starts": []}))
            return _answer(sock)

    return _attack("field.request, a cell at 2^63", prepare, attack)


def case_bogus_heuristic(quick: bool) -> Row:
    """``path.find_packed`` with ``heuristic: "bogus"`` and 100,000 queries."""

    def prepare(sidecar: Sidecar) -> None:
        with sidecar.connect() as owner:
            owner.load_grid("g", np.ones((64, 64)))

    def attack(sidecar: Sidecar, _: None) -> str:
        ends = np.zeros((100_000, 2))
        began = time.perf_counter()
        with attacker(sidecar) as sock:
            sock.sendall(request(1, "path.find_packed", packed_request("g", ends, ends, heuristic="bogus")))
            outcome = _answer(sock)
        return f"{outcome} after {(time.perf_counter() - began) * 1e3:.0f} ms"

    return _attack("path.find_packed x 100,000, heuristic 'bogus'", prepare, attack)


ATTACKS: dict[str, Callable[[bool], Row]] = {
    "field-lock": case_field_lock,
    "navmesh-move": case_navmesh_move,
    "flood": case_flood,
    "tiles-repeat": case_tiles_repeat,
    "corridor": case_corridor,
    "unread": case_unread,
    "huge-cell": case_huge_cell,
    "bogus-heuristic": case_bogus_heuristic,
}
"""Issue 37's rows, in its order (the addon's watchdog row is the addon's own test)."""
