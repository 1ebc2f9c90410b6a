"""``HierarchicalGrid``: HPA* over a :class:`~python_core.grid.GridGraph`, with local updates.

Quick start::

    from python_core.grid import GridGraph
    from python_core.hpa import HierarchicalGrid
    grid = GridGraph.from_movingai("tests/data/movingai/den312d.map")
    hpa = HierarchicalGrid(grid, cluster_size=16).build(progress=lambda done, total: None)
    path = hpa.find_path((3, 3), (60, 70))          # PathResult, like grid.find_path
    hpa.set_walkable([(10, 10)], False)             # the grid and the touched clusters change

Semantics follow the grid's (cells ``(x, y)``, nodes ``y * width + x``, step cost = step length x
weight of the entered cell, the grid's diagonal rule). The hierarchy models walls and weights;
agents are *not* obstacles at this level (they move every frame, and rebuilding clusters per move
would cost more than it saves): a path may pass through an agent's cell. Steer around agents
locally, or use ``grid.find_path`` when they must block. Paths are near-optimal, not optimal: they
pass through entrance transitions, then are shortcut along straight lines (``smooth=True``).
Reachability is exact and answered without a search. Not thread-safe (queries reuse scratch).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import numpy.typing as npt

from python_core import fast_grid
from python_core.errors import BlockedEndpointError, InvalidGraphError, InvalidQueryError
from python_core.grid import DiagonalMode, GridGraph
from python_core.grid_search import Cell, as_cell, as_cells, check_options, world_points
from python_core.heuristics import HEURISTIC_CODES, resolve_heuristic
from python_core.hpa.build.abstract_graph import AbstractGraph, Progress
from python_core.hpa.build.cluster_search import refine_chain
from python_core.hpa.build.upper_level import (
    NO_SCRATCH,
    NO_UPPER,
    UpperLevel,
    clear_stamps,
    link_costs,
    upper_chain,
)
from python_core.hpa.query.abstract_search import (
    ABSTRACT_BUDGET,
    ABSTRACT_FOUND,
    ABSTRACT_NO_PATH,
    QID_LIMIT,
    abstract_astar,
    node_chain,
)
from python_core.hpa.query.corridor import corridor_astar
from python_core.hpa.query.endpoints import EndpointTree, insert_endpoint
from python_core.hpa.query.smoothing import path_cost, smooth_passes
from python_core.hpa.query.tree_query import tree_query, tree_static
from python_core.result import PathResult, PathStatus, QueryOptions

__all__ = ["CHECK_SLACK", "LINE_BIAS", "HierarchicalGrid"]

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]
_DIAG = {DiagonalMode.NEVER: 0, DiagonalMode.ALWAYS: 1, DiagonalMode.AT_LEAST_ONE_WALKABLE: 2}
_DEFAULTS = QueryOptions()
CHECK_SLACK = 1.10
"""The worst cost ratio a short path may keep (``exact_check``): one costing more than this times
its obstacle-free bound, a lower bound of the optimum, is checked; any other is within it already.
1.10 against 1.05 re-runs 8.1% of Aurora's scenarios instead of 10.2% (4.0% / 5.0% on brc202d,
0.7% / 4.7% on random512) for a worst case of 1.093 / 1.073 / 1.073 instead of 1.090 / 1.073 /
1.042 over all of them."""


LINE_BIAS = 0.05
"""The default ``line_bias``. ``bench/hpa_speed.py --maps open4096 --no-godot --line-bias 0``
against the default, one run each: median query 1.515 -> 0.771 ms (10.1x -> 15.9x our exact
search), mean / worst cost 1.0089 / 1.0172 -> 1.0078 / 1.0181. Maps with an all-pairs table run no
abstract search and are unaffected."""


def _budget(value: object, name: str, error: type[Exception]) -> float | None:
    """A time budget in seconds: None, or a finite number >= 0 (else ``error``)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < math.inf:
        raise error(f"{name} must be None or a finite number >= 0, got {value!r}")
    return float(value)


class HierarchicalGrid:
    """HPA* (Botea, Mueller, Schaeffer 2004) over a grid: clusters, entrances, abstract search.

    Args:
        grid: the grid; the hierarchy reads its walls and weights live, so change cells through
            :meth:`set_walkable` / :meth:`set_weights` (or call :meth:`build` again).
        cluster_size: cluster side in cells (``>= 4``); 16-64 suit most maps.
        levels: abstraction levels, 1 or 2. Level 2 groups ``region_clusters`` x
            ``region_clusters`` clusters into regions over the level-1 graph
            (:mod:`~python_core.hpa.build.upper_level`); a query whose ends lie in different regions
            then searches (or, within ``table_budget``, looks up) the much smaller level-2 graph.
            It pays on the largest maps (4096 x 4096), where the level-1 search dominates.
        region_clusters: level-1 clusters per region side (level 2 only).
        long_entrance: entrances longer than this get two transitions (at their ends), shorter ones
            one: the lightest pair of cells, the middle one on equal weights. A longer entrance
            whose cells differ in weight gets one (its lightest pair) per piece of at most this
            many pairs; on weighted ground a smaller value gives closer paths for more nodes.
        smooth_window: how many path cells ahead the smoother looks from an anchor (128 against
            96: Aurora mean cost 1.0068 against 1.0076 and 1-14% less smoothing time, brc202d
            1.0025 against 1.0027 at the same speed; farther jumps leave fewer anchors).
        abstract_weight: heuristic weight of the abstract search; ``1.0`` keeps it exact over the
            abstract graph, ``w > 1`` expands fewer nodes and bounds its cost by ``w`` times that
            optimum (the default 1.02 expands ~8x fewer nodes on open 4096 x 4096 maps for a
            ~0.2% mean cost increase there).
        line_bias: how much the abstract search's heuristic adds per unit of a node's distance
            from the straight line between start and goal (world units, at the cheapest weight;
            :func:`~python_core.hpa.query.abstract_search.abstract_astar`). Open ground leaves a wide
            band of near-equal paths that the search would otherwise expand whole; the bound on
            the abstract path becomes ``abstract_weight + line_bias`` times its optimum. ``0``
            turns it off. Unused where a table answers (no abstract search).
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
            over 10% longer than optimal. Entrance placement matters most on short paths: over
            Moving AI's full scenario sets the worst cost ratio drops from 1.29 to 1.09 (Aurora,
            64-cell clusters), 1.12 to 1.07 (brc202d) and 1.52 to 1.07 (random512), for 8.1%,
            4.0% and 0.7% of queries re-run (``checked_queries`` counts them), each on a short
            path; ``0`` never checks. Only smoothed queries are checked.
        repair_seconds: how long a change (:meth:`set_walkable`, :meth:`set_weights`) may spend
            repairing level 1's all-pairs table. Rows it does not reach are left stale: a query
            starting in a cluster with a stale row runs the abstract search instead (correct and
            within the same bounds, only slower), until :meth:`refill_table` computes them, in
            the time a caller can spare (the sidecar does it while idle). After 100 random
            toggles nearly every row needs work, and the table is about half of a build; this
            keeps that work out of the change. None (default): repair every row before returning.

    Raises:
        InvalidGraphError: a bad cluster size, level count, entrance length or budget.

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
        abstract_weight: float = 1.02,
        line_bias: float = LINE_BIAS,
        tree_budget: int = 64 << 20,
        table_budget: int = 32 << 20,
        exact_check: float = 4.0,
        repair_seconds: float | None = None,
    ) -> None:
        if (
            isinstance(cluster_size, bool)
            or not isinstance(cluster_size, int)
            or not 4 <= cluster_size <= 180
        ):
            raise InvalidGraphError(f"cluster_size must be an integer in [4, 180], got {cluster_size!r}")
        if isinstance(levels, bool) or not isinstance(levels, int) or levels not in (1, 2):
            raise InvalidGraphError(f"levels must be 1 or 2, got {levels!r}")
        if isinstance(region_clusters, bool) or not isinstance(region_clusters, int) or region_clusters < 2:
            raise InvalidGraphError(f"region_clusters must be an integer >= 2, got {region_clusters!r}")
        if isinstance(long_entrance, bool) or not isinstance(long_entrance, int) or long_entrance < 1:
            raise InvalidGraphError(f"long_entrance must be an integer >= 1, got {long_entrance!r}")
        for name, budget in (("tree_budget", tree_budget), ("table_budget", table_budget)):
            if isinstance(budget, bool) or not isinstance(budget, int) or budget < 0:
                raise InvalidGraphError(f"{name} must be an integer >= 0, got {budget!r}")
        if (
            isinstance(exact_check, bool)
            or not isinstance(exact_check, int | float)
            or not 0 <= exact_check < math.inf
        ):
            raise InvalidGraphError(f"exact_check must be a finite number >= 0, got {exact_check!r}")
        self._grid = grid
        self._diag = _DIAG.get(grid.diagonal, 3)
        # live flat views of the grid's own buffers (never written through)
        self._walk = np.asarray(grid.walkable).view(np.uint8).reshape(-1)
        self._weights = np.asarray(grid.weights).reshape(-1)
        self._graph = AbstractGraph(
            self._walk, self._weights, grid.width, grid.height, csize=cluster_size, diag=self._diag,
            cell=grid.cell_size, long_len=long_entrance, tree_budget=tree_budget,
            table_budget=table_budget if levels == 1 else 0,
        )  # fmt: skip
        self._levels, self._region_clusters, self._table_budget = levels, region_clusters, table_budget
        self._upper: UpperLevel | None = None
        self._packed, self._scratch2 = NO_UPPER, NO_SCRATCH
        if not 1.0 <= abstract_weight <= 2.0:
            raise InvalidGraphError(f"abstract_weight must be in [1, 2], got {abstract_weight!r}")
        self._window = smooth_window
        self._check_cells = float(exact_check) * cluster_size
        self.checked_queries = 0
        self._abstract_weight = float(abstract_weight)
        if isinstance(line_bias, bool) or not isinstance(line_bias, int | float) or not 0 <= line_bias <= 1:
            raise InvalidGraphError(f"line_bias must be a number in [0, 1], got {line_bias!r}")
        self._line_bias = float(line_bias)
        self._repair_seconds = _budget(repair_seconds, "repair_seconds", InvalidGraphError)
        self._built = False
        self._version = -1
        self._qid = 0
        self.build_seconds = 0.0
        self._scratch_size = -1
        self._min_weight, self._one_weight = 1.0, 0.0  # set by build()
        self._scratch()

    def __getstate__(self) -> dict[str, Any]:
        """Pickles and deep copies leave out the query record kept between queries (a compiled
        object that neither can copy); the next query builds it again."""
        state = self.__dict__.copy()
        state["_tree_args"] = None
        return state

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
        scratch = [self._g, self._parent, self._stamps]
        scratch += [self._heap_nodes, self._heap_keys, self._heap_pos, *self._scratch2]
        upper = self._upper.nbytes() if self._upper is not None else 0
        return self._graph.nbytes() + upper + sum(a.nbytes for a in scratch)

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
            self._packed, self._scratch2 = self._upper.packed, self._upper.new_scratch()
        self._min_weight, self._one_weight = self._open_weights()
        self._scratch()
        self._built = True
        self._version = self._grid.version
        self.build_seconds = time.perf_counter() - began
        return self

    def _scratch(self) -> None:
        """Query scratch sized for the abstract graph (kept while its size is: the stamps stay valid)."""
        self._tree_args: Any = None  # a TreeStatic; the arrays may have been replaced
        # the longest path exact_check re-runs (the cheapest weight may have dropped)
        self._check_reach = self._check_cells * min(self._grid.cell_size) * self._min_weight
        self._table_optimal = False  # set with the next TreeStatic
        n = self._graph.node_count + 1
        if self._scratch_size == n:
            return
        self._scratch_size = n
        self._g = np.full(n, np.inf)
        self._parent = np.full(n, -1, dtype=np.int32)
        self._stamps = np.zeros(n, dtype=np.int32)
        self._heap_nodes = np.zeros(n, dtype=np.int32)
        self._heap_keys = np.zeros(n)
        self._heap_pos = np.zeros(n, dtype=np.int32)
        self._qid = 0

    def _open_weights(self) -> tuple[float, float]:
        """The smallest weight of an open cell, and the weight they all share (``0``: none)."""
        open_weights = self._weights[self._walk != 0]
        if not open_weights.size:
            return 1.0, 0.0
        low, high = float(open_weights.min()), float(open_weights.max())
        return low, low if low == high and low > 0 else 0.0

    # -- changes ----------------------------------------------------------------------------------

    def set_walkable(self, cells: npt.ArrayLike, walkable: bool | npt.ArrayLike = True) -> float:
        """Open or close cells in the grid and rebuild only the clusters and borders they touch.

        Args:
            cells: one ``(x, y)`` or an ``(n, 2)`` array of cells.
            walkable: one bool for all, or one per cell.

        Returns:
            Seconds the local update took.

        Raises:
            InvalidQueryError: malformed cells or values (nothing changes).
            OutOfBoundsError: a cell outside the grid (nothing changes).

        Example:
            >>> import numpy as np
            >>> hpa = HierarchicalGrid(GridGraph(np.ones((1, 8), bool)), cluster_size=4).build()
            >>> _ = hpa.set_walkable([(4, 0)], False); hpa.is_reachable((0, 0), (7, 0))
            False
        """
        nodes = as_cells(cells, self._grid.width, self._grid.height)
        self._grid.set_walkable(cells, walkable)
        return self._update(nodes)

    def set_weights(self, cells: npt.ArrayLike, weights: float | npt.ArrayLike) -> float:
        """Change cell weights in the grid and update the touched clusters (see :meth:`set_walkable`).

        Raises:
            InvalidGraphError: a negative or non-finite weight (nothing changes).

        Example:
            >>> import numpy as np
            >>> hpa = HierarchicalGrid(GridGraph(np.ones((1, 8))), cluster_size=4).build()
            >>> _ = hpa.set_weights([(5, 0)], 3.0); hpa.find_path((0, 0), (7, 0)).cost
            9.0
        """
        nodes = as_cells(cells, self._grid.width, self._grid.height)
        self._grid.set_weights(cells, weights)
        return self._update(nodes, weights_changed=True)

    def _update(self, nodes: I64, *, weights_changed: bool = False) -> float:
        if not self._built:
            return 0.0
        began = time.perf_counter()
        # a lower bound is all the heuristic needs: cheaper open cells lower it, nothing raises it
        changed = nodes[self._walk[nodes] != 0]
        if changed.shape[0]:
            self._min_weight = min(self._min_weight, float(self._weights[changed].min()))
            if (self._weights[changed] != self._one_weight).any():  # until the next build()
                self._one_weight = 0.0
        dirty = self._graph.apply_changes(nodes, weights_changed, self._repair_seconds, self._one_weight != 0)
        if self._upper is not None:
            self._upper.update(self._graph, dirty)
            self._packed, self._scratch2 = self._upper.packed, self._upper.new_scratch()
        self._scratch()
        self._version = self._grid.version
        return time.perf_counter() - began

    @property
    def repair_seconds(self) -> float | None:
        """The time a change may spend repairing the all-pairs table (see the class); settable,
        e.g. to None before a batch of changes that should leave the table whole.

        Raises:
            InvalidGraphError: (on setting) not None or a finite number >= 0; the old value stays.
        """
        return self._repair_seconds

    @repair_seconds.setter
    def repair_seconds(self, value: float | None) -> None:
        self._repair_seconds = _budget(value, "repair_seconds", InvalidGraphError)

    @property
    def pending_rows(self) -> int:
        """Rows of level 1's all-pairs table that a time-boxed repair left stale (``repair_seconds``)."""
        return int(self._graph.pair_stale.sum())

    def refill_table(self, seconds: float | None = None) -> int:
        """Compute the stale rows of the all-pairs table, for up to ``seconds`` (None: all of them).

        A game (or the sidecar, between requests) calls this when it has time to spare; each
        chunk of rows takes a few milliseconds at most, and any positive budget gets one done.

        Returns:
            The rows still stale.

        Raises:
            InvalidQueryError: ``seconds`` is not None or a finite number >= 0.

        Example:
            >>> import numpy as np
            >>> hpa = HierarchicalGrid(GridGraph(np.ones((16, 16), bool)), cluster_size=4,
            ...                        repair_seconds=0.0).build()
            >>> _ = hpa.set_walkable([(5, 4)], False); hpa.pending_rows > 0
            True
            >>> hpa.refill_table(), hpa.pending_rows
            (0, 0)
        """
        budget = _budget(seconds, "seconds", InvalidQueryError)
        if not self._graph.pair_stale.any():
            return 0
        left = self._graph.refill(budget)
        if not left:  # whole again: the next query may trust it as the optimum (exact graphs)
            self._tree_args = None
        return left

    # -- queries ----------------------------------------------------------------------------------

    def is_reachable(self, start: Sequence[int], goal: Sequence[int]) -> bool:
        """Whether any path joins two cells (exact; agents ignored), in O(1) from component labels.

        Raises:
            InvalidQueryError: malformed cells.
            OutOfBoundsError: a cell outside the grid.

        Example:
            >>> import numpy as np
            >>> g = GridGraph.from_strings(["..@..", "..@.."])
            >>> HierarchicalGrid(g, cluster_size=4).build().is_reachable((0, 0), (4, 1))
            False
        """
        w, h = self._grid.width, self._grid.height
        sx, sy = as_cell(start, w, h, what="start")
        gx, gy = as_cell(goal, w, h, what="goal")
        self._require_built()
        return self._connected(sy * w + sx, gy * w + gx)

    def _connected(self, s: int, g: int) -> bool:
        """Whether two flat cells share a component (walls share none)."""
        a = self._graph.component_of(s)
        return a >= 0 and a == self._graph.component_of(g)

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
                effect (agents are not modelled here).
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
        name = resolve_heuristic(opts.heuristic, eight_connected=self._diag != 0)
        w, h = self._graph.width, self._graph.height
        sx, sy = as_cell(start, w, h, what="start")
        gx, gy = as_cell(goal, w, h, what="goal")
        if not self._built or self._grid.version != self._version:
            self._require_built()
        s, g = sy * w + sx, gy * w + gx
        if not self._walk[s]:
            raise BlockedEndpointError(f"start cell {(sx, sy)} is blocked")
        if s == g:
            return self._result(PathStatus.FOUND, np.array([s], dtype=np.int64), 0)
        hcode, budget = HEURISTIC_CODES[name], opts.max_expansions
        if self._graph.has_trees and not corridor:  # the kernel checks the components itself
            found = self._tree_search(s, g, hcode, budget, smooth)
            if found is not None:  # most paths are too long to check: no call for them
                if smooth and not self._table_optimal and found.cost <= self._check_reach:
                    return self._checked(found, (sx, sy), (gx, gy), opts)
                return found
        elif self._connected(s, g):
            found = self._search(s, g, hcode, budget, smooth, corridor)
            return self._checked(found, (sx, sy), (gx, gy), opts) if smooth else found
        if opts.allow_partial:
            return self._grid.find_path((sx, sy), (gx, gy), options=replace(opts, ignore_agents=True))
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
        self.checked_queries += 1
        exact_opts = replace(opts, ignore_agents=True, allow_partial=False, max_expansions=None, agent=None)
        exact = fast_grid.find_path(self._grid, start, goal, options=exact_opts)
        return exact if exact.found and exact.cost < found.cost else found

    def _next_query(self) -> None:
        """A new query number for the scratch stamps; at :data:`QID_LIMIT` the stamps are
        zeroed and numbering starts again (once per billion queries)."""
        self._qid += 1
        if self._qid >= QID_LIMIT:  # in place: the query record holds these arrays
            self._stamps[:] = 0
            clear_stamps(self._scratch2)  # level 2's (empty without it)
            self._qid = 1

    def _tree_search(self, s: int, g: int, hcode: int, budget: int | None, smooth: bool) -> PathResult | None:
        """One :func:`tree_query` call; None when the ends are not connected."""
        if self._tree_args is None:  # everything but the per-query values, kept until a change
            # an exact graph's table path is the grid's optimum: nothing to check (unless some
            # start runs the abstract search instead, while rows of the table are stale)
            graph = self._graph
            whole = graph.pair_dist.size > 0 and not graph.pair_stale.any()
            self._table_optimal = graph.exact and whole and self._upper is None
            ox, oy = self._grid.origin
            self._tree_args = tree_static(
                self._walk, self._weights, graph.width, graph.height, graph.csize, self._diag, graph.cw,
                graph.ch, self._min_weight, self._abstract_weight, graph.node_cell, graph.cl_first,
                graph.cl_doff, graph.dist_flat, graph.inter_off, graph.inter_dst, graph.inter_cost,
                graph.node_cluster, graph.tree_pool, graph.tree_off, graph.uniform, graph.pair_dist,
                graph.pair_pred, graph.pair_stale, graph.labels, graph.comp_off, graph.comp_id, self._g,
                self._parent, self._stamps, self._heap_nodes, self._heap_keys, self._heap_pos,
                self._window, self._one_weight, graph.exact, self._packed, self._scratch2, float(ox),
                float(oy), self._line_bias,
            )  # fmt: skip
        self._next_query()
        outcome, nodes, points, cost, expanded = tree_query(
            s, g, hcode, -1 if budget is None else budget, 2 if smooth else 0, self._qid, self._tree_args
        )
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
            cell, reverse, self._min_weight, stops,
        )  # fmt: skip

    def _search(  # noqa: PLR0917
        self, s: int, g: int, hcode: int, budget: int | None, smooth: bool, corridor: bool
    ) -> PathResult:
        graph = self._graph
        head, tail = self._endpoint(s, 0, g), self._endpoint(g, 1, s)
        first, last = graph.cluster_of(s), graph.cluster_of(g)
        k = int(graph.cl_first[first + 1] - graph.cl_first[first])
        direct = float(head.costs[k]) if first == last else np.inf  # the goal is the last stop
        lo = int(graph.cl_first[first])
        self._next_query()
        upper = self._upper
        if upper is not None and upper.region_of[first] != upper.region_of[last]:
            outcome, chain, expanded = upper_chain(
                graph.node_cell, graph.cl_first, graph.cl_doff, graph.dist_flat, graph.node_cluster,
                graph.inter_off, graph.inter_dst, graph.inter_cost, graph.width, graph.cw, graph.ch, hcode,
                self._min_weight, self._abstract_weight, -1 if budget is None else budget, self._packed,
                first, np.arange(lo, lo + k, dtype=np.int64), head.costs[:k], last, tail.costs, g, self._qid,
                self._scratch2, self._line_bias, s,
            )  # fmt: skip
            if outcome != ABSTRACT_FOUND:
                return self._failed(outcome, expanded)
            costs = link_costs(
                graph.cl_first, graph.cl_doff, graph.dist_flat, graph.node_cluster, graph.inter_off,
                graph.inter_dst, graph.inter_cost, chain,
            )  # fmt: skip
            return self._finish(s, g, self._cells(chain, costs, head, tail), expanded, smooth, corridor)
        outcome, expanded = abstract_astar(
            graph.node_cell, graph.node_cluster, graph.cl_first, graph.cl_doff, graph.dist_flat,
            graph.inter_off, graph.inter_dst, graph.inter_cost, graph.width, graph.cw, graph.ch, hcode,
            self._min_weight, np.arange(lo, lo + k, dtype=np.int64), head.costs[:k],
            last, tail.costs, direct, g, -1 if budget is None else budget,
            self._g, self._parent, self._stamps, self._qid, self._heap_nodes, self._heap_keys,
            self._heap_pos, self._abstract_weight, self._line_bias, s,
        )  # fmt: skip
        if outcome != ABSTRACT_FOUND:
            return self._failed(outcome, expanded)
        return self._finish(s, g, self._refine(g, head, tail), expanded, smooth, corridor)

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
        # a second pass straightens what the first exposed (when the first gained anything)
        nodes, cost = smooth_passes(
            nodes, self._walk, self._weights, graph.width, self._diag, graph.cw, graph.ch, self._window,
            2 if smooth else 0, self._one_weight,
        )  # fmt: skip
        return self._result(PathStatus.FOUND, nodes, expanded, cost)

    def _refine(self, g: int, head: EndpointTree, tail: EndpointTree) -> I64:
        """Concrete cells: start -> first transition -> ... -> last transition -> goal."""
        graph, width = self._graph, self._graph.width
        if int(self._parent[graph.node_count]) == -2:
            return head.path_to(g, width)
        ids = node_chain(self._parent, graph.node_count)
        return self._cells(ids, np.diff(self._g[ids]), head, tail)  # exact table or crossing costs

    def _cells(self, ids: I64, costs: F64, head: EndpointTree, tail: EndpointTree) -> I64:
        """Concrete cells along a chain of transitions whose link costs are ``costs``."""
        graph, width = self._graph, self._graph.width
        chain = graph.node_cell[ids]
        middle = refine_chain(
            self._walk, self._weights, width, graph.height, graph.csize, self._diag, graph.cw,
            graph.ch, self._min_weight, chain, costs,
        )  # fmt: skip
        # the goal's tree is a reverse search: its parent pointers lead towards the goal
        ending = tail.path_to(int(chain[-1]), width)[::-1]
        return np.concatenate((head.path_to(int(chain[0]), width)[:-1], middle, ending[1:]))

    def _result(self, status: PathStatus, nodes: I64, expanded: int, cost: float | None = None) -> PathResult:
        grid = self._grid
        w, (cw, ch), (ox, oy) = grid.width, grid.cell_size, grid.origin
        if cost is None:
            cost = float(path_cost(nodes, self._weights, w, cw, ch))
        points = world_points(nodes, w, float(ox), float(oy), float(cw), float(ch))
        return PathResult(status, points=points, nodes=nodes, cost=float(cost), expanded=expanded)

    def __repr__(self) -> str:
        graph = self._graph
        return (
            f"HierarchicalGrid({graph.width} x {graph.height}, cluster_size={graph.csize}, "
            f"clusters={graph.cluster_count}, nodes={graph.node_count}, built={self._built})"
        )
