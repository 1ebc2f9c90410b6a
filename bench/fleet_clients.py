"""The game-server side of bench/fleet.py: the workload (Moving AI 512 x 512 maps, their scenario
queries spread over the graphs and the clients), one client process per game server with its own
socket, and the CPU seconds of a process tree (the gateway, the Ray processes it started).

A client keeps ``in_flight`` requests outstanding on its socket (``path.find``, or with ``batch``
a ``path.find_packed`` of that many queries on one graph) and times each one from just before
its bytes are written to the moment its answer is decoded (answers may come out of order: each is
matched by its msgid, not waited for in turn).
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.synchronize import Event
from pathlib import Path
from typing import Any

import msgpack
import numpy as np
import numpy.typing as npt

from bridge.wire.protocol import REQUEST, RESPONSE
from bridge.wire.stream import pack
from python_core.formats.movingai import length_tolerance, read_map, read_scenarios

MAP_DIR = Path("/work/shared/benchmarks/grid")
MAPS = ("random512-10-0", "32room_000")
"""The 512 x 512 Moving AI maps with scenario files; graph ``i`` is a copy of ``MAPS[i % 2]``."""

Query = tuple[int, int, int, int, int, float]
"""(graph index, start x, start y, goal x, goal y, published optimal length)."""


@dataclass
class Workload:
    """The graphs to load and every client's queries, the same for every serving of a run."""

    masks: dict[str, npt.NDArray[np.bool_]]
    graphs: list[tuple[str, str]]  # (graph id, map name)
    per_client: list[list[Query]]

    @property
    def queries(self) -> int:
        return sum(len(q) for q in self.per_client)

    def in_order(self) -> list[Query]:
        """Every query in the order drawn (query ``k`` is on graph ``k % graphs``)."""
        clients = len(self.per_client)
        return [self.per_client[k % clients][k // clients] for k in range(self.queries)]


def make_workload(map_dir: Path, graphs: int, clients: int, queries: int, seed: int) -> Workload:
    """``queries`` scenario queries drawn at random (fixed seed), query ``k`` on graph ``k % graphs``
    and sent by client ``k % clients``, so every client asks every graph."""
    masks = {name: read_map(map_dir / f"{name}.map") for name in MAPS}
    scenarios = {name: read_scenarios(map_dir / f"{name}.map.scen") for name in MAPS}
    ids = [(f"fleet-{i:02d}", MAPS[i % len(MAPS)]) for i in range(graphs)]
    rng = np.random.default_rng(seed)
    per_client: list[list[Query]] = [[] for _ in range(clients)]
    for k in range(queries):
        graph = k % graphs
        lines = scenarios[ids[graph][1]]
        s = lines[int(rng.integers(len(lines)))]
        per_client[k % clients].append((graph, *s.start, *s.goal, s.optimal_length))
    return Workload(masks, ids, per_client)


@dataclass
class ClientRun:
    """What one client measured: per query (in its own order) latency, cost and status."""

    latency_us: npt.NDArray[np.float64]
    cost: npt.NDArray[np.float64]
    found: npt.NDArray[np.bool_]
    began: float  # time.monotonic() of the first send
    ended: float  # ... of the last answer
    cpu_s: float  # the client process's own CPU
    errors: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ClientJob:
    """One client's part: where the gateway is, the graph ids, its queries, their options map."""

    address: tuple[str, int, str]  # host, port, token
    graph_ids: Sequence[str]
    queries: Sequence[Query]
    in_flight: int = 1
    options: dict[str, Any] = field(default_factory=dict)
    batch: int = 1  # queries per request: 1 = path.find, more = path.find_packed on one graph


def run_client(job: ClientJob, start: Event, out: Connection) -> None:
    """A client process's body: connect and say hello, wait for ``start``, send every query keeping
    ``job.in_flight`` outstanding, then send a :class:`ClientRun` (or an error string) through ``out``."""
    try:
        host, port, token = job.address
        sock = socket.create_connection((host, port), timeout=600)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        reader = msgpack.Unpacker(raw=False, max_buffer_size=0)
        sock.sendall(pack([REQUEST, 0, "hello", [{"token": token, "client": "fleet"}]]))
        _, _, error, _ = _next_answer(sock, reader)
        if error is not None:
            raise RuntimeError(f"hello refused: {error}")
        out.send("ready")
        start.wait()
        out.send(_timed_queries(sock, reader, job))
        sock.close()
    except Exception as exc:  # the bench reports a failed client rather than hanging
        out.send(f"{type(exc).__name__}: {exc}")


def requests_of(job: ClientJob) -> list[tuple[str, dict[str, Any], list[int]]]:
    """The job's requests in sending order: ``(method, params, indices of its queries)``; with
    ``batch`` > 1 one ``path.find_packed`` per ``batch`` queries of one graph (in the order the
    client meets them)."""
    options = {"options": job.options} if job.options else {}
    if job.batch == 1:
        return [
            ("path.find", {"graph": job.graph_ids[g], "start": [sx, sy], "goal": [gx, gy], **options}, [k])
            for k, (g, sx, sy, gx, gy, _) in enumerate(job.queries)
        ]
    by_graph: dict[int, list[int]] = {}
    for k, query in enumerate(job.queries):
        by_graph.setdefault(query[0], []).append(k)
    chunks = sorted(
        (ks[i : i + job.batch] for ks in by_graph.values() for i in range(0, len(ks), job.batch)),
        key=lambda chunk: chunk[0],
    )
    requests = []
    for chunk in chunks:
        ends = np.asarray([job.queries[k][1:5] for k in chunk], dtype="<i4")
        params = {
            "graph": job.graph_ids[job.queries[chunk[0]][0]],
            "starts": ends[:, :2].tobytes(),
            "goals": ends[:, 2:].tobytes(),
            "cells": True,
            **options,
        }
        requests.append(("path.find_packed", params, chunk))
    return requests


def _timed_queries(sock: socket.socket, reader: msgpack.Unpacker, job: ClientJob) -> ClientRun:
    requests = requests_of(job)
    n = len(requests)
    latency = np.zeros(n)  # per request
    cost = np.full(len(job.queries), np.nan)  # per query
    found = np.zeros(len(job.queries), dtype=bool)
    sent_at = np.zeros(n)
    errors: list[str] = []
    cpu_began = time.process_time()
    began = time.monotonic()
    sent, answered = 0, 0
    while answered < n:
        while sent < n and sent - answered < job.in_flight:
            method, params, _ = requests[sent]
            message = pack([REQUEST, sent + 1, method, [params]])
            sent_at[sent] = time.perf_counter()
            sock.sendall(message)
            sent += 1
        msgid, arrived, error, result = _next_answer(sock, reader)
        index = msgid - 1
        latency[index] = (arrived - sent_at[index]) * 1e6
        indices = requests[index][2]
        if error is not None:
            errors.append(str(error.get("code", error)) if isinstance(error, dict) else str(error))
        elif requests[index][0] == "path.find":
            found[indices[0]] = result["status"] == "found"
            cost[indices[0]] = float(result["cost"])
        else:
            found[indices] = np.frombuffer(result["status"], dtype=np.uint8) == 0
            cost[indices] = np.frombuffer(result["costs"], dtype="<f8")
        answered += 1
    return ClientRun(latency, cost, found, began, time.monotonic(), time.process_time() - cpu_began, errors)


def _next_answer(sock: socket.socket, reader: msgpack.Unpacker) -> tuple[int, float, Any, Any]:
    """The next response on the socket: (msgid, perf_counter when decoded, error, result)."""
    while True:
        for message in reader:
            if message[0] == RESPONSE:
                return int(message[1]), time.perf_counter(), message[2], message[3]
        data = sock.recv(1 << 16)
        if not data:
            raise ConnectionError("the gateway closed the connection")
        reader.feed(data)


NEAR_OPTIMAL = 1.15
"""A hierarchical answer counts as right up to this factor over the optimal length (HPA*'s worst
single path on the benchmark maps was 9.3% over: docs/hpa.md)."""


def wrong_answers(queries: Sequence[Query], run: ClientRun, *, near: bool = False) -> int:
    """Queries whose cost is not the scenario file's optimal length (within its printed precision;
    ``near``: nor within :data:`NEAR_OPTIMAL` of it, never below)."""
    wrong = 0
    for (*_, optimal), found, cost in zip(queries, run.found, run.cost, strict=True):
        low = optimal - length_tolerance(optimal)
        high = optimal * NEAR_OPTIMAL if near else optimal + length_tolerance(optimal)
        if not found or not low <= cost <= high:
            wrong += 1
    return wrong


def tree_cpu_seconds(root: int) -> tuple[float, float]:
    """CPU seconds (user + system) of process ``root`` and of all its living descendants (for a
    ``--ray local`` gateway: the Ray head processes and replica workers it started)."""
    ticks = os.sysconf("SC_CLK_TCK")
    parents: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
        except OSError:  # it exited meanwhile
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        pid = int(entry.name)
        parents[pid] = int(fields[1])
        cpu[pid] = (int(fields[11]) + int(fields[12])) / ticks
    descendants = 0.0
    for pid, seconds in cpu.items():
        ancestor = parents.get(pid, 0)
        while ancestor > 1 and ancestor != root:
            ancestor = parents.get(ancestor, 0)
        if ancestor == root and pid != root:
            descendants += seconds
    return cpu.get(root, 0.0), descendants
