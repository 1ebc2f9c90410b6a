"""Helpers of the fault-injection tests (tests/bridge/serving/test_faults_*.py): raw wire messages, the
sidecar's resident memory, and reads that end on a close, a reset or a timeout, never hang."""

from __future__ import annotations

import random
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack

from bridge.client.sidecar import Sidecar


def request(msgid: int, method: Any, params: Any) -> bytes:
    """One msgpack-RPC request ``[0, msgid, method, [params]]``."""
    return msgpack.packb([0, msgid, method, [params]], use_bin_type=True)


def hello(sidecar: Sidecar, msgid: int = 0, token: str | None = None) -> bytes:
    """A hello request (with the sidecar's token unless told otherwise)."""
    return request(msgid, "hello", {"token": sidecar.token if token is None else token, "protocol": 1})


def connect(sidecar: Sidecar, timeout: float = 20.0) -> socket.socket:
    """A plain TCP socket to the sidecar; every read on it gives up after ``timeout`` seconds."""
    return socket.create_connection((sidecar.host, sidecar.port), timeout=timeout)


def rss_bytes(pid: int) -> int:
    """Resident set size of a process, from /proc/<pid>/status."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"no VmRSS for process {pid}")


def send_quietly(sock: socket.socket, data: bytes) -> bool:
    """Send ``data``; False when the server closed or reset the connection meanwhile."""
    try:
        sock.sendall(data)
    except OSError:
        return False
    return True


def read_answers(sock: socket.socket, count: int | None = None) -> tuple[list[Any], bool]:
    """Messages until ``count`` are read or the server closes (or resets) the connection.

    Returns:
        The messages, and whether the connection was closed by the server.

    Raises:
        TimeoutError: neither came within the socket's timeout.
    """
    unpacker = msgpack.Unpacker(raw=False)
    messages: list[Any] = []
    while count is None or len(messages) < count:
        try:
            data = sock.recv(65536)
        except (ConnectionResetError, BrokenPipeError):
            return messages, True
        if not data:
            return messages, True
        unpacker.feed(data)
        messages.extend(unpacker)
    return messages, False


def closed_within(sock: socket.socket, seconds: float) -> float:
    """Seconds until the server closes ``sock`` (reading and dropping whatever it sends).

    Raises:
        AssertionError: still open after ``seconds``.
    """
    began = time.monotonic()
    sock.settimeout(seconds)
    try:
        while sock.recv(65536):
            pass
    except (ConnectionResetError, BrokenPipeError):
        pass
    except TimeoutError as exc:
        raise AssertionError(f"the server kept the connection open for {seconds} s") from exc
    return time.monotonic() - began


def internal_answers(messages: list[Any]) -> list[Any]:
    """The answers whose error code is ``internal``."""
    return [
        m
        for m in messages
        if isinstance(m, list) and len(m) == 4 and isinstance(m[2], dict) and m[2].get("code") == "internal"
    ]


FUZZ_FIELDS = ["id", "width", "height", "cells", "diagonal", "graph", "start", "goal", "options", "dim"]
FUZZ_FIELDS += ["ids", "positions", "edges", "vertices", "indices", "sizes", "queries", "agents", "op"]
FUZZ_FIELDS += ["agent", "cell", "points", "weights", "hierarchy", "cell_size", "origin", "token"]
FUZZ_FIELDS += ["client", "protocol", "cluster_size", "long_entrance", "max_expansions", "heuristic"]
FUZZ_METHODS = ["hello", "graph.load_grid", "graph.load_waypoints", "graph.load_navmesh", "graph.update"]
FUZZ_METHODS += ["graph.build_hierarchy", "graph.drop", "graph.info", "graph.list", "path.find"]
FUZZ_METHODS += ["path.find_many", "path.reachable", "no.such.method"]
_SCALARS: list[Any] = [None, True, False, 0, 1, -1, 7, 2**31, -(2**63), 2**63 - 1, 2**64 - 1, 0.5]
_SCALARS += [float("inf"), float("-inf"), float("nan"), 1e308, -0.0, "", "g", "fuzz-g", "never", b"", b"\x01"]


def _fuzz_value(rnd: random.Random, depth: int) -> Any:
    pick = rnd.random()
    if pick < 0.04:  # deep nesting: a list or a map hundreds of levels down
        value: Any = rnd.choice(_SCALARS)
        for _ in range(rnd.choice([8, 33, 100, 400, 700, 1000])):  # msgpack itself stops at 1024
            value = [value] if rnd.random() < 0.3 else {"id": value}
        return value
    if pick < 0.06:  # long strings and bins
        return rnd.choice(["x" * 5000, b"\x01" * 5000, [1] * 3000])
    if depth < 3 and pick < 0.25:
        return [_fuzz_value(rnd, depth + 1) for _ in range(rnd.randrange(4))]
    if depth < 3 and pick < 0.45:
        return {rnd.choice(FUZZ_FIELDS): _fuzz_value(rnd, depth + 1) for _ in range(rnd.randrange(6))}
    return rnd.choice(_SCALARS)


_HUGE_HEADERS = [bytes([first]) + b"\xff\xff\xff\xff" for first in (0xDD, 0xDF, 0xC6, 0xDB)]
"""array32, map32, bin32 and str32 headers declaring 4 G items or bytes."""


def fuzz_messages(count: int, seed: int = 24) -> Iterator[tuple[bool, bytes]]:
    """``count`` fuzzed messages, each ``(before_hello, bytes)``: mostly requests with random
    (nested, huge, non-finite...) parameters, some cut off by a header declaring 4 GB or 4 G items."""
    rnd = random.Random(seed)
    for i in range(count):
        before_hello = rnd.random() < 0.1
        method = rnd.choice(FUZZ_METHODS)
        if rnd.random() < 0.05:  # [0, msgid, method, [{field: <a header declaring 4 G>...
            head = msgpack.packb([0, i + 1, method], use_bin_type=True)
            field_name = msgpack.packb(rnd.choice(FUZZ_FIELDS))
            yield before_hello, b"\x94" + head[1:] + b"\x91\x81" + field_name + rnd.choice(_HUGE_HEADERS)
        else:
            yield before_hello, request(i + 1, method, _fuzz_value(rnd, 0))


@dataclass
class FuzzReport:
    """What a fuzz run saw: answers, answers with code ``internal``, connections the server closed,
    and messages left waiting (neither answered nor closed within ``STALL_SECONDS``)."""

    answers: int = 0
    internal: list[Any] = field(default_factory=list)
    closed: int = 0
    stalled: int = 0


STALL_SECONDS = 5.0


def run_fuzz(
    sidecar: Sidecar, count: int, seed: int = 24, stall_seconds: float = STALL_SECONDS
) -> FuzzReport:
    """Send ``fuzz_messages`` one at a time, each answered (or the connection closed) before the
    next; a closed connection is replaced (and says hello again). A message neither answered nor
    closed within ``stall_seconds`` counts as a stall and its connection is dropped."""
    report = FuzzReport()
    authorised: socket.socket | None = None
    for before_hello, data in fuzz_messages(count, seed):
        if before_hello:
            with connect(sidecar, stall_seconds) as sock:
                answers, closed = _exchange(sock, data)
        else:
            if authorised is None:
                authorised = connect(sidecar, stall_seconds)
                authorised.sendall(hello(sidecar))
                assert read_answers(authorised, 1)[0][0][2] is None, "hello failed"
            answers, closed = _exchange(authorised, data)
            if closed is None or closed:
                authorised.close()
                authorised = None
        report.stalled += closed is None
        report.answers += len(answers)
        report.internal += internal_answers(answers)
        report.closed += bool(closed)
    if authorised is not None:
        authorised.close()
    return report


def _exchange(sock: socket.socket, data: bytes) -> tuple[list[Any], bool | None]:
    """The answer to ``data`` and whether the server closed; None: nothing within the timeout."""
    if not send_quietly(sock, data):
        return [], True
    try:
        return read_answers(sock, 1)
    except TimeoutError:
        return [], None
