"""The batch half of :class:`~python_core.hpa.HierarchicalGrid`'s queries: many pairs at once.

Quick start (through the facade)::

    hpa = HierarchicalGrid(grid, cluster_size=16).build()
    batch = hpa.find_batch([(0, 0), (5, 5)], [(60, 70), (5, 5)])   # one PathBatch of flat arrays
    results = hpa.find_many([(0, 0)], [(60, 70)])                  # the same answers as PathResults

With cached trees (and no ``corridor``) the searches of a batch run in one compiled call
(:meth:`HierarchySearches._tree_batch`); only the answers that need a second look cost Python.
:meth:`HierarchyBatches.length_estimates` lets a caller share a batch out between threads.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import numpy.typing as npt

from python_core._types import F64, I64
from python_core.errors import InvalidQueryError
from python_core.grid.cells import check_options
from python_core.grid.search.heuristics import HEURISTIC_CODES, resolve_heuristic
from python_core.hpa.query.abstract_search import ABSTRACT_FOUND, ABSTRACT_NO_PATH
from python_core.hpa.query.estimates import NO_TABLE, path_estimates
from python_core.hpa.query.scratch import QueryScratch, ScratchPool
from python_core.hpa.query.searches import CHECK_SLACK, HierarchySearches
from python_core.hpa.query.smoothing import SMOOTH_PASSES
from python_core.hpa.query.tree_query import tree_query_many
from python_core.path_batch import PathBatch
from python_core.result import PathResult, PathStatus, QueryOptions

__all__ = ["HierarchyBatches"]

_DEFAULTS = QueryOptions()
_NO_CAP = 1 << 62  # a cell cap no batch reaches


class HierarchyBatches(HierarchySearches):
    """The batch query methods of :class:`~python_core.hpa.HierarchicalGrid`, over the state it keeps.

    The facade owns every attribute below and the single-query door (:meth:`find_path`, whose
    checks :meth:`_ends` makes); this class reads them, as :class:`HierarchySearches` does.
    """

    _built: bool
    _version: int
    _pool: ScratchPool

    def find_path(
        self,
        start: Sequence[int],
        goal: Sequence[int],
        *,
        options: QueryOptions | None = None,
        smooth: bool = True,
        corridor: bool = False,
    ) -> PathResult:
        raise NotImplementedError  # the facade's

    def _ends(self, start: Sequence[int], goal: Sequence[int]) -> tuple[int, int]:
        raise NotImplementedError  # the facade's

    def _unit_size(self, options: QueryOptions) -> int:
        raise NotImplementedError  # the facade's

    def for_size(self, size: int) -> HierarchyBatches:
        raise NotImplementedError  # the facade's

    def find_many(
        self,
        starts: npt.ArrayLike,
        goals: npt.ArrayLike,
        *,
        options: QueryOptions | None = None,
        smooth: bool = True,
        corridor: bool = False,
    ) -> list[PathResult]:
        """:meth:`find_path` for each pair, in order, with the same answers and errors (the first
        bad pair raises): :meth:`find_batch`'s answers as results.

        Raises:
            InvalidQueryError: ``starts`` and ``goals`` differ in length (and as :meth:`find_path`).

        Example:
            >>> import numpy as np
            >>> from python_core.grid import GridGraph
            >>> from python_core.hpa import HierarchicalGrid
            >>> hpa = HierarchicalGrid(GridGraph(np.ones((8, 8), bool)), cluster_size=4).build()
            >>> [round(r.cost, 3) for r in hpa.find_many([(0, 0), (1, 1)], [(7, 7), (1, 1)])]
            [9.899, 0.0]
        """
        return self.find_batch(starts, goals, options=options, smooth=smooth, corridor=corridor).results()

    def find_batch(
        self,
        starts: npt.ArrayLike,
        goals: npt.ArrayLike,
        *,
        options: QueryOptions | None = None,
        smooth: bool = True,
        corridor: bool = False,
        max_cells: int | None = None,
    ) -> PathBatch:
        """:meth:`find_many`'s answers as one :class:`PathBatch` of flat arrays. With cached trees
        (and no ``corridor``) the searches run in one compiled call, the GIL released from the first
        to the last, and the kernel's arrays are the batch's: only the few answers that need a
        second look (short paths the exact search checks, no path, start == goal) cost Python.

        ``max_cells`` bounds the memory of a batch of long paths: the batch stops after the first
        query whose path brings its cells to ``max_cells`` or more, and answers only the pairs
        before (at least one; ``len`` of the batch says how many): the caller asks again for the
        rest. None: every pair.

        Raises:
            InvalidQueryError: ``starts`` and ``goals`` differ in length (and as :meth:`find_path`).

        Example:
            >>> import numpy as np
            >>> from python_core.grid import GridGraph
            >>> from python_core.hpa import HierarchicalGrid
            >>> hpa = HierarchicalGrid(GridGraph(np.ones((8, 8), bool)), cluster_size=4).build()
            >>> batch = hpa.find_batch([(0, 0), (1, 1)], [(7, 7), (1, 1)])
            >>> batch.offsets.tolist(), batch.nodes[-1].item(), [s.value for s in batch.statuses()]
            ([0, 8, 9], 9, ['found', 'found'])
        """
        a, b = np.asarray(starts).reshape(-1, 2), np.asarray(goals).reshape(-1, 2)
        if a.shape != b.shape:
            raise InvalidQueryError(f"{len(a)} starts but {len(b)} goals")
        cap = _NO_CAP if max_cells is None else max(1, int(max_cells))
        sized = self._sized_batch(a, b, options, smooth=smooth, corridor=corridor, max_cells=max_cells)
        if sized is not None:
            return sized
        # trees still priced in the background (a deferred build): each query's exact answer
        if corridor or not self._graph.has_trees or not len(a) or not self._graph.tables_ready:
            return self._one_at_a_time(a, b, options, smooth=smooth, corridor=corridor, cap=cap)
        opts = options if options is not None else _DEFAULTS
        if options is not None:
            check_options(opts)
        hcode = HEURISTIC_CODES[resolve_heuristic(opts.heuristic, eight_connected=self._diag != 0)]
        cells = self._all_ends(a, b)
        far = np.flatnonzero(cells[:, 0] != cells[:, 1])
        scratch = self._pool.take()
        try:
            outcomes, batch = self._tree_batch(scratch, cells, far, hcode, opts.max_expansions, smooth, cap)
        finally:
            self._pool.give(scratch)
        if len(batch) < len(cells):  # stopped at the cap: the rows it answered
            cells, far = cells[: len(batch)], far[far < len(batch)]
        return batch.replaced(self._second_looks(cells, far, outcomes, batch, opts, smooth=smooth))

    def _second_looks(
        self, cells: I64, far: I64, outcomes: I64, batch: PathBatch, opts: QueryOptions, *, smooth: bool
    ) -> dict[int, PathResult]:
        """The answers of a kernel batch that are not the kernel's as it gave them: start ==
        goal, no path (a partial path when asked for), out of budget, and the short paths the
        exact search checks."""
        second: dict[int, PathResult] = {}
        for i in np.flatnonzero(cells[:, 0] == cells[:, 1]).tolist():
            second[i] = self._result(PathStatus.FOUND, cells[i, :1].copy(), 0)
        s_cells, g_cells = cells[:, 0], cells[:, 1]
        for i in far[outcomes[far] != ABSTRACT_FOUND].tolist():
            if outcomes[i] == ABSTRACT_NO_PATH:  # a partial path, when asked for, or none
                second[i] = self._settle(
                    None, int(s_cells[i]), int(g_cells[i]), opts, smooth=smooth, trees=True
                )
            else:  # out of budget
                second[i] = self._failed(int(outcomes[i]), int(batch.expanded[i]))
        if smooth and not self._table_optimal:  # short paths may be detours: the exact search checks
            short = far[(outcomes[far] == ABSTRACT_FOUND) & (batch.costs[far] <= self._check_reach)]
            short = short[batch.costs[short] > self._detour_floor(cells[short])]
            for i in short.tolist():
                found = batch.result(i)
                checked = self._settle(found, int(s_cells[i]), int(g_cells[i]), opts, smooth=True, trees=True)
                if checked is not found:
                    second[i] = checked
        return second

    def _detour_floor(self, ends: I64) -> F64:
        """Per ``(start, goal)`` row, the cost at or below which :meth:`_checked` keeps a short path
        without the exact search: ``CHECK_SLACK`` times its obstacle-free bound at the cheapest
        weight, the same float operations in the same order (so the same decisions), for a whole
        batch at once: on brc202d 8 of 100 scenario queries were short but within it, each a
        ``PathResult`` and a call in Python for nothing."""
        width = self._graph.width
        nx = np.abs(ends[:, 1] % width - ends[:, 0] % width).astype(np.float64)
        ny = np.abs(ends[:, 1] // width - ends[:, 0] // width).astype(np.float64)
        (cw, ch), weight = self._grid.cell_size, self._min_weight
        if self._diag:  # diagonal steps for the shorter side, straight ones for the rest
            both = np.minimum(nx, ny)
            bound = both * math.hypot(cw, ch) + (nx - both) * cw + (ny - both) * ch
        else:
            bound = nx * cw + ny * ch
        floor: F64 = CHECK_SLACK * bound * weight
        return floor

    def _sized_batch(
        self,
        a: npt.NDArray[np.generic],
        b: npt.NDArray[np.generic],
        options: QueryOptions | None,
        *,
        smooth: bool,
        corridor: bool,
        max_cells: int | None,
    ) -> PathBatch | None:
        """The batch of a unit larger than one cell, from the size's own layer on its eroded grid
        (:mod:`~python_core.hpa.sizes`); None for size 1."""
        if options is None or not len(a):
            return None
        check_options(options)
        size = self._unit_size(options)
        if size == 1:
            return None
        sized = replace(options, size=1, radius=None)
        return self.for_size(size).find_batch(
            a, b, options=sized, smooth=smooth, corridor=corridor, max_cells=max_cells
        )

    def _one_at_a_time(
        self,
        a: npt.NDArray[np.generic],
        b: npt.NDArray[np.generic],
        options: QueryOptions | None,
        *,
        smooth: bool,
        corridor: bool,
        cap: int,
    ) -> PathBatch:
        """:meth:`find_path` pair by pair (no cached trees, a corridor, tables still being
        priced), stopping once the paths hold ``cap`` cells."""
        results: list[PathResult] = []
        held = 0
        for s, g in zip(a.tolist(), b.tolist(), strict=True):
            results.append(self.find_path(s, g, options=options, smooth=smooth, corridor=corridor))
            held += len(results[-1].nodes)
            if held >= cap:
                break
        return PathBatch.from_results(results)

    def _tree_batch(  # noqa: PLR0917
        self,
        scratch: QueryScratch,
        cells: I64,
        far: I64,
        hcode: int,
        budget: int | None,
        smooth: bool,
        cap: int = 0,
    ) -> tuple[I64, PathBatch]:
        """One :func:`~python_core.hpa.query.tree_query.tree_query_many` call over the rows ``far``
        of ``cells`` (``(start, goal)`` pairs), stopped once the paths hold ``cap`` cells (0: no
        cap): each query's kernel outcome (``ABSTRACT_FOUND`` for the rows not searched) and the
        batch of the rows up to the last one searched (every row unless stopped), its arrays the
        kernel's (the rows not searched have empty paths and are for the caller to answer)."""
        found, offsets, nodes, points, costs, expanded = tree_query_many(
            cells[far, 0], cells[far, 1], hcode, -1 if budget is None else budget,
            SMOOTH_PASSES if smooth else 0, scratch.next_queries(far.shape[0]), self._record(scratch),
            cap if cap > 0 else _NO_CAP,
        )  # fmt: skip
        n = cells.shape[0] if found.shape[0] == far.shape[0] else int(far[found.shape[0] - 1]) + 1
        far = far[: found.shape[0]]
        if far.shape[0] == n:  # every row searched: the kernel's arrays as they are
            return found, PathBatch(np.zeros(n, dtype=np.uint8), costs, expanded, offsets, nodes, points)
        outcomes = np.full(n, ABSTRACT_FOUND, dtype=np.int64)
        all_costs, all_expanded = np.zeros(n), np.zeros(n, dtype=np.int64)
        counts = np.zeros(n, dtype=np.int64)
        outcomes[far], all_costs[far], all_expanded[far] = found, costs, expanded
        counts[far] = np.diff(offsets)
        all_offsets = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(counts, out=all_offsets[1:])
        return outcomes, PathBatch(
            np.zeros(n, dtype=np.uint8), all_costs, all_expanded, all_offsets, nodes, points
        )

    def length_estimates(self, starts: I64, goals: I64) -> F64:
        """A rough length in cells of each path from ``(x, y)`` cell ``starts[i]`` to ``goals[i]``
        (``(n, 2)`` int64; no search, no checks: cells outside the grid are clamped), for sharing
        a batch's work out between threads. With an all-pairs table, the table's distance between
        the first transitions of the ends' clusters, or the ends' distance where that is more (on
        the caves of brc202d the estimate follows the query's time with a correlation of 0.99,
        the ends' distance with 0.48); without one, the ends' distance
        (:func:`~python_core.hpa.query.estimates.path_estimates`)."""
        graph = self._graph
        table = graph.pair_dist
        if not self._built or table.shape[0] != graph.node_count:
            table = NO_TABLE
        scale = min(self._grid.cell_size) * self._min_weight  # table costs to cells
        return path_estimates(
            starts, goals, graph.width, graph.height, graph.csize, graph.ncx, graph.cl_first, table, scale
        )

    def _all_ends(self, a: npt.NDArray[np.generic], b: npt.NDArray[np.generic]) -> I64:
        """:meth:`_ends` of every pair, as ``(n, 2)`` flat cells: checked at once when every cell is
        an integer pair inside the grid and every start is open, else pair by pair (the errors)."""
        w, h = self._graph.width, self._graph.height
        if (
            a.dtype.kind in "iu"
            and b.dtype.kind in "iu"
            and self._built
            and self._grid.version == self._version
        ):
            ab = np.concatenate((a, b), axis=1).astype(np.int64)  # x0 y0 x1 y1 per pair
            if (ab >= 0).all() and (ab[:, 0::2] < w).all() and (ab[:, 1::2] < h).all():
                ends: I64 = ab[:, 1::2] * w + ab[:, 0::2]
                if self._walk[ends[:, 0]].all():
                    return ends
        pairs = zip(a.tolist(), b.tolist(), strict=True)
        return np.array([self._ends(s, g) for s, g in pairs], dtype=np.int64).reshape(-1, 2)
