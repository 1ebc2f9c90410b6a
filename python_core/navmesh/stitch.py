"""Making a mesh conformal: T-junctions, partially overlapping edges and nearby region borders.

Quick start::

    import numpy as np
    from python_core.navmesh.build import flatten
    from python_core.navmesh.stitch import conform
    verts = np.array([[0, 0], [2, 0], [2, 2], [0, 2], [3, 0], [3, 1], [2, 1], [3, 2]], float)
    ptr, flat = flatten([[0, 1, 2, 3], [1, 4, 5, 6], [6, 5, 7, 2]], None)  # a T-junction at (2, 1)
    out = conform(verts, ptr, flat, np.zeros(3, np.int64), weld=1e-6, margin=0.0)
    assert (out.twin >= 0).sum() == 6  # square 0's right edge is split and joins both neighbours

Godot joins polygons whose edges share both vertices, and polygons of *different* regions whose free
edges run along each other within ``edge_connection_margin`` (the overlapping part becomes the
passage). Here both become plain shared edges: where a free edge overlaps another free edge running
the other way (within ``weld`` in one region, within ``margin`` across regions), both edges are split
at the ends of the overlap, by inserting vertices into the polygons' vertex loops, and the pieces
are paired. Afterwards every polygon edge has at most one neighbour along its whole length, which
is what the portal search and Polyanya expect. Inserted vertices lie on their edge, so polygons
stay convex; a vertex of the other edge within ``weld`` of the split point is reused instead.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from python_core._types import F64, I64, B
from python_core.navmesh.build import corner_links, match_edges, row_ids

__all__ = ["Conformed", "conform"]

_T_EPS = 1e-9
"""Split parameters closer than this to an edge's end (or to each other) are the end itself."""


@dataclass(frozen=True, slots=True, eq=False)
class Conformed:
    """A conformal mesh: every polygon edge shared by at most one neighbour along its full length.

    Attributes:
        vertices: the input vertices first (same indices), then the inserted ones.
        ptr, flat: polygons (CSR of vertex indices, winding as given).
        twin: per corner, the corner of the neighbour across its edge (-1: none).
        inserted: how many vertices were inserted.
        kept: a local re-stitch's polygons kept as they were (loops and vertex ids), first.
    """

    vertices: F64
    ptr: I64
    flat: I64
    twin: I64
    inserted: int
    kept: int = 0


def _candidate_pairs(a: F64, b: F64, reach: float) -> tuple[I64, I64]:
    """Pairs ``(i, j)``, ``i < j``, of segments whose bounding boxes (grown by ``reach``) share a
    bucket of a uniform grid: a superset of the pairs that may overlap."""
    n = a.shape[0]
    if n < 2:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    lo = np.minimum(a, b) - reach
    hi = np.maximum(a, b) + reach
    size = max(float(np.median(np.max(hi - lo, axis=1))), 1e-9)
    c0 = np.floor(lo / size).astype(np.int64)
    c1 = np.floor(hi / size).astype(np.int64)
    span = c1 - c0 + 1
    count = np.prod(span, axis=1)
    seg = np.repeat(np.arange(n), count)
    local = np.arange(seg.shape[0]) - np.repeat(np.cumsum(count) - count, count)
    cells = np.zeros((seg.shape[0], a.shape[1]), dtype=np.int64)
    for k in range(a.shape[1]):
        stride = np.prod(span[:, k + 1 :], axis=1) if k + 1 < a.shape[1] else np.ones(n, np.int64)
        cells[:, k] = c0[seg, k] + (local // stride[seg]) % span[seg, k]
    key = row_ids(cells)
    order = np.lexsort((seg, key))
    key, seg = key[order], seg[order]
    starts = np.searchsorted(key, key, side="left")
    group = np.bincount(key)[key]
    first: list[I64] = []
    second: list[I64] = []
    for shift in range(1, int(group.max())):
        sel = np.flatnonzero(np.arange(key.shape[0]) - starts + shift < group)
        first.append(seg[sel])
        second.append(seg[sel + shift])
    if not first:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    # one int64 per pair (i, j < n): a 1D unique, much faster than unique rows, same order
    pair = np.unique(np.concatenate(first) * n + np.concatenate(second))
    i, j = pair // n, pair % n
    return i[i != j], j[i != j]


def _overlaps(a: F64, b: F64, i: I64, j: I64, tol: F64) -> tuple[I64, F64, F64, F64, F64]:
    """Which candidate pairs run along each other the opposite way, within ``tol`` (Godot's test:
    the ends of the overlap on one edge lie within the tolerance of the other edge).

    Returns:
        the kept pair indices and, per kept pair, the overlap as parameters on edge ``i``
        (``t0 < t1``) and on edge ``j`` (``s0`` matches ``t0``, ``s1`` matches ``t1``).
    """
    ea, eb = a[i], b[i]
    oa, ob = a[j], b[j]
    d, e = eb - ea, ob - oa
    dd = np.maximum(np.sum(d * d, axis=1), 1e-300)
    ee = np.maximum(np.sum(e * e, axis=1), 1e-300)
    r1 = np.sum(d * (oa - ea), axis=1) / dd
    r2 = np.sum(d * (ob - ea), axis=1) / dd
    t0 = np.clip(np.minimum(r1, r2), 0.0, 1.0)
    t1 = np.clip(np.maximum(r1, r2), 0.0, 1.0)
    p0 = ea + t0[:, None] * d
    p1 = ea + t1[:, None] * d
    s0 = np.clip(np.sum(e * (p0 - oa), axis=1) / ee, 0.0, 1.0)
    s1 = np.clip(np.sum(e * (p1 - oa), axis=1) / ee, 0.0, 1.0)
    q0 = oa + s0[:, None] * e
    q1 = oa + s1[:, None] * e
    near = (np.linalg.norm(p0 - q0, axis=1) <= tol) & (np.linalg.norm(p1 - q1, axis=1) <= tol)
    long_enough = t1 - t0 > 1e-6  # a touch at one point is no passage
    opposite = np.sum(d * e, axis=1) < 0.0
    keep = np.flatnonzero(near & long_enough & opposite)
    return keep, t0[keep], t1[keep], s0[keep], s1[keep]


def conform(
    vertices: F64,
    ptr: I64,
    flat: I64,
    region: I64,
    *,
    weld: float,
    margin: float,
    held: B | None = None,
) -> Conformed:
    """Split overlapping free edges so that every shared stretch is one shared edge, and pair them.

    Args:
        vertices: ``(n, d)`` coordinates (distances are measured here, in 2D or 3D).
        ptr, flat: convex polygons, all wound the same way.
        region: ``(p,)`` region id per polygon; ``margin`` applies only between different regions.
        weld: vertices closer than this are one (edges sharing both are neighbours), and the
            tolerance of T-junctions and overlaps inside one region.
        margin: Godot's ``edge_connection_margin``: how far apart the free edges of two regions
            may run and still be joined.
        held: per corner, True when its edge is paired with a polygon not given here (a local
            re-stitch's polygon beside a kept one): neither split nor paired, as in a stitch of
            the whole mesh, where that pair is found first and the edge is not free.

    Returns:
        The :class:`Conformed` mesh.
    """
    _, nxt = corner_links(ptr)
    poly = np.repeat(np.arange(ptr.shape[0] - 1), np.diff(ptr))
    twin = match_edges(vertices, flat, nxt, weld)
    free = np.flatnonzero((twin < 0) if held is None else (twin < 0) & ~held)
    a, b = vertices[flat[free]], vertices[flat[nxt[free]]]
    reach = max(weld, margin)
    i, j = _candidate_pairs(a, b, reach)
    i, j = i[poly[free[i]] != poly[free[j]]], j[poly[free[i]] != poly[free[j]]]
    tol = np.where(region[poly[free[i]]] != region[poly[free[j]]], max(margin, weld), weld)
    keep, t0, t1, s0, s1 = _overlaps(a, b, i, j, tol)
    if keep.size == 0:
        return Conformed(vertices, ptr, flat, twin, 0)
    ci, cj = free[i[keep]], free[j[keep]]
    splits: dict[int, list[tuple[float, int]]] = {}
    new_points: list[F64] = []
    n0 = vertices.shape[0]

    def add_split(corner: int, t: float, other_vertex: int) -> None:
        """Split ``corner``'s edge at parameter ``t``; reuse ``other_vertex`` when it lies there."""
        if t <= _T_EPS or t >= 1.0 - _T_EPS:
            return
        pa, pb = vertices[flat[corner]], vertices[flat[nxt[corner]]]
        point = pa + t * (pb - pa)
        if min(np.linalg.norm(point - pa), np.linalg.norm(point - pb)) <= weld:
            return  # the overlap ends at this edge's own end (as welded): nothing to split
        if other_vertex >= 0 and np.linalg.norm(vertices[other_vertex] - point) <= weld:
            vid = other_vertex
        else:
            vid = n0 + len(new_points)
            new_points.append(point)
        splits.setdefault(corner, []).append((t, vid))

    for k in range(keep.shape[0]):
        e, o = int(ci[k]), int(cj[k])
        # The ends of the overlap on e: t0 pairs with s0 on o. An end strictly inside e comes from
        # an endpoint of o (reuse it when it lies on e), and likewise the other way round.
        vo = (int(flat[o]), int(flat[nxt[o]]))
        ve = (int(flat[e]), int(flat[nxt[e]]))
        for t, s in ((float(t0[k]), float(s0[k])), (float(t1[k]), float(s1[k]))):
            add_split(e, t, vo[0] if s <= _T_EPS else vo[1] if s >= 1 - _T_EPS else -1)
            add_split(o, s, ve[0] if t <= _T_EPS else ve[1] if t >= 1 - _T_EPS else -1)
    verts = np.vstack([vertices, *new_points]) if new_points else vertices
    new_ptr, new_flat, origin = _insert(ptr, flat, splits)
    new_twin = match_edges(verts, new_flat, corner_links(new_ptr)[1], weld)
    _pair_pieces(verts, new_ptr, new_flat, new_twin, origin, ci, cj, max(margin, weld))
    return Conformed(verts, new_ptr, new_flat, new_twin, len(new_points))


def _insert(ptr: I64, flat: I64, splits: dict[int, list[tuple[float, int]]]) -> tuple[I64, I64, I64]:
    """Polygons with the split vertices inserted after their corners; per new corner, the old
    corner whose edge it is a piece of."""
    extra = np.zeros(flat.shape[0], dtype=np.int64)
    merged: dict[int, list[int]] = {}
    for corner, items in splits.items():
        items.sort()
        ids: list[int] = []
        last_t = -1.0
        for t, vid in items:
            if t - last_t > _T_EPS and (not ids or ids[-1] != vid):
                ids.append(vid)
                last_t = t
        merged[corner] = ids
        extra[corner] = len(ids)
    count = 1 + extra
    origin = np.repeat(np.arange(flat.shape[0]), count)
    out = flat[origin].copy()
    start = np.cumsum(count) - count
    for corner, ids in merged.items():
        out[start[corner] + 1 : start[corner] + 1 + len(ids)] = ids
    sizes = np.add.reduceat(count, ptr[:-1]) if flat.shape[0] else np.zeros(0, np.int64)
    new_ptr = np.zeros(ptr.shape[0], dtype=np.int64)
    np.cumsum(sizes, out=new_ptr[1:])
    return new_ptr, out, origin


def _pair_pieces(  # noqa: PLR0917
    verts: F64, ptr: I64, flat: I64, twin: I64, origin: I64, ci: I64, cj: I64, tol: float
) -> None:
    """Pair the still-free pieces of each overlapping pair (edges a margin apart do not weld): a
    piece of one joins the piece of the other whose span holds its midpoint's projection, when
    that holds both ways."""
    _, nxt = corner_links(ptr)
    pieces: dict[int, list[int]] = {}
    for c in np.flatnonzero(twin < 0):
        pieces.setdefault(int(origin[c]), []).append(int(c))
    for e, o in zip(ci.tolist(), cj.tolist(), strict=True):
        for x in pieces.get(e, []):
            if twin[x] >= 0:
                continue
            for y in pieces.get(o, []):
                if twin[y] < 0 and _mutual(verts, flat, nxt, x, y, tol):
                    twin[x], twin[y] = y, x
                    break


def _mutual(verts: F64, flat: I64, nxt: I64, x: int, y: int, tol: float) -> bool:  # noqa: PLR0917
    """Whether the midpoint of each piece projects inside the other, within ``tol`` of it."""
    for u, v in ((x, y), (y, x)):
        pa, pb = verts[flat[u]], verts[flat[nxt[u]]]
        qa, qb = verts[flat[v]], verts[flat[nxt[v]]]
        mid = (pa + pb) / 2.0
        d = qb - qa
        s = float(np.dot(mid - qa, d) / max(float(np.dot(d, d)), 1e-300))
        if not 0.0 < s < 1.0 or np.linalg.norm(qa + s * d - mid) > tol:
            return False
    return True
