"""A unit's footprint on a tile lattice: the cells within ``size - 1`` side steps of its centre.

Quick start (:mod:`python_core.grid.layouts.search` and :class:`TileGrid` call these)::

    nodes = ball(stride, moves, n_sides, (axis, shift), inside_box, centre, radius)
    heavy = footprint_max(weights, size, ...)      # the highest weight under each footprint

Where footprints meet: units of sizes a and k at centres p and c overlap exactly when their
lattice distance is at most ``(a - 1) + (k - 1)`` (a shortest path between them passes a cell
within ``a - 1`` of p and ``k - 1`` of c). Both footprints lie inside the grid (an agent is
placed only where its footprint does; a unit stands only where its clearance allows), and so do
the shortest paths inside them, so a BFS over the grid's own cells finds every such centre.

A radius in world units becomes the smallest size whose footprint holds the disc of that radius
about the centre cell's centre (:class:`FootprintRadii`): the nearest point of the tiles one ring
past the footprint, measured with shapely on the layout's tile outlines.
"""

# Compiled kernels take their arguments positionally: numba.njit does not compile keywords.
# ruff: noqa: PLR0917

from __future__ import annotations

import threading

import numpy as np
import numpy.typing as npt
import shapely

from python_core._types import F64
from python_core.compiled import jit
from python_core.errors import InvalidQueryError
from python_core.grid.clearance import MAX_UNIT_SIZE, check_radius
from python_core.grid.layouts.geometry import (
    TileLayout,
    TileShape,
    cell_of_class,
    neighbour_table,
    unit_centres,
)
from python_core.grid.layouts.kernel import _parity

__all__ = ["FootprintRadii", "ball", "dilate_max", "tile_depth", "tile_outline"]


@jit
def ball(
    stride: int,
    moves: npt.NDArray[np.int64],
    n_sides: int,
    parity_axis: int,
    parity_shift: int,
    box: npt.NDArray[np.int64],
    centre: int,
    radius: int,
    mark: npt.NDArray[np.uint8],
) -> tuple[npt.NDArray[np.int64], bool]:
    """The padded ids of the grid's cells within ``radius`` side steps of ``centre`` (a BFS over
    the grid's cells, ``box = (col0, row0, col1, row1)`` inclusive in padded coordinates), and
    whether a cell outside the grid lies within ``radius`` too. ``mark`` is a zeroed scratch
    array of the padded size; it is zeroed again before returning."""
    out = np.empty(16, dtype=np.int64)
    level = np.empty(16, dtype=np.int64)
    out[0], level[0] = centre, 0
    mark[centre] = 1
    count, head = 1, 0
    leaves = False
    while head < count:
        node, depth = out[head], level[head]
        head += 1
        if depth >= radius:
            continue
        p = _parity(node, stride, parity_axis, parity_shift)
        for k in range(n_sides):
            nbr = node + moves[p, k]
            if mark[nbr] != 0:
                continue
            row = nbr // stride
            col = nbr - row * stride
            if not (box[0] <= col <= box[2] and box[1] <= row <= box[3]):
                leaves = True
                continue
            mark[nbr] = 1
            if count == out.shape[0]:
                out = np.concatenate((out, np.empty(count, dtype=np.int64)))
                level = np.concatenate((level, np.empty(count, dtype=np.int64)))
            out[count], level[count] = nbr, depth + 1
            count += 1
    for i in range(count):
        mark[out[i]] = 0
    return out[:count].copy(), leaves


@jit
def dilate_max(
    values: npt.NDArray[np.float64],
    out: npt.NDArray[np.float64],
    stride: int,
    moves: npt.NDArray[np.int64],
    n_sides: int,
    parity_axis: int,
    parity_shift: int,
    pad: int,
    width: int,
    height: int,
) -> None:
    """``out[n] = max(values[n], values of n's side neighbours)`` for every grid cell ``n`` (padded
    rows ``pad .. pad + height - 1``, columns ``pad .. pad + width - 1``)."""
    for row in range(pad, pad + height):
        for node in range(row * stride + pad, row * stride + pad + width):
            best = values[node]
            p = _parity(node, stride, parity_axis, parity_shift)
            for k in range(n_sides):
                best = max(best, values[node + moves[p, k]])
            out[node] = best


def tile_outline(layout: TileLayout) -> F64:
    """A tile's outline in the unit frame (tile size 1 x 1) about its centre, counter-clockwise.

    Example:
        >>> tile_outline(TileLayout("isometric")).tolist()
        [[0.5, 0.0], [0.0, 0.5], [-0.5, 0.0], [0.0, -0.5]]
    """
    shape = layout.kind
    if shape in (TileShape.SQUARE, TileShape.HALF_OFFSET_SQUARE):
        points = [(0.5, -0.5), (0.5, 0.5), (-0.5, 0.5), (-0.5, -0.5)]
    elif shape is TileShape.HEXAGON and layout.offset_axis == 0:  # pointy top
        points = [(0.5, -0.25), (0.5, 0.25), (0.0, 0.5), (-0.5, 0.25), (-0.5, -0.25), (0.0, -0.5)]
    elif shape is TileShape.HEXAGON:  # flat top
        points = [(0.5, 0.0), (0.25, 0.5), (-0.25, 0.5), (-0.5, 0.0), (-0.25, -0.5), (0.25, -0.5)]
    else:  # isometric diamonds
        points = [(0.5, 0.0), (0.0, 0.5), (-0.5, 0.0), (0.0, -0.5)]
    return np.array(points, dtype=np.float64)


def tile_depth(layout: TileLayout, dx: F64, dy: F64) -> F64:
    """How deep a unit-frame offset from a centre lies in that cell's tile outline: <= 1 inside."""
    ax, ay = np.abs(dx), np.abs(dy)
    shape = layout.kind
    if shape in (TileShape.SQUARE, TileShape.HALF_OFFSET_SQUARE):
        out: F64 = 2 * np.maximum(ax, ay)
    elif shape is TileShape.HEXAGON:  # axis 0, pointy top: vertices (0, +-1/2), (+-1/2, +-1/4)
        out = np.maximum(2 * ax, 2 * ay + ax) if layout.offset_axis == 0 else np.maximum(2 * ay, 2 * ax + ay)
    else:  # isometric diamonds, AStarGrid2D's too
        out = 2 * (ax + ay)
    return out


class FootprintRadii:
    """Per size, the largest disc about a centre cell's centre that the footprint holds (the
    smaller of the two parity classes' on stacked layouts), computed ring by ring as far as a
    query needs: the nearest point of the tiles one ring past the footprint (the nearest
    uncovered tiles: two tiles that share only a corner are both beside a tile of the ring
    between them).

    Example:
        >>> radii = FootprintRadii(TileLayout("hexagon"), (2.0, 2.0))
        >>> [radii.size_for(r) for r in (0.5, 0.9, 1.0, 2.4)]
        [1, 2, 2, 3]
    """

    def __init__(self, layout: TileLayout, cell_size: tuple[float, float]) -> None:
        self._layout = layout
        self._cell_size = cell_size
        self._sides = neighbour_table(layout).sides
        self._outline = tile_outline(layout)
        self._radii: list[float] = []
        classes = (0, 1) if layout.parity_axis >= 0 else (0,)
        self._walks = [_Walk(cell_of_class(layout, q)) for q in classes]
        self._lock = threading.Lock()  # queries on several threads grow one list
        self._steps = [[(int(dx), int(dy)) for dx, dy in side] for side in self._sides]
        self._axis, self._flip = layout.parity_axis, 0 if layout.layout == 0 else 1
        # no footprint holds more than its rings' reach plus a tile's corner: larger radii fail at once
        reach = 0.0
        for q in classes:
            x, y = cell_of_class(layout, q)
            cx, cy = unit_centres(layout, [x], [y])
            nx, ny = unit_centres(layout, x + self._sides[q][:, 0], y + self._sides[q][:, 1])
            reach = max(
                reach, float(np.hypot((nx - cx[0]) * cell_size[0], (ny - cy[0]) * cell_size[1]).max())
            )
        corner = float(np.hypot(self._outline[:, 0] * cell_size[0], self._outline[:, 1] * cell_size[1]).max())
        self._beyond = (MAX_UNIT_SIZE - 1) * reach + corner

    def size_for(self, radius: object) -> int:
        """The smallest size whose footprint holds a disc of ``radius`` (a hair of tolerance,
        so a radius equal to a footprint's fits it).

        Raises:
            InvalidQueryError: radius not a finite number > 0, or wider than the largest footprint.
        """
        r = check_radius(radius)
        limit = r - 1e-9 * max(1.0, r)
        if limit > self._beyond:
            raise InvalidQueryError(
                f"radius {r} needs a footprint larger than the largest size {MAX_UNIT_SIZE}"
            )
        with self._lock:
            while len(self._radii) < MAX_UNIT_SIZE and (not self._radii or self._radii[-1] < limit):
                self._radii.append(min(self._next_ring(walk) for walk in self._walks))
            k = int(np.searchsorted(np.array(self._radii), limit)) + 1
        if k > MAX_UNIT_SIZE:
            raise InvalidQueryError(
                f"radius {r} needs a footprint larger than the largest size {MAX_UNIT_SIZE}"
            )
        return k

    def _next_ring(self, walk: _Walk) -> float:
        layout, (cw, ch) = self._layout, self._cell_size
        ring: list[tuple[int, int]] = []
        steps, axis, flip = self._steps, self._axis, self._flip
        for x, y in walk.ring:
            q = 0 if axis < 0 else ((y if axis == 1 else x) + flip) % 2  # geometry.cell_of_class's numbering
            for dx, dy in steps[q]:
                cell = (x + dx, y + dy)
                if cell not in walk.seen:
                    walk.seen.add(cell)
                    ring.append(cell)
        walk.ring = ring
        cx, cy = unit_centres(layout, [walk.centre[0]], [walk.centre[1]])
        xs, ys = unit_centres(layout, [c[0] for c in ring], [c[1] for c in ring])
        outline = self._outline
        corners = np.stack(  # (tiles, vertices, 2): every tile of the ring, the centre at 0
            [
                (outline[None, :, 0] + (xs - cx[0])[:, None]) * cw,
                (outline[None, :, 1] + (ys - cy[0])[:, None]) * ch,
            ],
            axis=2,
        )
        return float(shapely.distance(shapely.polygons(corners), shapely.Point(0.0, 0.0)).min())


class _Walk:
    """The rings around one centre cell, grown one at a time."""

    def __init__(self, centre: tuple[int, int]) -> None:
        self.centre = centre
        self.seen = {centre}
        self.ring = [centre]
