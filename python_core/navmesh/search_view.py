"""A merged search view of a navmesh: the same area as fewer convex polygons (compiled).

Quick start::

    import numpy as np
    from python_core.navmesh import NavMesh
    from python_core.navmesh.search_view import merged_view
    m = NavMesh([[0, 0], [1, 0], [1, 1], [0, 1]], [[0, 1, 2], [0, 2, 3]])
    view = merged_view(m)
    assert view.count == 1 and view.view_of.tolist() == [0, 0]

Why: Polyanya's cost grows with the polygons a search crosses, and a triangulated mesh (aurora:
34,816 triangles) makes most of its steps lone successors through one triangle after the next.
Its authors search merged meshes. Here the mesh's polygons are joined greedily across shared
edges, longest first, while the union stays convex (Hertel-Mehlhorn), only polygons of the same
navigation layers (a query's layer mask then keeps or drops whole merged polygons). The view keeps
the mesh's vertices (a path's turning vertices are the mesh's) and, per merged polygon, the tree
of joins between its members, so a corridor of merged polygons maps back to the mesh's polygons
(:func:`mesh_corridor`): the members the path crosses, as the unmerged search names them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from python_core._types import F64, I64, B
from python_core.compiled import jit
from python_core.navmesh.build import PLANE_AXES
from python_core.navmesh.mesh import NavMesh

__all__ = ["MergedView", "expand_corridors", "member_at", "merged_view", "mesh_corridor"]

_STRAIGHT = 1e-9
"""A join's corner within this of straight (relative to its edges' lengths) is straight: kept
(aurora: 18,118 polygons instead of 19,463 without) except on a point several vertex ids share
(an unwelded region seam), where Polyanya's landmark distances came out too long (N4's ring:
15.90 instead of 14.92). Never a slit (a turn back)."""


@dataclass(frozen=True, slots=True)
class MergedView:
    """A mesh's polygons joined into convex ones (see the module docstring).

    Attributes:
        ptr, verts: the merged polygons as CSR over the mesh's vertices, counter-clockwise.
        nbr: per merged corner, the merged polygon across its edge (-1: none).
        corner_of: per merged corner, the mesh's corner on the same edge.
        view_of: per mesh polygon, its merged polygon.
        parent, depth: per mesh polygon, its parent in its merged polygon's tree of joins (-1 at
            the root) and its depth there.
        member_ptr, members: per merged polygon, its mesh polygons (CSR).
    """

    ptr: I64
    verts: I64
    nbr: I64
    corner_of: I64
    view_of: I64
    parent: I64
    depth: I64
    member_ptr: I64
    members: I64

    @property
    def count(self) -> int:
        """Merged polygons."""
        return int(self.ptr.shape[0] - 1)


@jit
def _find(owner: I64, i: int) -> int:
    while owner[i] != i:
        owner[i] = owner[owner[i]]
        i = owner[i]
    return i


@jit
def _convex(xy: F64, a: int, b: int, c: int, straight: bool) -> bool:
    """Whether the turn a -> b -> c is left (or, if ``straight``, straight on), by :data:`_STRAIGHT`."""
    ux, uy = xy[b, 0] - xy[a, 0], xy[b, 1] - xy[a, 1]
    vx, vy = xy[c, 0] - xy[b, 0], xy[c, 1] - xy[b, 1]
    turn = ux * vy - uy * vx
    scale = math.hypot(ux, uy) * math.hypot(vx, vy)
    if turn > _STRAIGHT * scale:
        return True
    return straight and abs(turn) <= _STRAIGHT * scale and ux * vx + uy * vy > 0.0


@jit
def _merge(  # noqa: PLR0917 - numba kernel
    xy: F64, ptr: I64, verts: I64, cpoly: I64, nxt: I64, twin: I64, layers: I64, seam: B
) -> tuple[I64, I64, I64]:
    """The joins, longest shared edge first, while convex: ``(owner, link, joins)``: each polygon's
    union-find owner, each corner's successor in its merged loop (-1: an edge joined away), and
    the joined pairs of polygons (``(k, 2)``)."""
    n_corners = verts.shape[0]
    link = nxt.copy()
    back = np.empty(n_corners, np.int64)
    for c in range(n_corners):
        back[nxt[c]] = c
    owner = np.arange(ptr.shape[0] - 1)
    edges = np.empty(n_corners, np.int64)
    k = 0
    for c in range(n_corners):
        t = twin[c]
        # one per shared edge whose two sides name the same vertices, both polygons on one layer mask
        same = t > c and verts[t] == verts[nxt[c]] and verts[nxt[t]] == verts[c]
        if same and layers[cpoly[c]] == layers[cpoly[t]]:
            edges[k] = c
            k += 1
    length = np.empty(k)
    for i in range(k):
        a, b = verts[edges[i]], verts[nxt[edges[i]]]
        length[i] = -math.hypot(xy[b, 0] - xy[a, 0], xy[b, 1] - xy[a, 1])
    joins = np.empty((k, 2), np.int64)
    n_joins = 0
    for i in np.argsort(length, kind="mergesort"):
        e = edges[i]
        t = twin[e]
        p, q = _find(owner, cpoly[e]), _find(owner, cpoly[t])
        if p == q:
            continue
        a, b = verts[e], verts[t]
        # the joined loop: ... back[e] -> a -> link[t] ... back[t] -> b -> link[e] ...
        if not _convex(xy, verts[back[e]], a, verts[link[link[t]]], not seam[a]):
            continue
        if not _convex(xy, verts[back[t]], b, verts[link[link[e]]], not seam[b]):
            continue
        link[back[e]], back[link[t]] = link[t], back[e]
        link[back[t]], back[link[e]] = link[e], back[t]
        link[e] = link[t] = -1
        owner[q] = p
        joins[n_joins, 0], joins[n_joins, 1] = cpoly[e], cpoly[t]
        n_joins += 1
    return owner, link, joins[:n_joins].copy()


@jit
def _loops(owner: I64, link: I64, cpoly: I64, nbr: I64, joins: I64) -> tuple[I64, ...]:
    """The merged polygons from :func:`_merge`'s joins (see :class:`MergedView`), in the order of
    their first live corner (a loop is written when its first corner comes)."""
    n_polys = owner.shape[0]
    roots = np.empty(n_polys, np.int64)
    for p in range(n_polys):
        roots[p] = _find(owner, p)
    view_of = np.full(n_polys, -1, np.int64)
    ptr = np.zeros(n_polys + 1, np.int64)
    corner_of = np.empty(link.shape[0], np.int64)
    count = at = 0
    for c in range(link.shape[0]):
        r = roots[cpoly[c]]
        if link[c] < 0 or view_of[r] >= 0:
            continue
        view_of[r] = count
        ptr[count] = at
        count += 1
        d = c
        while True:
            corner_of[at] = d
            at += 1
            d = link[d]
            if d == c:
                break
    for p in range(n_polys):
        view_of[p] = view_of[roots[p]]
    ptr = ptr[: count + 1].copy()
    ptr[count] = at
    corner_of = corner_of[:at].copy()
    view_nbr = np.full(at, -1, np.int64)
    for k in range(at):
        q = nbr[corner_of[k]]
        if q >= 0:
            view_nbr[k] = view_of[q]
    parent, depth = _trees(owner, joins)
    return ptr, corner_of, view_nbr, view_of, parent, depth


@jit
def _trees(owner: I64, joins: I64) -> tuple[I64, I64]:
    """Each merged polygon's tree of joins, rooted at its union-find owner: per mesh polygon its
    parent (-1 at the root) and depth."""
    n_polys = owner.shape[0]
    adj_ptr = np.zeros(n_polys + 1, np.int64)
    for j in range(joins.shape[0]):
        adj_ptr[joins[j, 0] + 1] += 1
        adj_ptr[joins[j, 1] + 1] += 1
    adj_ptr = np.cumsum(adj_ptr)
    adj = np.empty(adj_ptr[-1], np.int64)
    fill = adj_ptr[:-1].copy()
    for j in range(joins.shape[0]):
        a, b = joins[j, 0], joins[j, 1]
        adj[fill[a]], adj[fill[b]] = b, a
        fill[a] += 1
        fill[b] += 1
    parent = np.full(n_polys, -1, np.int64)
    depth = np.full(n_polys, -1, np.int64)
    queue = np.empty(n_polys, np.int64)
    for r in range(n_polys):
        if owner[r] != r:
            continue
        depth[r], queue[0] = 0, r
        head, tail = 0, 1
        while head < tail:
            p = queue[head]
            head += 1
            for i in range(adj_ptr[p], adj_ptr[p + 1]):
                q = adj[i]
                if depth[q] < 0:
                    depth[q], parent[q] = depth[p] + 1, p
                    queue[tail] = q
                    tail += 1
    return parent, depth


def merged_view(mesh: NavMesh) -> MergedView:
    """The mesh's polygons merged (see the module docstring); a mesh whose polygons cannot be
    joined gives a view of the same polygons."""
    xy = mesh.vertices[:, list(PLANE_AXES[mesh.up_axis])] if mesh.dim == 3 else mesh.vertices
    xy = np.ascontiguousarray(xy, dtype=np.float64)
    cpoly, nxt = mesh._corner_poly, mesh._next
    order = np.lexsort(mesh.vertices.T[::-1])
    same = np.all(mesh.vertices[order[1:]] == mesh.vertices[order[:-1]], axis=1)
    seam = np.zeros(mesh.vertices.shape[0], dtype=np.bool_)  # a point of several vertex ids
    seam[order[1:][same]] = seam[order[:-1][same]] = True
    owner, link, joins = _merge(xy, mesh.poly_ptr, mesh.poly_verts, cpoly, nxt, mesh._twin, mesh.layers, seam)
    ptr, corner_of, nbr, view_of, parent, depth = _loops(owner, link, cpoly, mesh.neighbours, joins)
    members = np.argsort(view_of, kind="stable")
    member_ptr = np.zeros(ptr.shape[0], np.int64)
    np.cumsum(np.bincount(view_of, minlength=ptr.shape[0] - 1), out=member_ptr[1:])
    verts = mesh.poly_verts[corner_of]
    return MergedView(ptr, verts, nbr, corner_of, view_of, parent, depth, member_ptr, members)


@jit
def member_at(  # noqa: PLR0917 - numba kernel
    xy: F64, ptr: I64, verts: I64, member_ptr: I64, members: I64, v: int, x: float, y: float
) -> int:
    """The mesh polygon of merged polygon ``v`` holding ``(x, y)`` (the nearest, by how far it is
    outside its farthest edge line, when none holds it exactly)."""
    best, best_out = members[member_ptr[v]], math.inf
    for i in range(member_ptr[v], member_ptr[v + 1]):
        p = members[i]
        out = -math.inf
        n = ptr[p + 1] - ptr[p]
        for j in range(n):
            a, b = verts[ptr[p] + j], verts[ptr[p] + (j + 1) % n]
            ex, ey = xy[b, 0] - xy[a, 0], xy[b, 1] - xy[a, 1]
            side = (ex * (y - xy[a, 1]) - ey * (x - xy[a, 0])) / max(math.hypot(ex, ey), 1e-300)
            out = max(out, -side)
        if out < best_out:
            best, best_out = p, out
    return int(best)


@jit
def _tree_path(parent: I64, depth: I64, a: int, b: int) -> I64:
    """The mesh polygons from ``a`` to ``b`` in their merged polygon's tree of joins."""
    up = [a]
    down = [b]
    while depth[up[-1]] > depth[down[-1]]:
        up.append(parent[up[-1]])
    while depth[down[-1]] > depth[up[-1]]:
        down.append(parent[down[-1]])
    while up[-1] != down[-1]:
        up.append(parent[up[-1]])
        down.append(parent[down[-1]])
    out = np.empty(len(up) + len(down) - 1, np.int64)
    for k in range(len(up)):
        out[k] = up[k]
    for k in range(len(down) - 1):
        out[len(up) + k] = down[len(down) - 2 - k]
    return out


@jit
def _to_segment(px: float, py: float, ax: float, ay: float, bx: float, by: float) -> float:  # noqa: PLR0917 - numba kernel
    ex, ey = bx - ax, by - ay
    u = min(max(((px - ax) * ex + (py - ay) * ey) / max(ex * ex + ey * ey, 1e-300), 0.0), 1.0)
    return math.hypot(ax + u * ex - px, ay + u * ey - py)


@jit
def _from_path(path: F64, ax: float, ay: float, bx: float, by: float) -> float:
    """How far the polyline ``path`` passes from segment ``a``-``b`` (0 where it crosses it)."""
    best = math.inf
    for i in range(path.shape[0] - 1):
        px, py, qx, qy = path[i, 0], path[i, 1], path[i + 1, 0], path[i + 1, 1]
        d1 = (qx - px) * (ay - py) - (qy - py) * (ax - px)
        d2 = (qx - px) * (by - py) - (qy - py) * (bx - px)
        d3 = (bx - ax) * (py - ay) - (by - ay) * (px - ax)
        d4 = (bx - ax) * (qy - ay) - (by - ay) * (qx - ax)
        if d1 * d2 < 0.0 and d3 * d4 < 0.0:
            return 0.0
        best = min(best, _to_segment(px, py, ax, ay, bx, by), _to_segment(qx, qy, ax, ay, bx, by))
        best = min(best, _to_segment(ax, ay, px, py, qx, qy), _to_segment(bx, by, px, py, qx, qy))
    return best


@jit
def _exit(  # noqa: PLR0917 - numba kernel
    xy: F64, ptr: I64, verts: I64, cpoly: I64, view: tuple[I64, I64, I64, I64, I64, I64, I64], v: int, w: int,
    path: F64,
) -> int:  # fmt: skip
    """The mesh corner by which the path leaves merged polygon ``v`` for ``w``: of their shared
    edges (several where a seam's vertices split one), the one the path crosses."""
    vptr, vnbr, corner_of = view[0], view[1], view[2]
    best, best_d = -1, math.inf
    for k in range(vptr[v], vptr[v + 1]):
        if vnbr[k] != w:
            continue
        c = corner_of[k]
        if best < 0:
            best = c
            if k + 1 == vptr[v + 1] or vnbr[k + 1] != w:  # one shared edge (the common case)
                continue
        p = cpoly[c]
        d = c + 1 if c + 1 < ptr[p + 1] else ptr[p]
        a, b = verts[c], verts[d]
        gap = _from_path(path, xy[a, 0], xy[a, 1], xy[b, 0], xy[b, 1])
        if gap < best_d:
            best, best_d = c, gap
    return best


@jit
def mesh_corridor(  # noqa: PLR0917 - numba kernel
    xy: F64, ptr: I64, verts: I64, cpoly: I64, nbr: I64, view: tuple[I64, I64, I64, I64, I64, I64, I64],
    corridor: I64, path: F64,
) -> I64:  # fmt: skip
    """A corridor of merged polygons as the mesh's polygons: in each merged polygon, the tree path
    from the member it is entered by (the start's member in the first) to the member it is left
    by (the goal's in the last). ``view``: ``(view ptr, view nbr, corner_of, parent, depth,
    member_ptr, members)``; ``path``: the path's points in the plane (start, turns, goal)."""
    parent, depth, member_ptr, members = view[3], view[4], view[5], view[6]
    out = np.empty(0, np.int64)
    if corridor.shape[0] == 0:
        return out
    parts = []
    last = path.shape[0] - 1
    entry = member_at(xy, ptr, verts, member_ptr, members, corridor[0], path[0, 0], path[0, 1])
    for i in range(corridor.shape[0]):
        v = corridor[i]
        if i == corridor.shape[0] - 1:
            exit_ = member_at(xy, ptr, verts, member_ptr, members, v, path[last, 0], path[last, 1])
            after = -1
        else:
            c = _exit(xy, ptr, verts, cpoly, view, v, corridor[i + 1], path)
            exit_, after = cpoly[c], nbr[c]
        parts.append(_tree_path(parent, depth, entry, exit_))
        entry = after
    total = 0
    for part in parts:
        total += part.shape[0]
    out = np.empty(total, np.int64)
    at = 0
    for part in parts:
        out[at : at + part.shape[0]] = part
        at += part.shape[0]
    return out


@jit
def expand_corridors(  # noqa: PLR0917 - numba kernel
    xy: F64, ptr: I64, verts: I64, cpoly: I64, nbr: I64, view: tuple[I64, I64, I64, I64, I64, I64, I64],
    counts: I64, corridors: I64, root_counts: I64, roots: I64, ends: F64,
) -> tuple[I64, I64]:  # fmt: skip
    """:func:`mesh_corridor` of each of a batch's corridors (``counts`` of them one after the other,
    their paths' turning vertices ``roots`` likewise, ``ends``: per query its start and goal in
    the plane, ``(n, 4)``): ``(counts, corridors)``."""
    n = counts.shape[0]
    out_counts = np.zeros(n, np.int64)
    parts = []
    at = rat = 0
    for i in range(n):
        path = np.empty((root_counts[i] + 2, 2))
        path[0, 0], path[0, 1] = ends[i, 0], ends[i, 1]
        for k in range(root_counts[i]):
            path[k + 1, 0], path[k + 1, 1] = xy[roots[rat + k], 0], xy[roots[rat + k], 1]
        path[root_counts[i] + 1, 0], path[root_counts[i] + 1, 1] = ends[i, 2], ends[i, 3]
        part = mesh_corridor(xy, ptr, verts, cpoly, nbr, view, corridors[at : at + counts[i]], path)
        at += counts[i]
        rat += root_counts[i]
        out_counts[i] = part.shape[0]
        parts.append(part)
    out = np.empty(out_counts.sum(), np.int64)
    at = 0
    for part in parts:
        out[at : at + part.shape[0]] = part
        at += part.shape[0]
    return out_counts, out
