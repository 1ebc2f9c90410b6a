"""A grid on a tile lattice (hexagonal, isometric, half-offset) behind the :class:`Navigator` interface.

Quick start::

    import numpy as np
    from python_core.grid.layouts import TileGrid, TileLayout
    from python_core.navigation.tile_grid import TileNavigator
    nav = TileNavigator(TileGrid(np.ones((4, 4), bool), layout=TileLayout("hexagon")), world=False)
    assert nav.find_path((0, 0), (3, 3)).found

A :class:`~python_core.navigation.GridNavigator` whose searches are the lattice's (cells, agents,
updates and batches work as on a square grid; world endpoints go through ``local_to_map``). What
is built for square grids only, the HPA* hierarchy, is refused with ``UnsupportedOperationError``
rather than built over the wrong neighbours.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from python_core.errors import InvalidQueryError, UnsupportedOperationError
from python_core.grid.layouts import TileGrid
from python_core.hpa import Progress
from python_core.navigation.grid import GridNavigator
from python_core.navigation.interface import BuildReport, HierarchyOptions
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
        """The lattice's exact search.

        Raises:
            InvalidQueryError, OutOfBoundsError, BlockedEndpointError, UnknownPointError: as
                :meth:`TileGrid.find_path`; also ``corridor``.
            UnsupportedOperationError: ``hierarchical`` (no hierarchy on a tile layout).
        """
        self._exact_only(hierarchical=hierarchical, corridor=corridor)
        return self._tiles.find_path(start, goal, options=options)

    def find_many(
        self,
        starts: Sequence[Cell],
        goals: Sequence[Cell],
        options: QueryOptions | None = None,
        *,
        hierarchical: bool = False,
        corridor: bool = False,
    ) -> list[PathResult]:
        """:meth:`find_path` for each pair, in order."""
        self._exact_only(hierarchical=hierarchical, corridor=corridor)
        return self._tiles.find_many(np.asarray(starts), np.asarray(goals), options=options)

    def find_batch(
        self,
        starts: npt.ArrayLike,
        goals: npt.ArrayLike,
        options: QueryOptions | None = None,
        *,
        hierarchical: bool = False,
        corridor: bool = False,
    ) -> PathBatch:
        """:meth:`find_many`'s answers as one :class:`PathBatch` (``(n, 2)`` cells)."""
        self._exact_only(hierarchical=hierarchical, corridor=corridor)
        return PathBatch.from_results(self._tiles.find_many(starts, goals, options=options))

    def _exact_only(self, *, hierarchical: bool, corridor: bool) -> None:
        if hierarchical:
            raise UnsupportedOperationError(self._no_hierarchy())
        if corridor:
            raise InvalidQueryError("corridor applies to hierarchical queries only")

    def _no_hierarchy(self) -> str:
        return f"HPA* is not supported on a {self._tiles.layout.kind.value} layout yet; query it exactly"

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
        """Always raises: no hierarchy on a tile layout.

        Raises:
            UnsupportedOperationError: always.
        """
        raise UnsupportedOperationError(self._no_hierarchy())

    def build_hierarchy(self, options: HierarchyOptions, progress: Progress | None = None) -> BuildReport:
        """Always raises: no hierarchy on a tile layout.

        Raises:
            UnsupportedOperationError: always.
        """
        raise UnsupportedOperationError(self._no_hierarchy())

    def describe(self) -> dict[str, Any]:
        """The grid's description plus its ``layout`` map."""
        return {**super().describe(), "layout": self._tiles.layout.describe()}
