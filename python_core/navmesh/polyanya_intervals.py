"""Polyanya's intervals in compiled code: the heuristic of an interval and the successors of a node.

Quick start::

    from python_core.navmesh.polyanya_intervals import h_value
    assert h_value(0.0, 0.0, 2.0, 0.0, 1.0, 1.0, 1.0, -1.0) == 2.0  # the goal seen through [l, r]

A search node is an interval ``[R, L]`` on an edge, seen from a root, leading into one polygon
(see :mod:`~python_core.navmesh.polyanya_kernel`); :func:`successors` projects it through that
polygon onto the polygon's other edges: observable ones keep the root, non-observable ones
(:data:`RIGHT`, :data:`LEFT`) turn around an end of the interval that is a corner of the mesh.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from typing import Any, TypeVar, cast

import numpy as np

from python_core._types import F64, I64, B
from python_core.compiled import JIT_ENABLED, jit

__all__ = [
    "EPS",
    "LEFT",
    "OBSERVABLE",
    "RIGHT",
    "ROOM_PER_CORNER",
    "cross",
    "grow_nodes",
    "h_value",
    "helper_jit",
    "on_edge",
    "root_kept",
    "successors",
    "turn",
]

F = TypeVar("F", bound=Callable[..., Any])


def helper_jit(function: F) -> F:
    """:func:`~python_core.compiled.jit` for the search loops' helpers, which read and write
    arrays but make none: compiled without numba's reference counting (``_nrt=False``), so a call
    takes its arrays as they are. Why: a compiled helper counted a reference up and down for every
    array argument at every call, atomic operations that were a third of a search's time on aurora
    (more with two threads on one mesh: its arrays' counters bounce between the cores)."""
    if not JIT_ENABLED:
        return function
    numba: Any = importlib.import_module("numba")  # configured (cache folder) by python_core.compiled
    return cast(F, numba.njit(_nrt=False, cache=True, nogil=True)(function))


EPS = 1e-8
"""Geometric tolerance, as the reference implementation's ``EPSILON``."""

OBSERVABLE, RIGHT, LEFT = 0, 1, 2

ROOM_PER_CORNER = 8
"""Search nodes per mesh corner a search may make. Why: on a mesh whose joins disagree (two
polygons neighbours twice, across a margin join) a chain of lone successors could ping-pong
between them for ever, each step a new node, with no node taken off the open list (so
``max_expansions`` never stopped it): memory grew without bound. Exact searches make far fewer
(aurora: its longest scenario query about 10,000 nodes for 104,000 corners)."""


@helper_jit
def cross(ax: float, ay: float, bx: float, by: float) -> float:
    return ax * by - ay * bx


@jit
def grow_nodes(nf: F64, ni: I64) -> tuple[F64, I64]:
    """A search's node arrays (floats, ints per node) with room for twice the rows."""
    fa = np.empty((nf.shape[0] * 2, nf.shape[1]))
    fa[: nf.shape[0]] = nf
    ib = np.empty((ni.shape[0] * 2, ni.shape[1]), dtype=np.int64)
    ib[: ni.shape[0]] = ni
    return fa, ib


@helper_jit
def on_edge(xy: F64, a: int, b: int, px: float, py: float) -> bool:
    """Whether ``p`` lies on the edge ``a -> b`` (a start there has no interval into the polygon
    across: that polygon holds it too)."""
    ex, ey = xy[b, 0] - xy[a, 0], xy[b, 1] - xy[a, 1]
    along = (px - xy[a, 0]) * ex + (py - xy[a, 1]) * ey
    return (
        abs(cross(ex, ey, px - xy[a, 0], py - xy[a, 1])) <= EPS * max(1.0, math.hypot(ex, ey))
        and -EPS <= along <= ex * ex + ey * ey + EPS
    )


@helper_jit
def turn(  # noqa: PLR0917 - numba kernel, scalars passed positionally
    xy: F64, kind: int, root: int, lv: int, rv: int, g0: float, ox: float, oy: float
) -> tuple[int, float]:
    """A successor's root and the path's length to it: the node's own root when observable, else
    the interval's right or left end (``rv``, ``lv``) it turns at."""
    if kind == OBSERVABLE:
        return root, g0
    v = rv if kind == RIGHT else lv
    return v, g0 + math.hypot(xy[v, 0] - ox, xy[v, 1] - oy)


@helper_jit
def root_kept(root_g: F64, root: int, g: float) -> bool:
    """Whether a successor at length ``g`` from its root survives root pruning (the start, -1,
    always does); a kept vertex root's best length is lowered to ``g``."""
    if root < 0:
        return True
    if root_g[root] + EPS < g:
        return False
    root_g[root] = min(root_g[root], g)
    return True


@helper_jit
def h_value(  # noqa: PLR0917 - numba kernel, scalars passed positionally
    ox: float, oy: float, gx: float, gy: float, lx: float, ly: float, rx: float, ry: float
) -> float:
    """Shortest distance root -> interval [l, r] -> goal (the reference's ``get_h_value``)."""
    if (abs(ox - lx) < EPS and abs(oy - ly) < EPS) or (abs(ox - rx) < EPS and abs(oy - ry) < EPS):
        return math.hypot(gx - ox, gy - oy)
    lrx, lry = rx - lx, ry - ly
    side_root = cross(ox - lx, oy - ly, lrx, lry) > 0
    side_goal = cross(gx - lx, gy - ly, lrx, lry) > 0
    if side_root == side_goal:  # mirror the goal across the interval's line
        den = lrx * lrx + lry * lry
        if den < EPS:
            gx, gy = 2.0 * lx - gx, 2.0 * ly - gy
        else:
            num = cross(rx - gx, ry - gy, lx - gx, ly - gy)
            gx, gy = gx + 2.0 * num / den * (ly - ry), gy + 2.0 * num / den * (rx - lx)
    denom = cross(gx - ox, gy - oy, lrx, lry)
    if abs(denom) < EPS:  # root, goal and interval collinear: via the end nearer the root
        dl = math.hypot(lx - ox, ly - oy)
        dr = math.hypot(rx - ox, ry - oy)
        if dl < dr:
            return dl + math.hypot(gx - lx, gy - ly)
        return dr + math.hypot(gx - rx, gy - ry)
    num = cross(gx - lx, gy - ly, ox - lx, oy - ly)
    if abs(num) < EPS or abs(num - denom) < EPS:
        return math.hypot(gx - ox, gy - oy)
    below = num < 0 if denom > 0 else num > 0
    above = num > denom if denom > 0 else num < denom
    if below:
        return math.hypot(lx - ox, ly - oy) + math.hypot(gx - lx, gy - ly)
    if above:
        return math.hypot(rx - ox, ry - oy) + math.hypot(gx - rx, gy - ry)
    return math.hypot(gx - ox, gy - oy)


@helper_jit
def _wrap(i: int, n: int) -> int:
    """``i % n`` for ``0 <= i < 2 n`` (the local corner indices here) without a division: a dozen
    of them in every node's successors (aurora: about three nodes expanded per node pushed)."""
    return i - n if i >= n else i


@helper_jit
def _intersect(  # noqa: PLR0917 - numba kernel, scalars passed positionally
    ax: float, ay: float, bx: float, by: float, cx: float, cy: float, dx: float, dy: float
) -> tuple[float, float]:
    """The point where line ``ab`` meets line ``cd`` (not parallel), parametrised on ``ab``."""
    abx, aby = bx - ax, by - ay
    den = cross(abx, aby, dx - cx, dy - cy)
    t = cross(cx - ax, cy - ay, dx - ax, dy - ay) / den if den != 0.0 else 0.0
    return ax + abx * t, ay + aby * t


@helper_jit
def successors(  # noqa: PLR0912, PLR0915, PLR0917 - one numba kernel, arrays passed positionally
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
    lv, rv = verts[t], verts[base + _wrap(first, n)]
    count = 0
    rlx, rly, rrx, rry = lx - ox, ly - oy, rx - ox, ry - oy
    root_eq_l = abs(rlx) < EPS and abs(rly) < EPS
    root_eq_r = abs(rrx) < EPS and abs(rry) < EPS
    if root_eq_l or root_eq_r or abs(cross(rrx, rry, lx - rx, ly - ry)) < EPS:
        # Collinear: the interval gives no direction; turn at its end nearer the root, if a corner.
        left_nearer = abs(rly) < abs(rry) if abs(rlx - rrx) < EPS else abs(rlx) < abs(rrx)
        if root_eq_l or (not root_eq_r and left_nearer):
            if not corner[lv]:
                return 0
            kind = LEFT
        else:
            if not corner[rv]:
                return 0
            kind = RIGHT
        for k in range(m):
            c0, c1 = base + _wrap(first + k, n), base + _wrap(first + k + 1, n)
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
        w = verts[base + _wrap(first + 1, n)]
        if cross(rrx, rry, xy[w, 0] - rx, xy[w, 1] - ry) > -EPS:
            a_idx = 1
    if a_idx < 0:
        a_idx = m
        for k in range(1, m + 1):
            w = verts[base + _wrap(first + k, n)]
            if cross(rrx, rry, xy[w, 0] - rx, xy[w, 1] - ry) > EPS:
                a_idx = k
                break
    # B: the last chain vertex strictly right of the ray root -> L (the cone's left side).
    b_idx = -1
    if left_at_vertex:
        w = verts[base + _wrap(first + m - 1, n)]
        if cross(rlx, rly, xy[w, 0] - lx, xy[w, 1] - ly) < EPS:
            b_idx = m - 1
    if b_idx < 0:
        b_idx = a_idx - 1
        for k in range(m - 1, a_idx - 2, -1):
            w = verts[base + _wrap(first + k, n)]
            if cross(rlx, rly, xy[w, 0] - lx, xy[w, 1] - ly) < -EPS:
                b_idx = k
                break
    ca, cam1 = base + _wrap(first + a_idx, n), base + _wrap(first + a_idx - 1, n)
    cb, cbp1 = base + _wrap(first + b_idx, n), base + _wrap(first + b_idx + 1, n)
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
            c0, c1 = base + _wrap(first + k, n), base + _wrap(first + k + 1, n)
            out_f[count, 0], out_f[count, 1] = xy[verts[c1], 0], xy[verts[c1], 1]
            out_f[count, 2], out_f[count, 3] = xy[verts[c0], 0], xy[verts[c0], 1]
            out_i[count, 0], out_i[count, 1] = RIGHT, c0
            count += 1
        if not (abs(rix - xy[vam1, 0]) < EPS and abs(riy - xy[vam1, 1]) < EPS):
            out_f[count, 0], out_f[count, 1] = rix, riy
            out_f[count, 2], out_f[count, 3] = xy[vam1, 0], xy[vam1, 1]
            out_i[count, 0], out_i[count, 1] = RIGHT, cam1
            count += 1
    if a_idx == b_idx + 1:  # one observable interval
        out_f[count, 0], out_f[count, 1], out_f[count, 2], out_f[count, 3] = lix, liy, rix, riy
        out_i[count, 0], out_i[count, 1] = OBSERVABLE, cam1
        count += 1
    elif a_idx <= b_idx:
        out_f[count, 0], out_f[count, 1] = xy[va, 0], xy[va, 1]
        out_f[count, 2], out_f[count, 3] = rix, riy
        out_i[count, 0], out_i[count, 1] = OBSERVABLE, cam1
        count += 1
        for k in range(a_idx, b_idx):
            c0, c1 = base + _wrap(first + k, n), base + _wrap(first + k + 1, n)
            out_f[count, 0], out_f[count, 1] = xy[verts[c1], 0], xy[verts[c1], 1]
            out_f[count, 2], out_f[count, 3] = xy[verts[c0], 0], xy[verts[c0], 1]
            out_i[count, 0], out_i[count, 1] = OBSERVABLE, c0
            count += 1
        out_f[count, 0], out_f[count, 1] = lix, liy
        out_f[count, 2], out_f[count, 3] = xy[vb, 0], xy[vb, 1]
        out_i[count, 0], out_i[count, 1] = OBSERVABLE, cb
        count += 1
    if left_at_vertex and corner[lv]:  # non-observable, turning at the left end
        if not (abs(lix - xy[vbp1, 0]) < EPS and abs(liy - xy[vbp1, 1]) < EPS):
            out_f[count, 0], out_f[count, 1] = xy[vbp1, 0], xy[vbp1, 1]
            out_f[count, 2], out_f[count, 3] = lix, liy
            out_i[count, 0], out_i[count, 1] = LEFT, cb
            count += 1
        for k in range(b_idx + 1, m):
            c0, c1 = base + _wrap(first + k, n), base + _wrap(first + k + 1, n)
            out_f[count, 0], out_f[count, 1] = xy[verts[c1], 0], xy[verts[c1], 1]
            out_f[count, 2], out_f[count, 3] = xy[verts[c0], 0], xy[verts[c0], 1]
            out_i[count, 0], out_i[count, 1] = LEFT, c0
            count += 1
    return count
