"""Landmark lower bounds for Polyanya (ALT): exact distances from a few far-apart points, compiled.

Quick start (the arrays come from :func:`python_core.navmesh.polyanya_prepare.prepare`)::

    dist = one_to_all(xy, ptr, verts, cpoly, nxt, nbr, twin, corner, x, y, start_polys, group)
    lo, hi = vertex_bounds(table, loaded_xy, loaded_ptr, loaded_verts, xy, ptr, verts, source)

Why: on a big mesh of many thin polygons (aurora) the straight-line heuristic is weak wherever the
path winds, and Polyanya expands thousands of intervals. With ``d(L, .)``, the shortest distances
from a landmark ``L``, the triangle inequality bounds the rest of a path from any point ``p``:
``d(p, goal) >= d(L, goal) - d(L, p)`` and ``>= d(L, p) - d(L, goal)``. Per vertex the table holds
the exact distance (a Polyanya run from ``L`` to everywhere); a point on an edge is within the edge
of its two ends, the goal within its polygon of that polygon's vertices.

Admissible on every mesh whose walkable area lies inside the mesh the table was computed on:
distances only grow when area is taken away (obstacle cuts, masked polygons), so a cut mesh keeps
the loaded mesh's table, each of its vertices bounded from the loaded polygon holding it
(:func:`vertex_bounds`). A mesh with new area (a region added or moved) needs a new table.
"""

from __future__ import annotations

import heapq
import math

import numpy as np

from python_core._types import F64, I64, B
from python_core.compiled import jit
from python_core.navmesh.polyanya_intervals import (
    EPS,
    ROOM_PER_CORNER,
    grow_nodes,
    helper_jit,
    on_edge,
    root_kept,
    successors,
    turn,
)

__all__ = [
    "alt_bound",
    "no_landmarks",
    "one_to_all",
    "pick_landmarks",
    "point_bounds",
    "seg_dist",
    "vertex_bounds",
]


def no_landmarks(vertex_count: int) -> tuple[F64, F64, I64, F64, F64]:
    """The search's landmark arguments when there are none: ``(lo, hi, act, glo, ghi)``, empty."""
    empty = np.zeros((vertex_count, 0))
    return empty, empty, np.zeros(0, np.int64), np.zeros(0), np.zeros(0)


@helper_jit
def seg_dist(px: float, py: float, ax: float, ay: float, bx: float, by: float) -> float:  # noqa: PLR0917 - numba kernel
    """The distance from ``p`` to the segment ``a b``."""
    ex, ey = bx - ax, by - ay
    den = ex * ex + ey * ey
    u = 0.0 if den <= 0.0 else ((px - ax) * ex + (py - ay) * ey) / den
    u = min(1.0, max(0.0, u))
    return math.hypot(ax + u * ex - px, ay + u * ey - py)


@jit
def one_to_all(  # noqa: PLR0912, PLR0915, PLR0917 - one numba kernel
    xy: F64, ptr: I64, verts: I64, cpoly: I64, nxt: I64, nbr: I64, twin: I64, corner: B,
    sx: float, sy: float, start_polys: I64, group: I64,
) -> F64:  # fmt: skip
    """The shortest distance from ``(sx, sy)`` (in every polygon of ``start_polys``) to every
    vertex (``inf``: unreachable): Polyanya's expansion without a goal, in Dijkstra order, every
    successor interval's ends that are vertices recorded (obstacle edges' too), no dead-end pruning.
    Every id of a point (``group``: per id, the smallest id on its point, weld.point_groups) gets
    the point's distance. Why: an interval's ends are recorded as the polygon it leaves names them;
    the polygon it enters may name them by other ids (an unwelded seam), and the search never
    records those ids on this path (an entry edge's ends are not successors' ends): they got the
    length of some detour that reached them from another side, too long for a lower bound.
    Past :data:`ROOM_PER_CORNER` nodes per corner (a mesh whose joins disagree: the search runs
    away) all ``inf``: a landmark that bounds nothing, not a table of lengths that may not be the
    shortest (a bound from them could overestimate)."""
    limit = ROOM_PER_CORNER * verts.shape[0] + 1024
    dist = np.full(xy.shape[0], np.inf)
    nf = np.empty((4096, 5))  # lx, ly, rx, ry, g
    ni = np.empty((4096, 2), dtype=np.int64)  # root (-1: start), entry corner
    count = 0
    root_g = np.full(xy.shape[0], np.inf)
    width = 2 * int(np.max(ptr[1:] - ptr[:-1])) + 2
    sf = np.empty((width, 4))
    si = np.empty((width, 2), dtype=np.int64)
    heap: list[tuple[float, int]] = [(0.0, 0)]
    heap.pop()
    for i in range(start_polys.shape[0]):
        s = start_polys[i]
        for c in range(ptr[s], ptr[s + 1]):
            v = verts[c]
            dist[v] = min(dist[v], math.hypot(xy[v, 0] - sx, xy[v, 1] - sy))
            q = nbr[c]
            if q < 0:
                continue
            a, b = verts[c], verts[nxt[c]]
            if on_edge(xy, a, b, sx, sy):
                continue
            if count == nf.shape[0]:
                nf, ni = grow_nodes(nf, ni)
            nf[count, 0], nf[count, 1], nf[count, 2], nf[count, 3] = xy[b, 0], xy[b, 1], xy[a, 0], xy[a, 1]
            nf[count, 4] = 0.0
            ni[count, 0], ni[count, 1] = -1, twin[c]
            heapq.heappush(heap, (seg_dist(sx, sy, xy[b, 0], xy[b, 1], xy[a, 0], xy[a, 1]), count))
            count += 1
    while heap:
        _d, node = heapq.heappop(heap)
        root, t, g0 = ni[node, 0], ni[node, 1], nf[node, 4]
        if root >= 0 and root_g[root] + EPS < g0:
            continue  # a better path reached this root since
        ox, oy = (sx, sy) if root < 0 else (xy[root, 0], xy[root, 1])
        k = successors(
            xy, ptr, verts, cpoly, corner, t, ox, oy,
            nf[node, 0], nf[node, 1], nf[node, 2], nf[node, 3], sf, si,
        )  # fmt: skip
        lv, rv = verts[t], verts[nxt[t]]
        for j in range(k):
            ce = si[j, 1]
            new_root, g = turn(xy, si[j, 0], root, lv, rv, g0, ox, oy)
            px, py = (sx, sy) if new_root < 0 else (xy[new_root, 0], xy[new_root, 1])
            lx, ly, rx, ry = sf[j, 0], sf[j, 1], sf[j, 2], sf[j, 3]
            u, w = verts[ce], verts[nxt[ce]]
            if abs(rx - xy[u, 0]) < EPS and abs(ry - xy[u, 1]) < EPS:
                dist[u] = min(dist[u], g + math.hypot(rx - px, ry - py))
            if abs(lx - xy[w, 0]) < EPS and abs(ly - xy[w, 1]) < EPS:
                dist[w] = min(dist[w], g + math.hypot(lx - px, ly - py))
            if nbr[ce] < 0:
                continue
            if not root_kept(root_g, new_root, g):
                continue
            if count == limit:
                return np.full(xy.shape[0], np.inf)
            if count == nf.shape[0]:
                nf, ni = grow_nodes(nf, ni)
            nf[count, 0], nf[count, 1], nf[count, 2], nf[count, 3], nf[count, 4] = lx, ly, rx, ry, g
            ni[count, 0], ni[count, 1] = new_root, twin[ce]
            heapq.heappush(heap, (g + seg_dist(px, py, lx, ly, rx, ry), count))
            count += 1
    best = np.full(dist.shape[0], np.inf)  # per point (its smallest id)
    for v in range(dist.shape[0]):
        best[group[v]] = min(best[group[v]], dist[v])
    for v in range(dist.shape[0]):
        dist[v] = best[group[v]]
    return dist


@jit
def vertex_bounds(  # noqa: PLR0917 - numba kernel
    table: F64, lxy: F64, lptr: I64, lverts: I64, xy: F64, ptr: I64, verts: I64, source: I64
) -> tuple[F64, F64]:
    """Per vertex and landmark (``(V, landmarks)``) of a mesh cut from the loaded one (``source``:
    each polygon's loaded polygon), a lower and an upper bound of the loaded mesh's distance
    (``table``, per landmark and loaded vertex): from every loaded vertex of the loaded polygon
    holding it (convex: seen straight)."""
    k_count = table.shape[0]
    lo = np.full((xy.shape[0], k_count), -np.inf)
    hi = np.full((xy.shape[0], k_count), np.inf)
    for p in range(ptr.shape[0] - 1):
        q = source[p]
        for c in range(ptr[p], ptr[p + 1]):
            v = verts[c]
            for lc in range(lptr[q], lptr[q + 1]):
                u = lverts[lc]
                d = math.hypot(xy[v, 0] - lxy[u, 0], xy[v, 1] - lxy[u, 1])
                for k in range(k_count):
                    if math.isinf(table[k, u]):
                        continue  # unreachable from this landmark: no bound
                    lo[v, k] = max(lo[v, k], table[k, u] - d)
                    hi[v, k] = min(hi[v, k], table[k, u] + d)
    return lo, hi


@jit
def point_bounds(  # noqa: PLR0917 - numba kernel
    lo: F64, hi: F64, xy: F64, ptr: I64, verts: I64, poly: int, px: float, py: float, k: int
) -> tuple[float, float]:
    """Landmark ``k``'s distance to a point of polygon ``poly``, bounded by the polygon's vertices."""
    low, high = -np.inf, np.inf
    for c in range(ptr[poly], ptr[poly + 1]):
        v = verts[c]
        d = math.hypot(xy[v, 0] - px, xy[v, 1] - py)
        low = max(low, lo[v, k] - d)
        high = min(high, hi[v, k] + d)
    return low, high


@jit
def pick_landmarks(  # noqa: PLR0917 - numba kernel
    lo: F64, hi: F64, xy: F64, ptr: I64, verts: I64, s_poly: int, sx: float, sy: float,
    g_poly: int, gx: float, gy: float, count: int,
) -> tuple[I64, F64, F64]:  # fmt: skip
    """The ``count`` landmarks that bound start -> goal best (ALT's active set), and the goal's
    distance bounds from each; landmarks that reach neither end are left out."""
    k_count = lo.shape[1]
    score = np.full(k_count, -np.inf)
    glo, ghi = np.empty(k_count), np.empty(k_count)
    for k in range(k_count):
        slo, shi = point_bounds(lo, hi, xy, ptr, verts, s_poly, sx, sy, k)
        glo[k], ghi[k] = point_bounds(lo, hi, xy, ptr, verts, g_poly, gx, gy, k)
        if math.isfinite(glo[k]) and math.isfinite(ghi[k]) and math.isfinite(shi):
            score[k] = max(glo[k] - shi, slo - ghi[k])
    order = np.argsort(-score)[: min(count, k_count)]
    n = 0
    for i in range(order.shape[0]):
        if score[order[i]] > -np.inf:
            n += 1
    act = order[:n].copy()
    tol = 1e-9 * (1.0 + np.max(np.abs(ghi[act]))) if n else 0.0  # round-off: stay below
    return act, glo[act] - tol, ghi[act] + tol


@helper_jit
def alt_bound(  # noqa: PLR0917 - numba kernel
    xy: F64, lo: F64, hi: F64, act: I64, glo: F64, ghi: F64, u: int, w: int,
    lx: float, ly: float, rx: float, ry: float,
) -> float:  # fmt: skip
    """A lower bound of the distance from any point of the interval ``[r, l]`` (on the edge
    ``u -> w``) to the goal, by the landmarks ``act`` (0 when none bounds it)."""
    ux, uy = xy[u, 0], xy[u, 1]
    length = math.hypot(xy[w, 0] - ux, xy[w, 1] - uy)
    sa, sb = math.hypot(rx - ux, ry - uy), math.hypot(lx - ux, ly - uy)
    if sa > sb:
        sa, sb = sb, sa
    best = 0.0
    for i in range(act.shape[0]):
        k = act[i]
        far = _largest(hi[u, k], hi[w, k], length, sa, sb)  # of d(L, p) on the interval
        near = _smallest(lo[u, k], lo[w, k], length, sa, sb)
        best = max(best, glo[i] - far, near - ghi[i])
    return best


@helper_jit
def _largest(hu: float, hw: float, length: float, sa: float, sb: float) -> float:
    """The largest of ``min(hu + s, hw + length - s)`` (an upper bound of ``d(L, p)`` at ``p``,
    ``s`` along the edge) over ``s`` in ``[sa, sb]``; ``inf`` ends carry no bound."""
    if math.isinf(hu) and math.isinf(hw):
        return math.inf
    if math.isinf(hu):
        return hw + length - sa
    if math.isinf(hw):
        return hu + sb
    s = min(sb, max(sa, 0.5 * (hw + length - hu)))
    return min(hu + s, hw + length - s)


@helper_jit
def _smallest(lu: float, lw: float, length: float, sa: float, sb: float) -> float:
    """The smallest of ``max(lu - s, lw - length + s)`` (a lower bound of ``d(L, p)``) over ``s``
    in ``[sa, sb]``; ``-inf`` ends carry no bound."""
    if math.isinf(lu) and math.isinf(lw):
        return -math.inf
    if math.isinf(lu):
        return lw - length + sa
    if math.isinf(lw):
        return lu - sb
    s = min(sb, max(sa, 0.5 * (lu - lw + length)))
    return max(lu - s, lw - length + s)
