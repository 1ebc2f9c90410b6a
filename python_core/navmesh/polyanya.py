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
from python_core.navmesh.cut import loaded_of
from python_core.navmesh.mesh import NavMesh
from python_core.navmesh.polyanya_kernel import SCRATCH_NODES, polyanya_search, search_scratch
from python_core.navmesh.polyanya_landmarks import no_landmarks, one_to_all, pick_landmarks, vertex_bounds
from python_core.navmesh.polyanya_places import closest_reachable, polygons_at, twin_corners
from python_core.navmesh.weld import point_groups, point_polygons, seam_pairs, shared_flags
from python_core.result import PathResult, PathStatus, QueryOptions

__all__ = [
    "ACTIVE",
    "LANDMARKS",
    "build_landmarks",
    "check_optimal_query",
    "find_optimal_path",
    "landmark_count",
]

_HEURISTICS = {None: True, "euclidean": True, "zero": False}

LANDMARKS = 16
"""Landmarks :func:`build_landmarks` places (each a Polyanya run over the whole mesh at build)."""
ACTIVE = 16
"""Landmarks a query uses: those bounding its start -> goal distance best. All of them: a vertex's
bounds are read together (one row), so more landmarks cost little and prune more (aurora: 13% fewer
expansions than 6, 11% less time)."""


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
    group: I64
    corner: B
    dead_end: B
    all_usable: B
    lo: F64
    hi: F64
    key: tuple[int, ...]


_CACHE: weakref.WeakKeyDictionary[NavMesh, _Prepared] = weakref.WeakKeyDictionary()
_TABLES: dict[int, tuple[weakref.ref[I64], F64]] = {}
"""Landmark distances per loaded mesh (``(landmarks, vertices)``), by its polygon array (its id,
checked through a weak reference, dropped with the array): a copy of the mesh and the mesh cut by
obstacles (:func:`~python_core.navmesh.cut.loaded_of`) share it; a mesh rebuilt with other area
(a region added or moved) has new arrays and no table."""


def _table(mesh: NavMesh) -> F64 | None:
    """The landmark distances of the mesh's loaded geometry, if built."""
    key = loaded_of(mesh).poly_verts
    entry = _TABLES.get(id(key))
    return entry[1] if entry is not None and entry[0]() is key else None


def _keep_table(mesh: NavMesh, table: F64 | None) -> None:
    key = loaded_of(mesh).poly_verts
    _TABLES.pop(id(key), None)
    if table is not None:
        _TABLES[id(key)] = (weakref.ref(key), table)
        weakref.finalize(key, _TABLES.pop, id(key), None)


def _flags(prep_nbr: I64, cpoly: I64, verts: I64, nxt: I64, *, usable: B, group: I64) -> tuple[B, B]:
    """Per vertex: touches an obstacle (a usable polygon's edge with no usable neighbour; any id
    on its point does: weld.py); per polygon: a dead end (at most one usable neighbour)."""
    open_edge = (prep_nbr < 0) & usable[cpoly]
    corner = np.zeros(group.shape[0], dtype=np.bool_)
    corner[verts[open_edge]] = True
    corner[verts[nxt[open_edge]]] = True
    links = np.bincount(cpoly[prep_nbr >= 0], minlength=usable.shape[0])
    return shared_flags(corner, group), links <= 1


def _key(mesh: NavMesh) -> tuple[int, ...]:
    """What the prepared arrays depend on: a mesh that is changed gets new arrays or a new version;
    a landmark table built since is new too."""
    arrays = (mesh.vertices, mesh.poly_ptr, mesh.poly_verts, mesh.neighbours)
    return (*(id(a) for a in arrays), int(getattr(mesh, "version", 0)), id(_table(mesh)))


def _bounds(mesh: NavMesh, xy: F64, ptr: I64, verts: I64) -> tuple[F64, F64]:
    """Per vertex and landmark (``(V, landmarks)``: a vertex's bounds share cache lines, read
    together at every node), bounds of the loaded mesh's distance (none: ``(V, 0)`` arrays)."""
    loaded, table = loaded_of(mesh), _table(mesh)
    if table is None:
        empty = np.zeros((xy.shape[0], 0))
        return empty, empty
    if loaded is mesh or loaded.poly_verts is mesh.poly_verts:
        lo = np.ascontiguousarray(np.where(np.isfinite(table), table, -np.inf).T)
        return lo, np.ascontiguousarray(table.T)
    base = _prepare(loaded)
    source = np.ascontiguousarray(mesh.polygon_source, dtype=np.int64)
    return vertex_bounds(table, base.xy, base.ptr, base.verts, xy, ptr, verts, source)


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
    # Several ids on one point (unwelded region seams): a point's polygons are those of all its
    # ids, else a start or landmark there sees one region's side only (weld.py).
    points = np.asarray(mesh.vertices, dtype=np.float64)  # 3D: a deck over a floor is apart
    group = point_groups(points, seam_pairs(points, verts, nxt, twin))
    vp_ptr, vp = point_polygons(group, verts, cpoly)
    usable = np.ones(mesh.polygon_count, dtype=np.bool_)
    corner, dead_end = _flags(nbr, cpoly, verts, nxt, usable=usable, group=group)
    lo, hi = _bounds(mesh, xy, ptr, verts)
    prep = _Prepared(
        xy, ptr, verts, cpoly, nxt, nbr, twin, vp_ptr, vp, group, corner, dead_end, usable, lo, hi, key
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
    corner, dead_end = _flags(nbr, prep.cpoly, prep.verts, prep.nxt, usable=usable, group=prep.group)
    return nbr, corner, dead_end, usable


def check_optimal_query(mesh: NavMesh, opts: QueryOptions) -> None:
    """The options and mesh an optimal query needs (one query or a batch, checked once).

    Raises:
        InvalidQueryError: a heuristic other than euclidean or zero, a negative budget.
        UnsupportedOperationError: off-mesh links, or regions with enter or travel costs.
    """
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
    check_optimal_query(mesh, opts)
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
    scratch = search_scratch(prep.xy, prep.ptr, SCRATCH_NODES)
    status, roots, corridor, expanded = polyanya_search(
        *args, s_xy, start_polys, g_xy, goal_set, _HEURISTICS[opts.heuristic], budget,
        *_landmarks(prep, poly_s, s_xy, poly_g, g_xy), scratch,
    )  # fmt: skip
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
        *args, s_xy, start_polys, e_xy, goal_set, _HEURISTICS[opts.heuristic], budget,
        *_landmarks(prep, poly_s, s_xy, poly_e, e_xy), scratch,
    )  # fmt: skip
    if status != SEARCH_FOUND:  # pragma: no cover - the end point is reachable by construction
        return PathResult(PathStatus.NO_PATH, np.zeros((0, mesh.dim)), expanded=expanded + more)
    pe = _lift(mesh, e_xy, poly_e)
    return _result(mesh, PathStatus.PARTIAL, ps, pe, roots=roots, corridor=corridor, expanded=expanded + more)


def _landmarks(
    prep: _Prepared, s_poly: int, s_xy: F64, g_poly: int, g_xy: F64
) -> tuple[F64, F64, I64, F64, F64]:
    """The search's landmark arguments: the :data:`ACTIVE` landmarks best for this query."""
    if prep.lo.shape[1] == 0:
        return no_landmarks(prep.xy.shape[0])
    ends = (s_poly, s_xy[0], s_xy[1], g_poly, g_xy[0], g_xy[1])
    act, glo, ghi = pick_landmarks(prep.lo, prep.hi, prep.xy, prep.ptr, prep.verts, *ends, ACTIVE)
    return prep.lo, prep.hi, act, glo, ghi


def build_landmarks(mesh: NavMesh, count: int = LANDMARKS) -> int:
    """Place ``count`` landmarks on the mesh as loaded (before obstacle cuts), far apart (each the
    vertex farthest by path from those placed), and keep their distances to every vertex: optimal
    queries on this mesh, and on it cut by obstacles, then expand fewer intervals (the same paths).

    Returns:
        The landmarks placed (0 on a mesh without vertices or with links or costs Polyanya refuses).

    Example:
        >>> m = NavMesh([[0, 0], [2, 0], [2, 1], [0, 1], [3, 0], [3, 1]], [[0, 1, 2, 3], [1, 4, 5, 2]])
        >>> build_landmarks(m, 2), landmark_count(m), find_optimal_path(m, (0.5, 0.5), (2.5, 0.5)).cost
        (2, 2, 2.0)
    """
    if count < 0:
        raise InvalidQueryError(f"count must be >= 0, got {count}")
    loaded = loaded_of(mesh)
    prep = _prepare(loaded)
    if count == 0 or prep.xy.shape[0] == 0:
        _keep_table(loaded, None)
        return 0
    rows: list[F64] = []
    seen = np.full(prep.xy.shape[0], np.inf)
    far = _from_vertex(prep, int(prep.verts[0]))
    reach = np.isfinite(far)
    at = int(np.argmax(np.where(reach, far, -1.0)))
    for _ in range(count):
        rows.append(_from_vertex(prep, at))
        seen = np.minimum(seen, rows[-1])
        at = int(np.argmax(np.where(reach, seen, -1.0)))
    _keep_table(loaded, np.ascontiguousarray(np.stack(rows)))
    return count


def _from_vertex(prep: _Prepared, vertex: int) -> F64:
    """Shortest distances from a vertex to every vertex (``inf``: unreachable)."""
    x, y = float(prep.xy[vertex, 0]), float(prep.xy[vertex, 1])
    first = int(prep.vp[prep.vp_ptr[vertex]])
    polys = polygons_at(prep.xy, prep.ptr, prep.verts, prep.vp_ptr, prep.vp, prep.all_usable, first, x, y)
    args = (prep.xy, prep.ptr, prep.verts, prep.cpoly, prep.nxt, prep.nbr, prep.twin, prep.corner)
    return np.asarray(one_to_all(*args, x, y, polys), dtype=np.float64)


def landmark_count(mesh: NavMesh) -> int:
    """Landmarks kept for the mesh's loaded geometry (0: none, plain Polyanya)."""
    table = _table(mesh)
    return 0 if table is None else int(table.shape[0])


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
