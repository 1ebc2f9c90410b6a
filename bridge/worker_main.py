"""The loop of one worker process: replicate graphs, answer query batches, in command order.

Commands arrive on one pipe and are handled strictly in order, which is what keeps a query sent
after an update seeing that update. Only ``find`` commands are answered; a failure to apply a
broadcast (which the main process already applied successfully to its own copy) is logged.
While no command waits, the worker refills, a slice at a time, the all-pairs table rows that a
time-boxed update of a hierarchy left stale (``repair_ms``), so updates return fast and the
table is whole again before long without a query paying for it.

Commands (tuples):
    ``("load", graph_id, kind, record, spec | None, job_id | None)``,
    ``("hierarchy", graph_id, spec, job_id | None)``, ``("update", graph_id, batch)``,
    ``("drop", graph_id)``, ``("find", job_id, [Query, ...])``, ``("stop",)``.
Replies: ``(job_id, [result map or {"status": "error", "error": {...}}, ...])``; a load or
hierarchy command with a job id (``spec`` given) also sends ``("progress", job_id, done, total)``
while the hierarchy builds, then ``(job_id, [{"bytes", "build_seconds"} or an error entry])``.
After its first hierarchy a worker loads the HPA* query and update kernels (``warm_hierarchy``),
so commands sent meanwhile wait for that once (well under a second with numba's cache filled).
"""

from __future__ import annotations

import functools
import logging
import signal
from multiprocessing.connection import Connection
from typing import Any

from bridge.errors import UnknownGraphError, from_exception
from bridge.hierarchy_params import HierarchySpec, ProgressThrottle
from bridge.kinds import KINDS
from bridge.queries import Query, run_query
from python_core.compiled import warm_up
from python_core.hpa.warm_up import warm_up_hierarchy
from python_core.navigation import Navigator

__all__ = ["REFILL_SLICE", "Replicas", "refill_idle", "warm_hierarchy", "worker_main"]

log = logging.getLogger("bridge.worker")

REFILL_SLICE = 0.005
"""Seconds of table refilling between two looks at the pipe: a command that arrives meanwhile
waits at most about this long."""


Replicas = dict[str, Navigator[Any]]
"""A worker's graphs by id (each with its hierarchy, once built)."""


def _answer(replicas: Replicas, query: Query) -> dict[str, Any]:
    graph = replicas.get(query.graph_id)
    try:
        if graph is None:
            raise UnknownGraphError(query.graph_id)
        return run_query(graph, query)
    except Exception as exc:  # each query answers for itself; the batch goes on
        return {"status": "error", "error": from_exception(exc).to_wire()}


def _build(conn: Connection, graph: Navigator[Any], spec: HierarchySpec | None, job_id: int | None) -> None:
    """Give ``graph`` the hierarchy ``spec`` (none for a plain load); the worker given ``job_id``
    answers it."""
    if spec is None:
        if job_id is not None:  # a plain load: the answer says this worker holds the graph
            conn.send((job_id, [{}]))
        return
    throttle = (
        None if job_id is None else ProgressThrottle(lambda d, t: conn.send(("progress", job_id, d, t)))
    )
    try:
        report = graph.build_hierarchy(spec.options(), throttle)
    except Exception as exc:  # the main process validated; this is memory or a bug
        log.exception("worker could not build a hierarchy")
        if job_id is not None:
            conn.send((job_id, [{"status": "error", "error": from_exception(exc).to_wire()}]))
        return
    if job_id is not None:
        conn.send((job_id, [{"bytes": report.nbytes, "build_seconds": report.seconds}]))
    warm_hierarchy()


@functools.cache
def warm_hierarchy() -> None:
    """Load the HPA* query and update kernels once per process, after its first hierarchy is built
    (and answered): the first query or door update then does not wait for them. Graphs without a
    hierarchy never pay for it."""
    log.info("hierarchy kernels ready in %.2f s", warm_up_hierarchy())


def _apply(conn: Connection, replicas: Replicas, command: tuple[Any, ...]) -> None:
    op = command[0]
    if op == "load":
        _, graph_id, kind, record, spec, job_id = command
        replicas[graph_id] = graph = KINDS[kind].open(record)
        _build(conn, graph, spec, job_id)
    elif op == "hierarchy":
        _, graph_id, spec, job_id = command
        _build(conn, replicas[graph_id], spec, job_id)
    elif op == "update":
        _, graph_id, batch = command
        replicas[graph_id].apply(batch)
    elif op == "drop":
        replicas.pop(command[1], None)
    else:
        raise ValueError(f"unknown worker command {op!r}")


def refill_idle(replicas: Replicas, seconds: float = REFILL_SLICE) -> bool:
    """Refill stale table rows of one hierarchy for ``seconds`` (one chunk at least); False when
    no hierarchy has any (then the worker blocks on its pipe until the next command)."""
    return any(graph.repair_pending(seconds) for graph in replicas.values())


def worker_main(conn: Connection, log_level: int = logging.WARNING) -> None:
    """Serve commands from ``conn`` until it closes or says stop (the parent's death closes it)."""
    # Ctrl-C reaches the whole process group; only the main process decides when to stop.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    logging.basicConfig(level=log_level, format="%(asctime)s worker %(process)d %(levelname)s %(message)s")
    # Compile (or load from numba's disk cache) every kernel before the first command, so no
    # query pays for it; commands sent meanwhile wait in the pipe.
    log.info("kernels ready in %.2f s", warm_up())
    replicas: Replicas = {}
    while True:
        if not conn.poll(0) and refill_idle(replicas):
            continue  # nothing waiting: a slice of a table that a time-boxed update left
        try:
            command = conn.recv()
        except (EOFError, OSError):
            return
        if command[0] == "stop":
            return
        if command[0] == "find":
            _, job_id, queries = command
            conn.send((job_id, [_answer(replicas, q) for q in queries]))
            continue
        try:
            _apply(conn, replicas, command)
        except Exception:
            log.exception("worker could not apply %r to its replica", command[:2])
