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

from python_core._types import F64, I64
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
    stitched, order = restitch(
        np.vstack(verts), ptr, flat_all, twin, regions, dirty,
        weld=built.merge_margin, margin=built.edge_margin, axes=(axes[0], axes[1]),
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
