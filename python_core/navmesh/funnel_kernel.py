"""The navmesh's funnel in compiled code: a corridor's path pulled taut, and its cost.

Quick start::

    from python_core.navmesh import NavMesh
    mesh = NavMesh([[0, 0], [2, 0], [2, 1], [0, 1], [3, 0], [3, 1]], [[0, 1, 2, 3], [1, 4, 5, 2]])
    assert mesh.find_path((0.5, 0.5), (2.5, 0.5)).points.tolist() == [[0.5, 0.5], [2.5, 0.5]]

:func:`funnel_piece` funnels the portals of one piece of a corridor (between links) with
:func:`_string_pull`, the compiled twin of :mod:`~python_core.navmesh.funnel` (the reference), and
weighs each straight step by the travel costs of the polygons it crosses, plus enter costs.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from python_core._types import F64, I64
from python_core.compiled import jit
from python_core.navmesh.locate_kernel import plane_xy

__all__ = ["funnel_piece"]


# ---- funnel --------------------------------------------------------------------------------------
@jit
def _cross(ox: float, oy: float, ax: float, ay: float, bx: float, by: float) -> float:  # noqa: PLR0917
    return (ax - ox) * (by - oy) - (ay - oy) * (bx - ox)


@jit
def _string_pull(lx: F64, ly: F64, rx: F64, ry: F64, count: int, out: I64) -> int:  # noqa: PLR0917
    """The simple stupid funnel over portals ``0..count-1`` (portal 0 the start and the last the
    goal, both degenerate); writes the portals the taut path turns at (as ``+j`` for a left
    point, ``-j - 1`` for a right one) into ``out`` and returns how many. Same rules as
    :func:`python_core.navmesh.funnel.string_pull`."""
    m = 0
    out[m] = 0
    m += 1
    ax, ay = lx[0], ly[0]
    lox, loy, rox, roy = ax, ay, ax, ay
    apex, lp, rp = 0, 0, 0
    j = 1
    while j < count:
        if _cross(ax, ay, rox, roy, rx[j], ry[j]) >= 0.0:
            same = abs(ax - rox) <= 1e-12 and abs(ay - roy) <= 1e-12
            if same or _cross(ax, ay, lox, loy, rx[j], ry[j]) < 0.0:
                rox, roy, rp = rx[j], ry[j], j
            else:
                out[m] = lp
                m += 1
                ax, ay, apex = lox, loy, lp
                lox, loy, rox, roy = ax, ay, ax, ay
                lp, rp = apex, apex
                j = apex + 1
                continue
        if _cross(ax, ay, lox, loy, lx[j], ly[j]) <= 0.0:
            same = abs(ax - lox) <= 1e-12 and abs(ay - loy) <= 1e-12
            if same or _cross(ax, ay, rox, roy, lx[j], ly[j]) > 0.0:
                lox, loy, lp = lx[j], ly[j], j
            else:
                out[m] = -rp - 1
                m += 1
                ax, ay, apex = rox, roy, rp
                lox, loy, rox, roy = ax, ay, ax, ay
                lp, rp = apex, apex
                j = apex + 1
                continue
        j += 1
    out[m] = count - 1
    return m + 1


@jit
def funnel_piece(  # noqa: PLR0917
    st: Any, chain: I64, a: int, b: int, pa: F64, pb: F64, poly_a: int, poly_b: int, points: F64, m: int
) -> tuple[int, float]:
    """Funnel the portal nodes ``chain[a:b]`` from ``pa`` (in ``poly_a``) to ``pb`` (in
    ``poly_b``), appending the turning points and ``pb`` to ``points`` from row ``m``; return the
    new row count and the piece's cost (length in each polygon times its travel cost, plus enter
    costs at region changes)."""
    count = b - a + 2
    lx, ly, rx, ry = np.empty(count), np.empty(count), np.empty(count), np.empty(count)
    sx, sy, _h = plane_xy(st, pa)
    gx, gy, _h2 = plane_xy(st, pb)
    lx[0], ly[0], rx[0], ry[0] = sx, sy, sx, sy
    lx[count - 1], ly[count - 1], rx[count - 1], ry[count - 1] = gx, gy, gx, gy
    for k in range(a, b):
        u = chain[k]
        lv, rv = st.left[u], st.right[u]
        lx[k - a + 1], ly[k - a + 1] = st.xy[lv, 0], st.xy[lv, 1]
        rx[k - a + 1], ry[k - a + 1] = st.xy[rv, 0], st.xy[rv, 1]
    turns = np.empty(count + 1, np.int64)
    t = _string_pull(lx, ly, rx, ry, count, turns)
    cost = 0.0
    prev_j = 0
    prev = pa.copy()
    for q in range(1, t):
        code = turns[q]
        j = code if code >= 0 else -code - 1
        cur = np.empty(pa.shape[0])
        if j == count - 1:
            cur[:] = pb
        else:
            u = chain[a + j - 1]
            vid = st.left[u] if code >= 0 else st.right[u]
            cur[:] = st.verts[vid]
        if j == prev_j:
            continue
        cost += _segment_cost(st, chain, a, prev_j, j, count - 1, prev, cur, lx, ly, rx, ry, poly_a)
        # the same point twice (a turn at a portal's end shared with the next) is kept once
        if np.sum((cur - points[m - 1]) ** 2) > 1e-24:
            points[m] = cur
            m += 1
        prev_j, prev = j, cur
    if np.sum((pb - points[m - 1]) ** 2) > 1e-24:
        points[m] = pb
        m += 1
    elif m >= 2:
        points[m - 1] = pb
    return m, cost


@jit
def _segment_cost(  # noqa: PLR0917
    st: Any,
    chain: I64,
    a: int,
    j0: int,
    j1: int,
    last: int,
    p0: F64,
    p1: F64,
    lx: F64,
    ly: F64,
    rx: F64,
    ry: F64,
    poly_a: int,
) -> float:
    """Cost of the straight step from portal ``j0`` to ``j1`` of a piece: it crosses portals
    ``j0+1 .. j1-1``; the part in each polygon is weighted by its travel cost, and crossing into
    another region adds that polygon's enter cost."""
    length = math.sqrt(np.sum((p1 - p0) ** 2))
    x0, y0, _h0 = plane_xy(st, p0)
    x1, y1, _h1 = plane_xy(st, p1)
    dx, dy = x1 - x0, y1 - y0
    cost = 0.0
    t_prev = 0.0
    for j in range(j0 + 1, j1 + 1):
        if j < j1:
            ex, ey = rx[j] - lx[j], ry[j] - ly[j]
            den = dx * ey - dy * ex
            t = 0.0 if den == 0.0 else ((lx[j] - x0) * ey - (ly[j] - y0) * ex) / den
            t = min(max(t, t_prev), 1.0)
        else:
            t = 1.0
        poly = poly_a if j == 1 else st.dst[chain[a + j - 2]]
        cost += (t - t_prev) * length * st.poly_travel[poly]
        if j < last:  # crossing portal j (a turn at its end crosses it too, counted here once)
            cost += st.enter[chain[a + j - 1]]
        t_prev = t
    return cost
