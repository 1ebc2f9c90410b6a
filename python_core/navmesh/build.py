"""Building a navigation mesh: polygons flattened and checked, edges welded, the portal graph.

Quick start::

    from python_core.navmesh.build import corner_links, flatten
    ptr, flat = flatten([[0, 1, 2, 3]], None)
    poly, nxt = corner_links(ptr)

The pieces :class:`~python_core.navmesh.NavMesh` builds once from its vertices and polygons; each
validates what it is given and raises :class:`InvalidGraphError` naming the bad polygon or value.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import numpy as np
import numpy.typing as npt

from python_core._types import F64, I64
from python_core.csr.graph import CsrGraph
from python_core.errors import InvalidGraphError
from python_core.navmesh.graph_kernel import corner_links_of, writable

__all__ = [
    "PLANE_AXES",
    "checked_polygons",
    "corner_links",
    "flatten",
    "match_edges",
    "normalise",
    "per_polygon",
    "polygon_ids",
    "portal_graph",
    "stable_order",
]

PLANE_AXES = {0: (1, 2), 1: (0, 2), 2: (0, 1)}


def flatten(
    polygons: Sequence[Sequence[int]] | npt.ArrayLike, sizes: npt.ArrayLike | None
) -> tuple[I64, I64]:
    """``(ptr, flat)`` from a list of index lists, or from a flat index array plus sizes."""
    if sizes is not None:
        flat = np.asarray(polygons, dtype=np.int64).reshape(-1)
        count = np.asarray(sizes, dtype=np.int64).reshape(-1)
        if np.any(count < 3) or int(count.sum()) != flat.shape[0]:
            raise InvalidGraphError(f"polygon sizes must be >= 3 and sum to {flat.shape[0]}")
    else:
        lists = [list(p) for p in cast("Sequence[Sequence[int]]", polygons)]
        for i, p in enumerate(lists):
            if len(p) < 3:
                raise InvalidGraphError(f"polygon {i} has {len(p)} vertices; at least 3 are needed")
        count = np.asarray([len(p) for p in lists], dtype=np.int64)
        flat = np.asarray([v for p in lists for v in p], dtype=np.int64)
    ptr = np.zeros(count.shape[0] + 1, dtype=np.int64)
    np.cumsum(count, out=ptr[1:])
    return ptr, flat


def checked_polygons(
    vertices: npt.ArrayLike, polygons: Sequence[Sequence[int]] | npt.ArrayLike, sizes: npt.ArrayLike | None,
    up_axis: int,
) -> tuple[F64, I64, I64]:  # fmt: skip
    """A mesh's ``(vertices, ptr, flat)``: finite 2D or 3D vertices, at least one polygon, every
    index in range, or :class:`InvalidGraphError` naming the bad polygon or value."""
    verts = np.asarray(vertices, dtype=np.float64)
    if verts.ndim != 2 or verts.shape[1] not in (2, 3) or not np.all(np.isfinite(verts)):
        raise InvalidGraphError(f"vertices must be a finite (n, 2|3) array, got shape {verts.shape}")
    if verts.shape[1] == 3 and up_axis not in PLANE_AXES:
        raise InvalidGraphError(f"up_axis must be 0, 1 or 2, got {up_axis!r}")
    ptr, flat = flatten(polygons, sizes)
    if ptr.shape[0] < 2:
        raise InvalidGraphError("a navmesh needs at least one polygon")
    if flat.min() < 0 or flat.max() >= verts.shape[0]:
        p = int(np.searchsorted(ptr, np.flatnonzero((flat < 0) | (flat >= verts.shape[0]))[0], "right") - 1)
        raise InvalidGraphError(f"polygon {p} has a vertex index outside 0..{verts.shape[0] - 1}")
    return verts, ptr, flat


def corner_links(ptr: I64) -> tuple[I64, I64]:
    """For each corner: its polygon and the next corner of that polygon."""
    poly, nxt = corner_links_of(writable(ptr))
    return poly, nxt


def normalise(xy: F64, ptr: I64, flat: I64, area_eps: float) -> I64:
    """Validate convex, simple, non-degenerate polygons; return them all counter-clockwise."""
    poly, nxt = corner_links(ptr)
    a, b = xy[flat], xy[flat[nxt]]
    area = np.add.reduceat(a[:, 0] * b[:, 1] - b[:, 0] * a[:, 1], ptr[:-1]) / 2.0
    bad = np.flatnonzero(np.abs(area) <= area_eps)
    if bad.size:
        raise InvalidGraphError(f"polygon {bad[0]} is degenerate (area {area[bad[0]]:.3g})")
    sign = np.sign(area)[poly]
    d0, d1 = b - a, xy[flat[nxt[nxt]]] - b
    turn = sign * (d0[:, 0] * d1[:, 1] - d0[:, 1] * d1[:, 0])
    length = np.linalg.norm(d0, axis=1)
    tol = 1e-9 * np.maximum(length * np.linalg.norm(d1, axis=1), 1e-300)
    angle = np.arctan2(turn, np.sum(d0 * d1, axis=1))
    winding = np.add.reduceat(angle, ptr[:-1])
    bad = np.unique(poly[(turn < -tol) | (length == 0.0)])
    bad = np.union1d(bad, np.flatnonzero(np.abs(winding - 2 * np.pi) > 1e-6))
    if bad.size:
        raise InvalidGraphError(f"polygon {bad[0]} is not convex (or repeats a vertex)")
    out = flat.copy()
    for p in np.flatnonzero(area < 0):
        out[ptr[p] : ptr[p + 1]] = flat[ptr[p] : ptr[p + 1]][::-1]
    return np.asarray(out, dtype=np.int64)


def match_edges(verts: F64, flat: I64, nxt: I64, margin: float) -> I64:
    """Twin corner of each corner's edge (-1 on the boundary), welding vertices within ``margin``.

    Two polygons are neighbours when they traverse the same welded edge in opposite directions;
    an edge used more than twice or twice in one direction is left unconnected.
    """
    weld = row_ids(np.round(verts / margin).astype(np.int64))
    a, b = weld[flat], weld[flat[nxt]]
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    order = np.lexsort((hi, lo))
    twin = np.full(flat.shape[0], -1, dtype=np.int64)
    same = (lo[order][1:] == lo[order][:-1]) & (hi[order][1:] == hi[order][:-1])
    run_start = np.concatenate([[True], ~same])
    run_id = np.cumsum(run_start) - 1
    run_len = np.bincount(run_id)
    pairs = np.flatnonzero(same & (run_len[run_id[1:]] == 2))
    c0, c1 = order[pairs], order[pairs + 1]
    ok = a[c0] != a[c1]
    twin[c0[ok]], twin[c1[ok]] = c1[ok], c0[ok]
    return twin


def portal_graph(
    coords: F64, flat: I64, nxt: I64, poly: I64, twin: I64, *, samples: int
) -> tuple[CsrGraph, I64]:
    """CSR graph over points on directed portals (corner ``c`` leads from ``poly[c]`` into
    ``poly[twin[c]]``): node ``u * samples + i`` is the ``i``-th of ``samples`` evenly spaced points
    of portal ``u`` (endpoints included; one sample = the midpoint). Portal ``u`` links to ``v``
    when ``v`` leaves the polygon ``u`` enters, every sample to every sample."""
    corners = np.flatnonzero(twin >= 0)
    node_of = np.full(flat.shape[0], -1, dtype=np.int64)
    node_of[corners] = np.arange(corners.shape[0])
    # Portal corners grouped by polygon; every ordered pair (c1, c2) in one group gives the edge
    # twin(c1) -> c2 (enter the polygon through c1's edge, leave through c2's).
    group = poly[corners]
    starts = np.searchsorted(group, group, side="left")
    size = np.bincount(group, minlength=int(poly.max()) + 1)[group]
    src: list[I64] = []
    dst: list[I64] = []
    for shift in range(1, int(size.max()) if size.size else 1):
        sel = np.flatnonzero(size > shift)
        other = starts[sel] + (sel - starts[sel] + shift) % size[sel]
        src.append(node_of[twin[corners[sel]]])
        dst.append(other)
    s = np.concatenate(src) if src else np.zeros(0, dtype=np.int64)
    d = np.concatenate(dst) if dst else np.zeros(0, dtype=np.int64)
    ts = np.array([0.5]) if samples == 1 else np.linspace(0.0, 1.0, samples)
    pa, pb = coords[flat[corners]], coords[flat[nxt[corners]]]
    pts = (pa[:, None, :] + ts[None, :, None] * (pb - pa)[:, None, :]).reshape(-1, coords.shape[1])
    k = np.arange(samples)
    s_all = (s[:, None, None] * samples + k[None, :, None] + 0 * k[None, None, :]).reshape(-1)
    d_all = (d[:, None, None] * samples + 0 * k[None, :, None] + k[None, None, :]).reshape(-1)
    cost = np.linalg.norm(pts[d_all] - pts[s_all], axis=1)
    return CsrGraph.from_edges(pts, np.stack([s_all, d_all], axis=1), cost), corners


def per_polygon(values: npt.ArrayLike | None, count: int, default: float, what: str) -> F64:
    """Per-polygon values (``default`` when None), checked: one each, finite and >= 0."""
    if values is None:
        return np.full(count, default, dtype=np.float64)
    out = np.asarray(values, dtype=np.float64).reshape(-1)
    if out.shape[0] != count:
        raise InvalidGraphError(f"{what} needs one value per polygon ({count}), got {out.shape[0]}")
    if not np.all(np.isfinite(out)) or np.any(out < 0):
        raise InvalidGraphError(
            f"{what} must be finite and >= 0, got {out[~(np.isfinite(out) & (out >= 0))][0]}"
        )
    return out


def polygon_ids(polygons: npt.ArrayLike, count: int) -> I64:
    """Polygon ids as an array, each in ``0..count - 1``, or :class:`InvalidGraphError`."""
    ids = np.asarray(polygons, dtype=np.int64).reshape(-1)
    if ids.size and (ids.min() < 0 or ids.max() >= count):
        raise InvalidGraphError(f"polygon ids must be in 0..{count - 1}")
    return ids


def lift_onto(corners: F64, up_axis: int, xy: F64) -> F64:
    """Plane points ``xy`` on the plane of a 3D polygon of ``corners`` (Newell's normal; a
    vertical polygon gives its mean height), in mesh coordinates."""
    c = corners.mean(axis=0)
    normal = np.cross(corners - c, np.roll(corners, -1, axis=0) - c).sum(axis=0)
    i, j = PLANE_AXES[up_axis]
    u = up_axis
    out = np.zeros((xy.shape[0], 3))
    out[:, i], out[:, j] = xy[:, 0], xy[:, 1]
    if abs(normal[u]) < 1e-12:
        out[:, u] = c[u]
    else:
        out[:, u] = c[u] - (normal[i] * (xy[:, 0] - c[i]) + normal[j] * (xy[:, 1] - c[j])) / normal[u]
    return out


def row_ids(rows: I64) -> I64:
    """Per row of an integer ``(n, k)`` array, the same id for equal rows, ids ``0..`` in sorted
    row order (``np.unique(rows, axis=0, return_inverse=True)[1]``, by a lexsort: several times
    faster than unique rows)."""
    if rows.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    order = np.lexsort(rows.T[::-1])
    ordered = rows[order]
    new = np.concatenate([[True], np.any(ordered[1:] != ordered[:-1], axis=1)])
    ids = np.empty(rows.shape[0], dtype=np.int64)
    ids[order] = np.cumsum(new) - 1
    return ids


def stable_order(keys: I64) -> I64:
    """``np.argsort(keys, kind="stable")`` for keys in ``0 .. 2**32 - 1``, as one or two radix
    passes over 16-bit digits (numpy sorts 16-bit integers by radix: linear, several times faster
    than its merge sort of 64-bit keys, which took a fifth of a search graph's build)."""
    if keys.size == 0 or keys.min() < 0 or keys.max() >= 1 << 32:
        return np.asarray(np.argsort(keys, kind="stable"), dtype=np.int64)
    order = np.argsort((keys & 0xFFFF).astype(np.uint16), kind="stable")
    if int(keys.max()) >= 1 << 16:
        order = order[np.argsort((keys[order] >> 16).astype(np.uint16), kind="stable")]
    return np.asarray(order, dtype=np.int64)
