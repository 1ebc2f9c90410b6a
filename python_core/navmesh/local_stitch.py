"""Stitching a mesh again where it changed: only the changed polygons and the unchanged ones left
open beside them go through :func:`~python_core.navmesh.stitch.conform`; every other polygon keeps
its loop and its neighbours.

Quick start::

    import numpy as np
    from python_core.navmesh.build import flatten
    from python_core.navmesh.local_stitch import restitch
    verts = np.array([[0, 0], [1, 0], [1, 1], [0, 1], [2, 0], [2, 1]], float)
    ptr, flat = flatten([[0, 1, 2, 3], [1, 4, 5, 2]], None)
    twin = np.full(8, -1)  # nothing known: polygon 1 is new, polygon 0 is open beside it
    out, order = restitch(verts, ptr, flat, twin, np.zeros(2, np.int64), np.array([False, True]),
                          weld=1e-6, margin=0.0)
    assert (out.twin >= 0).sum() == 2 and order.tolist() == [0, 1]

An obstacle re-cut or a moved region changes a few polygons of a big mesh; stitching the whole
mesh again (welding every vertex, looking for overlaps among every free edge) costs far more than
the change. Here the unchanged polygons' pairs (``twin``) are kept, renumbered.
"""

from __future__ import annotations

import numpy as np

from python_core._types import F64, I64, B
from python_core.navmesh.build import corner_links, stable_order
from python_core.navmesh.stitch import Conformed, conform

__all__ = ["restitch"]


def _box_bounds(vertices: F64, ptr: I64, flat: I64, polygons: I64, axes: list[int]) -> tuple[F64, F64]:
    """Lower and upper corners of ``polygons``' bounding boxes in the ``axes`` plane (only their
    corners are read)."""
    sizes = np.diff(ptr)[polygons]
    starts = np.cumsum(sizes) - sizes
    corners = np.repeat(ptr[polygons] - starts, sizes) + np.arange(int(sizes.sum()))
    xy = vertices[flat[corners]][:, axes]
    return np.minimum.reduceat(xy, starts, axis=0), np.maximum.reduceat(xy, starts, axis=0)


_GRID_MAX = 512
"""The ring test's occupancy grid has at most this many cells a side."""


def _near(dirty: tuple[F64, F64], boxes: tuple[F64, F64], reach: float) -> B:
    """Per box of ``boxes``: whether it may meet a box of ``dirty`` grown by ``reach`` (a superset:
    the dirty boxes are marked on a coarse grid, each box tested against the grid by a summed-area
    table in constant time; shapely boxes and an R-tree cost more than the stitch on a big mesh)."""
    lo, hi = dirty[0] - reach, dirty[1] + reach
    origin, top = lo.min(axis=0), hi.max(axis=0)
    extent = np.maximum(top - origin, 1e-12)
    cell = max(float(np.median(np.max(hi - lo, axis=1))), float(extent.max()) / _GRID_MAX, 1e-12)
    cols, rows = int(extent[0] // cell) + 1, int(extent[1] // cell) + 1
    c0 = ((lo - origin) // cell).astype(np.int64)
    c1 = ((hi - origin) // cell).astype(np.int64)
    w, h = c1[:, 0] - c0[:, 0] + 1, c1[:, 1] - c0[:, 1] + 1
    box = np.repeat(np.arange(w.shape[0]), w * h)
    local = np.arange(box.shape[0]) - np.repeat(np.cumsum(w * h) - w * h, w * h)
    marked = np.zeros((rows + 1, cols + 1), dtype=np.int64)
    marked[c0[box, 1] + local // w[box] + 1, c0[box, 0] + local % w[box] + 1] = 1
    table = marked.cumsum(axis=0).cumsum(axis=1)
    b0 = np.floor((boxes[0] - origin) / cell)
    b1 = np.floor((boxes[1] - origin) / cell)
    outside = np.any(b1 < 0, axis=1) | (b0[:, 0] >= cols) | (b0[:, 1] >= rows)
    x0, y0 = np.clip(b0[:, 0], 0, cols - 1).astype(np.int64), np.clip(b0[:, 1], 0, rows - 1).astype(np.int64)
    x1, y1 = np.clip(b1[:, 0], 0, cols - 1).astype(np.int64), np.clip(b1[:, 1], 0, rows - 1).astype(np.int64)
    count = table[y1 + 1, x1 + 1] - table[y0, x1 + 1] - table[y1 + 1, x0] + table[y0, x0]
    return np.asarray(~outside & (count > 0), dtype=np.bool_)


def restitch(  # noqa: PLR0917 - a mesh's arrays
    vertices: F64,
    ptr: I64,
    flat: I64,
    twin: I64,
    region: I64,
    dirty: B,
    *,
    weld: float,
    margin: float,
    axes: tuple[int, int] = (0, 1),
    beside: I64 | None = None,
) -> tuple[Conformed, I64]:
    """The conformal mesh of polygons whose clean ones (``~dirty``) are conformal among themselves.

    Args:
        vertices, ptr, flat: the polygons (convex, counter-clockwise in the ``axes`` plane).
        twin: per corner, its pair among clean polygons (-1 on dirty polygons, and where a clean
            corner's pair is gone).
        region: per polygon (``margin`` joins different regions).
        dirty: the polygons to stitch.
        weld, margin: as :func:`~python_core.navmesh.stitch.conform`.
        axes: the plane (3D: the two non-up axes) in which "beside" is measured.
        beside: clean polygons that may lie beside a dirty one (a superset the caller knows from
            its own index, e.g. an obstacle cut's R-tree of the loaded polygons); None: every open
            clean polygon's box is tested against the dirty ones' (a summed-area table, linear).

    Returns:
        The :class:`Conformed` mesh with the kept polygons first (loops as given), then the stitched
        ones; and per output polygon, its input polygon.
    """
    count = ptr.shape[0] - 1
    cpoly, nxt = corner_links(ptr)
    reach = 2.0 * max(weld, margin) + 1e-12
    open_mask = ~dirty & (np.bincount(cpoly[twin < 0], minlength=count) > 0)
    if beside is not None:
        near_mask = np.zeros(count, dtype=np.bool_)
        near_mask[beside] = True
        open_mask &= near_mask
    open_clean = np.flatnonzero(open_mask)
    dirty_ids = np.flatnonzero(dirty)
    ring = np.zeros(0, dtype=np.int64)
    if open_clean.size and dirty_ids.size:
        near = _near(
            _box_bounds(vertices, ptr, flat, dirty_ids, list(axes)),
            _box_bounds(vertices, ptr, flat, open_clean, list(axes)),
            reach,
        )
        ring = open_clean[near]
    local = np.zeros(count, dtype=np.bool_)
    local[dirty_ids] = True
    local[ring] = True
    kept, redo = np.flatnonzero(~local), np.flatnonzero(local)
    sizes = np.diff(ptr)
    # the kept polygons, first: their corners renumbered
    kept_corner = np.repeat(local, sizes) == 0
    old_to_new = np.full(flat.shape[0], -1, dtype=np.int64)
    old_to_new[kept_corner] = np.arange(int(kept_corner.sum()))
    base = int(kept_corner.sum())
    # the others, stitched on their own (vertices numbered compactly, inserted ones appended)
    l_ptr = np.zeros(redo.shape[0] + 1, dtype=np.int64)
    np.cumsum(sizes[redo], out=l_ptr[1:])
    l_flat_global = flat[~kept_corner]
    # a ring polygon's edge paired with a kept polygon stays as it is (not split by an overlap
    # with another edge: the kept side would lose its pair, which a whole stitch never does)
    l_twin = twin[~kept_corner]
    held = (l_twin >= 0) & kept_corner[np.maximum(l_twin, 0)]
    used = np.unique(l_flat_global)
    stitched = (
        conform(
            vertices[used],
            l_ptr,
            np.searchsorted(used, l_flat_global),
            region[redo],
            weld=weld,
            margin=margin,
            held=held,
        )
        if redo.size
        else Conformed(vertices[:0], l_ptr, l_flat_global, l_flat_global, 0)
    )
    extra = stitched.vertices[used.shape[0] :]
    gid = np.concatenate([used, vertices.shape[0] + np.arange(extra.shape[0])])
    out_vertices = np.vstack([vertices, extra]) if extra.shape[0] else vertices
    out_flat = np.concatenate([flat[kept_corner], gid[stitched.flat]])
    out_ptr = np.concatenate([np.cumsum(np.concatenate([[0], sizes[kept]])), base + stitched.ptr[1:]])
    out_twin = np.concatenate(
        [np.full(base, -1, dtype=np.int64), np.where(stitched.twin >= 0, base + stitched.twin, -1)]
    )
    _pair_across(
        flat, nxt, twin, old_to_new, np.flatnonzero(kept_corner), (out_ptr, out_flat, out_twin), base
    )
    conformed = Conformed(out_vertices, out_ptr, out_flat, out_twin, int(extra.shape[0]), int(kept.shape[0]))
    return conformed, np.concatenate([kept, redo]).astype(np.int64)


def _pair_across(  # noqa: PLR0917 - both numberings of the corners
    flat: I64, nxt: I64, twin: I64, old_to_new: I64, old_kept: I64, out: tuple[I64, I64, I64], base: int
) -> None:
    """Kept corners' pairs in ``out``'s twins: kept with kept renumbered; kept with a stitched
    (ring) polygon's corner found again by that corner's own edge in the stitched loops."""
    out_ptr, out_flat, out_twin = out
    t = twin[old_kept]
    has = t >= 0
    inside = has & (old_to_new[np.maximum(t, 0)] >= 0)
    out_twin[old_to_new[old_kept[inside]]] = old_to_new[t[inside]]
    across = old_kept[has & ~inside]
    if across.size == 0:
        return
    _, out_nxt = corner_links(out_ptr)
    n_v = int(max(out_flat.max(initial=0), flat.max(initial=0))) + 1
    l_corners = np.arange(base, out_flat.shape[0])
    keys = out_flat[l_corners] * n_v + out_flat[out_nxt[l_corners]]
    order = stable_order(keys)
    partner = twin[across]
    want = flat[partner] * n_v + flat[nxt[partner]]
    at = np.minimum(np.searchsorted(keys[order], want), order.shape[0] - 1)
    found = keys[order][at] == want
    ring_corner = l_corners[order[at]]
    free = found & (out_twin[ring_corner] < 0)
    out_twin[old_to_new[across[free]]] = ring_corner[free]
    out_twin[ring_corner[free]] = old_to_new[across[free]]
