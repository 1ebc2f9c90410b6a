"""Reachability, and the answers of a hierarchy whose cluster tables are still being priced.

Quick start::

    hpa = HierarchicalGrid(big_grid, defer_tables=True).build()   # returns before the tables
    hpa.find_path((0, 0), (4000, 4000))  # exact search until hpa.tables_ready, then HPA*
    hpa.wait_tables()                     # True once every table is priced

A deferred build (:mod:`~python_core.hpa.graph.table_fill`) leaves the cluster tables to
background threads; until they are all priced, a query is answered by the grid's exact search
(optimal, so never worse than HPA*'s answer) and reachability by the component labels, which
the build made first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from python_core.grid import GridGraph
from python_core.grid.cells import as_cell
from python_core.grid.search import dispatch
from python_core.hpa.graph.abstract_graph import AbstractGraph
from python_core.result import PathResult, PathStatus, QueryOptions

__all__ = ["DeferredTables", "defer_for"]

DEFER_CELLS = 1024 * 1024
"""Grids of at least this many cells defer their tables and trees by default (unless an all-pairs
table is kept): a 1024 x 1024 map's trees are tens of seconds of single-core work, a load
waits for none of it, and queries meanwhile are exact."""


def defer_for(defer_tables: bool | None, cells: int) -> bool:
    """Whether a build defers its cluster tables: as told, or (None) on grids of
    :data:`DEFER_CELLS` cells and more.

    Example:
        >>> defer_for(None, 1024 * 1024), defer_for(None, 512 * 512), defer_for(True, 64)
        (True, False, True)
    """
    return cells >= DEFER_CELLS if defer_tables is None else bool(defer_tables)


class DeferredTables:
    """The reachability and deferred-table methods of :class:`~python_core.hpa.HierarchicalGrid`
    (the facade owns the attributes below)."""

    _grid: GridGraph
    _graph: AbstractGraph

    def for_size(self, size: int) -> DeferredTables:
        raise NotImplementedError  # the facade's

    def _require_built(self) -> None:
        raise NotImplementedError  # the facade's

    @property
    def tables_ready(self) -> bool:
        """Whether every cluster table is priced: queries run HPA* (else the exact search)."""
        return self._graph.tables_ready

    def wait_tables(self, timeout: float | None = None) -> bool:
        """Wait up to ``timeout`` seconds (None: as long as it takes) for a deferred build's
        background tables; True when they are all priced (at once when nothing was deferred)."""
        return self._graph.wait_tables(timeout)

    def _exact_meanwhile(self, s: int, g: int, opts: QueryOptions) -> PathResult:
        """A query while the tables are priced: one exact search of the grid, for a connected
        pair's path and for the partial path ``allow_partial`` asks toward a goal it cannot
        reach alike. Agents are ignored (as by HPA*) and ``max_expansions`` counts abstract
        expansions, so it bounds no search here; an unreachable goal without ``allow_partial``
        is ``no_path`` from the component labels, with no search."""
        if not opts.allow_partial and not self._connected(s, g):
            return PathResult(PathStatus.NO_PATH)
        width = self._grid.width
        exact = replace(opts, ignore_agents=True, agent=None, max_expansions=None)
        return dispatch.find_path(self._grid, (s % width, s // width), (g % width, g // width), options=exact)

    def is_reachable(self, start: Sequence[int], goal: Sequence[int], *, size: int = 1) -> bool:
        """Whether any path joins two cells (exact; agents ignored), in O(1) from component labels.

        ``size``: for a unit of that many cells a side, between two anchors (from its layer,
        built on first use; an anchor without room for the footprint joins nothing).

        Raises:
            InvalidQueryError: malformed cells, or a size not in [1, 255].
            OutOfBoundsError: a cell outside the grid.

        Example:
            >>> from python_core.hpa import HierarchicalGrid
            >>> g = GridGraph.from_strings(["..@..", "..@.."])
            >>> HierarchicalGrid(g, cluster_size=4).build().is_reachable((0, 0), (4, 1))
            False
        """
        w, h = self._grid.width, self._grid.height
        sx, sy = as_cell(start, w, h, what="start")
        gx, gy = as_cell(goal, w, h, what="goal")
        if size != 1:
            return self.for_size(size).is_reachable((sx, sy), (gx, gy))
        self._require_built()
        return self._connected(sy * w + sx, gy * w + gx)

    def _connected(self, s: int, g: int) -> bool:
        """Whether two flat cells share a component (walls share none)."""
        a = self._graph.component_of(s)
        return a >= 0 and a == self._graph.component_of(g)
