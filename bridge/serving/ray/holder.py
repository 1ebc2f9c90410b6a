"""The graphs one replica holds: built from a snapshot, brought to a revision by the log, the least
recently used dropped past a memory budget. The same python_core code as the local sidecar's.

    holder = GraphHolder(budget_bytes=1 << 30, resolve=ray.get)
    entry = holder.entry(target)       # a GraphEntry at target.revision, or an int: the revision
                                       # this holder has (the gateway then sends the log from there)

Nothing here imports Ray (``resolve`` turns an object ref into its value): the replica actor and
the gateway's own copy for flow fields both hold their graphs in one of these.

Versions are applied exactly once: a held graph only ever moves forward, one log item at a time; a
request naming an older revision than the one held (which the gateway's ordering never sends) or
another generation rebuilds the graph from its snapshot.
"""

from __future__ import annotations

import dataclasses
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bridge.methods.hierarchy_params import (
    HierarchySpec,
    HierarchyState,
    ProgressThrottle,
    validate_hierarchy,
)
from bridge.methods.interface import LoadRequest
from bridge.methods.kinds import KINDS
from bridge.methods.params import Params
from bridge.methods.registry import GraphEntry
from bridge.serving import entries
from bridge.serving.ray.graphs import BUILD, UPDATE, GraphRef, LogItem, Target

__all__ = ["REPAIR_SLICE", "GraphHolder"]

REPAIR_SLICE = 0.05
"""Seconds per call of the all-pairs table repair after an update: a replica repairs the whole
table before it answers (the local sidecar refills it between queries; the answers are the same)."""


@dataclass(slots=True)
class _Held:
    generation: int
    revision: int
    entry: GraphEntry
    nbytes: int


def _identity(value: Any) -> Any:
    return value


class GraphHolder:
    """Graphs by id at the revision last asked for.

    Args:
        budget_bytes: the estimated bytes (``entries.footprint``) the held graphs may take; past it
            the least recently used others go (the one just asked for stays, whatever its size).
        resolve: a snapshot or log item ref -> its value (``ray.get`` in the cluster).
    """

    def __init__(self, budget_bytes: int, resolve: Callable[[Any], Any] = _identity) -> None:
        self.budget_bytes = budget_bytes
        self.resolve = resolve
        self.evicted = 0
        self._held: OrderedDict[str, _Held] = OrderedDict()
        self._lock = threading.Lock()  # the table; one lock per graph id serialises its changes
        self._graph_locks: dict[str, threading.Lock] = {}

    def _graph_lock(self, graph_id: str) -> threading.Lock:
        with self._lock:
            return self._graph_locks.setdefault(graph_id, threading.Lock())

    def held(self) -> dict[str, tuple[int, int]]:
        """``{graph id: (generation, revision)}`` of what is held now."""
        with self._lock:
            return {g: (h.generation, h.revision) for g, h in self._held.items()}

    def entry(self, target: Target, progress: ProgressThrottle | None = None) -> GraphEntry | int:
        """``target``'s graph at its revision; or the revision held (0: none) when ``target.log``
        starts after it (the caller sends the log from there)."""
        with self._graph_lock(target.ref.graph_id):
            got = self._at(target, progress)
            return got if isinstance(got, int) else got.entry

    def apply(
        self, target: Target, item: LogItem, progress: ProgressThrottle | None = None
    ) -> GraphEntry | int:
        """Apply ``item`` on ``target``'s graph at its revision (the change the gateway logs as
        revision ``target.revision + 1`` once this succeeds); on an error the graph is dropped
        (rebuilt from the log when next asked for) and the error raised."""
        with self._graph_lock(target.ref.graph_id):
            got = self._at(target, progress)
            if isinstance(got, int):
                return got
            try:
                self._apply(got, item, progress)
            except BaseException:
                self._forget(target.ref.graph_id, got)
                raise
            self._keep(target.ref.graph_id, got)
            return got.entry

    def load(self, ref: GraphRef, progress: ProgressThrottle | None = None) -> GraphEntry:
        """Build a new load (revision 0), replacing any older generation held."""
        with self._graph_lock(ref.graph_id):
            held = self._build(ref, progress)
            self._keep(ref.graph_id, held)
            return held.entry

    def drop(self, graph_id: str) -> None:
        """Forget a graph (dropped by the client)."""
        with self._lock:
            self._held.pop(graph_id, None)
            self._graph_locks.pop(graph_id, None)

    # -- inside a graph's lock ----------------------------------------------------------------

    def _at(self, target: Target, progress: ProgressThrottle | None) -> _Held | int:
        held = self._current(target)
        if held is None:
            if target.base > 0 or target.ref.snapshot is None:
                return 0
            held = self._build(target.ref, progress)
        if held.revision < target.base:
            return held.revision
        try:
            for item in target.missing(held.revision):
                self._apply(held, self.resolve(item), progress)
        except BaseException:
            self._forget(target.ref.graph_id, held)  # part-way: rebuilt from the log next time
            raise
        self._keep(target.ref.graph_id, held)
        return held

    def _current(self, target: Target) -> _Held | None:
        with self._lock:
            held = self._held.get(target.ref.graph_id)
        if held is None or held.generation != target.ref.generation or held.revision > target.revision:
            return None
        return held

    def _build(self, ref: GraphRef, progress: ProgressThrottle | None) -> _Held:
        record = self.resolve(ref.snapshot)
        request = LoadRequest(ref.graph_id, KINDS[ref.kind], record, ref.hierarchy)
        entry = entries.build_entry(request, progress)
        return _Held(ref.generation, 0, entry, entries.footprint(entry))

    def _apply(self, held: _Held, item: LogItem, progress: ProgressThrottle | None) -> None:
        what, value = item
        entry = held.entry
        if what == UPDATE:
            entry.graph.apply(entry.kind.parse_update(Params(value, "graph.update"), entry.graph))
            while entry.graph.repair_pending(REPAIR_SLICE):
                pass
            entry = dataclasses.replace(entry, version=entry.version + 1)
        elif what == BUILD:
            assert isinstance(value, HierarchySpec)
            validate_hierarchy(entry.graph, value, "graph.build_hierarchy", entry.graph_id)
            state = HierarchyState(value)
            entries.build_hierarchy(entry, state, progress)
            entry = dataclasses.replace(entry, hierarchy=state)
        else:
            raise ValueError(f"unknown log item {what!r}")
        held.entry, held.revision, held.nbytes = entry, held.revision + 1, entries.footprint(entry)

    def _keep(self, graph_id: str, held: _Held) -> None:
        """Hold ``held`` as the most recently used; drop the least recently used others past the
        budget (a query on them holds its entry meanwhile: Python keeps it alive)."""
        with self._lock:
            self._held[graph_id] = held
            self._held.move_to_end(graph_id)
            total = sum(h.nbytes for h in self._held.values())
            for other in list(self._held):
                if total <= self.budget_bytes or other == graph_id:
                    break
                total -= self._held.pop(other).nbytes
                self.evicted += 1

    def _forget(self, graph_id: str, held: _Held) -> None:
        with self._lock:
            if self._held.get(graph_id) is held:
                del self._held[graph_id]
