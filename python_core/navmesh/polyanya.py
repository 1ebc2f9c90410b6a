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

import numpy as np
import numpy.typing as npt

from python_core._types import F64, I64, SEARCH_BUDGET, SEARCH_FOUND
from python_core.errors import InvalidQueryError, UnsupportedOperationError
from python_core.navmesh.build import PLANE_AXES
from python_core.navmesh.cut import loaded_of
from python_core.navmesh.mesh import NavMesh
from python_core.navmesh.polyanya_kernel import SCRATCH_NODES, polyanya_search, search_scratch
from python_core.navmesh.polyanya_landmarks import no_landmarks, one_to_all, pick_landmarks
from python_core.navmesh.polyanya_places import closest_reachable, polygons_at
from python_core.navmesh.polyanya_prepare import Prepared, keep_table, landmark_table, search_arrays
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
    arrays = search_arrays(mesh, traversable)  # the merged view's, or the mesh's own
    prep, nbr, corner, pocket, usable = arrays.prep, arrays.nbr, arrays.corner, arrays.pocket, arrays.usable
    ps, poly_s = mesh.closest_point(start)
    pg, poly_g = mesh.closest_point(goal)
    poly_s, poly_g = arrays.polygon(poly_s), arrays.polygon(poly_g)
    if not usable[poly_s]:
        return PathResult(PathStatus.NO_PATH, np.zeros((0, mesh.dim)))
    s_xy, g_xy = _plane(mesh, ps), _plane(mesh, pg)
    start_polys = polygons_at(prep.xy, prep.ptr, prep.verts, prep.vp_ptr, prep.vp, usable, poly_s, *s_xy)
    goal_polys = polygons_at(prep.xy, prep.ptr, prep.verts, prep.vp_ptr, prep.vp, usable, poly_g, *g_xy)
    budget = -1 if opts.max_expansions is None else int(opts.max_expansions)
    args = (prep.xy, prep.ptr, prep.verts, prep.cpoly, prep.nxt, nbr, prep.twin, corner, pocket)
    scratch = search_scratch(prep.xy, prep.ptr, SCRATCH_NODES)
    status, roots, corridor, expanded = polyanya_search(
        *args, s_xy, start_polys, g_xy, goal_polys, _HEURISTICS[opts.heuristic], budget,
        *_landmarks(prep, poly_s, s_xy, poly_g, g_xy), scratch,
    )  # fmt: skip
    if status == SEARCH_FOUND:
        corridor = arrays.corridor(corridor, roots, s_xy, g_xy)
        return _result(mesh, PathStatus.FOUND, ps, pg, roots=roots, corridor=corridor, expanded=expanded)
    if status == SEARCH_BUDGET or not opts.allow_partial:
        kind = PathStatus.BUDGET_EXHAUSTED if status == SEARCH_BUDGET else PathStatus.NO_PATH
        return PathResult(kind, np.zeros((0, mesh.dim)), expanded=expanded)
    # Unreachable: the shortest path to the reachable point nearest the goal.
    poly_e, ex, ey = closest_reachable(prep.xy, prep.ptr, prep.verts, nbr, start_polys, *g_xy)
    e_xy = np.array([ex, ey])
    end_polys = polygons_at(prep.xy, prep.ptr, prep.verts, prep.vp_ptr, prep.vp, usable, poly_e, ex, ey)
    status, roots, corridor, more = polyanya_search(
        *args, s_xy, start_polys, e_xy, end_polys, _HEURISTICS[opts.heuristic], budget,
        *_landmarks(prep, poly_s, s_xy, poly_e, e_xy), scratch,
    )  # fmt: skip
    if status != SEARCH_FOUND:  # pragma: no cover - the end point is reachable by construction
        return PathResult(PathStatus.NO_PATH, np.zeros((0, mesh.dim)), expanded=expanded + more)
    pe = _lift(mesh, e_xy, arrays.member(poly_e, ex, ey))
    corridor = arrays.corridor(corridor, roots, s_xy, e_xy)
    return _result(mesh, PathStatus.PARTIAL, ps, pe, roots=roots, corridor=corridor, expanded=expanded + more)


def _landmarks(
    prep: Prepared, s_poly: int, s_xy: F64, g_poly: int, g_xy: F64
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
    prep = search_arrays(loaded, None).prep  # the merged view: the same distances, fewer steps
    if count == 0 or prep.xy.shape[0] == 0:
        keep_table(loaded, None)
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
    keep_table(loaded, np.ascontiguousarray(np.stack(rows)))
    return count


def _from_vertex(prep: Prepared, vertex: int) -> F64:
    """Shortest distances from a vertex to every vertex (``inf``: unreachable)."""
    x, y = float(prep.xy[vertex, 0]), float(prep.xy[vertex, 1])
    first = int(prep.vp[prep.vp_ptr[vertex]])
    polys = polygons_at(prep.xy, prep.ptr, prep.verts, prep.vp_ptr, prep.vp, prep.all_usable, first, x, y)
    args = (prep.xy, prep.ptr, prep.verts, prep.cpoly, prep.nxt, prep.nbr, prep.twin, prep.corner)
    return np.asarray(one_to_all(*args, x, y, polys, prep.group), dtype=np.float64)


def landmark_count(mesh: NavMesh) -> int:
    """Landmarks kept for the mesh's loaded geometry (0: none, plain Polyanya)."""
    table = landmark_table(mesh)
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
