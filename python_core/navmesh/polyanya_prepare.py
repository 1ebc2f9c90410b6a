"""Polyanya's arrays of a mesh, prepared once per mesh: its own polygons, or its merged search view.

Quick start::

    from python_core.navmesh import NavMesh
    from python_core.navmesh.polyanya_prepare import search_arrays
    mesh = NavMesh([[0, 0], [1, 0], [1, 1], [0, 1]], [[0, 1, 2], [0, 2, 3]])
    assert search_arrays(mesh, None).prep.ptr.shape[0] - 1 == 1  # the two triangles searched as one

The search runs on the view (:mod:`~python_core.navmesh.search_view`: the same area as fewer convex
polygons, so fewer steps) unless a query's ``traversable`` mask splits a merged polygon, then on
the mesh's own polygons. The landmark bounds are per vertex: mesh and view share them.
"""

from __future__ import annotations

import os
import weakref
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from python_core._types import F64, I64, B
from python_core.errors import InvalidQueryError
from python_core.navmesh.build import PLANE_AXES, corner_links
from python_core.navmesh.cut import loaded_of
from python_core.navmesh.mesh import NavMesh
from python_core.navmesh.polyanya_landmarks import vertex_bounds
from python_core.navmesh.polyanya_places import pockets, twin_corners
from python_core.navmesh.search_view import (
    MergedView,
    expand_corridors,
    member_at,
    merged_view,
    mesh_corridor,
)
from python_core.navmesh.weld import point_groups, point_polygons, seam_pairs, shared_flags

__all__ = ["Prepared", "SearchArrays", "keep_table", "landmark_table", "prepare", "search_arrays"]

MERGED = os.environ.get("ASTAR_BRIDGE_MERGED_VIEW", "1") != "0"
"""Whether searches run on the merged view (``ASTAR_BRIDGE_MERGED_VIEW=0``: the mesh's own
polygons, for before/after figures)."""


@dataclass(frozen=True, slots=True)
class Prepared:
    """A mesh's arrays as the kernels take them (plane coordinates, corners, adjacency)."""

    xy: F64
    ptr: I64
    verts: I64
    cpoly: I64
    nxt: I64
    nbr: I64
    twin: I64
    vp_ptr: I64
    vp: I64
    group: I64
    corner: B
    pocket: I64
    all_usable: B
    lo: F64
    hi: F64
    key: tuple[int, ...]


_CACHE: weakref.WeakKeyDictionary[NavMesh, Prepared] = weakref.WeakKeyDictionary()
_TABLES: dict[int, tuple[weakref.ref[I64], F64]] = {}
"""Landmark distances per loaded mesh (``(landmarks, vertices)``), by its polygon array (its id,
checked through a weak reference, dropped with the array): a copy of the mesh and the mesh cut by
obstacles (:func:`~python_core.navmesh.cut.loaded_of`) share it; a mesh rebuilt with other area
(a region added or moved) has new arrays and no table."""


def landmark_table(mesh: NavMesh) -> F64 | None:
    """The landmark distances of the mesh's loaded geometry, if built."""
    key = loaded_of(mesh).poly_verts
    entry = _TABLES.get(id(key))
    return entry[1] if entry is not None and entry[0]() is key else None


def keep_table(mesh: NavMesh, table: F64 | None) -> None:
    key = loaded_of(mesh).poly_verts
    _TABLES.pop(id(key), None)
    if table is not None:
        _TABLES[id(key)] = (weakref.ref(key), table)
        weakref.finalize(key, _TABLES.pop, id(key), None)


def _flags(
    prep_nbr: I64, ptr: I64, cpoly: I64, verts: I64, nxt: I64, *, usable: B, group: I64
) -> tuple[B, I64]:
    """Per vertex: touches an obstacle (a usable polygon's edge with no usable neighbour; any id
    on its point does: weld.py); per polygon: the polygon its pocket hangs from (:func:`pockets`)."""
    open_edge = (prep_nbr < 0) & usable[cpoly]
    corner = np.zeros(group.shape[0], dtype=np.bool_)
    corner[verts[open_edge]] = True
    corner[verts[nxt[open_edge]]] = True
    return shared_flags(corner, group), pockets(ptr, prep_nbr, usable)


def _key(mesh: NavMesh) -> tuple[int, ...]:
    """What the prepared arrays depend on: a mesh that is changed gets new arrays or a new version;
    a landmark table built since is new too."""
    arrays = (mesh.vertices, mesh.poly_ptr, mesh.poly_verts, mesh.neighbours)
    return (*(id(a) for a in arrays), int(getattr(mesh, "version", 0)), id(landmark_table(mesh)))


def _bounds(mesh: NavMesh, xy: F64, ptr: I64, verts: I64) -> tuple[F64, F64]:
    """Per vertex and landmark (``(V, landmarks)``: a vertex's bounds share cache lines, read
    together at every node), bounds of the loaded mesh's distance (none: ``(V, 0)`` arrays)."""
    loaded, table = loaded_of(mesh), landmark_table(mesh)
    if table is None:
        empty = np.zeros((xy.shape[0], 0))
        return empty, empty
    if loaded is mesh or loaded.poly_verts is mesh.poly_verts:
        lo = np.ascontiguousarray(np.where(np.isfinite(table), table, -np.inf).T)
        return lo, np.ascontiguousarray(table.T)
    base = prepare(loaded)
    source = np.ascontiguousarray(mesh.polygon_source, dtype=np.int64)
    return vertex_bounds(table, base.xy, base.ptr, base.verts, xy, ptr, verts, source)


def prepare(mesh: NavMesh) -> Prepared:
    key = _key(mesh)
    cached = _CACHE.get(mesh)
    if cached is not None and cached.key == key:
        return cached
    xy = _plane_xy(mesh)
    ptr = np.ascontiguousarray(mesh.poly_ptr, dtype=np.int64)
    verts = np.ascontiguousarray(mesh.poly_verts, dtype=np.int64)
    prep = _prepared(mesh, xy, ptr, verts, mesh.neighbours, _bounds(mesh, xy, ptr, verts), key)
    _CACHE[mesh] = prep
    return prep


def _plane_xy(mesh: NavMesh) -> F64:
    xy = mesh.vertices[:, list(PLANE_AXES[mesh.up_axis])] if mesh.dim == 3 else mesh.vertices
    return np.ascontiguousarray(xy, dtype=np.float64)


def _prepared(  # noqa: PLR0917 - the arrays of one polygon set
    mesh: NavMesh, xy: F64, ptr: I64, verts: I64, nbr: I64, bounds: tuple[F64, F64], key: tuple[int, ...]
) -> Prepared:
    """The arrays of polygons ``ptr``/``verts`` over the mesh's vertices (the mesh's own, or its
    merged search view's), ``nbr`` their neighbours."""
    cpoly, nxt = corner_links(ptr)
    nbr = np.ascontiguousarray(nbr, dtype=np.int64)
    twin = twin_corners(xy, ptr, verts, cpoly, nxt, nbr)
    nbr = np.where(twin >= 0, nbr, -1)
    # Several ids on one point (unwelded region seams): a point's polygons are those of all its
    # ids, else a start or landmark there sees one region's side only (weld.py).
    points = np.asarray(mesh.vertices, dtype=np.float64)  # 3D: a deck over a floor is apart
    group = point_groups(points, seam_pairs(points, verts, nxt, twin))
    vp_ptr, vp = point_polygons(group, verts, cpoly)
    usable = np.ones(ptr.shape[0] - 1, dtype=np.bool_)
    corner, pocket = _flags(nbr, ptr, cpoly, verts, nxt, usable=usable, group=group)
    return Prepared(
        xy, ptr, verts, cpoly, nxt, nbr, twin, vp_ptr, vp, group, corner, pocket, usable, *bounds, key
    )


def _mask(traversable: npt.ArrayLike, count: int) -> B:
    usable = np.asarray(traversable)
    if usable.dtype != np.bool_ or usable.shape != (count,):
        raise InvalidQueryError(
            f"traversable must be {count} booleans (one per polygon), "
            f"got {usable.dtype} of shape {usable.shape}"
        )
    return usable


def masked(prep: Prepared, traversable: npt.ArrayLike | None) -> tuple[I64, B, I64, B]:
    """``(nbr, corner, pocket, usable)`` with the polygons outside ``traversable`` as obstacles."""
    if traversable is None:
        return prep.nbr, prep.corner, prep.pocket, prep.all_usable
    usable = _mask(traversable, prep.all_usable.shape[0])
    nbr = np.where((prep.nbr >= 0) & usable[np.maximum(prep.nbr, 0)], prep.nbr, -1)
    corner, pocket = _flags(nbr, prep.ptr, prep.cpoly, prep.verts, prep.nxt, usable=usable, group=prep.group)
    return nbr, corner, pocket, usable


@dataclass(frozen=True, slots=True)
class _View:
    """A mesh's merged search view: its prepared arrays, the merge, and the kernels' tuples."""

    prep: Prepared
    merged: MergedView
    first: I64  # per merged polygon, one of its mesh polygons (a mask is read there)
    mesh_arrays: tuple[F64, I64, I64, I64, I64]  # the mesh's (xy, ptr, verts, cpoly, nbr)
    view_arrays: tuple[I64, I64, I64, I64, I64, I64, I64]  # mesh_corridor's ``view``


_MERGES: weakref.WeakKeyDictionary[NavMesh, tuple[tuple[int, ...], MergedView]] = weakref.WeakKeyDictionary()
_VIEWS: weakref.WeakKeyDictionary[NavMesh, tuple[tuple[int, ...], _View | None]] = weakref.WeakKeyDictionary()


def _view(mesh: NavMesh) -> _View | None:
    """The mesh's merged view, prepared (None: merging joins nothing, or :data:`MERGED` is off).
    The merge is kept while the geometry stays; the arrays also follow the landmark table."""
    if not MERGED:
        return None
    key = _key(mesh)
    cached = _VIEWS.get(mesh)
    if cached is not None and cached[0] == key:
        return cached[1]
    merge = _MERGES.get(mesh)
    if merge is None or merge[0] != key[:-1]:
        merge = (key[:-1], merged_view(mesh))
        _MERGES[mesh] = merge
    merged, view = merge[1], None
    if merged.count < mesh.polygon_count:
        xy = _plane_xy(mesh)
        ptr = np.ascontiguousarray(mesh.poly_ptr, dtype=np.int64)
        verts = np.ascontiguousarray(mesh.poly_verts, dtype=np.int64)
        bounds = _bounds(mesh, xy, ptr, verts)  # per vertex: the view's vertices are the mesh's
        prep = _prepared(mesh, xy, merged.ptr, merged.verts, merged.nbr, bounds, key)
        nbr = np.ascontiguousarray(mesh.neighbours, dtype=np.int64)
        view = _View(
            prep, merged, merged.members[merged.member_ptr[:-1]],
            (xy, ptr, verts, np.ascontiguousarray(mesh._corner_poly, dtype=np.int64), nbr),
            (prep.ptr, prep.nbr, merged.corner_of, merged.parent, merged.depth, merged.member_ptr,
             merged.members),
        )  # fmt: skip
    _VIEWS[mesh] = (key, view)
    return view


@dataclass(frozen=True, slots=True)
class SearchArrays:
    """What a search runs on: ``prep`` (the view's or the mesh's) with a query mask applied.

    Attributes:
        nbr, corner, pocket, usable: :func:`masked`'s, per searched polygon.
        view: the merged view searched (None: the mesh's own polygons).
    """

    prep: Prepared
    nbr: I64
    corner: B
    pocket: I64
    usable: B
    view: _View | None

    def polygon(self, poly: int) -> int:
        """The searched polygon holding mesh polygon ``poly``."""
        return poly if self.view is None else int(self.view.merged.view_of[poly])

    @property
    def view_of(self) -> I64:
        """Per mesh polygon, the searched polygon holding it."""
        if self.view is None:
            return np.arange(self.prep.ptr.shape[0] - 1, dtype=np.int64)
        return self.view.merged.view_of

    def member(self, poly: int, x: float, y: float) -> int:
        """The mesh polygon of searched polygon ``poly`` holding plane point ``(x, y)``."""
        if self.view is None:
            return poly
        _, ptr, verts, _, _ = self.view.mesh_arrays
        merged = self.view.merged
        return int(
            member_at(self.view.mesh_arrays[0], ptr, verts, merged.member_ptr, merged.members, poly, x, y)
        )

    def corridor(self, corridor: I64, roots: I64, s_xy: F64, g_xy: F64) -> I64:
        """A found path's corridor of searched polygons as the mesh's polygons (``roots``: its
        turning vertices)."""
        if self.view is None:
            return corridor
        path = np.vstack([s_xy[None, :], self.prep.xy[roots], g_xy[None, :]])
        return mesh_corridor(*self.view.mesh_arrays, self.view.view_arrays, corridor, path)

    def corridors(
        self, counts: I64, corridors: I64, root_counts: I64, roots: I64, ends: F64
    ) -> tuple[I64, I64]:
        """:meth:`corridor` of a batch's (``ends``: ``(n, 4)`` start and goal in the plane)."""
        if self.view is None:
            return counts, corridors
        arrays = (*self.view.mesh_arrays, self.view.view_arrays)
        return expand_corridors(*arrays, counts, corridors, root_counts, roots, ends)


VIEW_AFTER = 200
"""Queries a mesh cut by obstacles answers on its own polygons before its view is built: a cut
mesh is new at every obstacle update, and its merge (aurora: about 15 ms more than the mesh's
own arrays) pays for itself only over a frame's batch or more (a query about 40% less)."""
_ASKED: weakref.WeakKeyDictionary[NavMesh, tuple[tuple[int, ...], int]] = weakref.WeakKeyDictionary()


def _worth_a_view(mesh: NavMesh, queries: int) -> bool:
    """Whether the mesh is searched on its view: always uncut; cut, after :data:`VIEW_AFTER`
    queries on this cut (``queries``: those asked now)."""
    if mesh.obstacle_count == 0:
        return True
    key = _key(mesh)[:-1]
    seen = _ASKED.get(mesh)
    asked = (seen[1] if seen is not None and seen[0] == key else 0) + queries
    _ASKED[mesh] = (key, asked)
    return asked > VIEW_AFTER


def search_arrays(mesh: NavMesh, traversable: npt.ArrayLike | None, queries: int = 1) -> SearchArrays:
    """The arrays a search of ``mesh`` with the polygon mask ``traversable`` runs on: the merged
    view's, unless the mask keeps part of a merged polygon only (then the mesh's own), or the
    mesh is cut by obstacles and has answered few queries since (``queries``: asked now).

    Raises:
        InvalidQueryError: a mask of the wrong size or type.
    """
    view = _view(mesh) if _worth_a_view(mesh, queries) else None
    if view is None or traversable is None:
        prep = prepare(mesh) if view is None else view.prep
        return SearchArrays(prep, *masked(prep, traversable), view)
    usable = _mask(traversable, mesh.polygon_count)
    per_view = usable[view.first]
    if np.array_equal(per_view[view.merged.view_of], usable):
        return SearchArrays(view.prep, *masked(view.prep, per_view), view)
    prep = prepare(mesh)
    return SearchArrays(prep, *masked(prep, usable), None)
