"""Godot's tile geometry: where a map cell's centre lies and which cells are its neighbours.

Quick start::

    from python_core.grid.layouts.geometry import TileLayout, centres, neighbour_table
    hexes = TileLayout("hexagon", layout=0, offset_axis=0)
    centres(hexes, [0, 1], [0, 0], (32.0, 32.0)).tolist()   # TileSet.map_to_local: [[16, 16], [48, 16]]
    neighbour_table(hexes).sides[1]                          # the six of an odd row

``TileSet.map_to_local`` as the engine computes it (scene/resources/2d/tile_set.cpp): half-offset
square, hexagon and isometric tiles are one half-offset lattice with rows (or columns) overlapping
by 0, 1/4 and 1/2 of a tile. Its neighbours are not a second table copied from the engine: in the
tile's own unit frame (the lattice before ``tile_size``) a cell's sides are its 4 (square,
isometric) or 6 (half-offset, hexagon) nearest centres and its corners the next 4, each set
separated from the next by a gap; ``get_surrounding_cells`` and ``get_neighbor_cell`` equal that on
every shape, layout and axis (tests/core/grid/layouts/test_geometry.py, against a dump of Godot).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

import numpy as np
import numpy.typing as npt

from python_core._types import F64
from python_core.errors import InvalidGraphError

__all__ = [
    "NeighbourTable",
    "TileLayout",
    "TileShape",
    "cell_of_class",
    "centres",
    "neighbour_table",
    "unit_centres",
]


class TileShape(str, Enum):
    """A layer's cell shape: ``TileSet.TileShape`` (values 0-3 in that order) and the two
    ``AStarGrid2D.CellShape`` isometric shapes (square neighbours, id-space costs; only the
    points differ)."""

    SQUARE = "square"
    ISOMETRIC = "isometric"
    HALF_OFFSET_SQUARE = "half_offset_square"
    HEXAGON = "hexagon"
    ASTAR_ISOMETRIC_RIGHT = "astar_isometric_right"
    ASTAR_ISOMETRIC_DOWN = "astar_isometric_down"


_OVERLAP = {
    TileShape.SQUARE: 1.0,
    TileShape.ISOMETRIC: 0.5,
    TileShape.HALF_OFFSET_SQUARE: 1.0,
    TileShape.HEXAGON: 0.75,
}
"""How far apart rows (or columns) are, in tiles: Godot's ``overlapping_ratio``."""
_LAYOUTS = ("stacked", "stacked_offset", "stairs_right", "stairs_down", "diamond_right", "diamond_down")


@dataclass(frozen=True, slots=True)
class TileLayout:
    """How a layer's map cells sit in the plane.

    Attributes:
        shape: a :class:`TileShape` (or its value).
        layout: ``TileSet.TileLayout``, 0-5 (stacked, stacked_offset, stairs_right, stairs_down,
            diamond_right, diamond_down); square tiles ignore it.
        offset_axis: ``TileSet.TileOffsetAxis``, 0 horizontal, 1 vertical; square ignores it.
        map_origin: the map coordinate of the grid's cell (0, 0): a stacked layout's neighbours
            depend on the parity of the map row (column), not the grid's.

    Raises:
        InvalidGraphError: an unknown shape, a layout or axis out of range, a bad map origin.

    Example:
        >>> TileLayout("hexagon", layout=1, offset_axis=1).parity_axis
        0
        >>> TileLayout("octagon")
        Traceback (most recent call last):
        ...
        python_core.errors.InvalidGraphError: unknown tile shape 'octagon'; expected one of ['square', \
'isometric', 'half_offset_square', 'hexagon', 'astar_isometric_right', 'astar_isometric_down']
    """

    shape: TileShape | str
    layout: int = 0
    offset_axis: int = 0
    map_origin: tuple[int, int] = (0, 0)

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "shape", TileShape(self.shape))
        except ValueError:
            shapes = [s.value for s in TileShape]
            raise InvalidGraphError(
                f"unknown tile shape {self.shape!r:.40}; expected one of {shapes}"
            ) from None
        for name, value, high in (("layout", self.layout, 5), ("offset_axis", self.offset_axis, 1)):
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= high:
                raise InvalidGraphError(f"{name} must be an integer in [0, {high}], got {value!r:.40}")
        origin = self.map_origin
        if (
            not isinstance(origin, Sequence)
            or len(origin) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) and abs(v) < 1 << 30 for v in origin)
        ):
            raise InvalidGraphError(f"map_origin must be two integers, got {origin!r:.60}")
        object.__setattr__(self, "map_origin", (int(origin[0]), int(origin[1])))

    @property
    def kind(self) -> TileShape:
        """The shape as a :class:`TileShape`."""
        return TileShape(self.shape)

    @property
    def lattice(self) -> bool:
        """True for the TileSet shapes (Godot's ``map_to_local``); False for AStarGrid2D's."""
        return self.kind not in (TileShape.ASTAR_ISOMETRIC_RIGHT, TileShape.ASTAR_ISOMETRIC_DOWN)

    @property
    def six_sided(self) -> bool:
        """Hexagon and half-offset square: six sides, no corners (the diagonal rule does not apply)."""
        return self.kind in (TileShape.HEXAGON, TileShape.HALF_OFFSET_SQUARE)

    @property
    def parity_axis(self) -> int:
        """1 when a cell's neighbours depend on its map row's parity, 0 on its column's, -1 never
        (square tiles, stairs and diamond layouts: their lattices have one neighbour table)."""
        if self.kind is TileShape.SQUARE or not self.lattice or self.layout > 1:
            return -1
        return 1 if self.offset_axis == 0 else 0

    @classmethod
    def from_map(cls, value: object) -> TileLayout:
        """A layout from its map (a grid record's or the wire's ``layout``): ``shape`` (required),
        ``layout``, ``offset_axis``, ``map_origin`` (``[x, y]``).

        Raises:
            InvalidGraphError: not a map, unknown keys, or bad values (as the constructor).

        Example:
            >>> TileLayout.from_map({"shape": "hexagon", "map_origin": [-2, 3]}).map_origin
            (-2, 3)
            >>> TileLayout.from_map({"shape": "hexagon", "axis": 1})
            Traceback (most recent call last):
            ...
            python_core.errors.InvalidGraphError: unknown layout field(s) ['axis']; expected some of \
['shape', 'layout', 'offset_axis', 'map_origin']
        """
        keys = ["shape", "layout", "offset_axis", "map_origin"]
        if not isinstance(value, dict):
            raise InvalidGraphError(f"layout must be a map, got {type(value).__name__}")
        extra = sorted(str(k) for k in value if k not in keys)
        if extra:
            raise InvalidGraphError(f"unknown layout field(s) {extra}; expected some of {keys}")
        if "shape" not in value:
            raise InvalidGraphError("layout needs a 'shape'")
        origin = value.get("map_origin", (0, 0))
        return cls(
            value["shape"],
            layout=value.get("layout", 0),
            offset_axis=value.get("offset_axis", 0),
            map_origin=tuple(origin) if isinstance(origin, list | tuple) else origin,
        )

    def describe(self) -> dict[str, object]:
        """The wire's map of this layout."""
        return {
            "shape": self.kind.value,
            "layout": self.layout,
            "offset_axis": self.offset_axis,
            "map_origin": list(self.map_origin),
        }


def unit_centres(layout: TileLayout, mx: npt.ArrayLike, my: npt.ArrayLike) -> tuple[F64, F64]:
    """Centres of map cells in tiles, less the half tile: ``map_to_local / tile_size - 0.5``.

    Example:
        >>> [v.tolist() for v in unit_centres(TileLayout("isometric", layout=4), [1], [0])]
        [[0.5], [-0.5]]
    """
    x, y = np.asarray(mx, dtype=np.float64), np.asarray(my, dtype=np.float64)
    shape, code = layout.kind, layout.layout
    if shape is TileShape.ASTAR_ISOMETRIC_RIGHT:
        return (x + y) / 2, (y - x) / 2
    if shape is TileShape.ASTAR_ISOMETRIC_DOWN:
        return (x - y) / 2, (x + y) / 2
    if shape is not TileShape.SQUARE:
        x, y = _offset_lattice(code, layout.offset_axis, x, y)
    ratio = _OVERLAP[shape]
    return (x, y * ratio) if layout.offset_axis == 0 else (x * ratio, y)


def _offset_lattice(code: int, axis: int, x: F64, y: F64) -> tuple[F64, F64]:
    """``map_to_local``'s half-offset lattice before the overlap (stairs and diamonds are not
    the transposes of each other between the two axes, so each axis is written out)."""
    if axis == 0:
        odd = np.mod(y, 2.0) == 1.0
        forms = (
            lambda: (x + np.where(odd, 0.5, 0.0), y),
            lambda: (x + np.where(odd, 0.0, 0.5), y),
            lambda: (x + y / 2, y),
            lambda: (x / 2, y * 2 + x),
            lambda: ((x + y) / 2, y - x),
            lambda: ((x - y) / 2, y + x),
        )
    else:
        odd = np.mod(x, 2.0) == 1.0
        forms = (
            lambda: (x, y + np.where(odd, 0.5, 0.0)),
            lambda: (x, y + np.where(odd, 0.0, 0.5)),
            lambda: (x * 2 + y, y / 2),
            lambda: (x, y + x / 2),
            lambda: (x + y, (y - x) / 2),
            lambda: (x - y, (y + x) / 2),
        )
    return forms[code]()


def centres(layout: TileLayout, mx: npt.ArrayLike, my: npt.ArrayLike, tile_size: Sequence[float]) -> F64:
    """``TileMapLayer.map_to_local`` of map cells: ``(n, 2)`` local positions.

    Example:
        >>> centres(TileLayout("hexagon"), [0, 0], [0, 1], (32.0, 40.0)).tolist()
        [[16.0, 20.0], [32.0, 50.0]]
    """
    ux, uy = unit_centres(layout, mx, my)
    return np.stack([(ux + 0.5) * float(tile_size[0]), (uy + 0.5) * float(tile_size[1])], axis=1)


@dataclass(frozen=True, slots=True)
class NeighbourTable:
    """A lattice's moves per parity class (class 1: the half-shifted rows or columns).

    Attributes:
        sides: ``(2, k, 2)`` int64 ``(dx, dy)`` of the side neighbours (``get_surrounding_cells``).
        corners: ``(2, 4, 2)`` corner offsets (square and isometric shapes; ``(2, 0, 2)`` else).
        corner_sides: ``(2, 4, 2)``: for each corner, the two side moves (indices into ``sides``)
            between the cell and that corner, which the diagonal rule looks at.
    """

    sides: npt.NDArray[np.int64]
    corners: npt.NDArray[np.int64]
    corner_sides: npt.NDArray[np.int64]


_CANDIDATES = np.array([(dx, dy) for dy in range(-3, 4) for dx in range(-3, 4) if (dx, dy) != (0, 0)])


def neighbour_table(layout: TileLayout) -> NeighbourTable:
    """The sides and corners of every parity class, from the nearest centres in the unit frame.

    Raises:
        InvalidGraphError: (never for Godot's layouts) the nearest centres are not separated.

    Example:
        >>> t = neighbour_table(TileLayout("square"))
        >>> t.sides[0].tolist(), t.corners[0].tolist()
        ([[0, 1], [1, 0], [-1, 0], [0, -1]], [[1, 1], [-1, 1], [1, -1], [-1, -1]])
        >>> t.corner_sides[0].tolist()  # corner (1, 1) lies between sides (0, 1) and (1, 0)
        [[0, 1], [0, 2], [1, 3], [2, 3]]
    """
    unit = layout if layout.lattice else TileLayout("square")  # AStarGrid2D: square neighbours
    sides, corners, between = [], [], []
    for parity in (0, 1):
        base = cell_of_class(unit, parity)
        side, corner = _nearest(unit, base)
        shared = []
        for dx, dy in corner:
            theirs, _ = _nearest(unit, (base[0] + dx, base[1] + dy))
            mine = [i for i, (a, b) in enumerate(side) if (a - dx, b - dy) in theirs]
            if len(mine) != 2:
                raise InvalidGraphError(f"corner {(dx, dy)} of {unit} has {len(mine)} shared sides, not 2")
            shared.append(mine)
        sides.append(side)
        corners.append(corner)
        between.append(shared)
    n_corners = len(corners[0])
    return NeighbourTable(
        sides=np.array(sides, dtype=np.int64),
        corners=np.array(corners, dtype=np.int64).reshape(2, n_corners, 2),
        corner_sides=np.array(between, dtype=np.int64).reshape(2, n_corners, 2),
    )


def _nearest(
    layout: TileLayout, cell: tuple[int, int]
) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The side and corner offsets of one map cell: its nearest centres in the unit frame, in a
    fixed order (by distance, then row, then column, so each parity class lists them alike)."""
    k, n_corners = (6, 0) if layout.six_sided else (4, 4)
    cx, cy = unit_centres(layout, [cell[0]], [cell[1]])
    nx, ny = unit_centres(layout, cell[0] + _CANDIDATES[:, 0], cell[1] + _CANDIDATES[:, 1])
    dist = np.round(np.hypot(nx - cx[0], ny - cy[0]), 9)
    order = np.lexsort((-_CANDIDATES[:, 0], -_CANDIDATES[:, 1], dist))
    ranked = dist[order]
    for count in (k, k + n_corners):
        if ranked[count] <= ranked[count - 1]:
            raise InvalidGraphError(f"no gap after the {count} nearest cells of {layout}")
    offsets = [(int(dx), int(dy)) for dx, dy in _CANDIDATES[order[: k + n_corners]]]
    return offsets[:k], offsets[k:]


def cell_of_class(layout: TileLayout, parity: int) -> tuple[int, int]:
    """A map cell of parity class ``parity`` (1 = the half-shifted rows or columns; 0 when the
    layout has one neighbour table)."""
    shifted = parity if layout.layout == 0 else 1 - parity  # stacked_offset shifts the even ones
    if layout.parity_axis == 1:
        return (0, shifted)
    if layout.parity_axis == 0:
        return (shifted, 0)
    return (0, 0)
