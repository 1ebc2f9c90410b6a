"""A navigation map's mesh rebuilt locally after region changes: the changed regions' polygons are
taken out of the last built mesh, their new polygons put in, and only those and the polygons left
open beside them are stitched again (:func:`~python_core.navmesh.local_stitch.restitch`).

Quick start::

    from python_core.navmesh.navmap import NavMap, NavRegion
    nav = NavMap(dim=2, edge_margin=0.5)
    nav.set_region(1, NavRegion([[0, 0], [2, 0], [2, 2], [0, 2]], [[0, 1, 2, 3]]))
    nav.set_region(2, NavRegion([[2, 0], [4, 0], [4, 2], [2, 2]], [[0, 1, 2, 3]]))
    nav.mesh  # built in full once
    nav.move_region(2, [1, 0, 0, 1, 0.25, 0])  # a quarter off: joined across the margin
    assert nav.mesh.find_path((1, 1), (4, 1)).found  # rebuilt locally

Every other polygon keeps its loop, its vertex ids and its neighbours; the locator and the search
graph are patched from the last mesh's (:mod:`~python_core.navmesh.patch`; built again when the map
has links).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from python_core._types import F64, I64, B
from python_core.navmesh.build import PLANE_AXES, normalise
from python_core.navmesh.links import NavLink
from python_core.navmesh.local_stitch import restitch
from python_core.navmesh.mesh import NavMesh
from python_core.navmesh.patch import Reuse

__all__ = ["NewPolygons", "rebuild_regions"]

NewPolygons = tuple[F64, I64, I64, tuple[int, float, float]]
"""A region's world vertices, CSR ``ptr``/``flat``, and its (layers, enter cost, travel cost)."""


def rebuild_regions(
    built: NavMesh, changed: Mapping[int, NewPolygons | None], links: Sequence[NavLink]
) -> NavMesh:
    """``built`` (the map's last mesh, as loaded: no obstacle cut) with the polygons of each region
    in ``changed`` replaced by its new ones (None: removed), and ``links`` attached.

    Raises:
        InvalidGraphError: a new polygon that is not convex, or no polygon left.
    """
    keep = ~np.isin(built.region, list(changed))
    sizes = np.diff(built.poly_ptr)
    kept_corner = np.repeat(keep, sizes)
    at = np.cumsum(kept_corner) - 1
    twin = built._twin[kept_corner]
    twin = np.where((twin >= 0) & kept_corner[np.maximum(twin, 0)], at[np.maximum(twin, 0)], -1)
    flat = built.poly_verts[kept_corner]
    # The kept polygons keep their vertex ids (their locator entries and search graph rows are
    # then reused: patch.py); the moved region's old vertices stay unused until they outnumber
    # the used ones, when the vertices are compacted (and everything is built again).
    used = np.flatnonzero(np.bincount(flat, minlength=built.vertices.shape[0]))
    compact = built.vertices.shape[0] > 2 * used.shape[0] + 4096
    if compact:
        flat = np.searchsorted(used, flat)
    verts, flats, counts = [built.vertices[used] if compact else built.vertices], [flat], [sizes[keep]]
    region, layers = [built.region[keep]], [built.layers[keep]]
    enter, travel = [built.enter_costs[keep]], [built.travel_costs[keep]]
    base = verts[0].shape[0]
    axes = list(PLANE_AXES[built.up_axis]) if built.dim == 3 else [0, 1]
    for rid in sorted(changed):
        new = changed[rid]
        if new is None:
            continue
        world, ptr, own, (mask, enter_cost, travel_cost) = new
        count = ptr.shape[0] - 1
        verts.append(world)
        flats.append(normalise(np.ascontiguousarray(world[:, axes]), ptr, own, built.area_epsilon) + base)
        counts.append(np.diff(ptr))
        region.append(np.full(count, rid, dtype=np.int64))
        layers.append(np.full(count, mask, dtype=np.int64))
        enter.append(np.full(count, enter_cost))
        travel.append(np.full(count, travel_cost))
        base += world.shape[0]
    all_counts = np.concatenate(counts)
    ptr = np.concatenate([[0], np.cumsum(all_counts)]).astype(np.int64)
    flat_all = np.concatenate(flats).astype(np.int64)
    dirty = np.arange(all_counts.shape[0]) >= int(keep.sum())
    twin = np.concatenate([twin, np.full(flat_all.shape[0] - twin.shape[0], -1, dtype=np.int64)])
    regions = np.concatenate(region)
    all_verts = np.vstack(verts)
    reach = 2.0 * max(built.merge_margin, built.edge_margin) + 1e-12
    beside = _beside(built, keep, all_verts[flat_all[ptr[int(keep.sum())] :]][:, axes], reach)
    stitched, order = restitch(
        all_verts, ptr, flat_all, twin, regions, dirty,
        weld=built.merge_margin, margin=built.edge_margin, axes=(axes[0], axes[1]), beside=beside,
    )  # fmt: skip
    old_of_new = np.full(order.shape[0], -1, dtype=np.int64)
    old_of_new[: stitched.kept] = np.flatnonzero(keep)[order[: stitched.kept]]
    return NavMesh(
        stitched.vertices, stitched.flat, sizes=np.diff(stitched.ptr), up_axis=built.up_axis,
        merge_margin=built.merge_margin, area_epsilon=built.area_epsilon,
        portal_samples=built.portal_samples, regions=regions[order], edge_margin=built.edge_margin,
        layers=np.concatenate(layers)[order], enter_costs=np.concatenate(enter)[order],
        travel_costs=np.concatenate(travel)[order], links=list(links), link_radius=built.link_radius,
        stitched=stitched, reuse=None if compact else Reuse(built, old_of_new),
    )  # fmt: skip


def _beside(built: NavMesh, keep: B, corners: F64, reach: float) -> I64:
    """The kept polygons (their ids among the kept, as :func:`restitch` numbers them) in the
    buckets of ``built``'s locator that the new polygons' corners' box, grown by ``reach``, meets:
    a superset of those beside a new polygon, found without boxing every open polygon of the mesh
    (a third of a region move on aurora). The new polygons lie within one box: a region."""
    grid = built._locator
    if corners.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    lo = np.floor((corners.min(axis=0) - reach - grid.origin) / grid.cell).astype(np.int64)
    hi = np.floor((corners.max(axis=0) + reach - grid.origin) / grid.cell).astype(np.int64)
    if hi[0] < 0 or hi[1] < 0 or lo[0] >= grid.cols or lo[1] >= grid.rows:
        return np.zeros(0, dtype=np.int64)  # off the grid: beside no kept polygon (all are on it)
    x0, y0 = max(int(lo[0]), 0), max(int(lo[1]), 0)
    x1, y1 = min(int(hi[0]), grid.cols - 1), min(int(hi[1]), grid.rows - 1)
    cells = (np.arange(y0, y1 + 1)[:, None] * grid.cols + np.arange(x0, x1 + 1)[None, :]).reshape(-1)
    starts, ends = grid.cell_ptr[cells], grid.cell_ptr[cells + 1]
    sizes = ends - starts
    at = np.repeat(starts - (np.cumsum(sizes) - sizes), sizes) + np.arange(int(sizes.sum()))
    found = np.zeros(keep.shape[0], dtype=np.bool_)
    found[grid.cell_polys[at]] = True
    rank = np.cumsum(keep) - 1
    return np.asarray(rank[np.flatnonzero(found & keep)], dtype=np.int64)
