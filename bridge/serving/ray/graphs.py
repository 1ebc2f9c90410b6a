"""What names a graph's state across the cluster: its snapshot, its ordered log, a revision of both.

A graph is its load record (the *snapshot*, put in Ray's object store once) plus an ordered log of
changes (``graph.update`` field maps and hierarchy builds). Revision ``r`` is the snapshot with the
first ``r`` log items applied; every request a replica serves names the revision it must see
(:class:`Target`), with the log items after ``base`` that the gateway thinks the replica lacks.

    ref = GraphRef("g", generation=1, kind="grid", snapshot=record, hierarchy=None)
    target = Target(ref, revision=0, base=0, log=())
    assert target.missing(0) == ()

Nothing here imports Ray: the snapshot and log items are Ray object refs in the cluster and plain
values in process (tests, the gateway's own copy for flow fields).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from bridge.methods.hierarchy_params import HierarchySpec

__all__ = ["BUILD", "UPDATE", "GraphRef", "GraphState", "LogItem", "Target"]

UPDATE = "update"
"""A log item ``(UPDATE, values)``: a ``graph.update`` parameter map, applied all or nothing."""
BUILD = "hierarchy"
"""A log item ``(BUILD, spec)``: a ``graph.build_hierarchy`` with that :class:`HierarchySpec`."""

LogItem = tuple[str, Any]


@dataclass(frozen=True, slots=True)
class GraphRef:
    """One load of a graph id (a reload is a new ``generation``): enough to build it anywhere.

    Attributes:
        graph_id: the client's id.
        generation: the gateway's serial number of this load (ids are reused by reloads).
        kind: the wire kind's name (``bridge.methods.kinds.KINDS``).
        snapshot: the validated load record (a Ray object ref in the cluster), never changed; None
            in a target that needs no rebuild (see :meth:`GraphState.target`).
        hierarchy: the hierarchy the load asked for, built on the replica.
    """

    graph_id: str
    generation: int
    kind: str
    snapshot: Any
    hierarchy: HierarchySpec | None


@dataclass(frozen=True, slots=True)
class Target:
    """A graph at a revision, with the log items ``base + 1 .. revision`` (each a log item, or a
    Ray object ref of one)."""

    ref: GraphRef
    revision: int
    base: int
    log: tuple[Any, ...]

    def missing(self, have: int) -> tuple[Any, ...]:
        """The items a holder at revision ``have`` (``base <= have <= revision``) must apply."""
        return self.log[have - self.base : self.revision - self.base]


@dataclass(slots=True)
class GraphState:
    """A loaded graph as the gateway keeps it: its load, its log (object refs of the items, in
    order), and what ``graph.info`` says of it at the last revision (the replica that applied the
    last change described it)."""

    ref: GraphRef
    info: dict[str, Any]
    nbytes: int
    log: list[Any] = field(default_factory=list)

    @property
    def revision(self) -> int:
        return len(self.log)

    def target(self, base: int) -> Target:
        """This graph at its revision, with the log items after ``base`` (clamped to the log). Only
        a target from revision 0 carries the snapshot's object ref: a holder that has the graph needs
        none, and every object ref in a call costs Ray a borrower's round of messages."""
        base = max(0, min(base, self.revision))
        ref = self.ref if base == 0 else dataclasses.replace(self.ref, snapshot=None)
        return Target(ref, self.revision, base, tuple(self.log[base:]))
