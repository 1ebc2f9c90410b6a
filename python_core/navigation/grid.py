"""A grid behind the :class:`Navigator` interface, with its optional HPA* hierarchy.

Two rules of a grid and its hierarchy live here, the one place every caller goes through:
walls and weights change through the hierarchy (so it stays valid) while agents change only the
grid, which the hierarchy never sees; and a hierarchical path that another agent stands on gives
way to the compiled exact search's path, which respects agents.

    import numpy as np
    from python_core import GridGraph
    from python_core.navigation import GridNavigator, HierarchyOptions, PlaceAgent
    nav = GridNavigator(GridGraph(np.ones((16, 16), dtype=bool), diagonal="never"))
    nav.build_hierarchy(HierarchyOptions(cluster_size=8)); nav.apply([PlaceAgent(1, (3, 0))])
    assert nav.find_path((0, 0), (15, 0), hierarchical=True).found
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from python_core._types import F64, I64
from python_core.errors import AStarError, InvalidGraphError, InvalidQueryError, UnsupportedOperationError
from python_core.grid import GridGraph
from python_core.grid.cells import check_options
from python_core.grid.clearance import unit_size
from python_core.grid.search import dispatch
from python_core.grid.search.prepared import is_ready
from python_core.hpa import HierarchicalGrid, Progress
from python_core.hpa.query.estimates import NO_FIRST, NO_TABLE, path_estimates
from python_core.navigation.interface import (
    BuildReport,
    Endpoint,
    EndpointForm,
    HierarchyOptions,
)
from python_core.navigation.updates import (
    MoveAgent,
    PlaceAgent,
    RemoveAgent,
    SetObstacles,
    SetWalkable,
    SetWeights,
    Update,
)
from python_core.path_batch import PathBatch
from python_core.result import PathResult, QueryOptions

__all__ = ["GridNavigator"]

Cell = tuple[int, int]
_DEFAULTS = QueryOptions()


class GridNavigator:
    """A :class:`GridGraph` (and, once built, a :class:`HierarchicalGrid` over it) as a navigator.

    Args:
        grid: the grid; it changes in place when updates are applied.
        world: endpoints are world positions (see :meth:`GridGraph.world_to_cell`), not cells.
        hierarchy: a hierarchy already built over ``grid``, or None.
        smooth: the default of hierarchical queries when ``hierarchy`` is given.

    Raises:
        InvalidGraphError: ``hierarchy`` is over another grid.

    Example:
        >>> nav = GridNavigator(GridGraph.from_strings(["..", ".."]), world=False)
        >>> nav.resolve((1.0, 1)), nav.node_count, nav.endpoints.cells
        ((1, 1), 4, True)
    """

    def __init__(
        self,
        grid: GridGraph,
        *,
        world: bool = False,
        hierarchy: HierarchicalGrid | None = None,
        smooth: bool = True,
    ) -> None:
        if hierarchy is not None and hierarchy.grid is not grid:
            raise InvalidGraphError("the hierarchy must be built over the navigator's own grid")
        self._grid, self._world = grid, world
        self._hierarchy, self._smooth = hierarchy, smooth
        self._endpoints = EndpointForm(size=2, cells=not world)
        self._flipped: I64 = np.zeros(0, dtype=np.int64)  # nodes the last batch's obstacles flipped

    @property
    def grid(self) -> GridGraph:
        """The grid."""
        return self._grid

    @property
    def obstacle_flips(self) -> I64:
        """Nodes whose walkability the obstacles of the last batch applied changed (none when it
        failed): what derived data (flow fields) must repair."""
        return self._flipped

    @property
    def hierarchy(self) -> HierarchicalGrid | None:
        """The hierarchy over the grid, or None."""
        return self._hierarchy

    @property
    def dim(self) -> int:
        """2: paths are cells or 2D positions."""
        return 2

    @property
    def node_count(self) -> int:
        """``width * height``."""
        return self._grid.node_count

    @property
    def endpoints(self) -> EndpointForm:
        """Integer cells, or (``world``) positions."""
        return self._endpoints

    @property
    def has_hierarchy(self) -> bool:
        """True once :meth:`build_hierarchy` succeeded (or a hierarchy was given)."""
        return self._hierarchy is not None

    # -- queries ----------------------------------------------------------------------------------

    def resolve(self, endpoint: Endpoint, options: QueryOptions | None = None) -> Cell:
        """The cell of an endpoint: the cell itself, or (``world``) the one nearest the position;
        for a unit of ``options.size`` (or ``options.radius``) cells, the anchor whose footprint
        centre lies nearest (:meth:`GridGraph.world_to_cell`).

        Raises:
            InvalidQueryError: not two coordinates, or a cell with fractional ones.
            OutOfBoundsError: (``world``) the nearest cell lies outside the grid; cells given as
                such are checked by the search, which names the start or goal.
        """
        if isinstance(endpoint, int) or len(endpoint) != 2:
            raise InvalidQueryError(f"a grid endpoint is two coordinates, got {endpoint!r:.60}")
        if self._world:
            if options is None:
                return self._grid.world_to_cell(endpoint)
            check_options(options)
            return self._grid.world_to_cell(endpoint, size=unit_size(options, self._grid.cell_size))
        try:
            cell = (int(endpoint[0]), int(endpoint[1]))
        except (TypeError, ValueError, OverflowError):
            cell = None
        if cell is None or cell != tuple(endpoint):
            raise InvalidQueryError(f"a cell has integer coordinates, got {endpoint!r:.60}")
        return cell

    def find_path(
        self,
        start: Cell,
        goal: Cell,
        options: QueryOptions | None = None,
        *,
        hierarchical: bool = False,
        corridor: bool = False,
    ) -> PathResult:
        """The compiled exact search's path, or (``hierarchical``) the hierarchy's.

        The hierarchy does not see agents: when another agent than ``options.agent`` stands on its
        path (and ``options.ignore_agents`` is off), the exact search answers instead, the compiled
        one exact queries run, so a blocked query costs what an exact one does.

        Raises:
            InvalidQueryError, OutOfBoundsError, BlockedEndpointError, UnknownPointError: as
                :func:`python_core.grid.search.dispatch.find_path`; also ``corridor`` without
                ``hierarchical``.
            InvalidGraphError: ``hierarchical`` without a built hierarchy.
        """
        opts = options if options is not None else _DEFAULTS
        if not hierarchical:
            if corridor:
                raise InvalidQueryError("corridor applies to hierarchical queries only")
            return dispatch.find_path(self._grid, start, goal, options=opts)
        hpa = self._built()
        result = hpa.find_path(start, goal, options=opts, smooth=self._smooth, corridor=corridor)
        if self._blocked_by_agents(result, opts):
            return dispatch.find_path(self._grid, start, goal, options=opts)
        return result

    def find_many(
        self,
        starts: Sequence[Cell],
        goals: Sequence[Cell],
        options: QueryOptions | None = None,
        *,
        hierarchical: bool = False,
        corridor: bool = False,
    ) -> list[PathResult]:
        """:meth:`find_path` for each pair, in order, with its answers and errors; hierarchical
        batches run their searches in one compiled call (:meth:`HierarchicalGrid.find_many`).

        Raises:
            InvalidQueryError: ``starts`` and ``goals`` differ in length (and as :meth:`find_path`).
        """
        opts = options if options is not None else _DEFAULTS
        if not hierarchical:
            if corridor:
                raise InvalidQueryError("corridor applies to hierarchical queries only")
            return dispatch.find_many(self._grid, starts, goals, options=opts)
        return self.find_batch(starts, goals, opts, hierarchical=True, corridor=corridor).results()

    def find_batch(
        self,
        starts: npt.ArrayLike,
        goals: npt.ArrayLike,
        options: QueryOptions | None = None,
        *,
        hierarchical: bool = False,
        corridor: bool = False,
        max_cells: int | None = None,
    ) -> PathBatch:
        """:meth:`find_many`'s answers as one :class:`PathBatch`: ``starts`` and ``goals`` are
        ``(n, 2)`` cells (:meth:`resolve` world positions first). A hierarchical batch keeps the
        compiled kernel's arrays, with no result object per query; only the paths another agent
        stands on are searched again, one by one. A hierarchical batch stops early once its paths
        hold ``max_cells`` cells (:meth:`HierarchicalGrid.find_batch`; ``len`` says how many).

        Raises:
            as :meth:`find_many`.
        """
        opts = options if options is not None else _DEFAULTS
        a, b = np.asarray(starts).reshape(-1, 2), np.asarray(goals).reshape(-1, 2)
        if not hierarchical:
            firsts, lasts = [tuple(c) for c in a.tolist()], [tuple(c) for c in b.tolist()]
            results = self.find_many(firsts, lasts, opts, corridor=corridor)
            return PathBatch.from_results(results)
        hpa = self._built()
        smooth = self._smooth
        batch = hpa.find_batch(a, b, options=opts, smooth=smooth, corridor=corridor, max_cells=max_cells)
        if opts.ignore_agents or not self._grid.agents:
            return batch
        blocked = {}
        for i in range(len(batch)):
            if self._blocked_by_agents(batch.result(i), opts):
                start, goal = (int(a[i, 0]), int(a[i, 1])), (int(b[i, 0]), int(b[i, 1]))
                blocked[i] = dispatch.find_path(self._grid, start, goal, options=opts)
        return batch.replaced(blocked)

    def work_estimates(
        self, starts: npt.ArrayLike, goals: npt.ArrayLike, *, hierarchical: bool, cells: bool = False
    ) -> F64:
        """A rough relative cost of each query ``starts[i] -> goals[i]`` (``(n, 2)`` endpoints in this
        navigator's form, or with ``cells`` the grid's cells even when it is placed in the world),
        for sharing a batch out between threads: never raises on bad endpoints (they are clamped
        to the grid; the search itself reports them). Hierarchical queries cost about their path's
        length (:meth:`HierarchicalGrid.length_estimates`); exact ones at least their ends' distance."""
        grid = self._grid
        world = self._world and not cells
        ends = []
        for points in (starts, goals):
            xy = np.asarray(points).reshape(-1, 2)
            if world or xy.dtype.kind not in "iu":  # positions to cells, NaN and inf to 0
                xy = np.asarray(xy, dtype=np.float64)
                if world:
                    xy = np.floor((xy - np.asarray(grid.origin)) / np.asarray(grid.cell_size) + 0.5)
                xy = np.nan_to_num(xy, nan=0.0, posinf=0.0, neginf=0.0).clip(-1, max(grid.width, grid.height))
            ends.append(np.ascontiguousarray(xy, dtype=np.int64))  # the kernel clamps it to the grid
        if hierarchical and self._hierarchy is not None:
            return self._hierarchy.length_estimates(ends[0], ends[1])
        return path_estimates(ends[0], ends[1], grid.width, grid.height, 1, 1, NO_FIRST, NO_TABLE, 0.0)

    def _blocked_by_agents(self, result: PathResult, options: QueryOptions) -> bool:
        """True when another agent's footprint meets the querying unit's footprint on the path
        past its start."""
        if options.ignore_agents or len(result.nodes) < 2:
            return False
        size = unit_size(options, self._grid.cell_size)
        return self._grid.agents_on(result.nodes[1:], besides=options.agent, size=size)

    def is_reachable(self, start: Cell, goal: Cell, options: QueryOptions | None = None) -> bool:
        """Whether any path joins two cells, from the hierarchy's components (agents ignored),
        for a unit of ``options.size`` (or ``options.radius``), 1 by default.

        Raises:
            InvalidGraphError: no hierarchy is built.
            InvalidQueryError: bad options.
        """
        hpa = self._built()
        if options is None:
            return hpa.is_reachable(start, goal)
        check_options(options)
        return hpa.is_reachable(start, goal, size=unit_size(options, self._grid.cell_size))

    def _built(self) -> HierarchicalGrid:
        if self._hierarchy is None:
            raise InvalidGraphError("the grid has no hierarchy; call build_hierarchy first")
        return self._hierarchy

    # -- updates ----------------------------------------------------------------------------------

    def apply(self, updates: Sequence[Update]) -> None:
        """Apply walls, weights, agents and obstacles in order, all or nothing.

        Walls and weights go through the hierarchy when there is one, so only the clusters they
        touch are rebuilt; agents go to the grid alone. The grid changes in place inside
        :meth:`GridGraph.atomic`, which keeps only the old values of the cells changed (a copy to
        fall back on would cost the whole grid on every update); when a change fails after walls
        or weights reached the hierarchy, the hierarchy is repaired over the restored cells.

        Raises:
            InvalidQueryError, OutOfBoundsError, InvalidGraphError, UnknownPointError: as the
                grid's setters (nothing stays changed).
            UnsupportedOperationError: a change grids do not take (disabled waypoints).
        """
        applied: list[SetWalkable | SetWeights | I64] = []
        self._flipped = np.zeros(0, dtype=np.int64)
        try:
            with self._grid.atomic():
                for update in updates:
                    flipped = self._apply_one(update)
                    if isinstance(update, SetWalkable | SetWeights):
                        applied.append(update)
                    elif flipped is not None:
                        applied.append(flipped)
        except BaseException:
            if self._hierarchy is not None:
                self._resync(self._hierarchy, applied)
            raise
        flips = [a for a in applied if isinstance(a, np.ndarray)]
        self._flipped = np.unique(np.concatenate(flips)) if flips else self._flipped

    def _apply_one(self, update: Update) -> I64 | None:
        """Apply one change; for obstacles, the nodes they opened or closed."""
        cells = self._grid if self._hierarchy is None else self._hierarchy  # walls and weights
        if isinstance(update, SetObstacles):
            flipped = self._grid.update_obstacles(update.shapes, update.remove, update.clear)
            if self._hierarchy is not None:
                self._hierarchy.walls_changed(flipped)
            return flipped
        if isinstance(update, SetWalkable):
            if len(update.cells):
                cells.set_walkable(update.cells, update.walkable)
        elif isinstance(update, SetWeights):
            cells.set_weights(self._weight_cells(update), update.weights)
        elif isinstance(update, PlaceAgent):
            self._grid.place_agent(update.agent, update.cell, update.size)
        elif isinstance(update, MoveAgent):
            self._grid.move_agent(update.agent, update.cell)
        elif isinstance(update, RemoveAgent):
            self._grid.remove_agent(update.agent)
        else:
            raise UnsupportedOperationError(f"a grid does not take {type(update).__name__} changes")
        return None

    def _weight_cells(self, update: SetWeights) -> I64:
        if update.cells is not None:
            return update.cells
        width = self._grid.width
        ys, xs = np.divmod(np.arange(self._grid.node_count, dtype=np.int64), width)
        return np.stack([xs, ys], axis=1)

    def _resync(self, hpa: HierarchicalGrid, applied: list[SetWalkable | SetWeights | I64]) -> None:
        """After the grid undid a failed batch: tell the hierarchy the cells it saw change (walls
        as set, not as obstacles leave them: set_walkable writes the walls under them)."""
        walkable, weights = self._grid.base_walkable, self._grid.weights
        for update in applied:
            if isinstance(update, np.ndarray):
                hpa.walls_changed(update)
            elif isinstance(update, SetWalkable):
                xs, ys = update.cells[:, 0], update.cells[:, 1]
                if len(xs):
                    hpa.set_walkable(update.cells, walkable[ys, xs])
            else:
                cells = self._weight_cells(update)
                hpa.set_weights(cells, weights[cells[:, 1], cells[:, 0]])

    # -- the hierarchy ----------------------------------------------------------------------------

    def check_hierarchy(self, options: HierarchyOptions) -> None:
        """Raise ``InvalidGraphError`` when the hierarchy refuses ``options`` for this grid.

        Its checks depend on the options and the diagonal rule only, so they run against a
        one-cell grid of the same rule: checking never costs a pass over a large grid.
        """
        _construct(GridGraph(np.ones((1, 1), dtype=bool), diagonal=self._grid.diagonal), options)

    def build_hierarchy(self, options: HierarchyOptions, progress: Progress | None = None) -> BuildReport:
        """Build a new hierarchy (the old one goes first, so a failed build leaves none).

        Raises:
            InvalidGraphError: options the hierarchy refuses.
        """
        self._hierarchy, self._smooth = None, True
        hpa = _construct(self._grid, options).build(progress=progress)
        self._hierarchy, self._smooth = hpa, options.smooth
        return BuildReport(int(hpa.nbytes), float(hpa.build_seconds), lambda: hpa.tables_ready)

    def ready_for(self, options: QueryOptions | None) -> bool:
        """False when the query's unit size needs a structure the size of the grid built first
        (footprint-max weights of a weighted grid, or the hierarchy's layer for that size); a
        query of size 1, or with bad options (its error is cheap), is always ready."""
        if options is None or (options.size == 1 and options.radius is None):
            return True
        try:
            check_options(options)
            size = unit_size(options, self._grid.cell_size)
        except AStarError:
            return True
        if size == 1:
            return True
        hpa = self._hierarchy
        return is_ready(self._grid, size) and (hpa is None or size in hpa.sizes)

    def repair_pending(self, seconds: float) -> bool:
        """Refill for about ``seconds`` the all-pairs table rows a time-boxed update left stale."""
        hpa = self._hierarchy
        if hpa is None or not hpa.pending_rows:
            return False
        hpa.refill_table(seconds)
        return True

    def describe(self) -> dict[str, Any]:
        """Size, diagonal rule, world frame, agent and obstacle counts."""
        grid = self._grid
        return {
            "width": grid.width,
            "height": grid.height,
            "diagonal": grid.diagonal.value,
            "cell_size": list(grid.cell_size),
            "origin": list(grid.origin),
            "world": self._world,
            "agents": len(grid.agents),
            "obstacles": grid.obstacle_count,
        }


def _construct(grid: GridGraph, options: HierarchyOptions) -> HierarchicalGrid:
    return HierarchicalGrid(
        grid, cluster_size=options.cluster_size, levels=options.levels,
        region_clusters=options.region_clusters, exact_check=options.exact_check,
        long_entrance=options.long_entrance, repair_seconds=options.repair_seconds,
        tree_budget=options.tree_budget, table_budget=options.table_budget,
    )  # fmt: skip
