"""A mesh's locator and search graph patched from the last mesh's after a local change, instead of
built again over the whole mesh.

Quick start::

    from python_core.navmesh import NavMesh
    from python_core.obstacles import ObstacleShape
    room = NavMesh([[0, 0], [10, 0], [10, 4], [0, 4]], [[0, 1, 2, 3]])
    room.update_obstacles({1: ObstacleShape.circle((3, 2), 0.5)})  # cut from the loaded mesh
    room.update_obstacles({1: ObstacleShape.circle((6, 2), 0.5)})  # patched from the last cut
    assert room.find_path((1, 1), (9, 1)).found

An obstacle moving or a region moving replaces a few polygons of a big mesh (the re-stitch,
:mod:`~python_core.navmesh.local_stitch`, keeps every other polygon's loop and vertex ids, first);
the bucket grid and the search graph are then mostly what they were. :class:`Reuse` names the
last mesh and, per new polygon, the one it kept. The locator's buckets keep their grid and lose the
dropped polygons' entries and gain the new ones' (linear in the entries, no sort of 64-bit keys).
The search graph keeps its node ids: a portal still there keeps its points, a portal gone leaves
its ids to a new portal, or keeps them leading nowhere (no edges, no polygon: no search reaches
them) when there are fewer new portals; the other new portals' points are appended. Only the rows
of nodes entering a polygon whose portals changed are computed again, the other rows are copied as
they are (memory copies, no renumbering of the edges, which are most of the graph). Meshes with
links, and graphs where the portals gone outnumber a third of the live ones, are built in full.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from python_core._types import F64, I64
from python_core.navmesh.build import corner_links, stable_order
from python_core.navmesh.graph import SearchGraph, group_by, portal_points
from python_core.navmesh.graph_kernel import copy_rows, patch_nodes, search_edges, writable
from python_core.navmesh.locator import Locator, planes

__all__ = ["Reuse", "patched_locator", "patched_search_graph"]

DEAD_SHARE = 1.0 / 3.0
"""A patched graph whose dead portals would pass this share of its live ones is built in full."""


class PatchSource(Protocol):
    """What a patch reads of the last mesh (:class:`~python_core.navmesh.NavMesh`)."""

    poly_ptr: I64
    links: list[Any]
    portal_samples: int
    _locator: Locator
    _search: SearchGraph


@dataclass(frozen=True, slots=True, eq=False)
class Reuse:
    """The last mesh and, per polygon of the new one, the polygon of the last mesh it is as it was
    (same loop, same vertex ids: -1 for a new or re-stitched polygon). Used while the new mesh is
    built only, never kept (a chain of meshes would never be freed)."""

    mesh: PatchSource
    old_of_new: I64

    def new_of_old(self) -> I64:
        """Per polygon of the last mesh, its id in the new one (-1: gone or re-stitched)."""
        out = np.full(self.mesh.poly_ptr.shape[0] - 1, -1, dtype=np.int64)
        kept = np.flatnonzero(self.old_of_new >= 0)
        out[self.old_of_new[kept]] = kept
        return out


def _sub(ptr: I64, flat: I64, polygons: I64) -> tuple[I64, I64]:
    """The CSR ``(ptr, flat)`` of ``polygons`` alone."""
    sizes = np.diff(ptr)[polygons]
    starts = np.cumsum(sizes) - sizes
    corners = np.repeat(ptr[polygons] - starts, sizes) + np.arange(int(sizes.sum()))
    return np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64), flat[corners]


def patched_locator(  # noqa: PLR0917 - the new mesh's arrays
    reuse: Reuse, vertices: F64, xy: F64, ptr: I64, flat: I64, up_axis: int
) -> Locator | None:
    """The last mesh's locator with the new polygons' boxes bucketed on its grid; None when one
    leaves the grid (then build it again)."""
    old = reuse.mesh._locator
    fresh = np.flatnonzero(reuse.old_of_new < 0)
    count = reuse.old_of_new.shape[0]
    sub_ptr, sub_flat = _sub(ptr, flat, fresh)
    if fresh.size:
        corners = xy[sub_flat]
        lo = np.minimum.reduceat(corners, sub_ptr[:-1], axis=0) - old.pad
        hi = np.maximum.reduceat(corners, sub_ptr[:-1], axis=0) + old.pad
        c0 = ((lo - old.origin) // old.cell).astype(np.int64)
        c1 = ((hi - old.origin) // old.cell).astype(np.int64)
        if c0.min() < 0 or c1[:, 0].max() >= old.cols or c1[:, 1].max() >= old.rows:
            return None
    else:
        c0 = c1 = np.zeros((0, 2), dtype=np.int64)
    w, h = c1[:, 0] - c0[:, 0] + 1, c1[:, 1] - c0[:, 1] + 1
    which = np.repeat(np.arange(fresh.shape[0]), w * h)
    local = np.arange(which.shape[0]) - np.repeat(np.cumsum(w * h) - w * h, w * h)
    bucket = (c0[which, 1] + local // w[which]) * old.cols + c0[which, 0] + local % w[which]
    cells = old.cols * old.rows
    # kept polygons' entries, renumbered (kept ids keep their order: buckets stay sorted by id)
    old_bucket = np.repeat(np.arange(cells), np.diff(old.cell_ptr))
    renamed = reuse.new_of_old()[old.cell_polys]
    keep = renamed >= 0
    keys = np.concatenate([old_bucket[keep], bucket])
    polys = np.concatenate([renamed[keep], fresh[which]])
    order = stable_order(keys)
    cell_ptr = np.zeros(cells + 1, dtype=np.int64)
    np.cumsum(np.bincount(keys, minlength=cells), out=cell_ptr[1:])
    plane = np.zeros((count, 3))
    kept = np.flatnonzero(reuse.old_of_new >= 0)
    plane[kept] = old.plane[reuse.old_of_new[kept]]
    if up_axis >= 0 and fresh.size:
        plane[fresh] = planes(vertices, sub_ptr, sub_flat, corner_links(sub_ptr)[1], up_axis)
    return Locator(old.origin, old.cell, old.cols, old.rows, cell_ptr, polys[order], plane, old.pad)


def patched_search_graph(  # noqa: PLR0917 - the new mesh's arrays
    reuse: Reuse,
    vertices: F64,
    ptr: I64,
    flat: I64,
    twin: I64,
    per_poly: tuple[I64, F64, F64, I64],
    samples: int,
) -> SearchGraph | None:
    """The search graph of the new mesh (no links), patched from the last mesh's (see the module
    docstring); ``per_poly`` is its polygons' (region, travel cost, enter cost, layers). None: build
    it in full (links, another sampling, or too many portals gone)."""
    prev, old = reuse.mesh, reuse.mesh._search
    if prev.links or old.portal_count != old.node_count or prev.portal_samples != samples:
        return None
    region, travel, enter_cost, layers = per_poly
    count = reuse.old_of_new.shape[0]
    cpoly, nxt = corner_links(ptr)
    new_corner_of_old = _kept_corners(reuse, ptr)
    was = old.portal_corner
    now = np.where(was >= 0, new_corner_of_old[np.maximum(was, 0)], -1)
    now = np.where((now >= 0) & (twin[np.maximum(now, 0)] >= 0), now, -1)
    corner, fresh, slots = _slots(now, twin)
    live = corner >= 0
    if int((~live).sum()) > DEAD_SHARE * int(live.sum()):
        return None
    n_old, n = old.node_count, corner.shape[0] * samples
    pos = np.vstack([old.pos, np.zeros((n - n_old, old.pos.shape[1]))])
    at_nodes = (slots[:, None] * samples + np.arange(samples)[None, :]).reshape(-1)
    pos[at_nodes] = portal_points(vertices, flat, nxt, corner[slots], samples)
    # polygons whose portals changed: new ones, those with a portal gone or a new portal
    changed = reuse.old_of_new < 0
    gone = was[(was >= 0) & (now < 0)]
    at = new_corner_of_old[gone]
    changed[cpoly[at[at >= 0]]] = True
    changed[cpoly[fresh]] = True
    w = writable
    src, dst, left, right, enter, node_layers, reused, redo = patch_nodes(
        w(corner), cpoly, w(twin), w(flat), nxt, w(region), w(enter_cost, np.float64), w(layers), samples,
        w(old.dst), w(reuse.old_of_new), now >= 0, changed,
    )  # fmt: skip
    out_ptr, out_nodes = group_by(src, count)
    in_ptr, in_nodes = group_by(dst, count)
    r_ptr, r_idx, r_cost = search_edges(
        pos, redo, left, right, out_ptr, out_nodes, w(travel, np.float64), enter, np.zeros(0), n,
    )  # fmt: skip
    old_counts = np.zeros(n, dtype=np.int64)
    old_counts[:n_old] = np.diff(old.indptr)
    counts = np.where(reused, old_counts, np.diff(r_ptr))
    indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    old_rows = (w(old.indptr), w(old.indices), w(old.costs, np.float64))
    indices, costs = (
        copy_rows(indptr, *old_rows, r_ptr, r_idx, r_cost, reused)
        if n
        else (np.zeros(0, dtype=np.int64), np.zeros(0))  # no portal at all (one polygon)
    )
    return SearchGraph(
        indptr, indices, costs, np.ascontiguousarray(pos), src, dst, left, right, np.full(n, -1, np.int64),
        node_layers, out_ptr, out_nodes, in_ptr, in_nodes, enter, n, corner,
    )  # fmt: skip


def _kept_corners(reuse: Reuse, ptr: I64) -> I64:
    """Per corner of the last mesh, the same corner in the new one (-1: not kept): a kept polygon
    has the same loop, so its corner i is its old self's corner i."""
    prev_ptr = reuse.mesh.poly_ptr
    kept = np.flatnonzero(reuse.old_of_new >= 0)
    sizes = np.diff(ptr)[kept]
    local = np.arange(int(sizes.sum())) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    out = np.full(prev_ptr[-1], -1, dtype=np.int64)
    out[np.repeat(prev_ptr[reuse.old_of_new[kept]], sizes) + local] = np.repeat(ptr[kept], sizes) + local
    return out


def _slots(now: I64, twin: I64) -> tuple[I64, I64, I64]:
    """Per portal of the new graph its corner (-1: gone), the corners of the new portals, and the
    portals they were given: the ids of portals gone first (their rows are empty), then new ids.
    ``now``: per portal of the last graph, its corner in the new mesh if it is still a portal."""
    covered = np.zeros(twin.shape[0], dtype=np.bool_)
    covered[now[now >= 0]] = True
    fresh = np.flatnonzero((twin >= 0) & ~covered)
    free = np.flatnonzero(now < 0)
    filled = min(free.shape[0], fresh.shape[0])
    corner = np.concatenate([now, fresh[filled:]])
    corner[free[:filled]] = fresh[:filled]
    return corner, fresh, np.concatenate([free[:filled], np.arange(now.shape[0], corner.shape[0])])
