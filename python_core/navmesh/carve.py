"""Navmesh geometry with shapely: a mesh's polygons as shapely shapes, and any walkable area
(shapes, holes and all) split back into the convex polygons a :class:`NavMesh` is made of.

Quick start::

    import numpy as np
    import shapely
    from python_core.navmesh.carve import convex_pieces
    ell = shapely.Polygon([(0, 0), (2, 0), (2, 1), (1, 1), (1, 2), (0, 2)])
    xy, ptr, flat = convex_pieces(ell)
    assert len(ptr) - 1 == 2  # an L in two convex pieces

Shrinking a mesh for an agent's radius (:mod:`~python_core.navmesh.shrink`) and cutting it around
obstacles both end here: the area's constrained Delaunay triangles (shapely's, which add no vertex)
merged greedily into convex polygons, longest shared edge first (Hertel and Mehlhorn: at most four
times the fewest convex pieces). Pieces share exact vertices, so the mesh they make is conformal.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt
import shapely

from python_core._types import F64, I64

__all__ = ["convex_pieces", "convex_pieces_many", "polygons_of"]

Shapes = npt.NDArray[np.object_]

_CONVEX_TOL = 1e-12
"""A corner whose cross product is above ``-tol * |d0| * |d1|`` is convex (collinear included);
stricter than the mesh's own check, so every merged piece passes it."""


def polygons_of(xy: F64, ptr: I64, flat: I64) -> Shapes:
    """Each polygon (CSR ``ptr``/``flat`` into the 2D points ``xy``) as a shapely Polygon, in one call.

    Example:
        >>> xy = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]])
        >>> polygons_of(xy, np.array([0, 3]), np.array([0, 1, 2]))[0].area
        0.5
    """
    sizes = np.diff(ptr)
    count = sizes.shape[0]
    rings = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(sizes + 1, out=rings[1:])  # closed rings: each polygon's first vertex again at its end
    poly = np.repeat(np.arange(count), sizes + 1)
    local = np.arange(rings[-1]) - rings[poly]
    local = np.where(local == sizes[poly], 0, local)
    coords = np.ascontiguousarray(xy[flat[ptr[poly] + local]], dtype=np.float64)
    offsets = (rings, np.arange(count + 1, dtype=np.int64))
    return np.asarray(shapely.from_ragged_array(shapely.GeometryType.POLYGON, coords, offsets))


def convex_pieces(area: Any, *, min_area: float = 0.0) -> tuple[F64, I64, I64]:
    """``area`` (a shapely Polygon, MultiPolygon or collection; lines and points are ignored) as
    convex polygons: ``(xy, ptr, flat)``, counter-clockwise, sharing vertices.

    Args:
        area: what to split.
        min_area: triangles of at most this area (slivers of rounding) are left out.

    Example:
        >>> xy, ptr, flat = convex_pieces(shapely.box(0, 0, 1, 1).difference(shapely.box(0.4, 0.4, 0.6, 0.6)))
        >>> len(ptr) - 1 >= 4, float(np.round(sum(shapely.Polygon(xy[flat[a:b]]).area
        ...                                        for a, b in zip(ptr[:-1], ptr[1:])), 9))
        (True, 0.96)
    """
    return convex_pieces_many(np.array([area], dtype=object), min_area=min_area)[0]


def convex_pieces_many(areas: Shapes, *, min_area: float = 0.0) -> list[tuple[F64, I64, I64]]:
    """:func:`convex_pieces` of each of ``areas`` (Polygons or MultiPolygons), the same pieces, with
    shapely called once for all of them (an obstacle update re-cuts hundreds of small polygons:
    per-polygon calls cost more than the triangulation)."""
    parts, owner = shapely.get_parts(areas, return_index=True)
    real = (shapely.get_type_id(parts) == shapely.GeometryType.POLYGON) & ~shapely.is_empty(parts)
    parts, owner = parts[real], owner[real]
    empty = (np.zeros((0, 2)), np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int64))
    out = [empty] * len(areas)
    if parts.shape[0] == 0:  # nothing left of any (shapely's multipolygons wants a part)
        return out
    merged = shapely.multipolygons(parts, indices=owner, out=np.empty(len(areas), dtype=object))
    has = np.zeros(len(areas), dtype=np.bool_)
    has[owner] = True
    triangles, which = shapely.get_parts(
        shapely.constrained_delaunay_triangles(merged[has]), return_index=True
    )
    corners = shapely.get_coordinates(triangles).reshape(-1, 4, 2)[:, :3]
    starts = np.searchsorted(which, np.arange(int(has.sum()) + 1))
    for k, i in enumerate(np.flatnonzero(has).tolist()):
        out[i] = _from_triangles(corners[starts[k] : starts[k + 1]], min_area)
    return out


def _from_triangles(corners: F64, min_area: float) -> tuple[F64, I64, I64]:
    """Triangles (``(n, 3, 2)`` corners) merged into convex pieces: ``(xy, ptr, flat)``."""
    # one complex number per point: a 1D unique, much faster than unique rows
    as_complex = np.ascontiguousarray(corners.reshape(-1, 2)).view(np.complex128).reshape(-1)
    unique, ids = np.unique(as_complex, return_inverse=True)
    xy = np.ascontiguousarray(np.stack([unique.real, unique.imag], axis=1))
    tri = ids.reshape(-1, 3).astype(np.int64)
    a, b, c = xy[tri[:, 0]], xy[tri[:, 1]], xy[tri[:, 2]]
    twice = (b[:, 0] - a[:, 0]) * (c[:, 1] - a[:, 1]) - (b[:, 1] - a[:, 1]) * (c[:, 0] - a[:, 0])
    keep = np.abs(twice) > 2.0 * min_area
    tri = tri[keep]
    clockwise = twice[keep] < 0
    tri[clockwise] = tri[clockwise][:, ::-1]
    loops = _merge(xy, tri)
    sizes = np.asarray([len(loop) for loop in loops], dtype=np.int64)
    ptr = np.zeros(sizes.shape[0] + 1, dtype=np.int64)
    np.cumsum(sizes, out=ptr[1:])
    flat = np.fromiter((v for loop in loops for v in loop), dtype=np.int64, count=int(ptr[-1]))
    return xy, ptr, flat


def _merge(xy: F64, tri: I64) -> list[list[int]]:
    """Counter-clockwise triangles merged across shared edges, longest first, while convex."""
    count = tri.shape[0]
    loops: list[list[int]] = list(tri.tolist())  # a loop merged into another becomes []
    owner = list(range(count))  # union-find: which loop a triangle now belongs to

    def find(i: int) -> int:
        while owner[i] != i:
            owner[i] = owner[owner[i]]
            i = owner[i]
        return i

    # Directed edges a -> b of every triangle; an interior edge appears once each way.
    a = tri.reshape(-1)
    b = tri[:, [1, 2, 0]].reshape(-1)
    which = np.repeat(np.arange(count), 3)
    key = np.minimum(a, b) * xy.shape[0] + np.maximum(a, b)
    order = np.argsort(key, kind="stable")
    pair = np.flatnonzero(key[order][1:] == key[order][:-1])
    first, second = order[pair], order[pair + 1]
    length = np.hypot(*(xy[a[first]] - xy[b[first]]).T)
    xs, ys = xy[:, 0].tolist(), xy[:, 1].tolist()
    which_, first_, second_ = which.tolist(), first.tolist(), second.tolist()
    a_, b_ = a.tolist(), b.tolist()
    for k in np.argsort(-length, kind="stable").tolist():
        e = first_[k]
        p, q = find(which_[e]), find(which_[second_[k]])
        if p == q:
            continue
        merged = _joined(loops[p], loops[q], (a_[e], b_[e]), (xs, ys))
        if merged is not None:
            loops[p], loops[q] = merged, []
            owner[q] = p
    return [loop for loop in loops if loop]


def _joined(
    p: list[int], q: list[int], edge: tuple[int, int], coords: tuple[list[float], list[float]]
) -> list[int] | None:
    """Loops ``p`` and ``q`` joined across their shared ``edge``, or None if not convex."""
    (a, b), (xs, ys) = edge, coords
    if p.index(b) != (p.index(a) + 1) % len(p):  # p runs b -> a: swap the roles of the ends
        a, b = b, a
    i, j = p.index(b), q.index(a)
    p_rot = p[i:] + p[:i]  # b ... a
    q_rot = q[j:] + q[:j]  # a ... b
    if q_rot[-1] != b or p_rot[-1] != a:
        return None  # not one shared edge (a loop met twice): keep them apart
    for prev, at, nxt in ((p_rot[-2], a, q_rot[1]), (q_rot[-2], b, p_rot[1])):
        x0, y0 = xs[at] - xs[prev], ys[at] - ys[prev]
        x1, y1 = xs[nxt] - xs[at], ys[nxt] - ys[at]
        if x0 * y1 - y0 * x1 < -_CONVEX_TOL * math.hypot(x0, y0) * math.hypot(x1, y1):
            return None
    return p_rot + q_rot[1:-1]
