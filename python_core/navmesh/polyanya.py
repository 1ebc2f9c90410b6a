"""Exactly shortest any-angle paths on a :class:`NavMesh` with Polyanya (the ``"optimal"`` option).

Quick start::

    from python_core.navmesh import NavMesh
    from python_core.navmesh.polyanya import find_optimal_path
    mesh = NavMesh([[0, 0], [2, 0], [2, 1], [0, 1], [3, 0], [3, 1]], [[0, 1, 2, 3], [1, 4, 5, 2]])
    assert find_optimal_path(mesh, (0.5, 0.5), (2.5, 0.5)).cost == 2.0

The search itself is :func:`python_core.navmesh.polyanya_kernel.polyanya_search` (compiled); this
module prepares the mesh's arrays once per mesh (and per traversable mask, cheaply), places the
endpoints as the default mode does (snapped onto the mesh by :meth:`NavMesh.closest_point`) and
builds the :class:`PathResult`. In 3D the path is shortest in the plane perpendicular to the up
axis (as the funnel's), its corners are mesh vertices and its cost is the 3D length of the polyline.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from python_core._types import F64, I64, SEARCH_BUDGET, SEARCH_FOUND, B
from python_core.errors import InvalidQueryError, UnsupportedOperationError
from python_core.navmesh.build import PLANE_AXES, corner_links
from python_core.navmesh.mesh import NavMesh
from python_core.navmesh.polyanya_kernel import polyanya_search
from python_core.navmesh.polyanya_places import closest_reachable, polygons_at, twin_corners
from python_core.result import PathResult, PathStatus, QueryOptions

__all__ = ["find_optimal_path"]

_HEURISTICS = {None: True, "euclidean": True, "zero": False}


@dataclass(frozen=True, slots=True)
class _Prepared:
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
    corner: B
    dead_end: B
    all_usable: B
    key: tuple[int, ...]


_CACHE: weakref.WeakKeyDictionary[NavMesh, _Prepared] = weakref.WeakKeyDictionary()


def _flags(prep_nbr: I64, cpoly: I64, verts: I64, nxt: I64, *, usable: B, vertex_count: int) -> tuple[B, B]:
    """Per vertex: touches an obstacle (a usable polygon's edge with no usable neighbour); per
    polygon: a dead end (at most one usable neighbour)."""
    open_edge = (prep_nbr < 0) & usable[cpoly]
    corner = np.zeros(vertex_count, dtype=np.bool_)
    corner[verts[open_edge]] = True
    corner[verts[nxt[open_edge]]] = True
    links = np.bincount(cpoly[prep_nbr >= 0], minlength=usable.shape[0])
    return corner, links <= 1


def _key(mesh: NavMesh) -> tuple[int, ...]:
    """What the prepared arrays depend on: a mesh that is changed gets new arrays or a new version."""
    arrays = (mesh.vertices, mesh.poly_ptr, mesh.poly_verts, mesh.neighbours)
    return (*(id(a) for a in arrays), int(getattr(mesh, "version", 0)))


def _prepare(mesh: NavMesh) -> _Prepared:
    key = _key(mesh)
    cached = _CACHE.get(mesh)
    if cached is not None and cached.key == key:
        return cached
    xy = mesh.vertices[:, list(PLANE_AXES[mesh.up_axis])] if mesh.dim == 3 else mesh.vertices
    xy = np.ascontiguousarray(xy, dtype=np.float64)
    ptr = np.ascontiguousarray(mesh.poly_ptr, dtype=np.int64)
    verts = np.ascontiguousarray(mesh.poly_verts, dtype=np.int64)
    cpoly, nxt = corner_links(ptr)
    nbr = np.ascontiguousarray(mesh.neighbours, dtype=np.int64)
    twin = twin_corners(xy, ptr, verts, cpoly, nxt, nbr)
    nbr = np.where(twin >= 0, nbr, -1)
    order = np.argsort(verts, kind="stable")
    vp_ptr = np.zeros(xy.shape[0] + 1, dtype=np.int64)
    np.cumsum(np.bincount(verts, minlength=xy.shape[0]), out=vp_ptr[1:])
    usable = np.ones(mesh.polygon_count, dtype=np.bool_)
    corner, dead_end = _flags(nbr, cpoly, verts, nxt, usable=usable, vertex_count=xy.shape[0])
    prep = _Prepared(
        xy, ptr, verts, cpoly, nxt, nbr, twin, vp_ptr, cpoly[order], corner, dead_end, usable, key
    )
    _CACHE[mesh] = prep
    return prep


def _masked(prep: _Prepared, traversable: npt.ArrayLike | None) -> tuple[I64, B, B, B]:
    """``(nbr, corner, dead_end, usable)`` with the polygons outside ``traversable`` as obstacles."""
    if traversable is None:
        return prep.nbr, prep.corner, prep.dead_end, prep.all_usable
    usable = np.asarray(traversable)
    if usable.dtype != np.bool_ or usable.shape != prep.all_usable.shape:
        raise InvalidQueryError(
            f"traversable must be {prep.all_usable.shape[0]} booleans (one per polygon), "
            f"got {usable.dtype} of shape {usable.shape}"
        )
    nbr = np.where((prep.nbr >= 0) & usable[np.maximum(prep.nbr, 0)], prep.nbr, -1)
    corner, dead_end = _flags(
        nbr, prep.cpoly, prep.verts, prep.nxt, usable=usable, vertex_count=prep.xy.shape[0]
    )
    return nbr, corner, dead_end, usable


def find_optimal_path(
    mesh: NavMesh,
    start: npt.ArrayLike,
    goal: npt.ArrayLike,
    *,
    options: QueryOptions | None = None,
    traversable: npt.ArrayLike | None = None,
) -> PathResult:
    """The exactly shortest path from ``start`` to ``goal`` on ``mesh`` (Polyanya).

    Args:
        mesh: the navigation mesh (2D, or 3D: shortest in the plane across the up axis).
        start, goal: points in mesh coordinates, snapped onto the mesh when outside (as the
            default mode, :meth:`NavMesh.find_path`).
        options: ``heuristic`` None or ``"euclidean"`` (the interval heuristic) or ``"zero"``;
            ``max_expansions`` (nodes taken off the open list); ``allow_partial``: an unreachable
            goal gives the shortest path to the reachable point nearest it (status ``partial``).
        traversable: optional per-polygon booleans (navigation layers): the others are obstacles.
            A start snapped into an excluded polygon has no path; a goal there is unreachable
            (``no_path``, or with ``allow_partial`` the path to the nearest reachable point).

    Returns:
        ``points``: start, the mesh vertices the path turns at, goal (consecutive repeats dropped;
        one point when start and goal coincide); ``nodes``: the polygons crossed; ``cost``: the
        polyline's length; ``expanded``: nodes taken off the open list. An exhausted budget
        returns no path.

    Raises:
        InvalidQueryError: bad points, a heuristic other than the three above, a negative budget,
            a mask of the wrong size or type.
        UnsupportedOperationError: the mesh has off-mesh links (optimal mode plans on polygons
            only) or regions of different enter/travel costs (it minimises length).

    Example:
        >>> m = NavMesh([[0, 0], [2, 0], [2, 2], [1, 1], [0, 2]], [[0, 1, 3], [1, 2, 3], [0, 3, 4]])
        >>> find_optimal_path(m, (1.8, 1.5), (0.2, 1.5)).points.tolist()  # around the notch at (1, 1)
        [[1.8, 1.5], [1.0, 1.0], [0.2, 1.5]]
    """
    opts = options or QueryOptions()
    if opts.heuristic not in _HEURISTICS:
        raise InvalidQueryError(
            f"optimal paths take the heuristic 'euclidean' or 'zero', got {opts.heuristic!r}"
        )
    if opts.max_expansions is not None and opts.max_expansions < 0:
        raise InvalidQueryError(f"max_expansions must be >= 0, got {opts.max_expansions}")
    if mesh.links:
        raise UnsupportedOperationError(
            "optimal paths are searched on the polygons only; this mesh has off-mesh links "
            "(query without 'optimal', or without the links)"
        )
    if np.any(mesh.enter_costs != 0.0) or np.any(mesh.travel_costs != mesh.travel_costs[0]):
        raise UnsupportedOperationError(
            "optimal paths are shortest by length; this mesh's regions have enter or travel costs "
            "(query without 'optimal', or give every region the same costs)"
        )
    prep = _prepare(mesh)
    nbr, corner, dead_end, usable = _masked(prep, traversable)
    ps, poly_s = mesh.closest_point(start)
    pg, poly_g = mesh.closest_point(goal)
    if not usable[poly_s]:
        return PathResult(PathStatus.NO_PATH, np.zeros((0, mesh.dim)))
    s_xy, g_xy = _plane(mesh, ps), _plane(mesh, pg)
    start_polys = polygons_at(prep.xy, prep.ptr, prep.verts, prep.vp_ptr, prep.vp, usable, poly_s, *s_xy)
    goal_polys = polygons_at(prep.xy, prep.ptr, prep.verts, prep.vp_ptr, prep.vp, usable, poly_g, *g_xy)
    goal_set = np.zeros(prep.ptr.shape[0] - 1, dtype=np.bool_)
    goal_set[goal_polys] = True
    budget = -1 if opts.max_expansions is None else int(opts.max_expansions)
    args = (prep.xy, prep.ptr, prep.verts, prep.cpoly, prep.nxt, nbr, prep.twin, corner, dead_end)
    status, roots, corridor, expanded = polyanya_search(
        *args, s_xy, start_polys, g_xy, goal_set, _HEURISTICS[opts.heuristic], budget
    )
    if status == SEARCH_FOUND:
        return _result(mesh, PathStatus.FOUND, ps, pg, roots=roots, corridor=corridor, expanded=expanded)
    if status == SEARCH_BUDGET or not opts.allow_partial:
        kind = PathStatus.BUDGET_EXHAUSTED if status == SEARCH_BUDGET else PathStatus.NO_PATH
        return PathResult(kind, np.zeros((0, mesh.dim)), expanded=expanded)
    # Unreachable: the shortest path to the reachable point nearest the goal.
    poly_e, ex, ey = closest_reachable(prep.xy, prep.ptr, prep.verts, nbr, start_polys, *g_xy)
    e_xy = np.array([ex, ey])
    goal_set[:] = False
    goal_set[polygons_at(prep.xy, prep.ptr, prep.verts, prep.vp_ptr, prep.vp, usable, poly_e, ex, ey)] = True
    status, roots, corridor, more = polyanya_search(
        *args, s_xy, start_polys, e_xy, goal_set, _HEURISTICS[opts.heuristic], budget
    )
    if status != SEARCH_FOUND:  # pragma: no cover - the end point is reachable by construction
        return PathResult(PathStatus.NO_PATH, np.zeros((0, mesh.dim)), expanded=expanded + more)
    pe = _lift(mesh, e_xy, poly_e)
    return _result(mesh, PathStatus.PARTIAL, ps, pe, roots=roots, corridor=corridor, expanded=expanded + more)


def _plane(mesh: NavMesh, p: F64) -> F64:
    return np.ascontiguousarray(p[list(PLANE_AXES[mesh.up_axis])] if mesh.dim == 3 else p, dtype=np.float64)


def _lift(mesh: NavMesh, q: F64, poly: int) -> F64:
    """A plane point back in mesh coordinates, on polygon ``poly``'s plane (Newell normal)."""
    if mesh.dim == 2:
        return q
    v = mesh.vertices[mesh.polygon(poly)]
    c = v.mean(axis=0)
    normal = np.cross(v - c, np.roll(v, -1, axis=0) - c).sum(axis=0)
    i, j = PLANE_AXES[mesh.up_axis]
    u = mesh.up_axis
    out = np.zeros(3)
    out[i], out[j] = q
    if abs(normal[u]) < 1e-12:
        out[u] = v[:, u].mean()
    else:
        out[u] = c[u] - (normal[i] * (q[0] - c[i]) + normal[j] * (q[1] - c[j])) / normal[u]
    return out


def _result(
    mesh: NavMesh, kind: PathStatus, ps: F64, pg: F64, *, roots: I64, corridor: I64, expanded: int
) -> PathResult:
    table = np.vstack([ps[None, :], mesh.vertices[roots], pg[None, :]])
    step = np.abs(np.diff(table, axis=0)).max(axis=1) if table.shape[0] > 1 else np.zeros(0)
    keep = np.concatenate([[True], step > 1e-12])
    if not keep[-1]:  # the goal coincides with the previous point: end on the goal itself
        keep[np.flatnonzero(keep)[-1]] = False
        keep[-1] = True
    points = table[keep]
    cost = float(np.linalg.norm(np.diff(points, axis=0), axis=1).sum())
    return PathResult(kind, points, corridor.astype(np.int64), cost, int(expanded))
