"""A grid on a tile lattice (hexagonal, isometric, half-offset) behind the :class:`Navigator` interface.

Quick start::

    import numpy as np
    from python_core.grid.layouts import TileGrid, TileLayout
    from python_core.navigation.tile_grid import TileNavigator
    nav = TileNavigator(TileGrid(np.ones((4, 4), bool), layout=TileLayout("hexagon")), world=False)
    assert nav.find_path((0, 0), (3, 3)).found

A :class:`~python_core.navigation.GridNavigator` whose searches are the lattice's (cells, agents,
updates and batches work as on a square grid; world endpoints go through ``local_to_map``). Its
hierarchy is a :class:`~python_core.hpa.lattice.LatticeHierarchy` (clusters of map cells; one
level; the options ``levels``, ``region_clusters``, ``tree_budget``, ``table_budget`` and
``repair_seconds`` do not apply to it and are ignored, except ``levels=2``, refused). Walls and
weights change in the grid first, then the hierarchy repairs the clusters they touched. AStarGrid2D's
isometric shapes (square grids in id space) have no hierarchy: ``UnsupportedOperationError``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from python_core._types import I64
from python_core.errors import InvalidGraphError, InvalidQueryError, UnsupportedOperationError
from python_core.grid.clearance import unit_size
from python_core.grid.layouts import TileGrid
from python_core.hpa import Progress
from python_core.hpa.lattice import LatticeHierarchy
from python_core.navigation.grid import GridNavigator
from python_core.navigation.interface import BuildReport, HierarchyOptions
from python_core.navigation.updates import SetWalkable, SetWeights, Update
from python_core.path_batch import PathBatch
from python_core.result import PathResult, QueryOptions

__all__ = ["TileNavigator"]

Cell = tuple[int, int]


class TileNavigator(GridNavigator):
    """A :class:`TileGrid` as a navigator (see the module notes).

    Args:
        grid: the tile grid; it changes in place when updates are applied.
        world: endpoints are world positions (``local_to_map``), not cells.

    Example:
        >>> from python_core.grid.layouts import TileLayout
        >>> grid = TileGrid(np.ones((2, 2), bool), layout="isometric", cell_size=(4, 2))
        >>> nav = TileNavigator(grid, world=True)
        >>> nav.resolve((2.0, 1.1)), nav.describe()["layout"]["shape"]
        ((0, 1), 'isometric')
    """

    def __init__(self, grid: TileGrid, *, world: bool = False) -> None:
        super().__init__(grid, world=world)
        self._tiles = grid
        self._lattice: LatticeHierarchy | None = None

    @property
    def grid(self) -> TileGrid:
        """The tile grid."""
        return self._tiles

    def find_path(
        self,
        start: Cell,
        goal: Cell,
        options: QueryOptions | None = None,
        *,
        hierarchical: bool = False,
        corridor: bool = False,
    ) -> PathResult:
        """The lattice's exact search, or (``hierarchical``) the hierarchy's path; when another
        agent than ``options.agent`` stands on that path, the exact search's (which sees agents).

        Raises:
            InvalidQueryError, OutOfBoundsError, BlockedEndpointError, UnknownPointError: as
                :meth:`TileGrid.find_path`; also ``corridor`` without ``hierarchical``.
            InvalidGraphError: ``hierarchical`` without a built hierarchy.
        """
        if not hierarchical:
            self._exact_only(corridor=corridor)
            return self._tiles.find_path(start, goal, options=options)
        result = self._built_lattice().find_path(
            start, goal, options=options, smooth=self._smooth, corridor=corridor
        )
        opts = options if options is not None else QueryOptions()
        if self._blocked_by_agents(result, opts):
            return self._tiles.find_path(start, goal, options=options)
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
        """:meth:`find_path` for each pair, in order.

        Raises:
            InvalidQueryError: ``starts`` and ``goals`` differ in length (and as :meth:`find_path`).
        """
        if not hierarchical:
            self._exact_only(corridor=corridor)
            return self._tiles.find_many(np.asarray(starts), np.asarray(goals), options=options)
        a, b = np.asarray(starts).reshape(-1, 2), np.asarray(goals).reshape(-1, 2)
        if a.shape != b.shape:
            raise InvalidQueryError(f"{len(a)} starts but {len(b)} goals")
        return [
            self.find_path(
                (int(s[0]), int(s[1])), (int(t[0]), int(t[1])), options, hierarchical=True, corridor=corridor
            )
            for s, t in zip(a.tolist(), b.tolist(), strict=True)
        ]

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
        """:meth:`find_many`'s answers as one :class:`PathBatch` (``(n, 2)`` cells); a hierarchical
        batch stops once its paths hold ``max_cells`` cells (``len`` says how many it answered)."""
        if not hierarchical:
            self._exact_only(corridor=corridor)
            return PathBatch.from_results(self._tiles.find_many(starts, goals, options=options))
        a, b = np.asarray(starts).reshape(-1, 2), np.asarray(goals).reshape(-1, 2)
        if a.shape != b.shape:
            raise InvalidQueryError(f"{len(a)} starts but {len(b)} goals")
        results: list[PathResult] = []
        for s, t in zip(a.tolist(), b.tolist(), strict=True):
            one = self.find_path((int(s[0]), int(s[1])), (int(t[0]), int(t[1])), options, hierarchical=True,
                                 corridor=corridor)  # fmt: skip
            results.append(one)
            max_cells = None if max_cells is None else max_cells - len(one.nodes)
            if max_cells is not None and max_cells <= 0:
                break
        return PathBatch.from_results(results)

    @staticmethod
    def _exact_only(*, corridor: bool) -> None:
        if corridor:
            raise InvalidQueryError("corridor applies to hierarchical queries only")

    def _no_hierarchy(self) -> str:
        return (
            f"HPA* is not supported on an AStarGrid2D {self._tiles.layout.kind.value} grid; query it exactly"
        )

    @property
    def has_hierarchy(self) -> bool:
        """True once :meth:`build_hierarchy` succeeded."""
        return self._lattice is not None

    @property
    def lattice(self) -> LatticeHierarchy | None:
        """The hierarchy over the lattice, or None."""
        return self._lattice

    def _built_lattice(self) -> LatticeHierarchy:
        if self._lattice is None:
            raise InvalidGraphError("the grid has no hierarchy; call build_hierarchy first")
        return self._lattice

    def is_reachable(self, start: Cell, goal: Cell, options: QueryOptions | None = None) -> bool:
        """Whether any path joins two cells, from the hierarchy's components (agents ignored).

        Raises:
            InvalidGraphError: no hierarchy is built.
            InvalidQueryError: bad options, or a unit size other than 1 (not on layouts).
        """
        hpa = self._built_lattice()
        if options is not None and unit_size(options, self._tiles.cell_size) != 1:
            kind = self._tiles.layout.kind.value
            raise InvalidQueryError(f"HPA* on a {kind} layout answers one-cell units only")
        return hpa.is_reachable(start, goal)

    def apply(self, updates: Sequence[Update]) -> None:
        """Apply the changes to the grid, all or nothing (:meth:`GridNavigator.apply`), then let
        the hierarchy repair the clusters of the cells whose walls or weights were set (after a
        failed batch too: the grid then holds its old values again, and so does the hierarchy).

        Raises:
            as :meth:`GridNavigator.apply`.
        """
        before = self._tiles.version
        try:
            super().apply(updates)
        finally:
            if self._lattice is not None and self._tiles.version != before:
                self._lattice.repair(self._touched(updates))

    def _touched(self, updates: Sequence[Update]) -> I64:
        """Cells ``(n, 2)`` inside the grid that the updates' walls, weights or obstacles name."""
        w, h = self._tiles.width, self._tiles.height
        cells = [np.zeros((0, 2), dtype=np.int64)]
        for update in updates:
            if isinstance(update, SetWeights) and update.cells is None:
                ys, xs = np.divmod(np.arange(w * h, dtype=np.int64), w)
                cells.append(np.stack([xs, ys], axis=1))
            elif isinstance(update, SetWalkable | SetWeights) and update.cells is not None:
                cells.append(np.asarray(update.cells, dtype=np.int64).reshape(-1, 2))
        flips = np.asarray(getattr(self, "obstacle_flips", np.zeros(0)), dtype=np.int64)
        cells.append(np.stack([flips % w, flips // w], axis=1))
        out = np.concatenate(cells)
        inside = (out[:, 0] >= 0) & (out[:, 0] < w) & (out[:, 1] >= 0) & (out[:, 1] < h)
        return np.unique(out[inside], axis=0)

    def work_estimates(
        self, starts: npt.ArrayLike, goals: npt.ArrayLike, *, hierarchical: bool, cells: bool = False
    ) -> npt.NDArray[np.float64]:
        """A rough relative cost per query (never raises): world endpoints are ranked by their
        distance in tiles, cells by the square grid's estimate."""
        if self._world and not cells:
            size = np.asarray(self._tiles.cell_size)
            a = np.nan_to_num(np.asarray(starts, dtype=np.float64).reshape(-1, 2) / size)
            b = np.nan_to_num(np.asarray(goals, dtype=np.float64).reshape(-1, 2) / size)
            return np.asarray(np.clip(np.abs(a - b).max(axis=1), 0.0, 1e9), dtype=np.float64)
        return super().work_estimates(starts, goals, hierarchical=False, cells=True)

    def check_hierarchy(self, options: HierarchyOptions) -> None:
        """Raise when the lattice hierarchy refuses ``options`` (checked on a one-cell grid of the
        same layout: checking never costs a pass over a large grid).

        Raises:
            InvalidGraphError: a bad cluster size, entrance length or exact check.
            UnsupportedOperationError: ``levels=2``, or an AStarGrid2D isometric grid.
        """
        tiny = TileGrid(np.ones((1, 1), dtype=bool), layout=self._tiles.layout, diagonal=self._tiles.diagonal)
        self._construct(tiny, options)

    def _construct(self, grid: TileGrid, options: HierarchyOptions) -> LatticeHierarchy:
        if not grid.layout.lattice:
            raise UnsupportedOperationError(self._no_hierarchy())
        if options.levels != 1:
            kind = grid.layout.kind.value
            raise UnsupportedOperationError(
                f"HPA* on a {kind} layout has one level, got levels={options.levels!r}"
            )
        return LatticeHierarchy(
            grid, cluster_size=options.cluster_size, long_entrance=options.long_entrance,
            exact_check=options.exact_check,
        )  # fmt: skip

    def build_hierarchy(self, options: HierarchyOptions, progress: Progress | None = None) -> BuildReport:
        """Build a new hierarchy (the old one goes first, so a failed build leaves none).

        Raises:
            as :meth:`check_hierarchy`.
        """
        self._lattice, self._smooth = None, True
        hpa = self._construct(self._tiles, options).build()
        if progress is not None:
            progress(1, 1)
        self._lattice, self._smooth = hpa, options.smooth
        return BuildReport(int(hpa.nbytes), float(hpa.build_seconds))

    def describe(self) -> dict[str, Any]:
        """The grid's description plus its ``layout`` map."""
        return {**super().describe(), "layout": self._tiles.layout.describe()}
