"""The search half of :class:`~python_core.hpa.HierarchicalGrid`: from two checked cells to a path.

Quick start (through the facade, which validates the cells and calls these)::

    hpa = HierarchicalGrid(grid, cluster_size=16).build()
    hpa.find_path((3, 3), (60, 70))      # -> _tree_search, or _search -> _refine -> _finish

With cached trees a query is one compiled call (:mod:`~python_core.hpa.query.tree_query`).
Without, its ends are inserted into their clusters (:mod:`~python_core.hpa.query.endpoints`),
the abstract graph searched (level 2's first when the ends lie in different regions), the chain
of transitions refined into cells (:mod:`~python_core.hpa.query.refine`), optionally tightened by
a corridor search, then smoothed; a short smoothed path that may be a detour is checked against
the grid's exact search (:data:`CHECK_SLACK`).
"""

from __future__ import annotations

import importlib
import math
import threading
from dataclasses import replace
from typing import Any

import numpy as np
import numpy.typing as npt

from python_core._types import F64, I64
from python_core.grid import GridGraph
from python_core.grid.cells import Cell, world_points
from python_core.grid.search import dispatch
from python_core.grid.search.heuristics import HEURISTIC_CODES, resolve_heuristic
from python_core.hpa.graph.abstract_graph import AbstractGraph
from python_core.hpa.graph.upper_level import Packed, UpperLevel
from python_core.hpa.query.abstract_search import (
    ABSTRACT_BUDGET,
    ABSTRACT_FOUND,
    ABSTRACT_NO_PATH,
    LANDMARK_WEIGHT,
    abstract_alt,
    node_chain,
)
from python_core.hpa.query.corridor import corridor_astar
from python_core.hpa.query.endpoints import EndpointTree, insert_endpoint
from python_core.hpa.query.refine_ends import refine_from_both_ends
from python_core.hpa.query.scratch import QueryScratch, ScratchPool
from python_core.hpa.query.smoothing import SMOOTH_PASSES, path_cost, smooth_passes
from python_core.hpa.query.tree_query import tree_query, tree_static
from python_core.hpa.query.upper_search import link_costs, upper_chain
from python_core.result import PathResult, PathStatus, QueryOptions

__all__ = ["CHECK_SLACK", "HierarchySearches"]


CHECK_SLACK = 1.10
"""The worst cost ratio a short path may keep (``exact_check``): one costing more than this times
its obstacle-free bound, a lower bound of the optimum, is checked; any other is within it already.
A tighter slack re-runs more short queries for little gain in the worst case, a looser one lets
worse detours through."""

_COUNTING = threading.Lock()  # checked_queries += 1 from concurrent queries (rare: a re-run query)

_ENTRIES: dict[int, tuple[Any, Any]] = {}
"""Per record type (by identity: numba interns its types), :func:`tree_query`'s compiled entry."""


def _tree_entry(static: Any) -> Any:
    """What calls :func:`tree_query` on ``static``: its machine code's entry for the record's type,
    once compiled (numba's dispatcher types the seven arguments again on every call: 0.5 us of a
    query), else the dispatcher itself (it compiles or loads the code; without numba, the function)."""
    kind = getattr(static, "_numba_type_", None)
    if kind is None:
        return tree_query
    kept = _ENTRIES.get(id(kind))
    if kept is not None and kept[0] is kind:
        return kept[1]
    int64 = importlib.import_module("numba.core.types").int64  # numba is there: the record is its
    compiled = tree_query.overloads.get((int64,) * 6 + (kind,))  # type: ignore[attr-defined]
    if compiled is None:  # not compiled for this type yet: the dispatcher's first call does it
        return tree_query
    _ENTRIES[id(kind)] = (kind, compiled.entry_point)
    return compiled.entry_point


class HierarchySearches:
    """The query methods of :class:`~python_core.hpa.HierarchicalGrid`, over the state it keeps.

    The facade owns every attribute below (set in its constructor, :meth:`build` and its
    changes); this class only reads them, and writes the :class:`QueryScratch` each query is given
    (its own: queries may run in several threads at once).
    """

    _grid: GridGraph
    _graph: AbstractGraph
    _upper: UpperLevel | None
    _walk: npt.NDArray[np.uint8]
    _weights: F64
    _diag: int
    _window: int
    _abstract_weight: float
    _alt_weight: float
    _line_bias: float
    _min_weight: float
    _one_weight: float
    _check_reach: float
    _table_optimal: bool
    _packed: Packed
    _pool: ScratchPool
    _built: bool
    _version: int
    checked_queries: int

    def find_plain(self, start: Any, goal: Any, options: QueryOptions, smooth: bool) -> PathResult | None:
        """:meth:`~python_core.hpa.HierarchicalGrid.find_path`'s answer (``corridor`` off) to the
        usual game query, with a third of its Python (its general checks cost a hierarchical request
        5-9 us through the socket): ends given as two tuples of ints inside the grid, the start
        walkable, ``options`` asking no heuristic, agent, unit size or partial path (a budget
        may be given), the hierarchy built, current, its tables priced and its cluster trees kept
        (one compiled call); None for any other query, which ``find_path`` then answers (and raises
        for).

        Example:
            >>> from python_core.grid import GridGraph
            >>> from python_core.hpa import HierarchicalGrid
            >>> hpa = HierarchicalGrid(GridGraph(np.ones((8, 8), bool)), cluster_size=4).build()
            >>> plain = hpa.find_plain((0, 0), (7, 7), QueryOptions(), True)
            >>> plain.cost == hpa.find_path((0, 0), (7, 7)).cost
            True
            >>> hpa.find_plain((0, 0), (9, 9), QueryOptions(), True) is None  # find_path raises
            True
        """
        budget = options.max_expansions
        if (
            options.heuristic is not None or options.agent is not None or options.allow_partial
            or options.size != 1 or options.radius is not None
            or (budget is not None and (type(budget) is not int or budget < 0))
            or type(start) is not tuple or type(goal) is not tuple or len(start) != 2 or len(goal) != 2
        ):  # fmt: skip
            return None
        (sx, sy), (gx, gy) = start, goal
        graph = self._graph
        w, h = graph.width, graph.height
        if not (
            type(sx) is int and type(sy) is int and type(gx) is int and type(gy) is int
            and 0 <= sx < w and 0 <= sy < h and 0 <= gx < w and 0 <= gy < h
            and self._built and self._grid.version == self._version and self._walk[sy * w + sx]
        ):  # fmt: skip
            return None
        s, g = sy * w + sx, gy * w + gx
        if s == g:
            return self._result(PathStatus.FOUND, np.array([s], dtype=np.int64), 0)
        if not graph.tables_ready or not graph.has_trees:
            return None
        hcode = HEURISTIC_CODES[resolve_heuristic(None, eight_connected=self._diag != 0)]
        scratch = self._pool.take()  # this query's own: other threads may be querying too
        try:
            found = self._tree_search(scratch, s, g, hcode, budget, smooth)
        finally:
            self._pool.give(scratch)
        return self._settle(found, s, g, options, smooth=smooth, trees=True)

    def _settle(
        self, found: PathResult | None, s: int, g: int, opts: QueryOptions, *, smooth: bool, trees: bool
    ) -> PathResult:
        """A search's answer as the query's: checked against the exact search when it may be a
        short detour (:meth:`_checked`; by the tree query only when short: most paths are too long
        to check), the exact search's partial path when the ends are not connected and
        ``allow_partial`` asks for one, else ``no_path``."""
        width = self._grid.width
        start, goal = (s % width, s // width), (g % width, g // width)
        if found is not None:
            check = smooth and (not trees or (not self._table_optimal and found.cost <= self._check_reach))
            return self._checked(found, start, goal, opts) if check else found
        if opts.allow_partial:
            return self._grid.find_path(start, goal, options=replace(opts, ignore_agents=True))
        return PathResult(PathStatus.NO_PATH)

    def _checked(self, found: PathResult, start: Cell, goal: Cell, opts: QueryOptions) -> PathResult:
        """``found``, or the grid's exact path when ``found`` is short and may be a detour.

        Short: its cost is within ``exact_check`` cluster sides at the cheapest weight, so the
        exact search stays inside that radius. May be a detour: it costs over ``CHECK_SLACK`` times
        the obstacle-free cost at the cheapest weight (a lower bound); below that, the bound says
        it is within that ratio of optimal already.
        """
        if found.status is not PathStatus.FOUND:
            return found
        if found.cost > self._check_reach:
            return found
        (cw, ch), weight = self._grid.cell_size, self._min_weight
        nx, ny = abs(goal[0] - start[0]), abs(goal[1] - start[1])
        if self._diag:  # diagonal steps for the shorter side, straight ones for the rest
            both = min(nx, ny)
            bound = both * math.hypot(cw, ch) + (nx - both) * cw + (ny - both) * ch
        else:
            bound = nx * cw + ny * ch
        if found.cost <= CHECK_SLACK * bound * weight:
            return found
        with _COUNTING:
            self.checked_queries += 1
        exact_opts = replace(opts, ignore_agents=True, allow_partial=False, max_expansions=None, agent=None)
        exact = dispatch.find_path(self._grid, start, goal, options=exact_opts)
        return exact if exact.found and exact.cost < found.cost else found

    def _record(self, scratch: QueryScratch) -> Any:
        """The TreeStatic of ``scratch``: everything but the per-query values, kept until a change."""
        if scratch.tree_args is None:
            graph = self._graph
            ox, oy = self._grid.origin
            scratch.tree_args = tree_static(
                self._walk, self._weights, graph.width, graph.height, graph.csize, self._diag, graph.cw,
                graph.ch, self._min_weight, self._abstract_weight, graph.node_cell, graph.cl_first,
                graph.cl_doff, graph.dist_flat, graph.inter_off, graph.inter_dst, graph.inter_cost,
                graph.node_cluster, graph.tree_pool, graph.tree_off, graph.uniform, graph.pair_dist,
                graph.pair_pred, graph.pair_stale, graph.labels, graph.comp_off, graph.comp_id, scratch.g,
                scratch.parent, scratch.stamps, scratch.heap_nodes, scratch.heap_keys, scratch.heap_pos,
                self._window, self._one_weight, graph.exact, self._packed, scratch.scratch2, float(ox),
                float(oy), self._line_bias,
            )  # fmt: skip
        return scratch.tree_args

    def _tree_search(  # noqa: PLR0917
        self, scratch: QueryScratch, s: int, g: int, hcode: int, budget: int | None, smooth: bool
    ) -> PathResult | None:
        """One :func:`tree_query` call; None when the ends are not connected."""
        static = self._record(scratch)
        outcome, nodes, points, cost, expanded = _tree_entry(static)(
            s, g, hcode, -1 if budget is None else budget, SMOOTH_PASSES if smooth else 0,
            scratch.next_query(), static,
        )  # fmt: skip
        if outcome == ABSTRACT_FOUND:  # positional: a quarter less time than by keyword
            return PathResult(PathStatus.FOUND, points, nodes, cost, expanded)
        return None if outcome == ABSTRACT_NO_PATH else self._failed(outcome, expanded)

    def _endpoint(self, cell: int, reverse: int, other: int) -> EndpointTree:
        """Insert ``cell`` into its cluster: costs to its transitions, then to ``other`` when that
        lies in the same cluster (``reverse``: costs towards the cell)."""
        graph = self._graph
        cluster = graph.cluster_of(cell)
        x0, y0, lw, lh = graph.rect(cluster)
        stops = graph.trans[cluster]
        if graph.cluster_of(other) == cluster:
            stops = np.append(stops, other)
        return insert_endpoint(
            self._walk, self._weights, graph.width, x0, y0, lw, lh, self._diag, graph.cw, graph.ch,
            cell, reverse, self._min_weight, stops, self._one_weight,
        )  # fmt: skip

    def _search(  # noqa: PLR0917
        self,
        scratch: QueryScratch,
        s: int,
        g: int,
        hcode: int,
        budget: int | None,
        smooth: bool,
        corridor: bool,
    ) -> PathResult:
        graph = self._graph
        # one after the other, not on the second core: each takes about 0.1 ms (a 32 x 32 cluster),
        # about what the helper takes to wake, and a helper that missed its start is left alone
        # for a while, so the refinement's halves (several times longer) would lose it too
        head, tail = self._endpoint(s, 0, g), self._endpoint(g, 1, s)
        first, last = graph.cluster_of(s), graph.cluster_of(g)
        k = int(graph.cl_first[first + 1] - graph.cl_first[first])
        direct = float(head.costs[k]) if first == last else np.inf  # the goal is the last stop
        lo = int(graph.cl_first[first])
        qid = scratch.next_query()
        upper = self._upper
        if upper is not None and upper.region_of[first] != upper.region_of[last]:
            outcome, chain, expanded = upper_chain(
                graph.node_cell, graph.cl_first, graph.cl_doff, graph.dist_flat, graph.node_cluster,
                graph.inter_off, graph.inter_dst, graph.inter_cost, graph.width, graph.cw, graph.ch, hcode,
                self._min_weight, self._abstract_weight, -1 if budget is None else budget, self._packed,
                first, np.arange(lo, lo + k, dtype=np.int64), head.costs[:k], last, tail.costs, g, qid,
                scratch.scratch2, self._line_bias, s,
            )  # fmt: skip
            if outcome != ABSTRACT_FOUND:
                return self._failed(outcome, expanded)
            costs = link_costs(
                graph.cl_first, graph.cl_doff, graph.dist_flat, graph.node_cluster, graph.inter_off,
                graph.inter_dst, graph.inter_cost, chain,
            )  # fmt: skip
            return self._finish(s, g, self._cells(chain, costs, head, tail), expanded, smooth, corridor)
        weight = self._alt_weight if graph.landmarks.size else self._abstract_weight
        outcome, expanded = abstract_alt(
            graph.node_cell, graph.node_cluster, graph.cl_first, graph.cl_doff, graph.dist_flat,
            graph.inter_off, graph.inter_dst, graph.inter_cost, graph.width, graph.cw, graph.ch, hcode,
            self._min_weight, np.arange(lo, lo + k, dtype=np.int64), head.costs[:k],
            last, tail.costs, direct, g, -1 if budget is None else budget,
            scratch.g, scratch.parent, scratch.stamps, qid, scratch.heap_nodes, scratch.heap_keys,
            scratch.heap_pos, weight, self._line_bias, s, graph.landmarks, min(weight, LANDMARK_WEIGHT),
            int(self._one_weight > 0.0),
        )  # fmt: skip
        if outcome != ABSTRACT_FOUND:
            return self._failed(outcome, expanded)
        return self._finish(s, g, self._refine(scratch, g, head, tail), expanded, smooth, corridor)

    @staticmethod
    def _failed(outcome: int, expanded: int) -> PathResult:
        """The result of an abstract search that found nothing: out of budget, or no path (which
        cannot happen when the components say reachable)."""
        status = PathStatus.BUDGET_EXHAUSTED if outcome == ABSTRACT_BUDGET else PathStatus.NO_PATH
        return PathResult(status, expanded=expanded)

    def _finish(  # noqa: PLR0917
        self, s: int, g: int, nodes: I64, expanded: int, smooth: bool, corridor: bool
    ) -> PathResult:
        """The refined cells, tightened by the corridor search and smoothed as asked."""
        graph = self._graph
        if corridor:
            clusters = np.unique(
                (nodes // graph.width // graph.csize) * graph.ncx + nodes % graph.width // graph.csize
            )
            exact = corridor_astar(
                self._walk, self._weights, graph.width, graph.height, graph.csize, clusters, self._diag,
                graph.cw, graph.ch, s, g, self._min_weight,
            )  # fmt: skip
            nodes = exact if exact.shape[0] else nodes
        nodes, cost = smooth_passes(
            nodes, self._walk, self._weights, graph.width, self._diag, graph.cw, graph.ch, self._window,
            SMOOTH_PASSES if smooth else 0, self._one_weight,
        )  # fmt: skip
        return self._result(PathStatus.FOUND, nodes, expanded, cost)

    def _refine(self, scratch: QueryScratch, g: int, head: EndpointTree, tail: EndpointTree) -> I64:
        """Concrete cells: start -> first transition -> ... -> last transition -> goal."""
        graph, width = self._graph, self._graph.width
        if int(scratch.parent[graph.node_count]) == -2:
            return head.path_to(g, width)
        ids = node_chain(scratch.parent, graph.node_count)
        return self._cells(ids, np.diff(scratch.g[ids]), head, tail)  # exact table or crossing costs

    def _cells(self, ids: I64, costs: F64, head: EndpointTree, tail: EndpointTree) -> I64:
        """Concrete cells along a chain of transitions whose link costs are ``costs``."""
        graph, width = self._graph, self._graph.width
        chain = graph.node_cell[ids]
        grid = (
            self._walk, self._weights, width, graph.height, graph.csize, self._diag, graph.cw, graph.ch,
            self._min_weight, self._one_weight,
        )  # fmt: skip
        middle = refine_from_both_ends(grid, chain, costs)
        # the goal's tree is a reverse search: its parent pointers lead towards the goal
        ending = tail.path_to(int(chain[-1]), width)[::-1]
        return np.concatenate((head.path_to(int(chain[0]), width)[:-1], middle, ending[1:]))

    def _result(self, status: PathStatus, nodes: I64, expanded: int, cost: float | None = None) -> PathResult:
        grid = self._grid
        w, (cw, ch), (ox, oy) = grid.width, grid.cell_size, grid.origin
        if nodes.shape[0] == 1:  # a start that is the goal: no step to price, one point to place
            cell = int(nodes[0])  # (the two kernel calls below took 1.5 of this call's 2.1 us)
            x, y = cell % w, cell // w
            points = np.array([[float(ox) + x * float(cw), float(oy) + y * float(ch)]])
            return PathResult(status, points=points, nodes=nodes, cost=0.0 if cost is None else float(cost),
                              expanded=expanded)  # fmt: skip
        if cost is None:
            cost = float(path_cost(nodes, self._weights, w, cw, ch))
        points = world_points(nodes, w, float(ox), float(oy), float(cw), float(ch))
        return PathResult(status, points=points, nodes=nodes, cost=float(cost), expanded=expanded)
