"""A grid laid out as Godot lays out a TileMapLayer: square, isometric, half-offset or hexagonal.

Quick start::

    import numpy as np
    from python_core.grid.layouts import TileGrid, TileLayout
    hexes = TileGrid(np.ones((10, 12), bool), layout=TileLayout("hexagon"), cell_size=(36, 40))
    result = hexes.find_path((0, 0), (11, 9))      # six neighbours per cell, world step lengths
    hexes.world_to_cell((100.0, 80.0))             # TileMapLayer.local_to_map

A :class:`TileGrid` is a :class:`~python_core.grid.GridGraph` (walls, weights, agents, ``atomic``,
the same validation) whose cells sit on a tile lattice: cell ``(x, y)`` is map cell
``layout.map_origin + (x, y)``, its point is that cell's ``map_to_local`` (shifted so the grid's
cell (0, 0) lies at ``origin``; ``cell_size`` is the tile size in world units), its neighbours the
engine's, and a step costs the distance between centres times the weight of the cell entered.
AStarGrid2D's isometric shapes keep square neighbours and its id-space costs (a straight step 1,
a diagonal sqrt 2, times the weight): only their points move.

Units of any size: on a lattice a unit of size k stands on a centre cell and covers it and the
k - 1 rings of side neighbours around it (:mod:`.clearance`, :mod:`.search`); AStarGrid2D's shapes
keep the square grid's k x k footprint from the anchor, in id space.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from types import MappingProxyType
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from python_core._types import F64, I64, U8, DiagonalMode
from python_core.compiled import register_warm_up
from python_core.errors import InvalidQueryError
from python_core.grid.cells import Cell, as_cell, as_cells, check_options, parse_pair
from python_core.grid.clearance import check_size
from python_core.grid.graph import GridGraph
from python_core.grid.layouts import search
from python_core.grid.layouts.agents import agents_on_path, footprint_cells
from python_core.grid.layouts.footprint import FootprintRadii, tile_depth, tile_outline
from python_core.grid.layouts.geometry import TileLayout, unit_centres
from python_core.grid.layouts.obstacles import tile_cells_under
from python_core.grid.layouts.prepared import patch_walls, patch_weights, prepared
from python_core.grid.search import dispatch
from python_core.grid.search.grid_view import GridView
from python_core.grid.search.prepared import prepared_for
from python_core.obstacles import ObstacleShape
from python_core.result import PathResult, QueryOptions

__all__ = ["TileGrid"]

_NEAR = np.array([(dx, dy) for dy in range(-2, 3) for dx in range(-2, 3)])


class TileGrid(GridGraph):
    """A :class:`GridGraph` on a tile lattice (see the module notes).

    Args:
        walkable, diagonal, weights, cell_size, origin: as :class:`GridGraph`; ``cell_size`` is
            the tile size, ``origin`` the world centre of cell (0, 0). The diagonal rule applies
            to the corner cells of square and isometric tiles; six-sided tiles have none.
        layout: a :class:`TileLayout`, or a shape name (layout 0, axis 0, map origin (0, 0)).

    Raises:
        InvalidGraphError: as :class:`GridGraph`, or a bad layout.

    Example:
        >>> g = TileGrid(np.ones((2, 3), bool), layout="hexagon", cell_size=(2.0, 2.0))
        >>> g.find_path((0, 0), (2, 0)).cost, g.cell_to_world((0, 1))
        (4.0, (1.0, 1.5))
        >>> g.find_path((0, 0), (3, 0))
        Traceback (most recent call last):
        ...
        python_core.errors.OutOfBoundsError: goal (3, 0) is outside the 3 x 2 grid
    """

    def __init__(
        self,
        walkable: npt.ArrayLike,
        *,
        layout: TileLayout | str,
        diagonal: DiagonalMode | str = DiagonalMode.ALWAYS,
        weights: npt.ArrayLike | None = None,
        cell_size: float | Sequence[float] = (1.0, 1.0),
        origin: Sequence[float] = (0.0, 0.0),
    ) -> None:
        super().__init__(walkable, diagonal=diagonal, weights=weights, cell_size=cell_size, origin=origin)
        self._layout = layout if isinstance(layout, TileLayout) else TileLayout(layout)
        # weakly keyed caches (the square search's padded copy) key on this view: it lives as long as the grid
        self._id_space = None if self._layout.lattice else cast("GridView", _IdSpace(self))
        self._radii: FootprintRadii | None = None  # radius -> size, grown ring by ring on demand

    @classmethod
    def from_grid(cls, grid: GridGraph, layout: TileLayout) -> TileGrid:
        """A tile grid with ``grid``'s walls, weights, diagonal rule, cell size and origin (no agents).

        Example:
            >>> TileGrid.from_grid(GridGraph.from_strings([".."]), TileLayout("isometric")).layout.kind.value
            'isometric'
        """
        return cls(
            grid.walkable, layout=layout, diagonal=grid.diagonal, weights=grid.weights,
            cell_size=grid.cell_size, origin=grid.origin,
        )  # fmt: skip

    @property
    def layout(self) -> TileLayout:
        """How the cells sit in the plane."""
        return self._layout

    # -- coordinates ------------------------------------------------------------------------------

    def cell_points(self, nodes: npt.ArrayLike) -> F64:
        """World centres of flat cell ids ``y * width + x``: ``(n, 2)`` float64.

        Example:
            >>> g = TileGrid(np.ones((2, 2), bool), layout="isometric", cell_size=(4, 2))
            >>> g.cell_points([0, 1, 2]).tolist()  # the odd row is shifted half a tile
            [[0.0, 0.0], [4.0, 0.0], [2.0, 1.0]]
        """
        ids = np.asarray(nodes, dtype=np.int64).reshape(-1)
        ys, xs = np.divmod(ids, self._width)
        return self._centres(xs, ys)

    def _centres(self, xs: npt.ArrayLike, ys: npt.ArrayLike) -> F64:
        (mx, my), (cw, ch), (ox, oy) = self._layout.map_origin, self._cell_size, self._origin
        ux, uy = unit_centres(self._layout, np.asarray(xs) + mx, np.asarray(ys) + my)
        bx, by = unit_centres(self._layout, [mx], [my])
        return np.stack([ox + (ux - bx[0]) * cw, oy + (uy - by[0]) * ch], axis=1)

    def cell_to_world(self, cell: Sequence[float], *, size: int = 1) -> tuple[float, float]:
        """World centre of a cell (``map_to_local`` of its map cell, placed by ``origin``).

        Raises:
            InvalidQueryError: non-integral or non-finite coordinates; a unit ``size`` other than 1.
            OutOfBoundsError: the cell is outside the grid.
        """
        x, y = as_cell(cell, self._width, self._height)
        shift = self._anchor_shift(size)
        point = self._centres([x + shift], [y + shift])[0]
        return (float(point[0]), float(point[1]))

    def world_to_cell(self, position: Sequence[float], *, size: int = 1) -> Cell:
        """The cell whose tile contains ``position`` (``TileMapLayer.local_to_map``): of the cells
        around the nearest lattice point, the one in whose tile outline the position lies deepest.

        Raises:
            InvalidQueryError: non-finite coordinates; a unit ``size`` other than 1.
            OutOfBoundsError: that cell lies outside the grid.

        Example:
            >>> g = TileGrid(np.ones((3, 3), bool), layout="isometric", cell_size=(4, 2))
            >>> g.world_to_cell((2.0, 1.1)), g.world_to_cell((0.9, 0.0)), g.world_to_cell((2.1, 0.0))
            ((0, 1), (0, 0), (1, 0))
        """
        shift = self._anchor_shift(size)
        px, py = parse_pair("position", position, positive=False, error=InvalidQueryError)
        if shift:  # AStarGrid2D shapes: the anchor whose footprint centre is nearest
            (ax, ay), (bx, by) = self._centres([0.0, shift], [0.0, shift])
            x, y = self.world_to_cell((px - (bx - ax), py - (by - ay)))
            k = round(2 * shift) + 1
            return min(x, max(self._width - k, 0)), min(y, max(self._height - k, 0))
        (cw, ch), (ox, oy), (mx, my) = self._cell_size, self._origin, self._layout.map_origin
        bx, by = unit_centres(self._layout, [mx], [my])
        ux, uy = (px - ox) / cw + bx[0], (py - oy) / ch + by[0]  # the unit frame of map cells
        guess = self._approximate(ux, uy)
        xs, ys = guess[0] + _NEAR[:, 0], guess[1] + _NEAR[:, 1]
        cx, cy = unit_centres(self._layout, xs, ys)
        depth = tile_depth(self._layout, ux - cx, uy - cy)
        best = int(np.lexsort((ys, xs, depth))[0])  # ties on an edge: the smaller x, then y
        return as_cell((int(xs[best]) - mx, int(ys[best]) - my), self._width, self._height)

    def _anchor_shift(self, size: int) -> float:
        """How far (in cells, along both axes) a unit's point lies from its cell: 0 on a lattice
        (the footprint is centred on its cell), ``(size - 1) / 2`` on AStarGrid2D's shapes (the
        square grid's k x k footprint from the anchor)."""
        k = check_size(size)
        return 0.0 if self._layout.lattice else (k - 1) / 2.0

    def _approximate(self, ux: float, uy: float) -> tuple[int, int]:
        """The map cell whose centre the linear part of the lattice puts nearest (within two)."""
        cx, cy = unit_centres(self._layout, [0, 2, 0], [0, 0, 2])
        a = np.array([[cx[1] - cx[0], cx[2] - cx[0]], [cy[1] - cy[0], cy[2] - cy[0]]]) / 2
        mx, my = np.linalg.solve(a, np.array([ux - cx[0], uy - cy[0]]))
        if not (math.isfinite(mx) and math.isfinite(my)) or max(abs(mx), abs(my)) > 2**40:
            return (2**40, 2**40)  # far outside any grid: as_cell reports it
        return (round(mx), round(my))

    # -- units of any size -------------------------------------------------------------------------

    @property
    def clearance(self) -> U8:
        """Read-only ``(height, width)`` uint8: on a lattice, the largest size whose footprint (the
        cell and size - 1 rings of side neighbours) lies inside the grid on walkable cells, 0 on
        walls (:mod:`.clearance`); on AStarGrid2D's shapes the square grid's (k x k from the anchor).

        Example:
            >>> TileGrid(np.ones((3, 5), bool), layout="hexagon").clearance.tolist()
            [[1, 1, 1, 1, 1], [1, 2, 2, 2, 1], [1, 1, 1, 1, 1]]
        """
        if self._id_space is not None:
            view = prepared_for(self._id_space).clearance
        else:
            view = prepared(self).clearance(self._height, self._width)
        view.flags.writeable = False
        return view

    def size_for_radius(self, radius: float) -> int:
        """The unit size for a round unit of ``radius`` world units: on a lattice the smallest
        footprint that holds the disc about its centre cell's centre (:mod:`.footprint`), on
        AStarGrid2D's shapes the square grid's rule.

        Raises:
            InvalidQueryError: radius not finite and > 0, or wider than the largest footprint.

        Example:
            >>> g = TileGrid(np.ones((2, 2), bool), layout="hexagon", cell_size=(2.0, 2.0))
            >>> g.size_for_radius(0.8), g.size_for_radius(1.0), g.size_for_radius(2.0)  # tile inradius 0.89
            (1, 2, 2)
        """
        if self._id_space is not None:
            return super().size_for_radius(radius)
        if self._radii is None:
            self._radii = FootprintRadii(self._layout, self._cell_size)
        return self._radii.size_for(radius)

    def place_agent(self, agent_id: int, cell: Sequence[int], size: int = 1) -> None:
        """Put a new agent on a cell (see :meth:`GridGraph.place_agent`); on a lattice its
        footprint is the cell and ``size - 1`` rings of side neighbours, as far as the grid
        reaches (an agent at the edge blocks the part inside).

        Raises:
            InvalidQueryError, OutOfBoundsError: as :meth:`GridGraph.place_agent`.

        Example:
            >>> g = TileGrid(np.ones((3, 4), bool), layout="hexagon"); g.place_agent(1, (1, 1), 2)
            >>> g.find_path((0, 0), (3, 0)).status.value, g.find_path((0, 2), (3, 2)).found
            ('no_path', False)
        """
        super().place_agent(agent_id, cell, size)

    def _footprint_at(self, agent_id: int, cell: Sequence[int], size: int) -> Cell:
        if self._id_space is not None:
            return super()._footprint_at(agent_id, cell, size)
        return as_cell(cell, self._width, self._height)  # a footprint past the edge is cut there

    def _cover(self, x: int, y: int, size: int, count: int) -> None:
        if self._id_space is not None or size == 1:
            super()._cover(x, y, size, count)
        else:
            self._occupancy[footprint_cells(self, (x, y), size)] += count

    def agents_on(self, nodes: npt.ArrayLike, *, besides: int | None = None, size: int = 1) -> bool:
        """Whether an agent other than ``besides`` covers a cell of the footprint of one of
        ``nodes`` (see :meth:`GridGraph.agents_on`; footprints as :meth:`place_agent`'s)."""
        if self._id_space is not None:
            return super().agents_on(nodes, besides=besides, size=size)
        return agents_on_path(
            self, self._occupancy, nodes, agents=self._agents, sizes=self._sizes, besides=besides, size=size
        )

    # -- changes: the lattice copy repaired in place ---------------------------------------------------

    def set_walkable(self, cells: npt.ArrayLike, walkable: bool | npt.ArrayLike = True) -> None:
        """Open or close cells (see :meth:`GridGraph.set_walkable`); the search's clearance is
        repaired near them."""
        before = self._version
        super().set_walkable(cells, walkable)
        if self._id_space is None:
            patch_walls(self, before, as_cells(cells, self._width, self._height))

    def update_obstacles(
        self,
        set_: Mapping[int, ObstacleShape] = MappingProxyType({}),
        remove: Iterable[int] = (),
        clear: bool = False,
    ) -> I64:
        """Place, move and remove obstacles (see :meth:`GridGraph.update_obstacles`): a cell is
        blocked where an obstacle overlaps its own tile (:mod:`.obstacles`) by a positive area."""
        before = self._version
        changed = super().update_obstacles(set_, remove, clear)
        if self._id_space is None:
            patch_walls(self, before, changed)
        return changed

    def _cells_under(self, shapes: list[ObstacleShape]) -> list[I64]:
        (cw, ch), (ox, oy), (mx, my) = self._cell_size, self._origin, self._layout.map_origin
        bx, by = unit_centres(self._layout, [mx], [my])

        def nearest(px: float, py: float) -> Cell:
            x, y = self._approximate((px - ox) / cw + bx[0], (py - oy) / ch + by[0])
            return x - mx, y - my

        outline = tile_outline(self._layout) * np.array([cw, ch])
        return [
            tile_cells_under(s, self._width, self._height, outline, self._centres, nearest) for s in shapes
        ]

    def set_weights(self, cells: npt.ArrayLike, weights: float | npt.ArrayLike) -> None:
        """Set the weight of cells (see :meth:`GridGraph.set_weights`)."""
        before = self._version
        super().set_weights(cells, weights)
        if self._id_space is None:
            patch_weights(self, before, as_cells(cells, self._width, self._height))

    # -- queries ----------------------------------------------------------------------------------

    def find_path(
        self,
        start: Sequence[int],
        goal: Sequence[int],
        *,
        options: QueryOptions | None = None,
        method: Any = "auto",
    ) -> PathResult:
        """Shortest path between two cells over the layout's neighbours (compiled A*).

        Same endpoint rules, options and errors as :meth:`GridGraph.find_path`; the heuristic is
        the world distance between centres times the least weight (``"zero"`` also accepted).
        AStarGrid2D isometric shapes run the square grid's search in id space (``method`` as
        :meth:`GridGraph.find_path`); lattices take ``"auto"`` or ``"astar"``.

        Units of any size (``options.size`` or ``options.radius``): on a lattice a unit stands on
        a centre cell and covers it and ``size - 1`` rings of side neighbours (:mod:`.search`);
        on AStarGrid2D's shapes, the square grid's k x k footprint from the anchor, in id space.

        Raises:
            InvalidQueryError, OutOfBoundsError, BlockedEndpointError, UnknownPointError: as
                :meth:`GridGraph.find_path`.

        Example:
            >>> g = TileGrid(np.ones((5, 7), bool), layout="hexagon", cell_size=(2.0, 2.0))
            >>> g.find_path((1, 2), (5, 2), options=QueryOptions(size=2)).cost
            8.0
            >>> g.find_path((0, 2), (5, 2), options=QueryOptions(size=2))
            Traceback (most recent call last):
            ...
            python_core.errors.BlockedEndpointError: start cell (0, 2) is blocked for a unit of size 2: \
its footprint (the cell and 1 ring of neighbours) does not fit
        """
        if self._id_space is not None:
            return self._find_in_id_space(start, goal, options, method)
        if method not in ("auto", "astar"):
            raise InvalidQueryError(
                f"method {method!r:.40} does not apply to a tile layout; use 'auto' or 'astar'"
            )
        return search.find_path(self, start, goal, options)

    def _find_in_id_space(
        self, start: Sequence[int], goal: Sequence[int], options: QueryOptions | None, method: Any
    ) -> PathResult:
        """AStarGrid2D's shapes: the square grid's search in id space (a radius in world units)."""
        opts = options if options is not None else QueryOptions()
        if opts.radius is not None:
            check_options(opts)
            opts = replace(opts, size=self.size_for_radius(opts.radius), radius=None)
        assert self._id_space is not None  # only AStarGrid2D's shapes come here
        result = dispatch.find_path(self._id_space, start, goal, options=opts, method=method)
        if len(result.nodes) == 0:
            return result
        ys, xs = np.divmod(result.nodes, self._width)
        shift = (opts.size - 1) / 2.0  # the footprint's centre
        return PathResult(
            result.status, points=self._centres(xs + shift, ys + shift), nodes=result.nodes,
            cost=result.cost, expanded=result.expanded,
        )  # fmt: skip

    def find_many(
        self,
        starts: npt.ArrayLike,
        goals: npt.ArrayLike,
        *,
        options: QueryOptions | None = None,
    ) -> list[PathResult]:
        """:meth:`find_path` for each pair, in order (the first bad query raises).

        Raises:
            InvalidQueryError: ``starts`` and ``goals`` differ in length (and as :meth:`find_path`).
        """
        a, b = np.asarray(starts).reshape(-1, 2), np.asarray(goals).reshape(-1, 2)
        if a.shape != b.shape:
            raise InvalidQueryError(f"{len(a)} starts but {len(b)} goals")
        return [self.find_path(s, t, options=options) for s, t in zip(a.tolist(), b.tolist(), strict=True)]

    def prepare(self) -> None:
        """Build now what the first search would (the padded copy and one workspace)."""
        if self._id_space is not None:
            dispatch.prepare(self._id_space)
        else:
            search.prepare(self)

    def __repr__(self) -> str:
        return (
            f"TileGrid(width={self._width}, height={self._height}, layout={self._layout}, "
            f"diagonal={self._diagonal.value!r}, cell_size={self._cell_size}, origin={self._origin})"
        )


class _IdSpace:
    """An AStarGrid2D isometric grid as the square search sees it: the same grid (every property
    read through), but cell size 1 and origin 0, so costs are in id space."""

    cell_size = (1.0, 1.0)
    origin = (0.0, 0.0)

    def __init__(self, grid: TileGrid) -> None:
        self._grid = grid

    def __getattr__(self, name: str) -> Any:
        return getattr(self._grid, name)


@register_warm_up
def _warm_up() -> None:
    """Compile the lattice kernels with the dtypes real queries use (weights, corners, parity,
    agents, unit sizes: clearance, its repair both ways, footprint weights and balls)."""
    for shape in ("hexagon", "isometric"):
        grid = TileGrid(np.ones((5, 6), bool), layout=shape, diagonal="only_if_no_obstacles")
        grid.find_path((0, 0), (3, 2))
        grid.set_weights([(1, 1)], 2.0)
        grid.place_agent(1, (2, 1))
        grid.find_path((0, 0), (3, 2), options=QueryOptions(allow_partial=True, max_expansions=3))
        grid.set_walkable([(3, 3)], False)
        grid.set_walkable([(3, 3)], True)
        grid.place_agent(2, (3, 2), 2)
        grid.find_path((1, 1), (4, 2), options=QueryOptions(size=2, allow_partial=True))
