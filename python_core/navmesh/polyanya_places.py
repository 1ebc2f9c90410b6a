"""Where Polyanya's endpoints are: the polygons holding a point, the reachable point nearest the
goal, and each corner's twin across its edge (compiled).

Quick start::

    import numpy as np
    from python_core.navmesh.polyanya_places import inside
    xy = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    ptr, verts = np.array([0, 3]), np.array([0, 1, 2])
    assert inside(xy, ptr, verts, 0, 0.2, 0.2) and not inside(xy, ptr, verts, 0, 0.8, 0.8)
"""

from __future__ import annotations

import math

import numpy as np

from python_core._types import F64, I64, B
from python_core.compiled import jit
from python_core.navmesh.polyanya_intervals import cross

__all__ = ["closest_reachable", "inside", "mark_goal", "pockets", "polygons_at", "twin_corners"]


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
def inside(xy: F64, ptr: I64, verts: I64, p: int, px: float, py: float) -> bool:  # noqa: PLR0917 - numba kernel, scalars passed positionally
    """True when ``(px, py)`` is in polygon ``p`` (CCW), within a relative tolerance."""
    n = ptr[p + 1] - ptr[p]
    for i in range(n):
        a, b = verts[ptr[p] + i], verts[ptr[p] + (i + 1) % n]
        ex, ey = xy[b, 0] - xy[a, 0], xy[b, 1] - xy[a, 1]
        if cross(ex, ey, px - xy[a, 0], py - xy[a, 1]) < -1e-9 * max(1.0, math.hypot(ex, ey)):
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
                if known or not inside(xy, ptr, verts, q, px, py):
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
        if inside(xy, ptr, verts, p, gx, gy):
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


@jit
def pockets(ptr: I64, nbr: I64, usable: B) -> I64:
    """Per polygon, the polygon its pocket hangs from (-1: none). A pocket is what peeling away
    polygons with at most one shared edge left leaves behind, again and again (the mesh's tree-like
    parts, off its 2-core); each peeled polygon names the one neighbour it had left (-1 at the last
    of a tree-like part: none). Why: a shortest path never goes from a polygon into a pocket hanging
    from it unless the goal lies in there (it would come back through the same edge: the straight
    line along it, in the convex polygon, is no longer), so the search leaves those out. On aurora's
    merged view 15,870 of 18,118 polygons, against 12,825 with one neighbour (Polyanya's dead ends).
    """
    n = ptr.shape[0] - 1
    links = np.zeros(n, np.int64)
    gone = ~usable
    for p in range(n):
        if usable[p]:
            for c in range(ptr[p], ptr[p + 1]):
                if nbr[c] >= 0 and usable[nbr[c]]:
                    links[p] += 1
    up = np.full(n, -1, np.int64)
    stack = np.empty(n + ptr.shape[0] + nbr.shape[0], np.int64)
    top = 0
    for p in range(n):
        if usable[p] and links[p] <= 1:
            stack[top] = p
            top += 1
    while top:
        top -= 1
        p = stack[top]
        if gone[p]:
            continue
        gone[p] = True
        for c in range(ptr[p], ptr[p + 1]):
            q = nbr[c]
            if q < 0 or gone[q]:
                continue
            up[p] = q  # its one edge left (links <= 1)
            links[q] -= 1
            if links[q] == 1 or links[q] == 0:
                stack[top] = q
                top += 1
    return up


@jit
def mark_goal(up: I64, goal_polys: I64, goal_set: B, below: B, flag: bool) -> None:
    """Flag (``flag`` True) or unflag the goal's polygons in ``goal_set`` and them with the
    polygons their pockets hang from, up to the 2-core, in ``below`` (see :func:`pockets`)."""
    for i in range(goal_polys.shape[0]):
        p = goal_polys[i]
        goal_set[p] = flag
        while p >= 0 and below[p] != flag:
            below[p] = flag
            p = up[p]
