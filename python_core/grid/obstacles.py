"""Obstacles on a square grid: the cells under each one are blocked, apart from the loaded walls.

Quick start::

    from python_core.grid import GridGraph
    from python_core.obstacles import ObstacleShape
    grid = GridGraph.from_strings(["....", "....", "...."])
    grid.update_obstacles({7: ObstacleShape.circle((1.5, 1.0), 0.4)})  # world coordinates
    assert not grid.walkable[1, 1] and grid.base_walkable[1, 1]

A cell is blocked while an obstacle's interior overlaps its square (the cell's point ``origin + (x,
y) * cell_size`` at its centre, ``cell_size`` wide) by a positive area: touching an edge or a corner
does not block. A count of obstacles per cell is kept beside the walls given by the load and
:meth:`set_walkable` (``base_walkable``): a cell is walkable when its wall is open and its count is 0,
so removing an obstacle gives back exactly those walls, also where a wall under it was opened or
closed meanwhile. Changed cells go through the grid's local repair, as :meth:`set_walkable`'s.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np
import numpy.typing as npt
import shapely

from python_core._types import I64, U8, B
from python_core.errors import InvalidGraphError
from python_core.grid.changes import GridChanges
from python_core.grid.search.repair import finish_patch, start_patch
from python_core.obstacles import ObstacleShape

__all__ = [
    "GridObstacles",
    "ObstacleLayer",
    "ObstaclePlan",
    "check_obstacle_args",
    "square_cells_under",
    "square_cells_under_many",
]

U16 = npt.NDArray[np.uint16]
_MAX_COUNT = np.iinfo(np.uint16).max
_EMPTY: I64 = np.zeros(0, dtype=np.int64)
_BLOCK = 16
"""Above this many candidate cells a side, whole blocks of _BLOCK x _BLOCK cells are tested first:
blocks inside the obstacle or clear of it need no test per cell."""


def check_obstacle_args(
    set_: Any, remove: Any, clear: Any
) -> tuple[dict[int, ObstacleShape], list[int], bool]:
    """``update_obstacles``'s arguments, checked: ids are integers >= 0, shapes ObstacleShapes.

    Raises:
        InvalidGraphError: anything else.
    """
    if not isinstance(set_, Mapping):
        raise InvalidGraphError(f"obstacles to set must be a mapping id -> ObstacleShape, got {type(set_)}")
    shapes: dict[int, ObstacleShape] = {}
    for key, shape in set_.items():
        if not isinstance(shape, ObstacleShape):
            raise InvalidGraphError(f"obstacle {key!r} must be an ObstacleShape, got {type(shape).__name__}")
        shapes[_obstacle_id(key)] = shape
    if isinstance(remove, str | bytes) or not isinstance(remove, Iterable):
        raise InvalidGraphError(f"obstacle ids to remove must be an iterable of ids, got {remove!r:.80}")
    if not isinstance(clear, bool | np.bool_):
        raise InvalidGraphError(f"clear must be a bool, got {clear!r:.80}")
    return shapes, [_obstacle_id(i) for i in remove], bool(clear)


def _obstacle_id(value: Any) -> int:
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer) or value < 0:
        raise InvalidGraphError(f"an obstacle id must be an integer >= 0, got {value!r:.80}")
    return int(value)


@dataclass(frozen=True, slots=True)
class ObstaclePlan:
    """One ``update_obstacles`` call worked out before anything changes."""

    shapes: dict[int, ObstacleShape]  # the new id -> shape map
    cells: dict[int, I64]  # the new id -> blocked nodes map
    touched: I64  # nodes whose count may change, each once
    counts: U16  # their new counts
    changed: I64  # nodes whose walkability flips (the count leaves or reaches 0 on an open wall)


class ObstacleLayer:
    """The obstacles of one grid: shapes and their cells by id, a count per cell, the walls as
    loaded or set (the grid's walkable array is ``walls & (counts == 0)``)."""

    def __init__(self, walls: U8) -> None:
        self.walls: U8 = walls.copy()
        self.counts: U16 = np.zeros(walls.shape, dtype=np.uint16)
        self.shapes: dict[int, ObstacleShape] = {}
        self.cells: dict[int, I64] = {}

    def plan(
        self,
        set_: dict[int, ObstacleShape],
        remove: list[int],
        clear: bool,
        cells_of: Callable[[list[ObstacleShape]], list[I64]],
    ) -> ObstaclePlan:
        """What ``clear``, then removing ``remove``, then placing ``set_`` gives; changes nothing.

        Raises:
            InvalidGraphError: an id in ``remove`` that is not placed (checked against the
                obstacles before the call), or more than 65,535 obstacles over one cell.
        """
        unknown = [i for i in remove if i not in self.shapes]
        if unknown:
            raise InvalidGraphError(f"no obstacle with id {unknown[0]} (nothing was changed)")
        gone = set(self.shapes) if clear else set(remove) | (set(set_) & set(self.shapes))
        new_cells = dict(zip(set_, cells_of(list(set_.values())), strict=True))
        old = [self.cells[i] for i in gone]
        added = list(new_cells.values())
        shapes = {i: s for i, s in self.shapes.items() if i not in gone} | set_
        cells = {i: c for i, c in self.cells.items() if i not in gone} | new_cells
        every = np.concatenate([_EMPTY, *old, *added])
        touched, where = np.unique(every, return_inverse=True)
        split = sum(len(c) for c in old)
        delta = np.bincount(where[split:], minlength=len(touched)) - np.bincount(
            where[:split], minlength=len(touched)
        )
        before = self.counts[touched]
        after = before.astype(np.int64) + delta
        if after.size and after.max() > _MAX_COUNT:
            raise InvalidGraphError(f"more than {_MAX_COUNT} obstacles over one cell")
        flips = ((before > 0) != (after > 0)) & (self.walls[touched] != 0)
        return ObstaclePlan(shapes, cells, touched, after.astype(np.uint16), touched[flips])

    def commit(self, plan: ObstaclePlan) -> Callable[[], None]:
        """Make ``plan`` the layer's state; returns how to go back to the state before it."""
        shapes, cells, old_counts = self.shapes, self.cells, self.counts[plan.touched]
        self.shapes, self.cells = plan.shapes, plan.cells
        self.counts[plan.touched] = plan.counts

        def undo() -> None:
            self.shapes, self.cells = shapes, cells
            self.counts[plan.touched] = old_counts

        return undo


class GridObstacles(GridChanges):
    """Obstacle methods of :class:`~python_core.grid.GridGraph` (walls and weights from
    :class:`GridChanges`, whose :meth:`set_walkable` writes the walls under the obstacles)."""

    _obstacles: ObstacleLayer | None
    _origin: tuple[float, float]
    _cell_size: tuple[float, float]

    def update_obstacles(
        self,
        set_: Mapping[int, ObstacleShape] = MappingProxyType({}),
        remove: Iterable[int] = (),
        clear: bool = False,
    ) -> I64:
        """Place, move and remove obstacles in one step: ``clear`` first, then ``remove``, then
        ``set_`` (an id already placed moves); all or nothing. Coordinates are world coordinates.

        Args:
            set_: id (an integer >= 0) -> shape, placed or moved.
            remove: ids to take away (each must be placed before the call).
            clear: take every obstacle away first.

        Returns:
            The nodes (``y * width + x``, ascending) whose walkability changed.

        Raises:
            InvalidGraphError: an unknown id in ``remove``, a bad id or shape (nothing changes).

        Example:
            >>> from python_core.grid import GridGraph
            >>> g = GridGraph.from_strings(["...", "..."], diagonal="never")
            >>> g.update_obstacles({1: ObstacleShape.polygon([(0.5, -1), (1.5, -1), (1.5, 5)])}).tolist()
            [1, 4]
            >>> g.find_path((0, 0), (2, 0)).found, g.obstacle_count
            (False, 1)
            >>> g.update_obstacles(remove=[2])
            Traceback (most recent call last):
            ...
            python_core.errors.InvalidGraphError: no obstacle with id 2 (nothing was changed)
        """
        shapes, removes, clear = check_obstacle_args(set_, remove, clear)
        layer = self._obstacles or ObstacleLayer(self._walkable)  # kept once it holds one
        plan = layer.plan(shapes, removes, clear, self._cells_under)
        self._obstacles = layer
        undo = layer.commit(plan)
        if self._undo is not None:
            self._undo.append(undo)
        changed = plan.changed
        if changed.size:
            self._remember(self._walkable, changed)
            patch = start_patch(self._view, changed)
            self._walkable[changed] = layer.counts[changed] == 0
            self._version += 1
            finish_patch(self._view, patch, walls=True)
        return changed

    @property
    def obstacle_count(self) -> int:
        """Obstacles placed."""
        return 0 if self._obstacles is None else len(self._obstacles.shapes)

    @property
    def obstacles(self) -> Mapping[int, ObstacleShape]:
        """Read-only id -> shape of the obstacles placed."""
        return MappingProxyType({} if self._obstacles is None else self._obstacles.shapes)

    @property
    def base_walkable(self) -> B:
        """Read-only ``(height, width)`` bool view of the walls as loaded and set by
        :meth:`set_walkable`, without obstacles (:attr:`walkable` has both)."""
        walls = self._walkable if self._obstacles is None else self._obstacles.walls
        view = walls.view(np.bool_).reshape(self._height, self._width)
        view.flags.writeable = False
        return view

    def _walls_set(self, nodes: I64, values: B) -> B:
        """:meth:`set_walkable` writes ``values`` as the walls at ``nodes``; the walkable cells are
        those walls where no obstacle stands."""
        layer = self._obstacles
        if layer is None:
            return values
        if self._undo is not None:
            old = layer.walls[nodes].copy()
            self._undo.append(lambda: layer.walls.__setitem__(nodes, old))
        layer.walls[nodes] = values
        free: B = (layer.walls[nodes] != 0) & (layer.counts[nodes] == 0)
        return free

    def _cells_under(self, shapes: list[ObstacleShape]) -> list[I64]:
        return square_cells_under_many(shapes, self._width, self._height, self._origin, self._cell_size)


def square_cells_under(
    shape: ObstacleShape,
    width: int,
    height: int,
    origin: tuple[float, float],
    cell_size: tuple[float, float],
) -> I64:
    """Nodes (``y * width + x``, ascending) of the cells whose square the shape's interior overlaps
    by a positive area; the square of cell ``(x, y)`` spans ``origin + (x -/+ 0.5, y -/+ 0.5) *
    cell_size``. Exact (shapely's predicates: intersecting and not only touching); the work is
    bounded by the shape's bounding box.

    Example:
        >>> square = ObstacleShape.polygon([(0.5, 0.5), (2.5, 0.5), (2.5, 1.5), (0.5, 1.5)])
        >>> square_cells_under(square, 4, 3, (0.0, 0.0), (1.0, 1.0)).tolist()  # edges on cell edges
        [5, 6]
    """
    (ox, oy), (cw, ch) = origin, cell_size
    x0, x1, y0, y1 = _candidates(shape, width, height, origin, cell_size)
    if x0 >= x1 or y0 >= y1:
        return _EMPTY
    geometry = shape.geometry()
    shapely.prepare(geometry)  # in place, once per shape: the many box tests below reuse it
    frame = _Frame(ox, oy, cw, ch, geometry)
    if (x1 - x0) <= 2 * _BLOCK and (y1 - y0) <= 2 * _BLOCK:
        xs, ys = _cells(x0, x1, y0, y1)
        hit = frame.overlapping(xs, ys, xs + 1, ys + 1)
        xs, ys = xs[hit], ys[hit]
    else:
        xs, ys = frame.blocks(x0, x1, y0, y1)
    nodes: I64 = np.sort(ys * width + xs)
    return nodes


def square_cells_under_many(
    shapes: list[ObstacleShape],
    width: int,
    height: int,
    origin: tuple[float, float],
    cell_size: tuple[float, float],
) -> list[I64]:
    """:func:`square_cells_under` of each shape, the small ones (a bounding range up to 32 cells a
    side: moving units, crates) tested together in one shapely call, the others one by one.

    Example:
        >>> a, b = ObstacleShape.circle((1.0, 1.0), 0.4), ObstacleShape.circle((9.0, 9.0), 0.4)
        >>> [n.tolist() for n in square_cells_under_many([a, b], 4, 3, (0.0, 0.0), (1.0, 1.0))]
        [[5], []]
    """
    out: list[I64] = [_EMPTY] * len(shapes)
    small: list[int] = []
    ranges: list[tuple[int, int, int, int]] = []
    for i, shape in enumerate(shapes):
        x0, x1, y0, y1 = _candidates(shape, width, height, origin, cell_size)
        if x0 >= x1 or y0 >= y1:
            continue
        if (x1 - x0) > 2 * _BLOCK or (y1 - y0) > 2 * _BLOCK:
            out[i] = square_cells_under(shape, width, height, origin, cell_size)
        else:
            small.append(i)
            ranges.append((x0, x1, y0, y1))
    if not small:
        return out
    # Every small shape's candidate cells in one array, row-major per shape, with their owner.
    x0s, x1s, y0s, y1s = (np.array(r, dtype=np.int64) for r in zip(*ranges, strict=True))
    nx, counts = x1s - x0s, (x1s - x0s) * (y1s - y0s)
    owner = np.repeat(np.arange(len(small)), counts)
    local = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
    xs, ys = x0s[owner] + local % nx[owner], y0s[owner] + local // nx[owner]
    geometries = np.array([shapes[i].geometry() for i in small], dtype=object)
    shapely.prepare(geometries)
    frame = _Frame(origin[0], origin[1], cell_size[0], cell_size[1], geometries[owner])
    hit = frame.overlapping(xs, ys, xs + 1, ys + 1)
    nodes = ys[hit] * width + xs[hit]  # ascending within each owner (row-major)
    for i, part in zip(
        small, np.split(nodes, np.cumsum(np.bincount(owner[hit], minlength=len(small)))[:-1]), strict=True
    ):
        out[i] = part
    return out


def _candidates(
    shape: ObstacleShape, width: int, height: int, origin: tuple[float, float], cell_size: tuple[float, float]
) -> tuple[int, int, int, int]:
    """``x0, x1, y0, y1``: the cells (half-open ranges, clipped to the grid) whose span meets the
    shape's bounds, one more each side against rounding (the tests after are exact)."""
    (ox, oy), (cw, ch) = origin, cell_size
    minx, miny, maxx, maxy = shape.bounds
    x0, x1 = max(math.floor((minx - ox) / cw - 0.5), 0), min(math.ceil((maxx - ox) / cw + 0.5), width)
    y0, y1 = max(math.floor((miny - oy) / ch - 0.5), 0), min(math.ceil((maxy - oy) / ch + 0.5), height)
    return x0, x1, y0, y1


def _cells(x0: int, x1: int, y0: int, y1: int) -> tuple[I64, I64]:
    ys, xs = np.mgrid[y0:y1, x0:x1]
    return xs.ravel().astype(np.int64), ys.ravel().astype(np.int64)


@dataclass(frozen=True, slots=True)
class _Frame:
    """Boxes of cell ranges in world coordinates and the shape's tests against them."""

    ox: float
    oy: float
    cw: float
    ch: float
    geometry: shapely.Polygon | npt.NDArray[np.object_]  # one shape, or one per box

    def boxes(self, x0: I64, y0: I64, x1: I64, y1: I64) -> npt.NDArray[np.object_]:
        """The rectangles covering cells ``[x0, x1) x [y0, y1)`` (a cell's edges computed the same
        way whichever range it is in: its box and its block's share them exactly)."""
        boxes: npt.NDArray[np.object_] = shapely.box(
            self.ox + (x0 - 0.5) * self.cw,
            self.oy + (y0 - 0.5) * self.ch,
            self.ox + (x1 - 0.5) * self.cw,
            self.oy + (y1 - 0.5) * self.ch,
        )
        return boxes

    def overlapping(self, x0: I64, y0: I64, x1: I64, y1: I64) -> B:
        """Whether the shape's interior meets each box's interior (then by a positive area)."""
        boxes = self.boxes(x0, y0, x1, y1)
        hit: B = shapely.intersects(self.geometry, boxes)
        meets = np.flatnonzero(hit)
        shape = self.geometry if isinstance(self.geometry, shapely.Geometry) else self.geometry[meets]
        hit[meets[shapely.touches(shape, boxes[meets])]] = False
        return hit

    def blocks(self, x0: int, x1: int, y0: int, y1: int) -> tuple[I64, I64]:
        """The overlapping cells of the range, testing blocks first: those inside the shape are
        taken whole, those clear of it skipped, only the others' cells tested one by one."""
        bx, by = _cells(0, -(-(x1 - x0) // _BLOCK), 0, -(-(y1 - y0) // _BLOCK))
        bx0, by0 = x0 + bx * _BLOCK, y0 + by * _BLOCK
        bx1, by1 = np.minimum(bx0 + _BLOCK, x1), np.minimum(by0 + _BLOCK, y1)
        boxes = self.boxes(bx0, by0, bx1, by1)
        meets = shapely.intersects(self.geometry, boxes)
        inside = meets & shapely.contains_properly(self.geometry, boxes)
        edge = meets & ~inside
        parts = [_cells(int(a), int(b), int(c), int(d)) for a, b, c, d in zip(
            bx0[edge], bx1[edge], by0[edge], by1[edge], strict=True)]  # fmt: skip
        xs = np.concatenate([_EMPTY, *(p[0] for p in parts)])
        ys = np.concatenate([_EMPTY, *(p[1] for p in parts)])
        hit = self.overlapping(xs, ys, xs + 1, ys + 1) if xs.size else np.zeros(0, dtype=bool)
        full = [_cells(int(a), int(b), int(c), int(d)) for a, b, c, d in zip(
            bx0[inside], bx1[inside], by0[inside], by1[inside], strict=True)]  # fmt: skip
        fx = np.concatenate([_EMPTY, *(p[0] for p in full), xs[hit]])
        fy = np.concatenate([_EMPTY, *(p[1] for p in full), ys[hit]])
        return fx, fy
