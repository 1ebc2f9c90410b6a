"""Timing single requests fairly on a shared machine: bench/bridge_speed.py's echo floor, its
interleaved rounds and a sidecar timed only once its kernels are loaded.

    sidecar = start_warm_sidecar("--threads", "2")
    samples = interleaved({"echo": echo_call, "find": find_call}, rounds=20, per_round=50)
    placement = Placement([sidecar.process.pid]); placement.pin(); ...; placement.free()

Why here: every kind of request is timed in the same rounds with the same rest (a process that has
just burnt CPU gets slower wake-ups for a while), and the floor is a raw asyncio + msgpack echo in
its own process.

Pinned (:class:`Placement`): the client on one CPU, the servers (every thread) on another, as in a
game where Godot keeps one core busy and the sidecar answers from the other. Free, the scheduler
may wake a server on the client's own CPU (a fast trip) or on the other (a slow one), and which it
does drifts over a run: on the 2-core benchmark VM a server that had handled heavier requests
answered every later small one about twice as slowly (a trip of 55-65 us became 120-150 us).
"""

from __future__ import annotations

import contextlib
import math
import os
import statistics
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bridge.client import Client
from bridge.client.sidecar import Sidecar, start_sidecar

__all__ = [
    "ECHO_SERVER",
    "ROUND_PAUSE",
    "Placement",
    "batched",
    "interleaved",
    "machine_state",
    "median_us",
    "packed",
    "start_echoes",
    "start_warm_sidecar",
    "stop_echoes",
    "timed",
]


ECHO_SERVER = textwrap.dedent(
    """
    import asyncio, msgpack, sys
    async def serve(reader, writer):
        unpacker = msgpack.Unpacker(raw=False)
        while data := await reader.read(65536):
            unpacker.feed(data)
            for m in unpacker:
                writer.write(msgpack.packb([1, m[1], None, m[3][0]], use_bin_type=True))
        writer.close()
    async def main():
        server = await asyncio.start_server(serve, "127.0.0.1", 0)
        print(server.sockets[0].getsockname()[1], flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    if sys.argv[1:] == ["uvloop"]:
        import uvloop
        uvloop.run(main())
    else:
        asyncio.run(main())
    """
)
"""The raw echo server: ``python -c ECHO_SERVER [uvloop]`` (asyncio's own loop without the argument)."""


def start_echoes(loops: tuple[str, ...]) -> dict[str, tuple[subprocess.Popen[str], int]]:
    """A raw echo server (:data:`ECHO_SERVER`: its process and port) on each of ``loops``
    (``asyncio``, ``uvloop``)."""
    servers = {}
    for loop in loops:
        echo = subprocess.Popen(
            [sys.executable, "-c", ECHO_SERVER, loop],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert echo.stdout is not None
        servers[loop] = (echo, int(echo.stdout.readline()))
    return servers


def stop_echoes(servers: dict[str, tuple[subprocess.Popen[str], int]]) -> None:
    """End the servers of :func:`start_echoes` (each stops when its stdin closes)."""
    for echo, _ in servers.values():
        assert echo.stdin is not None
        echo.stdin.close()
        echo.wait(10)


def batched(
    client: Client, graph: str, queries: list[Any], options: dict[str, Any], rounds: int = 7
) -> float:
    """Milliseconds per query of ``queries`` sent as one ``path.find_many`` (best of ``rounds``)."""
    params = [Client.query(graph, s, g, **options) for s, g in queries]
    best = math.inf
    for _ in range(rounds):
        t0 = time.perf_counter()
        client.find_many(params)
        best = min(best, (time.perf_counter() - t0) / len(params) * 1e3)
    return best


def packed(client: Client, graph: str, queries: list[Any], options: dict[str, Any], rounds: int = 7) -> float:
    """Milliseconds per query of ``queries`` sent as one ``path.find_packed`` (best of ``rounds``;
    the answer's arrays decoded as a client would)."""
    starts = np.array([s for s, _ in queries], dtype=np.int32)
    goals = np.array([g for _, g in queries], dtype=np.int32)
    best = math.inf
    for _ in range(rounds):
        t0 = time.perf_counter()
        client.find_packed(graph, starts, goals, **options)
        best = min(best, (time.perf_counter() - t0) / len(queries) * 1e3)
    return best


def median_us(samples: list[float]) -> float:
    return statistics.median(samples) * 1e6


def timed(client: Client, method: str, params: dict[str, Any], count: int) -> list[float]:
    samples = []
    for _ in range(count):
        t0 = time.perf_counter()
        client.call(method, params)
        samples.append(time.perf_counter() - t0)
    return samples


ROUND_PAUSE = 0.05
"""Seconds of rest before every timed round, whatever its kind: a process that has just burnt CPU
gets slower wake-ups for a while on a shared machine, so each kind starts from the same state."""


def interleaved(
    kinds: Mapping[str, Callable[[], object]],
    rounds: int,
    per_round: int,
    prepare: Callable[[str], None] | None = None,
) -> dict[str, list[float]]:
    """Seconds of every call of each kind, timed in short rounds taken in turn (kind after kind,
    ``rounds`` times, ``per_round`` calls a round, :data:`ROUND_PAUSE` before every round): every
    kind meets the machine in the same states, and no sample of any kind is dropped.
    ``prepare(kind)`` runs before each round's rest (e.g. :meth:`Placement.use`)."""
    samples: dict[str, list[float]] = {name: [] for name in kinds}
    for _ in range(rounds):
        for name, call in kinds.items():
            if prepare is not None:
                prepare(name)
            time.sleep(ROUND_PAUSE)
            for _ in range(per_round):
                t0 = time.perf_counter()
                call()
                samples[name].append(time.perf_counter() - t0)
    return samples


class Placement:
    """This process on one CPU and the servers' processes (``pids``, every thread) on another, or
    all of them back on every CPU this process may use.

    Raises:
        SystemExit: this process may use fewer than two CPUs.
    """

    def __init__(self, pids: Sequence[int]) -> None:
        self.pids = list(pids)
        self.every = os.sched_getaffinity(0)
        if len(self.every) < 2:
            raise SystemExit(f"pinning needs two CPUs; this process may use {sorted(self.every)}")
        first, second = sorted(self.every)[:2]
        self.client_cpu, self.server_cpu = {first}, {second}
        self.pinned = False

    def pin(self) -> None:
        """The client on the first CPU, every server thread on the second (threads started later
        inherit their starter's CPU)."""
        _place(os.getpid(), self.client_cpu)
        for pid in self.pids:
            _place(pid, self.server_cpu)
        self.pinned = True

    def free(self) -> None:
        """Every process back on every CPU."""
        for pid in (os.getpid(), *self.pids):
            _place(pid, self.every)
        self.pinned = False

    def use(self, pinned: bool) -> None:
        """:meth:`pin` or :meth:`free`, unless already so."""
        if pinned != self.pinned:
            (self.pin if pinned else self.free)()

    def describe(self) -> str:
        return f"client on CPU {min(self.client_cpu)}, servers on CPU {min(self.server_cpu)}"


def _place(pid: int, cpus: set[int]) -> None:
    """Every thread of process ``pid`` on ``cpus`` (a thread that ended meanwhile is skipped)."""
    with contextlib.suppress(FileNotFoundError):
        for tid in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(ProcessLookupError):
                os.sched_setaffinity(int(tid), cpus)


def machine_state() -> str:
    """The load averages and how many processes run now (the machine may be shared)."""
    one, five, fifteen, running = Path("/proc/loadavg").read_text().split()[:4]
    return f"load {one} (1 min) {five} (5 min) {fifteen} (15 min), running {running}"


def start_warm_sidecar(*args: str, wait: float = 900.0) -> Sidecar:
    """A sidecar whose every kernel is loaded (it logs ``kernels ready``): one still loading its
    navmesh and flow-field kernels in the background holds the GIL now and then, which would slow
    its first requests but not the echo's."""
    sidecar = start_sidecar(*args, "--log-level", "INFO", stderr=subprocess.PIPE)
    ready = threading.Event()
    err = sidecar.process.stderr
    assert err is not None

    def drain() -> None:  # read every log line (a full pipe would block the sidecar)
        for line in err:
            if b"kernels ready" in line or b"could not be loaded" in line:
                ready.set()
        ready.set()

    threading.Thread(target=drain, daemon=True).start()
    t0 = time.perf_counter()
    if not ready.wait(wait):
        print(f"  (the sidecar's kernels were still loading after {wait:.0f} s)")
    print(f"sidecar kernels loaded {time.perf_counter() - t0:.1f} s after it listened")
    return sidecar
