"""Many optimal (Polyanya) navmesh queries at once, their answers as one :class:`MeshBatch`.

    batch = find_optimal_batch(mesh, starts, goals)       # (n, dim) arrays of positions
    batch.result(i) == find_optimal_path(mesh, starts[i], goals[i])   # query by query

Why: on a big mesh (aurora) the default mode is Polyanya, and a packed batch of 200 queries ran
:func:`~python_core.navmesh.polyanya.find_optimal_path` 200 times: its checks, the prepared
arrays' cache key, the mask, a goal flag per polygon and a ``PathResult`` per query, all Python
holding the GIL while the other search thread wants it. Here these happen once per batch, and
the queries' snapping, places, landmarks and searches run in one compiled call
(:func:`~python_core.navmesh.polyanya_kernel.polyanya_batch`, without the GIL: two threads each
with a piece of a frame's batch run side by side); a query's Python is its result. Unreachable
goals with ``allow_partial`` (rare) take ``find_optimal_path`` itself.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from python_core._types import F64, I64, SEARCH_BUDGET, SEARCH_FOUND
from python_core.compiled import register_warm_up
from python_core.errors import InvalidQueryError
from python_core.navmesh.batch import MeshBatch, _offsets, check_ends
from python_core.navmesh.build import PLANE_AXES
from python_core.navmesh.mesh import NavMesh
from python_core.navmesh.polyanya import _HEURISTICS, ACTIVE, check_optimal_query, find_optimal_path
from python_core.navmesh.polyanya_kernel import NO_START, polyanya_batch
from python_core.navmesh.polyanya_prepare import search_arrays
from python_core.result import PathResult, PathStatus, QueryOptions

__all__ = ["find_optimal_batch"]

_Found = tuple[int, F64, F64, I64, I64, int]
"""A found query: its index, start and goal snapped, the turning vertices, corridor, expansions."""


def find_optimal_batch(
    mesh: NavMesh,
    starts: npt.ArrayLike,
    goals: npt.ArrayLike,
    *,
    options: QueryOptions | None = None,
    traversable: npt.ArrayLike | None = None,
    corridors: bool = True,
) -> MeshBatch:
    """:func:`~python_core.navmesh.polyanya.find_optimal_path` of each ``(starts[i], goals[i])``,
    equal to it query by query (corridors name ``mesh``'s polygons). Safe on several threads at
    once (nothing shared is written but the prepared arrays' cache, as ``find_optimal_path``).
    ``corridors=False`` leaves every corridor empty (the same points and costs): on the merged
    search view, the mesh's own polygons along each path were a sixth of aurora's batch.

    Raises:
        InvalidQueryError, UnsupportedOperationError: ``find_optimal_path``'s, for the whole batch
            (ends of another shape or not finite too).

    Example:
        >>> m = NavMesh([[0, 0], [2, 0], [2, 2], [1, 1], [0, 2]], [[0, 1, 3], [1, 2, 3], [0, 3, 4]])
        >>> b = find_optimal_batch(m, [[1.8, 1.5], [0, 0]], [[0.2, 1.5], [0, 0]])
        >>> b.result(0).points.tolist(), b.statuses()[1].value
        ([[1.8, 1.5], [1.0, 1.0], [0.2, 1.5]], 'found')
    """
    s, g = check_ends(starts, mesh.dim, "starts"), check_ends(goals, mesh.dim, "goals")
    if s.shape != g.shape:
        raise InvalidQueryError(f"{len(s)} starts but {len(g)} goals")
    opts = options or QueryOptions()
    check_optimal_query(mesh, opts)
    searched = search_arrays(mesh, traversable, len(s))  # the merged view's, or the mesh's own
    prep, usable = searched.prep, searched.usable
    nbr, corner, pocket = searched.nbr, searched.corner, searched.pocket
    arrays = (prep.xy, prep.ptr, prep.verts, prep.cpoly, prep.nxt, nbr, prep.twin, corner, pocket)
    plane = np.array(PLANE_AXES[mesh.up_axis] if mesh.dim == 3 else (0, 1), dtype=np.int64)
    budget = -1 if opts.max_expansions is None else int(opts.max_expansions)
    status, expanded, snapped_s, snapped_g, root_counts, roots, corridor_counts, polys = polyanya_batch(
        mesh._static_record, arrays, (prep.vp_ptr, prep.vp, usable, searched.view_of), s, g, plane,
        _HEURISTICS[opts.heuristic], budget, (prep.lo, prep.hi), ACTIVE,
    )  # fmt: skip
    if not corridors:
        corridor_counts, polys = np.zeros_like(corridor_counts), polys[:0]
    elif searched.view is not None:  # the merged polygons' corridors as the mesh's polygons
        ends = np.ascontiguousarray(np.hstack([snapped_s[:, plane], snapped_g[:, plane]]))
        corridor_counts, polys = searched.corridors(corridor_counts, polys, root_counts, roots, ends)
    root_at, corridor_at = _offsets(root_counts), _offsets(corridor_counts)
    results: list[PathResult | None] = []
    found: list[_Found] = []
    for i, (code, count) in enumerate(zip(status.tolist(), expanded.tolist(), strict=True)):
        if code == SEARCH_FOUND:  # its points built with the others', below
            roots_i = roots[root_at[i] : root_at[i + 1]]
            corridor_i = polys[corridor_at[i] : corridor_at[i + 1]]
            found.append((i, snapped_s[i], snapped_g[i], roots_i, corridor_i, count))
            results.append(None)
        elif code == NO_START:
            results.append(PathResult(PathStatus.NO_PATH, np.zeros((0, mesh.dim))))
        elif code == SEARCH_BUDGET or not opts.allow_partial:
            kind = PathStatus.BUDGET_EXHAUSTED if code == SEARCH_BUDGET else PathStatus.NO_PATH
            results.append(PathResult(kind, np.zeros((0, mesh.dim)), expanded=count))
        else:  # unreachable, a partial path asked for: the single query's own search for its end
            results.append(find_optimal_path(mesh, s[i], g[i], options=opts, traversable=traversable))
    _found_points(mesh, found, results)
    return MeshBatch.from_results([r for r in results if r is not None], mesh.dim)


def _found_points(mesh: NavMesh, found: list[_Found], results: list[PathResult | None]) -> None:
    """Each found query's result into ``results`` (its ``None``), points and cost as
    :func:`polyanya._result` makes them (start, the turning vertices, goal, consecutive repeats
    dropped, the goal kept; the same numpy reductions, so the same bits), for all queries at once:
    its dozen numpy calls per query were most of a query's Python."""
    if not found:
        return
    rows = np.array([len(roots) + 2 for _, _, _, roots, _, _ in found], dtype=np.int64)
    ends = np.cumsum(rows)
    first = ends - rows
    table = np.empty((int(ends[-1]), mesh.dim))
    inner = np.ones(table.shape[0], dtype=np.bool_)
    inner[first] = inner[ends - 1] = False
    table[first] = [f[1] for f in found]
    table[ends - 1] = [f[2] for f in found]
    table[inner] = mesh.vertices[np.concatenate([roots for _, _, _, roots, _, _ in found])]
    keep = np.ones(table.shape[0], dtype=np.bool_)
    keep[1:] = np.abs(np.diff(table, axis=0)).max(axis=1) > 1e-12
    keep[first] = True
    for q in np.flatnonzero(~keep[ends - 1]).tolist():  # the goal on the previous point: end on the goal
        lo, hi = int(first[q]), int(ends[q])
        keep[lo + int(np.flatnonzero(keep[lo : hi - 1])[-1])] = False
        keep[hi - 1] = True
    points = table[keep]
    kept = np.concatenate(([0], np.cumsum(keep)))
    lo_at, hi_at = kept[first], kept[ends]
    delta = np.diff(points, axis=0)
    lengths = np.sqrt(np.add.reduce((delta.conj() * delta).real, axis=1))  # np.linalg.norm's own
    for (i, _, _, _, corridor, expanded), lo, hi in zip(found, lo_at.tolist(), hi_at.tolist(), strict=True):
        cost = float(lengths[lo : hi - 1].sum())
        results[i] = PathResult(PathStatus.FOUND, points[lo:hi], corridor.astype(np.int64), cost, expanded)


@register_warm_up
def _warm_up() -> None:
    """The batch kernel with real meshes' records and prepared arrays (2D and 3D: their types
    differ), so a frame's first batch does not compile it. The squares merge into one polygon:
    the search view's kernels too (a single query's corridor, a partial path's end)."""
    square = [[0, 1, 2, 3], [1, 4, 5, 2]]
    flat = NavMesh([[0, 0], [1, 0], [1, 1], [0, 1], [2, 0], [2, 1]], square)
    find_optimal_batch(flat, [[0.5, 0.5]], [[1.5, 0.5]])
    find_optimal_path(flat, [0.5, 0.5], [1.5, 0.5])
    strip = [[0, 0], [1, 0], [1, 1], [0, 1], [2, 0], [2, 1], [3, 0], [3, 1]]
    walled = NavMesh(strip, [*square, [4, 6, 7, 5]], layers=[1, 1, 2])  # two views: a mask keeps them
    find_optimal_path(
        walled, [0.5, 0.5], [2.5, 0.5], options=QueryOptions(allow_partial=True),
        traversable=np.array([True, True, False]),
    )  # fmt: skip
    up = NavMesh([[0, 0, 0], [1, 0, 0], [1, 0, 1], [0, 0, 1], [2, 0, 0], [2, 0, 1]], square)
    find_optimal_batch(up, [[0.5, 0.0, 0.5]], [[1.5, 0.0, 0.5]])
