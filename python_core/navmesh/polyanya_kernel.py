"""Polyanya's compiled kernels: exactly shortest any-angle paths over a mesh's intervals.

Quick start (the arrays come from :func:`python_core.navmesh.polyanya.prepare`)::

    status, roots, corridor, expanded = polyanya_search(xy, ptr, verts, cpoly, nxt, nbr, twin,
        corner, dead_end, start_xy, start_polys, goal_xy, goal_set, True, -1)

Cui, Harabor and Grastien (2017), "Compromise-free Pathfinding on a Navigation Mesh" (IJCAI). A
search node is an interval ``[R, L]`` on an edge, seen from a root (the start or a mesh vertex),
leading into one polygon; its successors project the interval through that polygon onto the
polygon's other edges: observable ones keep the root, non-observable ones turn around an end of
the interval that is a corner of the mesh (a vertex touching an obstacle). ``h`` is the straight
distance from the root through the interval to the goal (the goal mirrored across the interval's
line when it lies on the root's side), so the first node popped in the goal's polygon ends an
optimal path. Pruning as the reference implementation: a closed list on roots (a vertex reached
again with a larger g is dropped), dead-end polygons (one traversable neighbour) not entered
unless they hold the goal, and nodes with one successor expanded at once without the open list.

Conventions: polygons counter-clockwise in the plane; corner ``c``'s edge runs ``v[c] -> v[nxt[c]]``
and leads into ``nbr[c]`` (-1: none or masked), entered there through ``twin[c]``. A node entering
polygon ``P`` through corner ``t`` of ``P`` has its left end on ``v[t]`` and its right end on
``v[nxt[t]]`` (left and right as seen from the root).
"""

from __future__ import annotations

import heapq
import math

import numpy as np

from python_core._types import F64, I64, SEARCH_BUDGET, SEARCH_FOUND, SEARCH_NO_PATH, B
from python_core.compiled import jit, register_warm_up

__all__ = ["EPS", "closest_reachable", "polyanya_search", "polygons_at", "twin_corners"]

EPS = 1e-8
"""Geometric tolerance, as the reference implementation's ``EPSILON``."""

_OBSERVABLE, _RIGHT, _LEFT = 0, 1, 2


@jit
def twin_corners(xy: F64, ptr: I64, verts: I64, cpoly: I64, nxt: I64, nbr: I64) -> I64:  # noqa: PLR0917 - numba kernel, scalars passed positionally
    """For each corner with a neighbour, the neighbour's corner on the same edge (reversed); -1 else.

    Matched by position (welded vertices may have different indices), the closest edge of the
    neighbour that names this polygon.
    """
    out = np.full(verts.shape[0], -1, dtype=np.int64)
    for c in range(verts.shape[0]):
        q = nbr[c]
        if q < 0:
            continue
        p = cpoly[c]
        a, b = verts[c], verts[nxt[c]]
        best = math.inf
        for t in range(ptr[q], ptr[q + 1]):
            if nbr[t] != p:
                continue
            u, w = verts[t], verts[nxt[t]]
            d = math.hypot(xy[u, 0] - xy[b, 0], xy[u, 1] - xy[b, 1]) + math.hypot(
                xy[w, 0] - xy[a, 0], xy[w, 1] - xy[a, 1]
            )
            if d < best:
                best = d
                out[c] = t
    return out


@jit
def _cross(ax: float, ay: float, bx: float, by: float) -> float:
    return ax * by - ay * bx


@jit
def _h_value(  # noqa: PLR0917 - numba kernel, scalars passed positionally
    ox: float, oy: float, gx: float, gy: float, lx: float, ly: float, rx: float, ry: float
) -> float:
    """Shortest distance root -> interval [l, r] -> goal (the reference's ``get_h_value``)."""
    if (abs(ox - lx) < EPS and abs(oy - ly) < EPS) or (abs(ox - rx) < EPS and abs(oy - ry) < EPS):
        return math.hypot(gx - ox, gy - oy)
    lrx, lry = rx - lx, ry - ly
    side_root = _cross(ox - lx, oy - ly, lrx, lry) > 0
    side_goal = _cross(gx - lx, gy - ly, lrx, lry) > 0
    if side_root == side_goal:  # mirror the goal across the interval's line
        den = lrx * lrx + lry * lry
        if den < EPS:
            gx, gy = 2.0 * lx - gx, 2.0 * ly - gy
        else:
            num = _cross(rx - gx, ry - gy, lx - gx, ly - gy)
            gx, gy = gx + 2.0 * num / den * (ly - ry), gy + 2.0 * num / den * (rx - lx)
    denom = _cross(gx - ox, gy - oy, lrx, lry)
    if abs(denom) < EPS:  # root, goal and interval collinear: via the end nearer the root
        dl = math.hypot(lx - ox, ly - oy)
        dr = math.hypot(rx - ox, ry - oy)
        if dl < dr:
            return dl + math.hypot(gx - lx, gy - ly)
        return dr + math.hypot(gx - rx, gy - ry)
    num = _cross(gx - lx, gy - ly, ox - lx, oy - ly)
    if abs(num) < EPS or abs(num - denom) < EPS:
        return math.hypot(gx - ox, gy - oy)
    below = num < 0 if denom > 0 else num > 0
    above = num > denom if denom > 0 else num < denom
    if below:
        return math.hypot(lx - ox, ly - oy) + math.hypot(gx - lx, gy - ly)
    if above:
        return math.hypot(rx - ox, ry - oy) + math.hypot(gx - rx, gy - ry)
    return math.hypot(gx - ox, gy - oy)


@jit
def _intersect(  # noqa: PLR0917 - numba kernel, scalars passed positionally
    ax: float, ay: float, bx: float, by: float, cx: float, cy: float, dx: float, dy: float
) -> tuple[float, float]:
    """The point where line ``ab`` meets line ``cd`` (not parallel), parametrised on ``ab``."""
    abx, aby = bx - ax, by - ay
    den = _cross(abx, aby, dx - cx, dy - cy)
    t = _cross(cx - ax, cy - ay, dx - ax, dy - ay) / den if den != 0.0 else 0.0
    return ax + abx * t, ay + aby * t


@jit
def _successors(  # noqa: PLR0912, PLR0915, PLR0917 - one numba kernel, arrays passed positionally
    xy: F64, ptr: I64, verts: I64, cpoly: I64, corner: B, t: int,
    ox: float, oy: float, lx: float, ly: float, rx: float, ry: float, out_f: F64, out_i: I64,
) -> int:  # fmt: skip
    """Successor intervals of the node entering ``cpoly[t]`` through corner ``t`` (the reference's
    ``get_successors``). Row ``i`` of ``out_f`` is ``(lx, ly, rx, ry)``, of ``out_i`` ``(type, edge
    corner)``; returns the count."""
    p = cpoly[t]
    base = ptr[p]
    n = ptr[p + 1] - base
    m = n - 1
    first = t - base + 1  # local index of w_0 = the right vertex
    lv, rv = verts[t], verts[base + first % n]
    count = 0
    rlx, rly, rrx, rry = lx - ox, ly - oy, rx - ox, ry - oy
    root_eq_l = abs(rlx) < EPS and abs(rly) < EPS
    root_eq_r = abs(rrx) < EPS and abs(rry) < EPS
    if root_eq_l or root_eq_r or abs(_cross(rrx, rry, lx - rx, ly - ry)) < EPS:
        # Collinear: the interval gives no direction; turn at its end nearer the root, if a corner.
        left_nearer = abs(rly) < abs(rry) if abs(rlx - rrx) < EPS else abs(rlx) < abs(rrx)
        if root_eq_l or (not root_eq_r and left_nearer):
            if not corner[lv]:
                return 0
            kind = _LEFT
        else:
            if not corner[rv]:
                return 0
            kind = _RIGHT
        for k in range(m):
            c0, c1 = base + (first + k) % n, base + (first + k + 1) % n
            out_f[count, 0], out_f[count, 1] = xy[verts[c1], 0], xy[verts[c1], 1]
            out_f[count, 2], out_f[count, 3] = xy[verts[c0], 0], xy[verts[c0], 1]
            out_i[count, 0], out_i[count, 1] = kind, c0
            count += 1
        return count
    right_at_vertex = abs(rx - xy[rv, 0]) < EPS and abs(ry - xy[rv, 1]) < EPS
    left_at_vertex = abs(lx - xy[lv, 0]) < EPS and abs(ly - xy[lv, 1]) < EPS
    # A: the first chain vertex strictly left of the ray root -> R (the cone's right side).
    a_idx = -1
    if right_at_vertex:
        w = verts[base + (first + 1) % n]
        if _cross(rrx, rry, xy[w, 0] - rx, xy[w, 1] - ry) > -EPS:
            a_idx = 1
    if a_idx < 0:
        a_idx = m
        for k in range(1, m + 1):
            w = verts[base + (first + k) % n]
            if _cross(rrx, rry, xy[w, 0] - rx, xy[w, 1] - ry) > EPS:
                a_idx = k
                break
    # B: the last chain vertex strictly right of the ray root -> L (the cone's left side).
    b_idx = -1
    if left_at_vertex:
        w = verts[base + (first + m - 1) % n]
        if _cross(rlx, rly, xy[w, 0] - lx, xy[w, 1] - ly) < EPS:
            b_idx = m - 1
    if b_idx < 0:
        b_idx = a_idx - 1
        for k in range(m - 1, a_idx - 2, -1):
            w = verts[base + (first + k) % n]
            if _cross(rlx, rly, xy[w, 0] - lx, xy[w, 1] - ly) < -EPS:
                b_idx = k
                break
    ca, cam1 = base + (first + a_idx) % n, base + (first + a_idx - 1) % n
    cb, cbp1 = base + (first + b_idx) % n, base + (first + b_idx + 1) % n
    va, vam1, vb, vbp1 = verts[ca], verts[cam1], verts[cb], verts[cbp1]
    if right_at_vertex and a_idx == 1:
        rix, riy = rx, ry
    else:
        rix, riy = _intersect(xy[va, 0], xy[va, 1], xy[vam1, 0], xy[vam1, 1], ox, oy, rx, ry)
    if left_at_vertex and b_idx == m - 1:
        lix, liy = lx, ly
    else:
        lix, liy = _intersect(xy[vb, 0], xy[vb, 1], xy[vbp1, 0], xy[vbp1, 1], ox, oy, lx, ly)
    if right_at_vertex and corner[rv]:  # non-observable, turning at the right end
        for k in range(a_idx - 1):
            c0, c1 = base + (first + k) % n, base + (first + k + 1) % n
            out_f[count, 0], out_f[count, 1] = xy[verts[c1], 0], xy[verts[c1], 1]
            out_f[count, 2], out_f[count, 3] = xy[verts[c0], 0], xy[verts[c0], 1]
            out_i[count, 0], out_i[count, 1] = _RIGHT, c0
            count += 1
        if not (abs(rix - xy[vam1, 0]) < EPS and abs(riy - xy[vam1, 1]) < EPS):
            out_f[count, 0], out_f[count, 1] = rix, riy
            out_f[count, 2], out_f[count, 3] = xy[vam1, 0], xy[vam1, 1]
            out_i[count, 0], out_i[count, 1] = _RIGHT, cam1
            count += 1
    if a_idx == b_idx + 1:  # one observable interval
        out_f[count, 0], out_f[count, 1], out_f[count, 2], out_f[count, 3] = lix, liy, rix, riy
        out_i[count, 0], out_i[count, 1] = _OBSERVABLE, cam1
        count += 1
    elif a_idx <= b_idx:
        out_f[count, 0], out_f[count, 1] = xy[va, 0], xy[va, 1]
        out_f[count, 2], out_f[count, 3] = rix, riy
        out_i[count, 0], out_i[count, 1] = _OBSERVABLE, cam1
        count += 1
        for k in range(a_idx, b_idx):
            c0, c1 = base + (first + k) % n, base + (first + k + 1) % n
            out_f[count, 0], out_f[count, 1] = xy[verts[c1], 0], xy[verts[c1], 1]
            out_f[count, 2], out_f[count, 3] = xy[verts[c0], 0], xy[verts[c0], 1]
            out_i[count, 0], out_i[count, 1] = _OBSERVABLE, c0
            count += 1
        out_f[count, 0], out_f[count, 1] = lix, liy
        out_f[count, 2], out_f[count, 3] = xy[vb, 0], xy[vb, 1]
        out_i[count, 0], out_i[count, 1] = _OBSERVABLE, cb
        count += 1
    if left_at_vertex and corner[lv]:  # non-observable, turning at the left end
        if not (abs(lix - xy[vbp1, 0]) < EPS and abs(liy - xy[vbp1, 1]) < EPS):
            out_f[count, 0], out_f[count, 1] = xy[vbp1, 0], xy[vbp1, 1]
            out_f[count, 2], out_f[count, 3] = lix, liy
            out_i[count, 0], out_i[count, 1] = _LEFT, cb
            count += 1
        for k in range(b_idx + 1, m):
            c0, c1 = base + (first + k) % n, base + (first + k + 1) % n
            out_f[count, 0], out_f[count, 1] = xy[verts[c1], 0], xy[verts[c1], 1]
            out_f[count, 2], out_f[count, 3] = xy[verts[c0], 0], xy[verts[c0], 1]
            out_i[count, 0], out_i[count, 1] = _LEFT, c0
            count += 1
    return count


@jit
def _grow_f(a: F64) -> F64:
    out = np.empty((a.shape[0] * 2, a.shape[1]))
    out[: a.shape[0]] = a
    return out


@jit
def _grow_i(a: I64) -> I64:
    out = np.empty((a.shape[0] * 2, a.shape[1]), dtype=np.int64)
    out[: a.shape[0]] = a
    return out


@jit
def polyanya_search(  # noqa: PLR0912, PLR0915, PLR0917 - one numba kernel
    xy: F64, ptr: I64, verts: I64, cpoly: I64, nxt: I64, nbr: I64, twin: I64, corner: B,
    dead_end: B, start_xy: F64, start_polys: I64, goal_xy: F64, goal_set: B, use_h: bool,
    max_expansions: int,
) -> tuple[int, I64, I64, int]:  # fmt: skip
    """Polyanya from ``start_xy`` (inside every polygon of ``start_polys``) to ``goal_xy`` (inside
    the polygons flagged in ``goal_set``).

    Args:
        xy: ``(V, 2)`` vertex positions in the plane; ``ptr``, ``verts``: polygons (CSR, CCW);
            ``cpoly``, ``nxt``: each corner's polygon and next corner.
        nbr, twin: each corner's traversable neighbour (-1: none or masked) and its corner there.
        corner: per vertex, True when it touches an obstacle (a path may turn there).
        dead_end: per polygon, True when it has at most one traversable neighbour.
        use_h: False searches with h = 0 (Dijkstra order) except into the goal's polygons (where
            the exact rest is needed to stop there), True with the interval heuristic.
        max_expansions: nodes taken off the open list allowed (< 0: no limit); the chain of lone
            successors a node leads to is expanded with it.

    Returns:
        ``(status, roots, corridor, expanded)``: the vertex indices the path turns at (start and
        goal excluded), the polygons it crosses from the start's to the goal's, nodes taken off the
        open list.
    """
    sx, sy, gx, gy = start_xy[0], start_xy[1], goal_xy[0], goal_xy[1]
    empty = np.zeros(0, dtype=np.int64)
    for i in range(start_polys.shape[0]):
        if goal_set[start_polys[i]]:
            return SEARCH_FOUND, empty, start_polys[i : i + 1].copy(), 0
    cap = 1024
    nf = np.empty((cap, 6))  # lx, ly, rx, ry, g, f
    ni = np.empty((cap, 3), dtype=np.int64)  # root (-1: start), entry corner, parent node
    count = 0
    root_g = np.full(xy.shape[0], np.inf)
    width = 2 * int(np.max(ptr[1:] - ptr[:-1])) + 2
    sf = np.empty((width, 4))
    si = np.empty((width, 2), dtype=np.int64)
    heap: list[tuple[float, float, int]] = [(0.0, 0.0, 0)]
    heap.pop()
    # Initial nodes: every edge of every start polygon that the start does not lie on (one in
    # line with it is kept: the collinear case of the expansion turns at its nearer end).
    for i in range(start_polys.shape[0]):
        s = start_polys[i]
        for c in range(ptr[s], ptr[s + 1]):
            q = nbr[c]
            if q < 0 or (dead_end[q] and not goal_set[q]):
                continue
            a, b = verts[c], verts[nxt[c]]
            ex, ey = xy[b, 0] - xy[a, 0], xy[b, 1] - xy[a, 1]
            along = (sx - xy[a, 0]) * ex + (sy - xy[a, 1]) * ey
            if (
                abs(_cross(ex, ey, sx - xy[a, 0], sy - xy[a, 1])) <= EPS * max(1.0, math.hypot(ex, ey))
                and -EPS <= along <= ex * ex + ey * ey + EPS
            ):
                continue  # the start lies on this edge (the polygon across holds it too)
            if count == nf.shape[0]:
                nf, ni = _grow_f(nf), _grow_i(ni)
            nf[count, 0], nf[count, 1], nf[count, 2], nf[count, 3] = xy[b, 0], xy[b, 1], xy[a, 0], xy[a, 1]
            nf[count, 4] = 0.0
            exact = use_h or goal_set[q]  # a node into the goal's polygon needs its true cost
            h = _h_value(sx, sy, gx, gy, xy[b, 0], xy[b, 1], xy[a, 0], xy[a, 1]) if exact else 0.0
            nf[count, 5] = h
            ni[count, 0], ni[count, 1], ni[count, 2] = -1, twin[c], -1
            heapq.heappush(heap, (h, 0.0, count))
            count += 1
    expanded = 0
    final = -1
    final_root = -1
    while heap:
        _f, _ng, node = heapq.heappop(heap)
        root = ni[node, 0]
        if root >= 0 and root_g[root] + EPS < nf[node, 4]:
            continue  # a better path reached this root since
        t = ni[node, 1]
        if goal_set[cpoly[t]]:
            final = node
            break
        if 0 <= max_expansions <= expanded:
            return SEARCH_BUDGET, empty, empty, expanded
        expanded += 1  # nodes taken off the open list, as every search counts them
        while True:  # expand; a lone successor is expanded at once (intermediate pruning)
            t = ni[node, 1]
            root = ni[node, 0]
            ox, oy = (sx, sy) if root < 0 else (xy[root, 0], xy[root, 1])
            g0 = nf[node, 4]
            k = _successors(
                xy, ptr, verts, cpoly, corner, t, ox, oy,
                nf[node, 0], nf[node, 1], nf[node, 2], nf[node, 3], sf, si,
            )  # fmt: skip
            lv, rv = verts[t], verts[nxt[t]]
            made = 0
            last = -1
            for j in range(k):
                ce = si[j, 1]
                q = nbr[ce]
                if q < 0 or (dead_end[q] and not goal_set[q]):
                    continue
                kind = si[j, 0]
                if kind == _OBSERVABLE:
                    new_root, g = root, g0
                elif kind == _RIGHT:
                    new_root, g = rv, g0 + math.hypot(xy[rv, 0] - ox, xy[rv, 1] - oy)
                else:
                    new_root, g = lv, g0 + math.hypot(xy[lv, 0] - ox, xy[lv, 1] - oy)
                if new_root >= 0:
                    if root_g[new_root] + EPS < g:
                        continue
                    root_g[new_root] = min(root_g[new_root], g)
                if count == nf.shape[0]:
                    nf, ni = _grow_f(nf), _grow_i(ni)
                lx, ly, rx, ry = sf[j, 0], sf[j, 1], sf[j, 2], sf[j, 3]
                px, py = (sx, sy) if new_root < 0 else (xy[new_root, 0], xy[new_root, 1])
                h = _h_value(px, py, gx, gy, lx, ly, rx, ry) if use_h or goal_set[q] else 0.0
                nf[count, 0], nf[count, 1], nf[count, 2], nf[count, 3] = lx, ly, rx, ry
                nf[count, 4], nf[count, 5] = g, g + h
                ni[count, 0], ni[count, 1], ni[count, 2] = new_root, twin[ce], node
                last = count
                count += 1
                made += 1
            if made == 1 and not goal_set[cpoly[ni[last, 1]]]:
                node = last
                continue
            for j in range(count - made, count):
                heapq.heappush(heap, (nf[j, 5], -nf[j, 4], j))
            break
    if final < 0:
        return SEARCH_NO_PATH, empty, empty, expanded
    # The last turn: around the interval's left or right end when the goal is outside the cone.
    root = ni[final, 0]
    ox, oy = (sx, sy) if root < 0 else (xy[root, 0], xy[root, 1])
    t = ni[final, 1]
    if _cross(gx - ox, gy - oy, nf[final, 0] - ox, nf[final, 1] - oy) < -EPS:
        final_root = verts[t]
    elif _cross(nf[final, 2] - ox, nf[final, 3] - oy, gx - ox, gy - oy) < -EPS:
        final_root = verts[nxt[t]]
    else:
        final_root = root
    depth = 0
    node = final
    while node >= 0:
        depth += 1
        node = ni[node, 2]
    corridor = np.empty(depth + 1, dtype=np.int64)
    roots = np.empty(depth + 1, dtype=np.int64)
    nroots = 0
    if final_root >= 0:
        roots[0] = final_root
        nroots = 1
    node = final
    i = depth
    while node >= 0:
        corridor[i] = cpoly[ni[node, 1]]
        r = ni[node, 0]
        if r >= 0 and (nroots == 0 or roots[nroots - 1] != r):
            roots[nroots] = r
            nroots += 1
        i -= 1
        first_node = node
        node = ni[node, 2]
    corridor[0] = cpoly[twin[ni[first_node, 1]]]
    return SEARCH_FOUND, roots[:nroots][::-1].copy(), corridor, expanded


@jit
def _inside(xy: F64, ptr: I64, verts: I64, p: int, px: float, py: float) -> bool:  # noqa: PLR0917 - numba kernel, scalars passed positionally
    """True when ``(px, py)`` is in polygon ``p`` (CCW), within a relative tolerance."""
    n = ptr[p + 1] - ptr[p]
    for i in range(n):
        a, b = verts[ptr[p] + i], verts[ptr[p] + (i + 1) % n]
        ex, ey = xy[b, 0] - xy[a, 0], xy[b, 1] - xy[a, 1]
        if _cross(ex, ey, px - xy[a, 0], py - xy[a, 1]) < -1e-9 * max(1.0, math.hypot(ex, ey)):
            return False
    return True


@jit
def polygons_at(  # noqa: PLR0917 - numba kernel
    xy: F64, ptr: I64, verts: I64, vp_ptr: I64, vp: I64, usable: B, p0: int, px: float, py: float
) -> I64:
    """Every usable polygon holding the point (on an edge or a vertex, several), found from ``p0``
    (one that holds it) through the polygons around its vertices (``vp_ptr``/``vp``: CSR vertex ->
    polygons). ``p0`` comes first, and is included even when unusable (the caller checks)."""
    out = np.empty(16, dtype=np.int64)
    out[0] = p0
    count = 1
    i = 0
    while i < count:
        p = out[i]
        i += 1
        for c in range(ptr[p], ptr[p + 1]):
            v = verts[c]
            for j in range(vp_ptr[v], vp_ptr[v + 1]):
                q = vp[j]
                if not usable[q]:
                    continue
                known = False
                for k in range(count):
                    if out[k] == q:
                        known = True
                        break
                if known or not _inside(xy, ptr, verts, q, px, py):
                    continue
                if count == out.shape[0]:
                    bigger = np.empty(count * 2, dtype=np.int64)
                    bigger[:count] = out
                    out = bigger
                out[count] = q
                count += 1
    return np.asarray(out[:count].copy(), dtype=np.int64)


@jit
def closest_reachable(  # noqa: PLR0917 - numba kernel
    xy: F64, ptr: I64, verts: I64, nbr: I64, start_polys: I64, gx: float, gy: float
) -> tuple[int, float, float]:
    """The polygon reachable from ``start_polys`` (through ``nbr``) nearest the goal, and its point
    nearest the goal: where a partial path ends."""
    seen = np.zeros(ptr.shape[0] - 1, dtype=np.bool_)
    stack = [start_polys[0]]
    for i in range(start_polys.shape[0]):
        seen[start_polys[i]] = True
        if i > 0:
            stack.append(start_polys[i])
    best, bx, by, bd = -1, gx, gy, math.inf
    while stack:
        p = stack.pop()
        n = ptr[p + 1] - ptr[p]
        if _inside(xy, ptr, verts, p, gx, gy):
            return p, gx, gy
        for i in range(n):
            c = ptr[p] + i
            a, b = verts[c], verts[ptr[p] + (i + 1) % n]
            ex, ey = xy[b, 0] - xy[a, 0], xy[b, 1] - xy[a, 1]
            den = ex * ex + ey * ey
            u = 0.0 if den == 0.0 else ((gx - xy[a, 0]) * ex + (gy - xy[a, 1]) * ey) / den
            u = min(1.0, max(0.0, u))
            cx, cy = xy[a, 0] + u * ex, xy[a, 1] + u * ey
            d = math.hypot(cx - gx, cy - gy)
            if d < bd:
                best, bx, by, bd = p, cx, cy, d
            q = nbr[c]
            if q >= 0 and not seen[q]:
                seen[q] = True
                stack.append(q)
    return best, bx, by


@register_warm_up
def _warm_up() -> None:
    """Compile (or load from the disk cache) the kernels on two squares, with the real dtypes."""
    xy = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [2.0, 0.0], [2.0, 1.0]])
    ptr = np.array([0, 4, 8], dtype=np.int64)
    verts = np.array([0, 1, 2, 3, 1, 4, 5, 2], dtype=np.int64)
    cpoly = np.array([0, 0, 0, 0, 1, 1, 1, 1], dtype=np.int64)
    nxt = np.array([1, 2, 3, 0, 5, 6, 7, 4], dtype=np.int64)
    nbr = np.array([-1, 1, -1, -1, -1, -1, -1, 0], dtype=np.int64)
    twin = twin_corners(xy, ptr, verts, cpoly, nxt, nbr)
    corner = np.ones(6, dtype=np.bool_)
    dead = np.ones(2, dtype=np.bool_)
    goal = np.array([False, True])
    vp_ptr = np.array([0, 1, 3, 5, 6, 7, 8], dtype=np.int64)
    vp = np.array([0, 0, 1, 0, 1, 0, 1, 1], dtype=np.int64)
    start = polygons_at(xy, ptr, verts, vp_ptr, vp, dead, 0, 0.5, 0.5)
    polyanya_search(
        xy, ptr, verts, cpoly, nxt, nbr, twin, corner, dead, np.array([0.5, 0.5]),
        start, np.array([1.5, 0.5]), goal, True, -1,
    )  # fmt: skip
    closest_reachable(xy, ptr, verts, nbr, start, 3.0, 0.5)
