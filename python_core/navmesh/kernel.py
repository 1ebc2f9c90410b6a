"""The navmesh query, compiled end to end: locate, clamp, corridor A*, funnel, cost.

Quick start::

    from python_core.navmesh import NavMesh
    mesh = NavMesh([[0, 0], [2, 0], [2, 1], [0, 1], [3, 0], [3, 1]], [[0, 1, 2, 3], [1, 4, 5, 2]])
    assert mesh.find_path((0.5, 0.5), (2.5, 0.5)).found   # runs :func:`nav_query`

One call per query (numba types and unboxes its arguments once): :data:`NavStatic` holds what stays
from query to query (the mesh, its bucket grid, the search graph of :mod:`~python_core.navmesh.graph`),
built by :func:`nav_static` in compiled code so its machine code is cached. Points are located in the
plane frame (``xy``; in 3D the axes other than ``up``), with a uniform grid of buckets over the
polygons' bounding boxes; a point off the mesh (or on polygons the query's layers exclude) is
clamped to the closest point of an allowed polygon by searching buckets ring by ring. The search
is A* over the graph's nodes with a binary heap of arrays; the corridor it finds is pulled taut by
the funnel (:func:`_string_pull`, the compiled twin of :mod:`~python_core.navmesh.funnel`, the
reference) piece by piece between links.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from python_core._types import F64, I64, SEARCH_BUDGET, SEARCH_FOUND, SEARCH_NO_PATH
from python_core.compiled import jit, record

__all__ = [
    "NAV_FIELDS",
    "NavScratch",
    "NavStatic",
    "closest_point",
    "locate",
    "nav_query",
    "nav_scratch",
    "nav_static",
]

NAV_FIELDS = (
    "verts", "xy", "poly_ptr", "poly_verts", "origin", "cell", "cols", "rows", "cell_ptr",
    "cell_polys", "poly_layers", "plane", "up", "ax_i", "ax_j",
    "indptr", "indices", "costs", "pos", "src", "dst", "left", "right", "link", "node_layers",
    "out_ptr", "out_nodes", "in_ptr", "in_nodes", "enter", "poly_travel", "poly_region",
    "link_start", "link_end", "scale", "samples", "portal_nodes", "layers_common",
)  # fmt: skip
"""What :func:`nav_query` takes unchanged from query to query, in this order."""

NavStatic: Any = record("NavStatic", NAV_FIELDS, __name__)
"""Those values as one record (see :func:`python_core.compiled.record`)."""


@jit
def nav_static(*values: Any) -> Any:
    """The :data:`NavStatic` of ``values`` in :data:`NAV_FIELDS` order (compiled: cached code)."""
    return NavStatic(*values)


# ---- location ------------------------------------------------------------------------------------
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
def _near_on_polygon(st: Any, poly: int, qx: float, qy: float) -> tuple[float, float, float]:
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
def _holding(st: Any, poly: int, qx: float, qy: float, mask: int) -> I64:
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
def _closest(st: Any, qx: float, qy: float, h: float, mask: int) -> tuple[int, float, float]:
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
                    d, px, py = _near_on_polygon(st, p, qx, qy)
                    if st.up >= 0:
                        d += (_height(st, p, px, py) - h) ** 2
                    if d < best_d or (d == best_d and p < best):
                        best, best_d, bx, by = p, d, px, py
    return best, bx, by


@jit
def _lift(st: Any, poly: int, qx: float, qy: float, out: F64, row: int) -> None:  # noqa: PLR0917
    """Write the plane point, on ``poly``, as mesh coordinates into ``out[row]``."""
    if st.up < 0:
        out[row, 0], out[row, 1] = qx, qy
    else:
        out[row, st.ax_i], out[row, st.ax_j] = qx, qy
        out[row, st.up] = _height(st, poly, qx, qy)


@jit
def _plane_xy(st: Any, point: F64) -> tuple[float, float, float]:
    """The point's plane coordinates and height (0 in 2D)."""
    if st.up < 0:
        return point[0], point[1], 0.0
    return point[st.ax_i], point[st.ax_j], point[st.up]


@jit
def locate(st: Any, point: F64, mask: int, eps: float) -> int:
    """The polygon (layers sharing ``mask``) holding ``point`` (3D: nearest in height), or -1."""
    qx, qy, h = _plane_xy(st, point)
    return _locate(st, qx, qy, h, mask, eps)


@jit
def closest_point(st: Any, point: F64, mask: int) -> tuple[int, F64]:
    """The polygon (layers sharing ``mask``) nearest ``point`` and the closest point on it.

    Returns:
        ``(poly, point)``; ``poly`` is -1 (and the point unchanged) when no polygon is allowed.
    """
    qx, qy, h = _plane_xy(st, point)
    poly, px, py = _closest(st, qx, qy, h, mask)
    out = np.zeros((1, point.shape[0]))
    if poly < 0:
        out[0, :] = point
    else:
        _lift(st, poly, px, py, out, 0)
    return poly, out[0]


# ---- heap ----------------------------------------------------------------------------------------
@jit
def _push(keys: F64, nodes: I64, size: int, f: float, node: int) -> tuple[F64, I64, int]:
    """Push ``(f, node)`` on the binary min-heap (grown when full); return it and its size.
    Equal keys pop the smaller node first, so results do not depend on push order."""
    if size == keys.shape[0]:
        keys = np.concatenate((keys, np.empty(size)))
        nodes = np.concatenate((nodes, np.empty(size, np.int64)))
    i = size
    while i > 0:
        up = (i - 1) >> 1
        if keys[up] < f or (keys[up] == f and nodes[up] <= node):
            break
        keys[i], nodes[i] = keys[up], nodes[up]
        i = up
    keys[i], nodes[i] = f, node
    return keys, nodes, size + 1


@jit
def _pop(keys: F64, nodes: I64, size: int) -> tuple[float, int, int]:
    """Remove the smallest entry; return its key, its node and the new size."""
    key, node = keys[0], nodes[0]
    size -= 1
    f, n = keys[size], nodes[size]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        if c + 1 < size and (keys[c + 1] < keys[c] or (keys[c + 1] == keys[c] and nodes[c + 1] < nodes[c])):
            c += 1
        if keys[c] > f or (keys[c] == f and nodes[c] >= n):
            break
        keys[i], nodes[i] = keys[c], nodes[c]
        i = c
    keys[i], nodes[i] = f, n
    return key, node, size


@jit
def _dist(a: F64, i: int, b: F64) -> float:
    total = 0.0
    for k in range(b.shape[0]):
        total += (a[i, k] - b[k]) ** 2
    return math.sqrt(total)


# ---- corridor search -----------------------------------------------------------------------------
NavScratch: Any = record("NavScratch", ("work", "parent", "opened", "group_key", "touched"), __name__)
"""One search's working memory, kept between queries (a pool per mesh, one in use per thread):
``work[v] = (g, x, y, z)`` puts a node's cost beside its position (one cache line for both, the
search's hottest reads); ``touched`` lists the nodes given a cost, which are all that is reset."""


@jit
def nav_scratch(st: Any) -> Any:
    """Fresh :data:`NavScratch` for the mesh of ``st`` (costs infinite, positions copied)."""
    n = st.indptr.shape[0] - 1
    work = np.zeros((n, 4))
    work[:, 0] = np.inf
    work[:, 1 : 1 + st.pos.shape[1]] = st.pos
    groups = st.portal_nodes // st.samples + n - st.portal_nodes
    return NavScratch(
        work, np.full(n, -1, np.int64), np.zeros(n, np.bool_), np.full(groups, np.inf), np.zeros(n, np.int64)
    )


@jit
def _group(node: int, portal_nodes: int, samples: int) -> int:
    """The group of a node: the ``samples`` points of one portal form one, each link end another."""
    return node // samples if node < portal_nodes else portal_nodes // samples + node - portal_nodes


@jit
def _h(work: F64, v: int, gx: float, gy: float, gz: float) -> float:
    return math.sqrt((work[v, 1] - gx) ** 2 + (work[v, 2] - gy) ** 2 + (work[v, 3] - gz) ** 2)


@jit
def _reset(sc: Any, st: Any, count: int) -> None:
    """Undo one search's marks on the scratch: only the ``count`` touched nodes."""
    work, parent, opened, group_key, touched = sc.work, sc.parent, sc.opened, sc.group_key, sc.touched
    for k in range(count):
        v = touched[k]
        work[v, 0] = np.inf
        parent[v] = -1
        opened[v] = False
        group_key[_group(v, st.portal_nodes, st.samples)] = np.inf


@jit
def _seed(  # noqa: PLR0917
    st: Any,
    sc: Any,
    poly: int,
    sx: float,
    sy: float,
    sz: float,
    gx: float,
    gy: float,
    gz: float,
    mask: int,
    count: int,
    size: int,
    keys: F64,
    nodes: I64,
) -> tuple[int, int, F64, I64]:
    """Open the nodes leaving ``poly`` at their straight distance from the start."""
    work, opened, group_key, touched = sc.work, sc.opened, sc.group_key, sc.touched
    travel = st.poly_travel[poly]
    for k in range(st.out_ptr[poly], st.out_ptr[poly + 1]):
        v = st.out_nodes[k]
        if st.node_layers[v] & mask == 0:
            continue
        gv = _h(work, v, sx, sy, sz) * travel
        if gv < work[v, 0]:
            if work[v, 0] == np.inf:
                touched[count] = v
                count += 1
            work[v, 0] = gv
            opened[v] = True
            f = gv + st.scale * _h(work, v, gx, gy, gz)
            grp = _group(v, st.portal_nodes, st.samples)
            if f < group_key[grp]:
                group_key[grp] = f
                keys, nodes, size = _push(keys, nodes, size, f, grp)
    return count, size, keys, nodes


@jit
def _search(  # noqa: PLR0917, PLR0912, PLR0915
    st: Any, sc: Any, ps: F64, pg: F64, starts: I64, goals: I64, mask: int, budget: int
) -> tuple[int, int, int, int]:
    """A* from ``ps`` (in each polygon of ``starts``) to ``pg`` (in each of ``goals``) over the
    search graph, by groups.

    The points of one portal are expanded together: the heap holds groups keyed by the least
    ``f`` of their open points, so one pop settles up to ``samples`` points and a group is pushed
    again only when its key drops (a third of the heap work of one entry per point). A point
    may be expanded before its own ``f`` is the least, so a point improved after its expansion
    opens again (label correcting); the search stops when the best goal cost is at most the least
    key, hence finds what plain A* over the points finds. Costs and parents are left in ``sc``.

    Returns:
        ``(status, end, expanded, touched)``: ``end`` is the node the goal was reached from (or,
        when not found, the expanded node nearest the goal, -1 if none); ``expanded`` counts
        point expansions; ``touched`` how many nodes of ``sc.touched`` to reset.
    """
    indptr, indices, costs = st.indptr, st.indices, st.costs
    node_layers, dst, enter, scale = st.node_layers, st.dst, st.enter, st.scale
    work, parent, opened, group_key, touched = sc.work, sc.parent, sc.opened, sc.group_key, sc.touched
    samples, portal_nodes = st.samples, st.portal_nodes
    gx, gy = pg[0], pg[1]
    gz = pg[2] if pg.shape[0] == 3 else 0.0
    sx, sy = ps[0], ps[1]
    sz = ps[2] if ps.shape[0] == 3 else 0.0
    every = st.layers_common[0] & mask != 0  # every node is on the query's layers: skip the test
    count = 0
    cap = 1024
    keys, nodes = np.empty(cap), np.empty(cap, np.int64)
    size = 0
    for i in range(starts.shape[0]):
        count, size, keys, nodes = _seed(
            st, sc, starts[i], sx, sy, sz, gx, gy, gz, mask, count, size, keys, nodes
        )
    goal_g = math.inf
    goal_from = -1
    expanded = 0
    best, best_h = -1, math.inf
    link_groups = portal_nodes // samples
    while size > 0:
        key, grp, size = _pop(keys, nodes, size)
        if key != group_key[grp]:
            continue  # stale: the group was pushed again with a smaller key, or expanded since
        if goal_g <= key:
            return SEARCH_FOUND, goal_from, expanded, count
        if 0 <= budget <= expanded:
            return SEARCH_BUDGET, best, expanded, count
        group_key[grp] = math.inf
        first = grp * samples if grp < link_groups else portal_nodes + grp - link_groups
        last = first + samples if grp < link_groups else first + 1
        for u in range(first, last):
            if not opened[u]:
                continue
            opened[u] = False
            expanded += 1
            h_u = _h(work, u, gx, gy, gz)
            if h_u < best_h:
                best, best_h = u, h_u
            g_u = work[u, 0]
            for i in range(goals.shape[0]):
                if dst[u] == goals[i]:
                    cand = g_u + enter[u] + h_u * st.poly_travel[goals[i]]
                    if cand < goal_g:
                        goal_g, goal_from = cand, u
            for j in range(indptr[u], indptr[u + 1]):
                v = indices[j]
                new_g = g_u + costs[j]
                if new_g >= work[v, 0] or (not every and node_layers[v] & mask == 0):
                    continue
                if work[v, 0] == np.inf:
                    touched[count] = v
                    count += 1
                work[v, 0] = new_g
                parent[v] = u
                opened[v] = True
                f = new_g + scale * _h(work, v, gx, gy, gz)
                gv = _group(v, portal_nodes, samples)
                if f < group_key[gv]:
                    group_key[gv] = f
                    keys, nodes, size = _push(keys, nodes, size, f, gv)
    if goal_from >= 0:
        return SEARCH_FOUND, goal_from, expanded, count
    return SEARCH_NO_PATH, best, expanded, count


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
def _piece(  # noqa: PLR0917
    st: Any, chain: I64, a: int, b: int, pa: F64, pb: F64, poly_a: int, poly_b: int, points: F64, m: int
) -> tuple[int, float]:
    """Funnel the portal nodes ``chain[a:b]`` from ``pa`` (in ``poly_a``) to ``pb`` (in
    ``poly_b``), appending the turning points and ``pb`` to ``points`` from row ``m``; return the
    new row count and the piece's cost (length in each polygon times its travel cost, plus enter
    costs at region changes)."""
    count = b - a + 2
    lx, ly, rx, ry = np.empty(count), np.empty(count), np.empty(count), np.empty(count)
    sx, sy, _h = _plane_xy(st, pa)
    gx, gy, _h2 = _plane_xy(st, pb)
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
    x0, y0, _h0 = _plane_xy(st, p0)
    x1, y1, _h1 = _plane_xy(st, p1)
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


# ---- one query -----------------------------------------------------------------------------------
@jit
def nav_query(  # noqa: PLR0917
    st: Any, sc: Any, start: F64, goal: F64, mask: int, budget: int, partial: bool
) -> tuple[int, int, F64, I64, float]:
    """One path query: clamp both ends onto allowed polygons, search, funnel; ``sc`` is a
    :data:`NavScratch` of this mesh that no other thread uses meanwhile (left clean).

    Returns:
        ``(status, expanded, points, corridor, cost)``: a ``SEARCH_*`` status, or 3 for
        "partial" (``partial`` was set and the goal is unreachable: the path ends at the reached
        point nearest the goal), -1 when no polygon shares ``mask``; the waypoints in mesh
        coordinates; the polygons passed (the corridor); the path's cost.
    """
    dim = start.shape[0]
    sx, sy, sh = _plane_xy(st, start)
    gx, gy, gh = _plane_xy(st, goal)
    poly_s, qsx, qsy = _closest(st, sx, sy, sh, mask)
    poly_g, qgx, qgy = _closest(st, gx, gy, gh, mask)
    ends = np.zeros((2, dim))
    if poly_s < 0:
        return -1, 0, np.zeros((0, dim)), np.zeros(0, np.int64), math.inf
    _lift(st, poly_s, qsx, qsy, ends, 0)
    _lift(st, poly_g, qgx, qgy, ends, 1)
    ps, pg = ends[0], ends[1]
    starts = _holding(st, poly_s, qsx, qsy, mask)
    goals = _holding(st, poly_g, qgx, qgy, mask)
    for i in range(starts.shape[0]):
        for j in range(goals.shape[0]):
            if starts[i] == goals[j]:
                poly_s = poly_g = starts[i]
    if poly_s == poly_g:
        pts = np.empty((2, dim))
        pts[0], pts[1] = ps, pg
        cost = math.sqrt(np.sum((pg - ps) ** 2)) * st.poly_travel[poly_s]
        if np.sum((pg - ps) ** 2) == 0.0:
            return SEARCH_FOUND, 0, pts[:1].copy(), np.array([poly_s]), 0.0
        return SEARCH_FOUND, 0, pts, np.array([poly_s]), cost
    status, end, expanded, touched = _search(st, sc, ps, pg, starts, goals, mask, budget)
    answer = _finish(st, sc, status, end, expanded, ps, pg, poly_s, gx, gy, partial)
    _reset(sc, st, touched)
    return answer


@jit
def _finish(  # noqa: PLR0917
    st: Any,
    sc: Any,
    status: int,
    end: int,
    expanded: int,
    ps: F64,
    pg: F64,
    poly_s: int,
    gx: float,
    gy: float,
    partial: bool,
) -> tuple[int, int, F64, I64, float]:
    """The path of a finished search: the chain of nodes, the corridor and the funnelled points."""
    dim = ps.shape[0]
    parent, g = sc.parent, sc.work[:, 0]
    ends = np.zeros((2, dim))
    ends[0], ends[1] = ps, pg
    poly_g = -1
    if status == SEARCH_FOUND:
        poly_g = st.dst[end]
    if status != SEARCH_FOUND:
        if not partial:
            return status, expanded, np.zeros((0, dim)), np.zeros(0, np.int64), math.inf
        while end >= 0 and st.dst[end] < 0:  # ended on a link's start: back to its polygon
            end = parent[end]
        poly_g = poly_s if end < 0 else st.dst[end]
        _d, qgx, qgy = _near_on_polygon(st, poly_g, gx, gy)
        _lift(st, poly_g, qgx, qgy, ends, 1)
        pg = ends[1]
        status = 3 if status == SEARCH_NO_PATH else SEARCH_BUDGET
    length = 0
    u = end
    while u >= 0:
        length += 1
        u = parent[u]
    chain = np.empty(length, np.int64)
    u = end
    for k in range(length - 1, -1, -1):
        chain[k] = u
        u = parent[u]
    if length > 0:
        poly_s = st.src[chain[0]]  # the start polygon the search set out from
    corridor = np.empty(length + 1, np.int64)
    corridor[0] = poly_s
    for k in range(length):
        corridor[k + 1] = st.dst[chain[k]]
    points = np.empty((2 * length + 3, dim))
    points[0] = ps
    m = 1
    cost = 0.0
    piece_start, from_point, from_poly = 0, ps, poly_s
    for k in range(length + 1):
        if k < length and st.dst[chain[k]] >= 0:
            continue  # a portal (or a link's end): the piece goes on
        to_point = pg if k == length else st.link_start[st.link[chain[k]]]
        to_poly = poly_g if k == length else st.src[chain[k]]
        m, c = _piece(st, chain, piece_start, k, from_point, to_point, from_poly, to_poly, points, m)
        cost += c
        if k < length:  # cross the link: its start and end nodes are chain[k], chain[k + 1]
            lk = st.link[chain[k]]
            cost += g[chain[k + 1]] - g[chain[k]]
            points[m] = st.link_end[lk]
            m += 1
            from_point, from_poly = st.link_end[lk], st.dst[chain[k + 1]]
            piece_start = k + 2
    return status, expanded, points[:m].copy(), corridor[corridor >= 0], cost
