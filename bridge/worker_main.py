"""The loop of one worker process: replicate graphs, answer query batches, in command order.

Commands arrive on one pipe and are handled strictly in order, which is what keeps a query sent
after an update seeing that update. Only ``find`` commands are answered; a failure to apply a
broadcast (which the main process already applied successfully to its own copy) is logged.
While no command waits, the worker refills, a slice at a time, the all-pairs table rows that a
time-boxed update of a hierarchy left stale (``repair_ms``), so updates return fast and the
table is whole again before long without a query paying for it.

Commands (tuples):
    ``("load", graph_id, kind, record, dim, world, spec | None, job_id | None)``,
    ``("hierarchy", graph_id, spec, job_id | None)``, ``("update", graph_id, ops)``,
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
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from bridge.errors import UnknownGraphError, from_exception
from bridge.hierarchy import HierarchySpec, ProgressThrottle, build_hierarchy
from bridge.queries import Query, run_query
from bridge.updates import apply_update
from python_core.compiled import warm_up
from python_core.formats.records import from_record
from python_core.hpa.warm_up import warm_up_hierarchy

__all__ = ["REFILL_SLICE", "Replica", "refill_idle", "warm_hierarchy", "worker_main"]

log = logging.getLogger("bridge.worker")

REFILL_SLICE = 0.005
"""Seconds of table refilling between two looks at the pipe: a command that arrives meanwhile
waits at most about this long."""


@dataclass(slots=True)
class Replica:
    """One graph as a worker holds it: the graph, its hierarchy (or None) and query defaults."""

    kind: str
    graph: Any
    dim: int
    world: bool
    hpa: Any = None
    smooth: bool = True


def _answer(replicas: dict[str, Replica], query: Query) -> dict[str, Any]:
    replica = replicas.get(query.graph_id)
    try:
        if replica is None:
            raise UnknownGraphError(query.graph_id)
        return run_query(
            replica.graph,
            replica.kind,
            replica.dim,
            replica.world,
            query,
            hpa=replica.hpa,
            smooth=replica.smooth,
        )
    except Exception as exc:  # each query answers for itself; the batch goes on
        return {"status": "error", "error": from_exception(exc).to_wire()}


def _build(conn: Connection, replica: Replica, spec: HierarchySpec | None, job_id: int | None) -> None:
    """Give ``replica`` the hierarchy ``spec`` (or none); the worker given ``job_id`` answers it."""
    replica.hpa, replica.smooth = None, True
    if spec is None:
        if job_id is not None:  # a plain load: the answer says this worker holds the graph
            conn.send((job_id, [{}]))
        return
    throttle = (
        None if job_id is None else ProgressThrottle(lambda d, t: conn.send(("progress", job_id, d, t)))
    )
    try:
        replica.hpa = build_hierarchy(replica.graph, spec, throttle)
        replica.smooth = spec.smooth
    except Exception as exc:  # the main process validated; this is memory or a bug
        log.exception("worker could not build a hierarchy")
        if job_id is not None:
            conn.send((job_id, [{"status": "error", "error": from_exception(exc).to_wire()}]))
        return
    if job_id is not None:
        conn.send((job_id, [{"bytes": int(replica.hpa.nbytes), "build_seconds": replica.hpa.build_seconds}]))
    warm_hierarchy()


@functools.cache
def warm_hierarchy() -> None:
    """Load the HPA* query and update kernels once per process, after its first hierarchy is built
    (and answered): the first query or door update then does not wait for them. Graphs without a
    hierarchy never pay for it."""
    log.info("hierarchy kernels ready in %.2f s", warm_up_hierarchy())


def _apply(conn: Connection, replicas: dict[str, Replica], command: tuple[Any, ...]) -> None:
    op = command[0]
    if op == "load":
        _, graph_id, kind, record, dim, world, spec, job_id = command
        replicas[graph_id] = replica = Replica(kind, from_record(kind, record), dim, world)
        _build(conn, replica, spec, job_id)
    elif op == "hierarchy":
        _, graph_id, spec, job_id = command
        _build(conn, replicas[graph_id], spec, job_id)
    elif op == "update":
        _, graph_id, ops = command
        replica = replicas[graph_id]
        apply_update(replica.graph, replica.kind, ops, replica.hpa)
    elif op == "drop":
        replicas.pop(command[1], None)
    else:
        raise ValueError(f"unknown worker command {op!r}")


def refill_idle(replicas: dict[str, Replica], seconds: float = REFILL_SLICE) -> bool:
    """Refill stale table rows of one hierarchy for ``seconds`` (one chunk at least); False when
    no hierarchy has any (then the worker blocks on its pipe until the next command)."""
    for replica in replicas.values():
        if replica.hpa is not None and replica.hpa.pending_rows:
            replica.hpa.refill_table(seconds)
            return True
    return False


def worker_main(conn: Connection, log_level: int = logging.WARNING) -> None:
    """Serve commands from ``conn`` until it closes or says stop (the parent's death closes it)."""
    # Ctrl-C reaches the whole process group; only the main process decides when to stop.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    logging.basicConfig(level=log_level, format="%(asctime)s worker %(process)d %(levelname)s %(message)s")
    # Compile (or load from numba's disk cache) every kernel before the first command, so no
    # query pays for it; commands sent meanwhile wait in the pipe.
    log.info("kernels ready in %.2f s", warm_up())
    replicas: dict[str, Replica] = {}
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
