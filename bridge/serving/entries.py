"""A graph entry made whole off the event loop, and what the serving layer says about one.

entry = build_entry(LoadRequest("g", KINDS["grid"], record), progress=None)   # on a thread
assert footprint(entry) >= entry.graph.node_count and describe(entry)["id"] == "g"
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import logging
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from bridge.methods.hierarchy_params import HierarchyState, ProgressThrottle, validate_hierarchy
from bridge.methods.interface import LoadRequest, Progress
from bridge.methods.registry import GraphEntry
from bridge.wire.errors import GraphRejectedError
from python_core.errors import AStarError
from python_core.hpa.warm_up import warm_up_hierarchy

__all__ = [
    "BYTES_PER_NODE", "Writers", "build_entry", "build_hierarchy", "describe", "footprint", "threadsafe",
]  # fmt: skip

log = logging.getLogger("bridge.serving")


def threadsafe(loop: asyncio.AbstractEventLoop, progress: Progress | None) -> ProgressThrottle | None:
    """A throttled progress report callable from a build thread, delivered on the loop."""
    if progress is None:
        return None

    def send(done: int, total: int) -> None:
        loop.call_soon_threadsafe(progress, done, total)

    return ProgressThrottle(send)


def build_entry(request: LoadRequest, progress: ProgressThrottle | None) -> GraphEntry:
    """A new graph entry, whole (navigator, then hierarchy), or an exception; nothing shared is
    touched, so a failure leaves the old graph under that id as it was."""
    where = f"graph.load_{request.kind.name}"
    try:
        graph = request.kind.open(request.record)
    except AStarError as exc:
        raise GraphRejectedError(f"{where}: {exc}", {"id": request.graph_id}) from exc
    request.kind.prepare(graph)  # here, not in the first query's turn of the event loop
    entry = GraphEntry(request.graph_id, request.kind, graph)
    spec = request.hierarchy
    if spec is None:
        return entry
    validate_hierarchy(graph, spec, where, request.graph_id)
    state = HierarchyState(spec)
    build_hierarchy(entry, state, progress)
    return dataclasses.replace(entry, hierarchy=state)


def build_hierarchy(entry: GraphEntry, state: HierarchyState, progress: ProgressThrottle | None) -> None:
    """Build ``state``'s hierarchy on ``entry``'s graph; a failure is the request's error, named."""
    try:
        report = entry.graph.build_hierarchy(state.spec.options(), progress)
    except Exception as exc:  # validation passed: a limit of the build itself (overflow, memory)
        log.warning("the hierarchy of %r could not be built", entry.graph_id, exc_info=exc)
        raise GraphRejectedError(
            f"cannot build the hierarchy of {entry.graph_id!r}: {type(exc).__name__}: {str(exc)[:200]}",
            {"id": entry.graph_id},
        ) from exc
    state.built, state.nbytes, state.build_seconds = True, int(report.nbytes), float(report.seconds)
    state.ready = report.ready
    _warm_hierarchy_once()


@functools.cache
def _warm_hierarchy_once() -> None:
    """Load the HPA* query and update kernels after the first hierarchy (graphs without one never
    pay for them)."""
    log.info("hierarchy kernels ready in %.2f s", warm_up_hierarchy())


BYTES_PER_NODE = 48
"""What one node of a loaded graph takes, about: a grid cell's walkable flag and weight, its share of
the padded copy and of one search workspace (the largest kind per node)."""


def footprint(entry: GraphEntry) -> int:
    """Estimated bytes ``entry`` holds: its nodes and its hierarchy's arrays."""
    hierarchy = entry.hierarchy.nbytes if entry.hierarchy is not None else 0
    return entry.graph.node_count * BYTES_PER_NODE + hierarchy


def describe(entry: GraphEntry) -> dict[str, Any]:
    """``graph.info`` of one entry."""
    graph = entry.graph
    info: dict[str, Any] = {
        "id": entry.graph_id,
        "kind": entry.kind.name,
        "dim": graph.dim,
        "nodes": graph.node_count,
        "version": entry.version,
        **graph.describe(),
    }
    if entry.kind.hierarchy:
        info["hierarchy"] = None if entry.hierarchy is None else entry.hierarchy.describe()
    return info


class Writers:
    """One thread per graph that its load and its changes (``graph.update``) run on; the event
    loop's only.

    Not the shared pool: a change frees the last mesh's arrays and allocates the next's, and on
    one thread both stay in one malloc arena, which keeps the pages. Alternating pool threads
    touched 17-35 MB of fresh pages per aurora region move (36-44 ms instead of ~30 ms).
    """

    def __init__(self) -> None:
        self._pools: dict[str, ThreadPoolExecutor] = {}

    def of(self, graph_id: str) -> ThreadPoolExecutor:
        """``graph_id``'s thread (started by its load or its first change)."""
        pool = self._pools.get(graph_id)
        if pool is None:
            pool = self._pools[graph_id] = ThreadPoolExecutor(1, f"astar-update {graph_id}")
        return pool

    def release(self, graph_id: str) -> None:
        """Let ``graph_id``'s thread end once its queued changes are done (the graph was dropped)."""
        pool = self._pools.pop(graph_id, None)
        if pool is not None:
            pool.shutdown(wait=False)

    def close(self) -> None:
        """Let every thread end once its queued changes are done."""
        for graph_id in list(self._pools):
            self.release(graph_id)
