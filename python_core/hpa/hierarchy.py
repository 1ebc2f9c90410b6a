"""``HierarchicalGrid``: HPA* over a :class:`~python_core.grid.GridGraph`, with local updates.

Quick start::

    from python_core.grid import GridGraph
    from python_core.hpa import HierarchicalGrid
    grid = GridGraph.from_movingai("tests/data/movingai/den312d.map")
    hpa = HierarchicalGrid(grid, cluster_size=16).build(progress=lambda done, total: None)
    path = hpa.find_path((60, 12), (63, 76))        # PathResult, like grid.find_path
    hpa.set_walkable([(10, 10)], False)             # the grid and the touched clusters change

Semantics follow the grid's (cells ``(x, y)``, nodes ``y * width + x``, step cost = step length x
weight of the entered cell, the grid's diagonal rule). The hierarchy models walls and weights;
agents are *not* obstacles at this level (they move every frame, and rebuilding clusters per move
would cost more than it saves): a path may pass through an agent's cell. Steer around agents
locally, or use ``grid.find_path`` when they must block. Paths are near-optimal, not optimal: they
pass through entrance transitions, then are shortcut along straight lines (``smooth=True``).
Reachability is exact and answered without a search. Threads: any number may query at once
(each running query takes its own scratch, :mod:`~python_core.hpa.query.scratch`); a build or a
change must not overlap a query or another change (the caller's readers-writer lock).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from python_core._types import DIAG_CODES
from python_core.errors import BlockedEndpointError, InvalidGraphError, UnsupportedOperationError
from python_core.grid import GridGraph
from python_core.grid.cells import as_cell, check_options
from python_core.grid.clearance import check_size
from python_core.grid.layouts import TileGrid
from python_core.grid.search.heuristics import HEURISTIC_CODES, resolve_heuristic
from python_core.hpa.build_options import check_build_options
from python_core.hpa.deferred import DeferredTables, defer_for
from python_core.hpa.graph.abstract_graph import AbstractGraph, Progress
from python_core.hpa.graph.entrance_merging import merge_span_for
from python_core.hpa.graph.upper_level import NO_UPPER, UpperLevel
from python_core.hpa.query.abstract_search import landmark_search_weight, search_defaults
from python_core.hpa.query.batches import HierarchyBatches
from python_core.hpa.query.scratch import ScratchPool
from python_core.hpa.query.searches import CHECK_SLACK
from python_core.hpa.repair.changes import HierarchyChanges, time_budget
from python_core.hpa.sizes import SizeLayers
from python_core.result import PathResult, PathStatus, QueryOptions

__all__ = ["CHECK_SLACK", "LINE_BIAS", "HierarchicalGrid"]

_DEFAULTS = QueryOptions()
LINE_BIAS = 0.05
"""The default ``line_bias``: on open ground it halves the median query of the abstract search for
a mean cost that does not grow (the band of near-equal paths is no longer expanded whole). Maps
with an all-pairs table run no abstract search and are unaffected."""


class HierarchicalGrid(DeferredTables, HierarchyBatches, HierarchyChanges):
    """HPA* (Botea, Mueller, Schaeffer 2004) over a grid: clusters, entrances, abstract search.

    Args:
        grid: the grid; the hierarchy reads its walls and weights live, so change cells through
            :meth:`set_walkable` / :meth:`set_weights` (or call :meth:`build` again).
        cluster_size: cluster side in cells (``>= 4``); 16-64 suit most maps.
        levels: abstraction levels, 1 or 2. Level 2 groups ``region_clusters`` x
            ``region_clusters`` clusters into regions over the level-1 graph
            (:mod:`~python_core.hpa.graph.upper_level`); a query whose ends lie in different regions
            then searches (or, within ``table_budget``, looks up) the much smaller level-2 graph.
            It pays on the largest maps (4096 x 4096), where the level-1 search dominates.
        region_clusters: level-1 clusters per region side (level 2 only).
        long_entrance: entrances longer than this get two transitions (at their ends), shorter ones
            one: the lightest pair of cells, the middle one on equal weights. A longer entrance
            whose cells differ in weight gets one (its lightest pair) per piece of at most this
            many pairs; on weighted ground a smaller value gives closer paths for more nodes.
        smooth_window: how many path cells ahead the smoother looks from an anchor (farther jumps
            leave fewer anchors: shorter paths, and no more smoothing time).
        abstract_weight: heuristic weight of the abstract search; ``1.0`` keeps it exact over the
            abstract graph, ``w > 1`` expands fewer nodes and bounds its cost by ``w`` times that
            optimum (1.02 expands several times fewer nodes on open 4096 x 4096 maps for a
            fraction of a percent of mean cost there). None (default): 1.02, 1.05 on grids of
            1024 x 1024 cells and more, 1.1 from 2048 x 2048
            (:func:`~python_core.hpa.query.abstract_search.search_defaults`), 1.13 there in a
            search that landmarks guide (``landmark_search_weight``).
        line_bias: how much the abstract search's heuristic adds per unit of a node's distance
            from the straight line between start and goal (world units, at the cheapest weight;
            :func:`~python_core.hpa.query.abstract_search.abstract_astar`). Open ground leaves a wide
            band of near-equal paths that the search would otherwise expand whole; the bound on
            the abstract path becomes ``abstract_weight + line_bias`` times its optimum. ``0``
            turns it off. Unused where a table answers (no abstract search). None (default):
            :data:`LINE_BIAS`, or 0.2 on grids of 1024 x 1024 cells and more.
        tree_budget: bytes that cached cluster trees may take (one byte per cell per transition;
            a 512 x 512 map needs 1-10 MB). When they fit, a query runs as one compiled call with
            no search for its ends or its refinement (:mod:`~python_core.hpa.query.tree_query`);
            ``0`` never keeps them.
        table_budget: bytes an all-pairs table over the top level's nodes may take (8 per pair of
            transitions: 5 MB for 800). With a table, a query looks up its best transition pair
            instead of running the abstract A*; the path it refines is then the optimum over the
            abstract graph (``abstract_weight`` no longer applies). Level 1 keeps one only with
            its trees. ``0``: never.
        exact_check: paths up to this many cluster sides long (in cost, at the cheapest weight)
            that cost over :data:`CHECK_SLACK` (1.10) times the obstacle-free bound are checked
            against the grid's exact search, and the cheaper one is returned, so no such path is
            over 10% longer than optimal. Entrance placement matters most on short paths, so the
            check removes the worst cost ratios of Moving AI's scenario sets for a few percent of
            queries re-run (``checked_queries`` counts them), each on a short path; ``0`` never
            checks. Only smoothed queries are checked.
        repair_seconds: how long a change (:meth:`set_walkable`, :meth:`set_weights`) may spend
            repairing level 1's all-pairs table. Rows it does not reach are left stale: a query
            starting in a cluster with a stale row runs the abstract search instead (correct and
            within the same bounds, only slower), until :meth:`refill_table` computes them, in
            the time a caller can spare (the sidecar does it while idle). After 100 random
            toggles nearly every row needs work, and the table is about half of a build; this
            keeps that work out of the change. None (default): repair every row before returning.
        merge_span: where one border has 3 or more entrances joining the same two components
            at one weight (scattered obstacles), they are merged into pieces of this many border
            cells, one transition each (:mod:`~python_core.hpa.graph.entrance_merging`): on a
            map with 20% of its cells blocked, about half the transitions, so a build, its
            tables and abstract searches cost that much less, for paths some percent longer;
            rooms and caves are unaffected. ``0`` keeps every entrance; None (default): 8 on
            grids of 2048 x 2048 cells and more, else 0.
        defer_tables: at level 1 without an all-pairs table, :meth:`build` returns once labels
            and entrances stand and background threads price the cluster tables and trees (over
            90% of a big map's build; :mod:`~python_core.hpa.deferred`): queries meanwhile get the
            exact search's path, then HPA*'s once :attr:`tables_ready`; a change meanwhile stays
            exact. None (default): on grids of 1024 x 1024 cells and more.

    Raises:
        InvalidGraphError: a bad cluster size, level count, entrance length or budget.
        UnsupportedOperationError: a TileGrid (lattices: :class:`~python_core.hpa.lattice.LatticeHierarchy`).

    Example:
        >>> import numpy as np
        >>> hpa = HierarchicalGrid(GridGraph(np.ones((8, 8), bool), diagonal="never"), cluster_size=4).build()
        >>> hpa.find_path((0, 0), (7, 7)).cost, hpa.is_reachable((0, 0), (7, 7))
        (14.0, True)
        >>> HierarchicalGrid(GridGraph(np.ones((2, 2))), cluster_size=1)
        Traceback (most recent call last):
        ...
        python_core.errors.InvalidGraphError: cluster_size must be an integer in [4, 180], got 1
    """

    def __init__(
        self,
        grid: GridGraph,
        *,
        cluster_size: int = 32,
        levels: int = 1,
        region_clusters: int = 16,
        long_entrance: int = 6,
        smooth_window: int = 128,
        abstract_weight: float | None = None,
        line_bias: float | None = None,
        tree_budget: int = 64 << 20,
        table_budget: int = 32 << 20,
        exact_check: float = 4.0,
        repair_seconds: float | None = None,
        merge_span: int | None = None,
        defer_tables: bool | None = None,
    ) -> None:
        if isinstance(grid, TileGrid):  # clusters and entrances assume the square grid's moves
            raise UnsupportedOperationError(f"HPA* on a {grid.layout.kind.value} layout: LatticeHierarchy")
        check_build_options(
            cluster_size=cluster_size, levels=levels, region_clusters=region_clusters,
            long_entrance=long_entrance, tree_budget=tree_budget, table_budget=table_budget,
            exact_check=exact_check, merge_span=merge_span, defer_tables=defer_tables,
        )  # fmt: skip
        # as given (None: the map size's default), so that a size layer resolves its own
        self._options = {
            "cluster_size": cluster_size, "levels": levels, "region_clusters": region_clusters,
            "long_entrance": long_entrance, "smooth_window": smooth_window,
            "abstract_weight": abstract_weight, "line_bias": line_bias, "tree_budget": tree_budget,
            "table_budget": table_budget, "exact_check": exact_check, "repair_seconds": repair_seconds,
            "merge_span": merge_span, "defer_tables": defer_tables,
        }  # fmt: skip
        weight0, bias0 = search_defaults(grid.width * grid.height)
        alt_weight = landmark_search_weight(abstract_weight, grid.width * grid.height)
        abstract_weight = weight0 if abstract_weight is None else abstract_weight
        line_bias = bias0 if line_bias is None else line_bias
        self._grid = grid
        self._diag = DIAG_CODES[grid.diagonal]
        # live flat views of the grid's own buffers (never written through)
        self._walk = np.asarray(grid.walkable).view(np.uint8).reshape(-1)
        self._weights = np.asarray(grid.weights).reshape(-1)
        self._graph = AbstractGraph(
            self._walk, self._weights, grid.width, grid.height, csize=cluster_size, diag=self._diag,
            cell=grid.cell_size, long_len=long_entrance, tree_budget=tree_budget,
            table_budget=table_budget if levels == 1 else 0,
            merge_span=merge_span_for(merge_span, grid.width * grid.height),
            defer=levels == 1 and defer_for(defer_tables, grid.width * grid.height),
        )  # fmt: skip
        self._levels, self._region_clusters, self._table_budget = levels, region_clusters, table_budget
        self._upper: UpperLevel | None = None
        self._packed = NO_UPPER
        bad_weight = isinstance(abstract_weight, bool) or not isinstance(abstract_weight, int | float)
        if bad_weight or not 1.0 <= abstract_weight <= 2.0:
            raise InvalidGraphError(f"abstract_weight must be a number in [1, 2], got {abstract_weight!r}")
        self._window = smooth_window
        self._check_cells = float(exact_check) * cluster_size
        self.checked_queries = 0
        self._abstract_weight, self._alt_weight = float(abstract_weight), float(alt_weight)
        if isinstance(line_bias, bool) or not isinstance(line_bias, int | float) or not 0 <= line_bias <= 1:
            raise InvalidGraphError(f"line_bias must be a number in [0, 1], got {line_bias!r}")
        self._line_bias = float(line_bias)
        self._repair_seconds = time_budget(repair_seconds, "repair_seconds", InvalidGraphError)
        self._built = False
        self._version = -1
        self.build_seconds = 0.0
        self._pool = ScratchPool()
        self._min_weight, self._one_weight = 1.0, 0.0  # set by build()
        self._scratch()
        self._unit = 1  # the unit size this hierarchy answers for (a size layer's, above 1)
        self._sizes: SizeLayers[HierarchicalGrid] = SizeLayers(grid, self._layer_over)

    def _layer_over(self, eroded: GridGraph, size: int) -> HierarchicalGrid:
        """A size layer (:mod:`~python_core.hpa.sizes`): this hierarchy's options on an eroded grid."""
        options: dict[str, Any] = dict(self._options)
        options["repair_seconds"] = self._repair_seconds
        layer = HierarchicalGrid(eroded, **options)
        layer._unit = size  # its blocked starts name the size
        return layer.build()

    @property
    def grid(self) -> GridGraph:
        """The underlying grid."""
        return self._grid

    @property
    def graph(self) -> AbstractGraph:
        """The level-1 abstract graph (flat arrays; read-only by convention)."""
        return self._graph

    @property
    def upper(self) -> UpperLevel | None:
        """Level 2 (``levels=2``, once built), else None."""
        return self._upper

    @property
    def nbytes(self) -> int:
        """Bytes held by the hierarchy's arrays (the grid itself not included)."""
        scratch = sum(s.nbytes() for s in self._pool.idle())  # one per query run at the same time
        upper = self._upper.nbytes() if self._upper is not None else 0
        return self._graph.nbytes() + upper + scratch + self._sizes.nbytes()

    @property
    def sizes(self) -> tuple[int, ...]:
        """The unit sizes above 1 whose layer is built (each on its first query), ascending."""
        return self._sizes.sizes

    def for_size(self, size: int) -> HierarchicalGrid:
        """The hierarchy that answers a size-``size`` unit's queries: ``self`` for size 1, else the
        layer over the grid eroded for that size (:mod:`~python_core.hpa.sizes`), built now when no
        query used the size before. Its cells are anchors (a footprint's top-left cell), its points
        footprint centres; change cells through ``self`` only.

        Raises:
            InvalidQueryError: a size that is not an integer in [1, 255].
            InvalidGraphError: :meth:`build` was not called.

        Example:
            >>> import numpy as np
            >>> hpa = HierarchicalGrid(GridGraph.from_strings(["....", "...."]), cluster_size=4).build()
            >>> hpa.for_size(2).grid.walkable.astype(int).tolist(), hpa.sizes
            ([[1, 1, 1, 0], [0, 0, 0, 0]], (2,))
        """
        size = check_size(size)
        self._require_built()
        return self if size == 1 else self._sizes.layer(size)

    def _unit_size(self, options: QueryOptions) -> int:
        """The size in cells a query's options ask for (its ``radius`` resolved by the grid)."""
        if options.radius is not None:
            return self._grid.size_for_radius(options.radius)
        return options.size

    def build(self, progress: Progress | None = None) -> HierarchicalGrid:
        """Build (or rebuild from scratch) the whole hierarchy.

        Args:
            progress: ``progress(done, total)`` with increasing ``done``, last ``done == total``.

        Returns:
            ``self``, for chaining.

        Example:
            >>> import numpy as np
            >>> calls = []
            >>> _ = HierarchicalGrid(GridGraph(np.ones((8, 8))), cluster_size=4).build(
            ...     progress=lambda d, t: calls.append((d, t)))
            >>> calls[-1]
            (4, 4)
        """
        began = time.perf_counter()
        regions = 0
        if self._levels == 2:
            regions = UpperLevel(self._graph, group=self._region_clusters).region_count
        if progress is not None and regions:  # level 1's clusters, then level 2's regions
            report = progress
            self._graph.build(lambda done, total: report(done, total + regions))
        else:
            self._graph.build(progress)
        if self._levels == 2:
            self._upper = UpperLevel(
                self._graph, group=self._region_clusters, table_budget=self._table_budget
            ).build(self._graph, progress)
            self._packed = self._upper.packed
        self._min_weight, self._one_weight = self._open_weights()
        self._scratch()
        self._sizes.clear()  # each size's layer is built again on its next query
        self._built = True
        self._version = self._grid.version
        self.build_seconds = time.perf_counter() - began
        return self

    def _scratch(self) -> None:
        """After a build or a change: what queries derive from the graph, set here on the write
        side (queries only read it), and the query scratch renewed (:meth:`ScratchPool.renew`)."""
        # the longest path exact_check re-runs (the cheapest weight may have dropped)
        self._check_reach = self._check_cells * min(self._grid.cell_size) * self._min_weight
        # an exact graph's table path is the grid's optimum: nothing to check (unless some
        # start runs the abstract search instead, while rows of the table are stale)
        graph = self._graph
        whole = graph.pair_dist.size > 0 and not graph.pair_stale.any()
        self._table_optimal = graph.exact and whole and self._upper is None
        self._pool.renew(graph.node_count + 1, self._upper)

    def _open_weights(self) -> tuple[float, float]:
        """The smallest weight of an open cell, and the weight they all share (``0``: none)."""
        low, high, step = np.inf, -np.inf, 1 << 20
        for at in range(0, self._walk.shape[0], step):  # by parts: no copy of a big map's weights
            part = self._weights[at : at + step][self._walk[at : at + step] != 0]
            if part.size:
                low, high = min(low, float(part.min())), max(high, float(part.max()))
        if low == np.inf:  # no open cell
            return 1.0, 0.0
        return low, low if low == high and low > 0 else 0.0

    # -- queries ----------------------------------------------------------------------------------

    def _require_built(self) -> None:
        if not self._built:
            raise InvalidGraphError("the hierarchy is not built yet; call build() first")
        if self._grid.version != self._version:
            raise InvalidGraphError(
                "the grid changed behind the hierarchy's back; change cells through "
                "HierarchicalGrid.set_walkable / set_weights, or call build() again"
            )

    def find_path(
        self,
        start: Sequence[int],
        goal: Sequence[int],
        *,
        options: QueryOptions | None = None,
        smooth: bool = True,
        corridor: bool = False,
    ) -> PathResult:
        """A near-optimal path by HPA*; ``no_path`` at once when the goal is unreachable.

        Args:
            start: ``(x, y)``, walkable.
            goal: ``(x, y)``; a wall gives ``no_path``.
            options: ``heuristic`` (admissible ones bound the abstract search by ``abstract_weight``),
                ``max_expansions`` (abstract expansions), ``allow_partial`` (falls back to the grid's
                exact search when the goal is unreachable); ``agent`` / ``ignore_agents`` have no
                effect (agents are not modelled here). ``size`` / ``radius``: a wider unit's path, from
                anchor to anchor, by its size's layer (:meth:`for_size`; a start without room raises).
            smooth: shortcut the refined path along straight lines where that is cheaper, and check
                short paths against the exact search (``exact_check``); ``False`` gives the refined
                path as the abstraction found it.
            corridor: re-run an exact A* restricted to the clusters the refined path crosses (closer
                to optimal, notably on dense small-cluster grids; costs more on long paths).

        Returns:
            A :class:`PathResult`; its cost is recomputed from the returned cells.

        Raises:
            InvalidQueryError: malformed cells or options.
            OutOfBoundsError: start or goal outside the grid.
            BlockedEndpointError: the start is a wall.
            InvalidGraphError: :meth:`build` was not called.

        Example:
            >>> import numpy as np
            >>> hpa = HierarchicalGrid(GridGraph(np.ones((8, 8), bool)), cluster_size=4).build()
            >>> r = hpa.find_path((0, 0), (7, 7)); r.status.value, len(r), round(r.cost, 3)
            ('found', 8, 9.899)
            >>> hpa.find_path((0, 0), (0, 0)).nodes.tolist()
            [0]
        """
        opts = options if options is not None else _DEFAULTS
        if options is not None:
            check_options(opts)
            size = self._unit_size(opts)
            if size != 1:  # the size's own layer answers, on its eroded grid; no layer for bad ends
                as_cell(start, self._grid.width, self._grid.height, what="start")
                as_cell(goal, self._grid.width, self._grid.height, what="goal")
                sized = replace(opts, size=1, radius=None)
                return self.for_size(size).find_path(
                    start, goal, options=sized, smooth=smooth, corridor=corridor
                )
        name = resolve_heuristic(opts.heuristic, eight_connected=self._diag != 0)
        s, g = self._ends(start, goal)
        if s == g:
            return self._result(PathStatus.FOUND, np.array([s], dtype=np.int64), 0)
        if not self._graph.tables_ready:  # a deferred build's tables are still being priced
            return self._exact_meanwhile(s, g, opts)
        hcode, budget = HEURISTIC_CODES[name], opts.max_expansions
        scratch = self._pool.take()  # this query's own: other threads may be querying too
        try:
            if self._graph.has_trees and not corridor:  # the kernel checks the components itself
                found = self._tree_search(scratch, s, g, hcode, budget, smooth)
            elif self._connected(s, g):
                found = self._search(scratch, s, g, hcode, budget, smooth, corridor)
            else:
                found = None
        finally:
            self._pool.give(scratch)
        return self._settle(found, s, g, opts, smooth=smooth, trees=self._graph.has_trees and not corridor)

    def _ends(self, start: Sequence[int], goal: Sequence[int]) -> tuple[int, int]:
        """The flat start and goal cells, checked as :meth:`find_path` documents."""
        w, h = self._graph.width, self._graph.height
        sx, sy = as_cell(start, w, h, what="start")
        gx, gy = as_cell(goal, w, h, what="goal")
        if not self._built or self._grid.version != self._version:
            self._require_built()
        if not self._walk[sy * w + sx]:
            room = "is blocked" if self._unit == 1 else f"has no room for a size-{self._unit} unit"
            raise BlockedEndpointError(f"start cell {(sx, sy)} {room}")
        return sy * w + sx, gy * w + gx

    def __repr__(self) -> str:
        graph = self._graph
        return (
            f"HierarchicalGrid({graph.width} x {graph.height}, cluster_size={graph.csize}, "
            f"clusters={graph.cluster_count}, nodes={graph.node_count}, built={self._built})"
        )
