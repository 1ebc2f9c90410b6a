"""The cells of a tile layout an obstacle blocks: those whose own tile it overlaps by positive area.

Quick start (``TileGrid.update_obstacles`` calls this)::

    from python_core.grid.layouts.obstacles import tile_cells_under
    nodes = tile_cells_under(shape, width, height, outline, centres, nearest)

A cell's tile is its layout's outline (:func:`python_core.grid.layouts.footprint.tile_outline`,
scaled by the tile size) about its world centre (``map_to_local``), so hexagons, diamonds and
half-offset squares block exactly where they lie under the obstacle; touching only an edge or a
corner does not block, as on square grids (:mod:`python_core.grid.obstacles`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt
import shapely

from python_core._types import F64, I64, B
from python_core.obstacles import ObstacleShape

__all__ = ["tile_cells_under"]

_MARGIN = 3
"""Cells added on each side of the range the bounds' corners map to: ``nearest`` may be two off,
and a tile reaches half a tile past its centre."""
_CHUNK = 1 << 15
"""Tiles built and tested at a time (a shape over a whole large map stays within memory)."""


def tile_cells_under(  # noqa: PLR0917 (the grid's pieces, passed apart to keep layouts acyclic)
    shape: ObstacleShape,
    width: int,
    height: int,
    outline: F64,
    centres: Callable[[I64, I64], F64],
    nearest: Callable[[float, float], tuple[int, int]],
) -> I64:
    """Flat ids (``y * width + x``, ascending) of the cells whose tile the shape's interior overlaps.

    Args:
        shape: the obstacle, in world coordinates.
        width, height: the grid's size in cells.
        outline: ``(k, 2)`` a tile's outline about its centre, in world units.
        centres: cell ids ``xs, ys`` -> ``(n, 2)`` world centres.
        nearest: a world point -> a cell id near it (within two), possibly outside the grid.

    Example:
        >>> outline = np.array([(0.5, -0.5), (0.5, 0.5), (-0.5, 0.5), (-0.5, -0.5)])
        >>> at = lambda xs, ys: np.column_stack((xs, ys)).astype(float)
        >>> near = lambda px, py: (round(px), round(py))
        >>> box = ObstacleShape.polygon([(0.5, 0.5), (2.5, 0.5), (2.5, 1.5), (0.5, 1.5)])
        >>> tile_cells_under(box, 4, 3, outline, at, near).tolist()
        [5, 6]
    """
    minx, miny, maxx, maxy = shape.bounds
    ids = np.array([nearest(px, py) for px in (minx, maxx) for py in (miny, maxy)], dtype=np.int64)
    x0, y0 = max(int(ids[:, 0].min()) - _MARGIN, 0), max(int(ids[:, 1].min()) - _MARGIN, 0)
    x1, y1 = min(int(ids[:, 0].max()) + _MARGIN + 1, width), min(int(ids[:, 1].max()) + _MARGIN + 1, height)
    if x0 >= x1 or y0 >= y1:
        return np.zeros(0, dtype=np.int64)
    geometry = shape.geometry()
    shapely.prepare(geometry)
    rows = max(1, _CHUNK // (x1 - x0))
    found = [np.zeros(0, dtype=np.int64)]
    for top in range(y0, y1, rows):
        ys, xs = np.mgrid[top : min(top + rows, y1), x0:x1]
        xs, ys = xs.ravel().astype(np.int64), ys.ravel().astype(np.int64)
        tiles = shapely.polygons(centres(xs, ys)[:, None, :] + outline[None, :, :])
        hit = _overlapping(geometry, tiles)
        found.append(ys[hit] * width + xs[hit])
    nodes: I64 = np.sort(np.concatenate(found))
    return nodes


def _overlapping(geometry: shapely.Polygon, tiles: npt.NDArray[np.object_]) -> B:
    """Whether the shape's interior meets each tile's interior (then by a positive area)."""
    hit: B = shapely.intersects(geometry, tiles)
    meets = np.flatnonzero(hit)
    hit[meets[shapely.touches(geometry, tiles[meets])]] = False
    return hit
