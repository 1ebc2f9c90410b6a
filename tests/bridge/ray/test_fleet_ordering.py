"""Ordering through the gateway: 8 clients on real sockets send 1,000 interleaved updates and
queries, and every answer is the one python_core gives when it applies the updates alone, in the
order of the versions the gateway handed out.

Each client owns a strip of one of two grids (walls between strips, so a path never leaves its
strip): what it asks depends only on its own updates, while all clients' updates interleave in
their graph's one log. A client waits for each answer before its next request, so a query must see
every update that client made before it, whichever replica answers: a graph's ``path.find`` goes to
its home replica, while ``path.find_many`` and ``path.find_packed`` batches are split over both
replicas, so the other one must first apply the log up to the query's version. Run on a 2-replica
``serve --ray local`` gateway and, as the control that proves the check itself, on LocalServing.
"""

from __future__ import annotations

import subprocess
import threading
from dataclasses import dataclass, field

import numpy as np
import pytest

from bridge.client import Client
from bridge.client.sidecar import Sidecar, start_sidecar
from python_core.grid.graph import GridGraph

CLIENTS = 8
OPERATIONS = 1000  # in all, over the 8 clients
STRIP = 6  # open rows per client; one wall row follows each strip
WIDTH = 40
GRAPHS = ("fleet-a", "fleet-b")  # clients 0-3 on the first, 4-7 on the second
PER_GRAPH = CLIENTS // len(GRAPHS)
HEIGHT = PER_GRAPH * (STRIP + 1)
WEIGHTS = (1.0, 2.5, 4.0)  # exact in float32, as weights travel


@dataclass
class Update:
    client: int
    cells: list[tuple[int, int]]
    walkable: bool | None  # None: a weight change
    weight: float = 1.0
    version: int = 0  # the gateway's answer


@dataclass
class Query:
    """One request: a ``path.find`` (one pair), or a ``path.find_many`` / ``path.find_packed`` batch."""

    client: int
    method: str
    pairs: list[tuple[tuple[int, int], tuple[int, int]]]
    after: int = 0  # the version of this client's last update before it (1: the load)
    answers: list[tuple[str, float]] = field(default_factory=list)  # (status, cost) per pair


@dataclass
class Script:
    """One client's operations, in its order; filled with the answers as they come."""

    client: int
    operations: list[Update | Query] = field(default_factory=list)
    error: str = ""


def strip_rows(client: int) -> range:
    top = (client % PER_GRAPH) * (STRIP + 1)
    return range(top, top + STRIP)


def initial_mask() -> np.ndarray:
    mask = np.ones((HEIGHT, WIDTH), dtype=bool)
    mask[STRIP :: STRIP + 1, :] = False  # the wall row under every strip
    return mask


def make_script(client: int, rng: np.random.Generator, count: int) -> Script:
    """About 40% updates (close, open, reweigh a few cells of the strip's middle), 60% queries
    between the strip's two end columns (never closed, so most queries find a path)."""
    rows = strip_rows(client)
    script = Script(client)
    for _ in range(count):
        if rng.random() < 0.4:
            cells = [
                (int(rng.integers(2, WIDTH - 2)), int(rng.integers(rows.start, rows.stop)))
                for _ in range(int(rng.integers(1, 6)))
            ]
            kind = int(rng.integers(3))
            walkable = None if kind == 2 else bool(kind)
            weight = float(WEIGHTS[int(rng.integers(len(WEIGHTS)))])
            script.operations.append(Update(client, cells, walkable, weight))
        else:
            method = METHODS[int(rng.integers(len(METHODS)))]
            pairs = [
                (
                    (int(rng.integers(0, 2)), int(rng.integers(rows.start, rows.stop))),
                    (int(rng.integers(WIDTH - 2, WIDTH)), int(rng.integers(rows.start, rows.stop))),
                )
                for _ in range(1 if method == "path.find" else int(rng.integers(2, 7)))
            ]
            script.operations.append(Query(client, method, pairs))
    return script


METHODS = ("path.find", "path.find", "path.find_many", "path.find_packed")
PACKED_STATUS = {0: "found", 1: "partial", 2: "no_path", 3: "budget_exhausted"}


def ask(client: Client, graph_id: str, query: Query) -> list[tuple[str, float]]:
    """The (status, cost) of each pair of ``query``, asked the way its method says."""
    if query.method == "path.find":
        [(start, goal)] = query.pairs
        answer = client.find(graph_id, start, goal)
        return [(str(answer["status"]), float(answer["cost"]))]
    if query.method == "path.find_many":
        results = client.find_many([Client.query(graph_id, start, goal) for start, goal in query.pairs])
        return [(str(r["status"]), float(r["cost"])) for r in results]
    starts = np.asarray([start for start, _ in query.pairs], dtype=np.int32)
    goals = np.asarray([goal for _, goal in query.pairs], dtype=np.int32)
    packed = client.find_packed(graph_id, starts, goals)
    assert packed["errors"] == []
    return [(PACKED_STATUS[int(s)], float(c)) for s, c in zip(packed["status"], packed["costs"], strict=True)]


def update_params(graph_id: str, update: Update) -> dict[str, object]:
    cells = np.asarray(update.cells, dtype="<i4").tobytes()
    if update.walkable is None:
        weights = np.full(len(update.cells), update.weight, dtype="<f4").tobytes()
        return {"id": graph_id, "weight_cells": cells, "weights": weights}
    return {"id": graph_id, "cells": cells, "walkable": update.walkable}


def play(client: Client, graph_id: str, script: Script, start: threading.Barrier) -> None:
    """Send the script one request at a time (each answer awaited), recording the answers."""
    try:
        start.wait(timeout=60)
        seen = 1
        for op in script.operations:
            if isinstance(op, Update):
                op.version = int(client.call("graph.update", update_params(graph_id, op))["version"])
                seen = op.version
            else:
                op.after = seen
                op.answers = ask(client, graph_id, op)
    except Exception as exc:  # the test fails on it below, with the client named
        script.error = f"client {script.client}: {type(exc).__name__}: {exc}"


def replay(scripts: list[Script]) -> list[str]:
    """python_core alone: each graph's updates applied in version order; each query answered on the
    state at its version (its own strip is the same at any version up to its client's next update).
    Returns the disagreements."""
    wrong: list[str] = []
    for g, _graph_id in enumerate(GRAPHS):
        mine = scripts[g * PER_GRAPH : (g + 1) * PER_GRAPH]
        updates = sorted((op for s in mine for op in s.operations if isinstance(op, Update)), key=_version)
        versions = [u.version for u in updates]
        if versions != list(range(2, len(updates) + 2)):
            wrong.append(f"graph {g}: versions {versions[:10]}... are not 2..{len(updates) + 1} in order")
        queries = sorted((op for s in mine for op in s.operations if isinstance(op, Query)), key=_after)
        grid = GridGraph(initial_mask(), diagonal="only_if_no_obstacles")
        applied = 1
        for query in queries:
            while applied < query.after:
                update = updates[applied - 1]
                if update.walkable is None:
                    grid.set_weights(update.cells, update.weight)
                else:
                    grid.set_walkable(update.cells, update.walkable)
                applied += 1
            for (start, goal), (status, cost) in zip(query.pairs, query.answers, strict=True):
                expected = grid.find_path(start, goal)
                want = expected.cost if expected.found else cost  # no path: the cost is not compared
                if status != expected.status.value or not np.isclose(cost, want, rtol=1e-9):
                    wrong.append(
                        f"client {query.client} {query.method} {start}->{goal} after v{query.after}: "
                        f"{status} {cost} != {expected.status.value} {want}"
                    )
    return wrong


def _version(update: Update) -> int:
    return update.version


def _after(query: Query) -> int:
    return query.after


@pytest.mark.parametrize(
    "serve",
    [
        pytest.param(("--ray", "local", "--ray-replicas", "2"), id="ray-2-replicas"),
        pytest.param(("--threads", "2"), id="local-control"),
    ],
)
def test_interleaved_updates_and_queries_of_8_clients_answer_as_one_process_in_order(
    serve: tuple[str, ...],
) -> None:
    # a Ray gateway announces itself once Ray and its replicas are up: slower than 60 s on a busy machine
    sidecar = start_sidecar("--log-level", "WARNING", *serve, timeout=240, stderr=subprocess.DEVNULL)
    try:
        play_and_check(sidecar)
    finally:
        sidecar.stop(timeout=60)


def play_and_check(sidecar: Sidecar) -> None:
    rng = np.random.default_rng(20261206)
    scripts = [make_script(c, rng, OPERATIONS // CLIENTS) for c in range(CLIENTS)]
    with sidecar.connect(timeout=120) as loader:
        for graph_id in GRAPHS:
            loader.load_grid(graph_id, initial_mask(), diagonal="only_if_no_obstacles")
    clients = [sidecar.connect(timeout=120) for _ in range(CLIENTS)]
    start = threading.Barrier(CLIENTS)
    threads = [
        threading.Thread(target=play, args=(clients[c], GRAPHS[c // PER_GRAPH], scripts[c], start))
        for c in range(CLIENTS)
    ]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
    finally:
        for client in clients:
            client.close()
    assert not any(thread.is_alive() for thread in threads), "a client did not finish in 120 s"
    assert [s.error for s in scripts if s.error] == []
    queries = [op for s in scripts for op in s.operations if isinstance(op, Query)]
    updates = [op for s in scripts for op in s.operations if isinstance(op, Update)]
    assert len(queries) + len(updates) == OPERATIONS
    assert {q.method for q in queries} == set(METHODS)
    assert {status for q in queries for status, _ in q.answers} == {"found", "no_path"}  # strips cut
    assert replay(scripts) == []
