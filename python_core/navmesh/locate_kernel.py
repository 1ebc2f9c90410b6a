"""Locating points on a navmesh in compiled code: which polygon holds a point, the closest point.

Quick start::

    from python_core.navmesh import NavMesh
    mesh = NavMesh([[0, 0], [2, 0], [2, 1], [0, 1]], [[0, 1, 2, 3]])
    assert mesh.locate((1.0, 0.5)) == 0   # runs :func:`locate` on the mesh's record

The kernels read the :data:`~python_core.navmesh.kernel.NavStatic` record's polygons and bucket
grid only. Points are located in the plane frame (``xy``; in 3D the axes other than ``up``), with a
uniform grid of buckets over the polygons' bounding boxes; a point off the mesh (or on polygons the
query's layers exclude) is clamped to the closest point of an allowed polygon by searching buckets
ring by ring. Heights come from the polygons' planes.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from python_core._types import F64, I64
from python_core.compiled import jit

__all__ = ["closest_on_mesh", "closest_point", "holding", "lift", "locate", "near_on_polygon", "plane_xy"]


@jit
def _inside(st: Any, poly: int, qx: float, qy: float, eps: float = 1e-9) -> bool:
    """Whether the plane point lies in the convex, counter-clockwise polygon (edges included,
    within ``eps`` times the coordinates' size)."""
    xy, ptr, pv = st.xy, st.poly_ptr, st.poly_verts
    a, b = ptr[poly], ptr[poly + 1]
    for k in range(a, b):
        p0 = pv[k]
        p1 = pv[k + 1] if k + 1 < b else pv[a]
        dx, dy = xy[p1, 0] - xy[p0, 0], xy[p1, 1] - xy[p0, 1]
        cross = dx * (qy - xy[p0, 1]) - dy * (qx - xy[p0, 0])
        if cross < -eps * math.sqrt(dx * dx + dy * dy) * (1.0 + abs(qx) + abs(qy)):
            return False
    return True


@jit
def _height(st: Any, poly: int, qx: float, qy: float) -> float:
    """Height of the polygon's plane above the plane point (0 in 2D)."""
    if st.up < 0:
        return 0.0
    return float(st.plane[poly, 0] * qx + st.plane[poly, 1] * qy + st.plane[poly, 2])


@jit
def near_on_polygon(st: Any, poly: int, qx: float, qy: float) -> tuple[float, float, float]:
    """Squared plane distance to the polygon and its closest point."""
    if _inside(st, poly, qx, qy):
        return 0.0, qx, qy
    xy, ptr, pv = st.xy, st.poly_ptr, st.poly_verts
    a, b = ptr[poly], ptr[poly + 1]
    best, bx, by = math.inf, qx, qy
    for k in range(a, b):
        p0 = pv[k]
        p1 = pv[k + 1] if k + 1 < b else pv[a]
        ax, ay = xy[p0, 0], xy[p0, 1]
        dx, dy = xy[p1, 0] - ax, xy[p1, 1] - ay
        t = ((qx - ax) * dx + (qy - ay) * dy) / max(dx * dx + dy * dy, 1e-300)
        t = min(max(t, 0.0), 1.0)
        px, py = ax + t * dx, ay + t * dy
        d = (px - qx) ** 2 + (py - qy) ** 2
        if d < best:
            best, bx, by = d, px, py
    return best, bx, by


@jit
def _locate(st: Any, qx: float, qy: float, h: float, mask: int, eps: float = 1e-9) -> int:  # noqa: PLR0917
    """A polygon holding the plane point whose layers share ``mask`` (3D: nearest in height;
    2D: lowest index), or -1."""
    cx = math.floor((qx - st.origin[0]) / st.cell)
    cy = math.floor((qy - st.origin[1]) / st.cell)
    if cx < 0 or cy < 0 or cx >= st.cols or cy >= st.rows:
        return -1
    c = cy * st.cols + cx
    best, best_d = -1, math.inf
    for k in range(st.cell_ptr[c], st.cell_ptr[c + 1]):
        p = st.cell_polys[k]
        if st.poly_layers[p] & mask == 0 or not _inside(st, p, qx, qy, eps):
            continue
        d = abs(_height(st, p, qx, qy) - h) if st.up >= 0 else 0.0
        if d < best_d or (d == best_d and p < best):
            best, best_d = p, d
    return best


@jit
def holding(st: Any, poly: int, qx: float, qy: float, mask: int) -> I64:
    """Every allowed polygon holding the plane point that ``poly`` (the one located) holds too, at
    the same height: a point on a shared vertex or edge lies in several, and on a grid-made mesh
    two of them may touch only there (a diagonal gap), so the search starts from all of them."""
    out = np.empty(16, np.int64)
    out[0] = poly
    count = 1
    cx = math.floor((qx - st.origin[0]) / st.cell)
    cy = math.floor((qy - st.origin[1]) / st.cell)
    if cx < 0 or cy < 0 or cx >= st.cols or cy >= st.rows:
        return out[:1]
    c = cy * st.cols + cx
    h = _height(st, poly, qx, qy)
    for k in range(st.cell_ptr[c], st.cell_ptr[c + 1]):
        p = st.cell_polys[k]
        if p == poly or count == 16 or st.poly_layers[p] & mask == 0 or not _inside(st, p, qx, qy):
            continue
        if st.up >= 0 and abs(_height(st, p, qx, qy) - h) > 1e-6 * (1.0 + abs(h)):
            continue
        out[count] = p
        count += 1
    return out[:count]


@jit
def closest_on_mesh(st: Any, qx: float, qy: float, h: float, mask: int) -> tuple[int, float, float]:
    """The allowed polygon nearest the point and the closest point on it (the point itself when
    inside); ``(-1, qx, qy)`` when no polygon shares ``mask``. Buckets are searched ring by ring
    around the point's (clamped) bucket until no ring can hold anything nearer."""
    found = _locate(st, qx, qy, h, mask)
    if found >= 0:
        return found, qx, qy
    cx = min(max(math.floor((qx - st.origin[0]) / st.cell), 0), st.cols - 1)
    cy = min(max(math.floor((qy - st.origin[1]) / st.cell), 0), st.rows - 1)
    best, best_d, bx, by = -1, math.inf, qx, qy
    for r in range(max(st.cols, st.rows) + 1):
        if best >= 0 and (r - 1) * st.cell > math.sqrt(best_d):
            break  # every bucket of ring r is at least (r - 1) cells away from the point
        for y in range(max(cy - r, 0), min(cy + r, st.rows - 1) + 1):
            step = 1 if y == cy - r or y == cy + r else max(2 * r, 1)
            for x in range(cx - r, cx + r + 1, step):
                if x < 0 or x >= st.cols:
                    continue
                c = y * st.cols + x
                for k in range(st.cell_ptr[c], st.cell_ptr[c + 1]):
                    p = st.cell_polys[k]
                    if st.poly_layers[p] & mask == 0:
                        continue
                    d, px, py = near_on_polygon(st, p, qx, qy)
                    if st.up >= 0:
                        d += (_height(st, p, px, py) - h) ** 2
                    if d < best_d or (d == best_d and p < best):
                        best, best_d, bx, by = p, d, px, py
    return best, bx, by


@jit
def lift(st: Any, poly: int, qx: float, qy: float, out: F64, row: int) -> None:  # noqa: PLR0917
    """Write the plane point, on ``poly``, as mesh coordinates into ``out[row]``."""
    if st.up < 0:
        out[row, 0], out[row, 1] = qx, qy
    else:
        out[row, st.ax_i], out[row, st.ax_j] = qx, qy
        out[row, st.up] = _height(st, poly, qx, qy)


@jit
def plane_xy(st: Any, point: F64) -> tuple[float, float, float]:
    """The point's plane coordinates and height (0 in 2D)."""
    if st.up < 0:
        return point[0], point[1], 0.0
    return point[st.ax_i], point[st.ax_j], point[st.up]


@jit
def locate(st: Any, point: F64, mask: int, eps: float) -> int:
    """The polygon (layers sharing ``mask``) holding ``point`` (3D: nearest in height), or -1."""
    qx, qy, h = plane_xy(st, point)
    return _locate(st, qx, qy, h, mask, eps)


@jit
def closest_point(st: Any, point: F64, mask: int) -> tuple[int, F64]:
    """The polygon (layers sharing ``mask``) nearest ``point`` and the closest point on it.

    Returns:
        ``(poly, point)``; ``poly`` is -1 (and the point unchanged) when no polygon is allowed.
    """
    qx, qy, h = plane_xy(st, point)
    poly, px, py = closest_on_mesh(st, qx, qy, h, mask)
    out = np.zeros((1, point.shape[0]))
    if poly < 0:
        out[0, :] = point
    else:
        lift(st, poly, px, py, out, 0)
    return poly, out[0]
