"""What one HPA* query writes, kept per running query: any number of threads may query one hierarchy.

Quick start (:class:`~python_core.hpa.HierarchicalGrid` does this around every query)::

    pool = ScratchPool()
    pool.renew(graph.node_count + 1, upper)   # after a build or a change (the write side)
    scratch = pool.take()                     # an idle set, or a new one
    try:
        qid = scratch.next_query()            # ... the search writes scratch.g, .parent, ...
    finally:
        pool.give(scratch)

A set holds the abstract search's arrays (one slot per level-1 node and one for the goal), level
2's scratch, the query number its stamps use and the query record (a ``TreeStatic``) built over
them. The pool keeps the idle sets: as many exist as queries ever ran at the same time, each
reused, so the single-threaded path allocates nothing per query. A change (never concurrent with
queries: the caller's readers-writer lock) only counts a new generation; each set brings itself up
to it when next taken (its record rebuilt, level 2's scratch sized again, the level-1 arrays kept
while their size is, with their stamps and query number).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from python_core._types import F64, I32
from python_core.hpa.graph.upper_level import NO_SCRATCH, Scratch, UpperLevel
from python_core.hpa.query.abstract_search import QID_LIMIT
from python_core.hpa.query.upper_search import clear_stamps

__all__ = ["QueryScratch", "ScratchPool"]


class QueryScratch:
    """One query's scratch: the abstract A*'s arrays, level 2's, its query number and record.

    Example:
        >>> s = QueryScratch(4, NO_SCRATCH, 0); s.next_query(), s.g.shape, s.tree_args is None
        (1, (4,), True)
    """

    __slots__ = (
        "g", "generation", "heap_keys", "heap_nodes", "heap_pos", "parent", "qid", "scratch2", "stamps",
        "tree_args",
    )  # fmt: skip

    def __init__(self, size: int, scratch2: Scratch, generation: int) -> None:
        self.g: F64 = np.full(size, np.inf)
        self.parent: I32 = np.full(size, -1, dtype=np.int32)
        self.stamps: I32 = np.zeros(size, dtype=np.int32)
        self.heap_nodes: I32 = np.zeros(size, dtype=np.int32)
        self.heap_keys: F64 = np.zeros(size)
        self.heap_pos: I32 = np.zeros(size, dtype=np.int32)
        self.scratch2 = scratch2
        self.qid = 0
        self.tree_args: Any = None  # a TreeStatic over these arrays, built by the first tree query
        self.generation = generation

    @property
    def size(self) -> int:
        """Slots of the level-1 arrays."""
        return int(self.g.shape[0])

    def next_query(self) -> int:
        """A new query number for the stamps; at ``QID_LIMIT`` the stamps are zeroed and numbering
        starts again (once per billion queries), in place: the record holds these arrays."""
        self.qid += 1
        if self.qid >= QID_LIMIT:
            self.stamps[:] = 0
            clear_stamps(self.scratch2)  # level 2's (empty without it)
            self.qid = 1
        return self.qid

    def next_queries(self, count: int) -> int:
        """The first of ``count`` fresh query numbers, all below ``QID_LIMIT`` (a batch numbers its
        queries from it); the stamps are zeroed first when they would not be."""
        if self.qid + count >= QID_LIMIT:
            self.stamps[:] = 0
            clear_stamps(self.scratch2)
            self.qid = 0
        first = self.qid + 1
        self.qid += count
        return first

    def nbytes(self) -> int:
        """Bytes of its arrays."""
        arrays = (self.g, self.parent, self.stamps, self.heap_nodes, self.heap_keys, self.heap_pos)
        return sum(int(a.nbytes) for a in (*arrays, *self.scratch2))


class ScratchPool:
    """The idle :class:`QueryScratch` sets of one hierarchy (``list.pop`` / ``append`` are atomic).

    Example:
        >>> pool = ScratchPool(); pool.renew(3, None)
        >>> a = pool.take(); b = pool.take(); pool.give(a); pool.give(b); len(pool.idle())
        2
    """

    def __init__(self) -> None:
        self._spare: list[QueryScratch] = []
        self._size = 1
        self._upper: UpperLevel | None = None
        self._generation = 0

    def __getstate__(self) -> dict[str, Any]:
        """Pickles and copies keep no set (a record is a compiled object neither can copy)."""
        return {"size": self._size, "upper": self._upper, "generation": self._generation}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._spare = []
        self._size, self._upper, self._generation = state["size"], state["upper"], state["generation"]

    def renew(self, size: int, upper: UpperLevel | None) -> None:
        """The write side, after a build or a change: sets are brought up to date when taken.
        One set is kept ready, so a single thread's first query allocates nothing."""
        self._generation += 1
        self._size, self._upper = size, upper
        if not self._spare:
            self._spare.append(self._new())

    def take(self) -> QueryScratch:
        """An idle set brought up to date, or a new one when every set is in use."""
        try:
            scratch = self._spare.pop()
        except IndexError:
            return self._new()
        return scratch if scratch.generation == self._generation else self._refreshed(scratch)

    def give(self, scratch: QueryScratch) -> None:
        """Put a set back after its query."""
        self._spare.append(scratch)

    def idle(self) -> list[QueryScratch]:
        """The idle sets (a copy of the list)."""
        return list(self._spare)

    def _new(self) -> QueryScratch:
        upper = self._upper
        return QueryScratch(
            self._size, NO_SCRATCH if upper is None else upper.new_scratch(), self._generation
        )

    def _refreshed(self, scratch: QueryScratch) -> QueryScratch:
        if scratch.size != self._size:
            return self._new()
        scratch.scratch2 = NO_SCRATCH if self._upper is None else self._upper.new_scratch()
        scratch.tree_args = None
        scratch.generation = self._generation
        return scratch
