"""The fast exact grid search: compiled A* or Jump Point Search, chosen per grid and query.

Quick start (:meth:`GridGraph.find_path <python_core.grid.GridGraph.find_path>` calls this)::

    from python_core.grid import GridGraph
    from python_core.grid.search import dispatch
    grid = GridGraph.from_movingai("tests/data/movingai/arena.map")
    result = dispatch.find_path(grid, (1, 3), (40, 40))   # the same as grid.find_path((1, 3), (40, 40))
    results = dispatch.find_many(grid, [(1, 3), (2, 3)], [(40, 40), (5, 5)])

Same inputs, same validation, same errors and the same optimal cost as the plain reference
:func:`python_core.grid.search.reference.find_path`, which this module never calls.
``method="auto"`` picks Jump Point Search when it is exact and applies: every walkable cell has the
same positive weight, the diagonal mode is ``only_if_no_obstacles`` (the Moving AI rule), the
heuristic is octile (the default), no partial path is asked for and, on grids of 128 x 128 cells or
more, probe searches found it faster than A* on this map, for this unit size (:mod:`.method_choice`:
on random-like maps JPS prunes too little to pay for its scans; each size probes its eroded grid);
otherwise the compiled A* (weights, every diagonal mode, every heuristic, partial paths and budgets,
exactly as the reference). With JPS, ``expanded`` counts jump points. The padded copy of the grid
(:mod:`.prepared`: each cell's clearance, one byte) is built on the first query and rebuilt when
:attr:`GridGraph.version` changes; agents are applied per query in O(agents).

Units of any size (``options.size``, or ``options.radius`` in world units): a size-k unit at anchor
``(x, y)`` covers the k x k cells from there rightwards and downwards, and may stand there when the
cell's clearance is ``>= k``; both kernels read the same padded clearance with that threshold, so the
moves are the grid's diagonal rule on the eroded grid (the swept-footprint rule), JPS stays exact
there, and size 1 is the plain grid. Entering an anchor costs the step times the highest weight
under the footprint; points are footprint centres; a start without room raises, a goal without
room is ``no_path`` (or ``partial``); other agents block every anchor where the footprints meet.

Threads: any number may query one grid at once (changes to it wait for them: the caller's
readers-writer lock). The padded copy is shared and never written by a query; each running query
takes a search workspace from the grid's pool and gives it back, so there are as many workspaces as
queries ever ran at the same time, and a query with agents to block closes their cells in its
workspace's private copy of the walls, never in the shared one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np
import numpy.typing as npt

from python_core._types import DIAG_CODES, I64, SEARCH_BUDGET, SEARCH_FOUND, U8, DiagonalMode
from python_core.errors import BlockedEndpointError, InvalidQueryError, UnknownPointError
from python_core.grid.cells import as_cell, check_options, world_points
from python_core.grid.clearance import blocked_start, unit_size
from python_core.grid.search.astar import astar_padded, path_from_parents
from python_core.grid.search.grid_view import GridView
from python_core.grid.search.heuristics import HEURISTIC_CODES, resolve_heuristic
from python_core.grid.search.jps import jps_padded
from python_core.grid.search.landmark_kernels import ACTIVE, astar_landmarks
from python_core.grid.search.method_choice import prefers_jps
from python_core.grid.search.prepared import Prepared, Workspace, block_agents, prepared_for, unblock
from python_core.grid.search.size_index import SizeIndex, index_for, settle
from python_core.result import PathResult, PathStatus, QueryOptions

__all__ = ["METHODS", "Method", "choose_method", "find_many", "find_path", "prepare", "workspace_bytes"]

Method = Literal["auto", "astar", "jps"]
METHODS: tuple[Method, ...] = ("auto", "astar", "jps")
"""``auto`` (the dispatch), ``astar`` (compiled A*), ``jps``; the reference A* is
:func:`python_core.grid.search.reference.find_path`, called by name."""

_EUCLIDEAN, _ZERO = HEURISTIC_CODES["euclidean"], HEURISTIC_CODES["zero"]
_NONE = np.zeros(0, dtype=np.int64)


def prepare(grid: GridView) -> None:
    """Build now what ``grid``'s first search would: the padded copy of its clearance and weights
    and one workspace (a server calls this on the load's thread, not in a query's turn)."""
    p = prepared_for(grid)
    p.give(p.take())


def workspace_bytes(grid: GridView) -> int:
    """Bytes of the padded copy and the idle workspaces kept for ``grid`` (one at least: one per
    query that ran while others did; virtual size, pages fill on use)."""
    prepare(grid)
    p = prepared_for(grid)
    sized = sum(int(w.nbytes) for w in list(p.sized_weights.values()))
    return int(p.passable.nbytes + p.weights.nbytes) + sized + sum(work.nbytes() for work in list(p.spare))


def choose_method(grid: GridView, options: QueryOptions | None = None) -> Method:
    """The kernel ``method="auto"`` runs for this grid and these options: ``"jps"`` or ``"astar"``.

    Example:
        >>> from python_core.grid import GridGraph
        >>> g = GridGraph(np.ones((3, 3), bool), diagonal="only_if_no_obstacles")
        >>> choose_method(g), choose_method(g, QueryOptions(allow_partial=True))
        ('jps', 'astar')
    """
    opts = options if options is not None else QueryOptions()
    p = prepared_for(grid)
    if not _jps_exact(grid, p, opts):
        return "astar"
    size = unit_size(opts, grid.cell_size)
    # each size decides on its own eroded grid (method_choice's notes)
    clearance = p.clearance if size > 1 else None
    use_jps = prefers_jps(grid, p.uniform_weight, p.open_count, size=size, clearance=clearance)
    return "jps" if use_jps else "astar"


def _jps_exact(grid: GridView, prepared: Prepared, opts: QueryOptions) -> bool:
    """Whether JPS gives the exact answer for these options on this grid."""
    return (
        grid.diagonal is DiagonalMode.ONLY_IF_NO_OBSTACLES
        and prepared.uniform_weight > 0.0
        and opts.heuristic in (None, "octile")
        and not opts.allow_partial
    )


def find_path(
    grid: GridView,
    start: Sequence[int],
    goal: Sequence[int],
    *,
    options: QueryOptions | None = None,
    method: Method = "auto",
) -> PathResult:
    """Shortest path between two cells: what :meth:`GridGraph.find_path` runs.

    Args:
        grid: the grid.
        start: ``(x, y)`` start cell (walkable; agents on it do not matter).
        goal: ``(x, y)`` goal cell; a wall or another agent there gives ``no_path``/``partial``.
        options: heuristic (default octile, manhattan for ``never``), ``allow_partial``,
            ``max_expansions``, ``agent`` (never blocks itself), ``ignore_agents``, the unit's
            ``size`` in cells or ``radius`` (its k x k footprint from each cell rightwards and
            downwards must fit; points are the footprints' centres).
        method: ``"auto"`` (see the module notes), ``"astar"`` or ``"jps"``.

    Returns:
        A :class:`PathResult` with every cell of the path (jump points are filled in).

    Raises:
        InvalidQueryError: malformed cells or options, or ``method="jps"`` where JPS is not exact
            (weights, another diagonal mode or heuristic, or ``allow_partial``).
        OutOfBoundsError: start or goal outside the grid.
        BlockedEndpointError: the start is a wall (or has no room for the unit's footprint).
        UnknownPointError: ``options.agent`` is not placed.

    Example:
        >>> from python_core.grid import GridGraph
        >>> g = GridGraph.from_strings(["...", ".@.", "..."], diagonal="only_if_no_obstacles")
        >>> find_path(g, (0, 0), (2, 2)).cost, find_path(g, (0, 0), (1, 1)).status.value
        (4.0, 'no_path')
    """
    opts = options if options is not None else _DEFAULT_OPTIONS
    if method == "auto" and (planned := _planned(grid, opts)) is not None:  # size 1: straight to the kernel
        return _find_planned(grid, *planned, start, goal)
    check_options(opts)
    size = unit_size(opts, grid.cell_size)
    name = resolve_heuristic(opts.heuristic, eight_connected=grid.diagonal is not DiagonalMode.NEVER)
    if opts.agent is not None and opts.agent not in grid.agents:
        raise UnknownPointError(f"no agent with id {opts.agent}")
    sx, sy = as_cell(start, grid.width, grid.height, what="start")
    gx, gy = as_cell(goal, grid.width, grid.height, what="goal")
    prepared = prepared_for(grid)
    s = (sy + 1) * prepared.stride + sx + 1
    t = (gy + 1) * prepared.stride + gx + 1
    if prepared.passable[s] < size:
        raise BlockedEndpointError(blocked_start((sx, sy), size))
    chosen = _chosen(grid, prepared, opts, method, name)
    if s == t:
        return _package(grid, PathStatus.FOUND, np.array([sy * grid.width + sx]), 0.0, 0, size)
    index = _size_index(grid, prepared, opts, size)
    if index is not None and index.apart(s, t):  # different parts of the eroded grid
        return PathResult(PathStatus.NO_PATH)
    # landmarks replace the kernel ``auto`` chose only with the estimate they were probed with
    alt = index is not None and method == "auto" and opts.heuristic is None and index.usable(prepared)
    work = prepared.take()
    try:
        walls, closed = prepared.passable, _NONE
        if grid.agents and not opts.ignore_agents:
            walls, closed = block_agents(grid, prepared, work, size=size, own=opts.agent)
        try:
            if walls[t] < size and not opts.allow_partial:
                return PathResult(PathStatus.NO_PATH)
            code = HEURISTIC_CODES[name]
            search = _Search(walls, size, (s, t), use_jps=chosen == "jps", code=code, landmarks=alt)
            result = _run(grid, prepared, work, search, opts)
            if index is not None and (index.stale or not index.tried):  # else nothing to pay for
                no_path, jumps = result.status is PathStatus.NO_PATH, search.use_jps and not alt
                settle(prepared, index, no_path, result.expanded, jumps=jumps)
            return result
        finally:
            if closed.size:
                unblock(prepared, walls, closed)
    finally:
        prepared.give(work)


PLANS_KEPT = 32
"""Plans one prepared copy keeps (all dropped when full: a caller making new options objects for
every query must not grow it)."""
_DEFAULT_OPTIONS = QueryOptions()


@dataclass(slots=True, eq=False)
class _Plan:
    """What :func:`find_path` decides once per options object and prepared copy version for a
    size-1 unit (checked options, heuristic, kernel, budget), so that a query pays only for its
    endpoints and its search: a trivial path's Python work around a microsecond's kernel."""

    options: QueryOptions  # the very object (plans are kept by its id)
    version: int  # the prepared copy's version it was made for
    code: int  # the heuristic's kernel code
    use_jps: bool
    budget: int  # -1: none
    closest: int  # A*'s partial-path heuristic code, or -1 without allow_partial
    diag: int
    size: int = 1  # the unit's size in cells


def _chosen(grid: GridView, prepared: Prepared, opts: QueryOptions, method: Method, name: str) -> Method:
    """The kernel a query runs: ``auto``'s choice, or the method asked for once checked."""
    chosen = choose_method(grid, opts) if method == "auto" else method
    # ``auto`` picks JPS only where it is exact; an explicit ``jps`` is checked here
    if method == "jps" and not _jps_exact(grid, prepared, replace(opts, heuristic=name)):
        raise InvalidQueryError(
            "method 'jps' needs uniform weights, only_if_no_obstacles diagonals, the octile "
            f"heuristic and no partial paths (heuristic {name!r}, allow_partial {opts.allow_partial})"
        )
    if chosen not in ("astar", "jps"):
        raise InvalidQueryError(f"unknown method {method!r}; expected one of {list(METHODS)}")
    return chosen


def _planned(grid: GridView, opts: QueryOptions) -> tuple[Prepared, _Plan] | None:
    """The prepared copy and the plan of ``opts`` on it (made when missing or stale)."""
    prepared = prepared_for(grid)
    plan = prepared.plans.get(id(opts))
    if plan is None or plan.options is not opts or plan.version != prepared.version:
        plan = _plan(grid, prepared, opts)
    return None if plan is None else (prepared, plan)


def _plan(grid: GridView, p: Prepared, opts: QueryOptions) -> _Plan | None:
    """Check ``opts`` (raising as :func:`find_path` does) and make and keep their plan (a size
    above 1 still asks its index per query: parts and landmarks change with its queries)."""
    check_options(opts)
    size = unit_size(opts, grid.cell_size)
    name = resolve_heuristic(opts.heuristic, eight_connected=grid.diagonal is not DiagonalMode.NEVER)
    code = HEURISTIC_CODES[name]
    plan = _Plan(
        options=opts, version=p.version, code=code, use_jps=choose_method(grid, opts) == "jps",
        budget=-1 if opts.max_expansions is None else int(opts.max_expansions),
        closest=(_EUCLIDEAN if code == _ZERO else code) if opts.allow_partial else -1,
        diag=DIAG_CODES[grid.diagonal], size=size,
    )  # fmt: skip
    if len(p.plans) >= PLANS_KEPT:
        p.plans.clear()
    p.plans[id(opts)] = plan
    return plan


def _find_planned(
    grid: GridView, p: Prepared, plan: _Plan, start: Sequence[int], goal: Sequence[int]
) -> PathResult:
    """:func:`find_path` with ``method="auto"``: the same checks, errors and answers, the options'
    work done once in ``plan``; a size above 1 also asks its index (parts, landmarks) per query."""
    opts, size = plan.options, plan.size
    if opts.agent is not None and opts.agent not in grid.agents:
        raise UnknownPointError(f"no agent with id {opts.agent}")
    width, height, stride = p.width, p.height, p.width + 2
    sx, sy = as_cell(start, width, height, what="start")
    gx, gy = as_cell(goal, width, height, what="goal")
    s, t = (sy + 1) * stride + sx + 1, (gy + 1) * stride + gx + 1
    if p.passable[s] < size:
        raise BlockedEndpointError(blocked_start((sx, sy), size))
    if s == t:
        return _package(grid, PathStatus.FOUND, np.array([sy * width + sx]), 0.0, 0, size)
    index = None if size == 1 else _size_index(grid, p, opts, size)
    if index is not None and index.apart(s, t):  # different parts of the eroded grid
        return PathResult(PathStatus.NO_PATH)
    # landmarks replace the planned kernel only with the estimate they were probed with
    alt = index is not None and opts.heuristic is None and index.usable(p)
    w = p.take()
    try:
        walls, closed = p.passable, _NONE
        if grid.agents and not opts.ignore_agents:
            walls, closed = block_agents(grid, p, w, size=size, own=opts.agent)
        try:
            if walls[t] < size and not opts.allow_partial:
                return PathResult(PathStatus.NO_PATH)
            ran = _planned_kernel(grid, p, w, plan, walls, (s, t), index if alt else None)
            result = _finish(grid, p, w, opts, ran, size)
            if index is not None and (index.stale or not index.tried):  # else nothing to pay for
                no_path = result.status is PathStatus.NO_PATH
                settle(p, index, no_path, result.expanded, jumps=plan.use_jps and not alt)
            return result
        finally:
            if closed.size:
                unblock(p, walls, closed)
    finally:
        p.give(w)


def _planned_kernel(  # noqa: PLR0917
    grid: GridView,
    p: Prepared,
    w: Workspace,
    plan: _Plan,
    walls: U8,
    ends: tuple[int, int],
    index: SizeIndex | None,
) -> tuple[int, int, int]:
    """``(outcome, end node, expansions)`` of the plan's kernel (A* with ``index``'s landmarks)."""
    (s, t), size, stride, (cw, ch), tag = ends, plan.size, p.stride, grid.cell_size, w.next_tag()
    if index is not None and index.rows is not None and index.landmarks is not None:
        outcome, expanded = astar_landmarks(
            walls, size, stride, s, t, plan.diag, cw, ch, p.uniform_weight, plan.code,
            index.rows, index.landmarks, index.count, ACTIVE, plan.budget,
            w.g, w.parent, w.stamp, w.pos, w.heap_nodes, w.heap_keys, tag,
        )  # fmt: skip
        return outcome, t, expanded
    if plan.use_jps:
        outcome, expanded = jps_padded(
            walls, size, stride, s, t, cw, ch, p.uniform_weight, plan.budget,
            w.g, w.parent, w.stamp, w.pos, w.heap_nodes, w.heap_keys, tag,
        )  # fmt: skip
        return outcome, t, expanded
    return astar_padded(
        walls, size, p.weights_for(grid, size), p.uniform_weight, stride, s, t, plan.diag, cw, ch, plan.code,
        p.min_weight, plan.budget, plan.closest,
        w.g, w.parent, w.stamp, w.pos, w.heap_nodes, w.heap_keys, tag,
    )  # fmt: skip


def _size_index(grid: GridView, p: Prepared, opts: QueryOptions, size: int) -> SizeIndex | None:
    """The parts and landmarks of a size above 1 (:mod:`.size_index`); None for size 1 and
    partial paths (a partial answer searches the start's part whatever the goal's)."""
    if size == 1 or opts.allow_partial:
        return None
    return index_for(grid, p, size, use_jps=lambda: _jps(grid, size))


def _jps(grid: GridView, size: int) -> bool:
    """Whether the size's exact queries run JPS when they have no landmarks (default options)."""
    return choose_method(grid, QueryOptions(size=size)) == "jps"


@dataclass(frozen=True, slots=True)
class _Search:
    """One validated search: the walls it reads, the unit size, padded endpoints, the kernel."""

    walls: U8
    size: int
    ends: tuple[int, int]
    use_jps: bool
    code: int
    landmarks: bool = False  # A* with the size's landmarks instead of either kernel


def _run(grid: GridView, p: Prepared, w: Workspace, q: _Search, opts: QueryOptions) -> PathResult:
    """Run one kernel in workspace ``w`` and package the result."""
    budget = -1 if opts.max_expansions is None else int(opts.max_expansions)
    work = (w.g, w.parent, w.stamp, w.pos, w.heap_nodes, w.heap_keys, w.next_tag())
    (cw, ch), (s, t), k = grid.cell_size, q.ends, q.size
    index = p.size_indexes.get(k) if q.landmarks else None
    if index is not None and index.landmarks is not None and index.rows is not None:
        outcome, expanded = astar_landmarks(
            q.walls, k, p.stride, s, t, DIAG_CODES[grid.diagonal], cw, ch, p.uniform_weight, q.code,
            index.rows, index.landmarks, index.count, ACTIVE, budget, *work,
        )  # fmt: skip
        end = t
    elif q.use_jps:
        outcome, expanded = jps_padded(q.walls, k, p.stride, s, t, cw, ch, p.uniform_weight, budget, *work)
        end = t
    else:
        closest = (_EUCLIDEAN if q.code == _ZERO else q.code) if opts.allow_partial else -1
        outcome, end, expanded = astar_padded(
            q.walls, k, p.weights_for(grid, k), p.uniform_weight, p.stride, s, t, DIAG_CODES[grid.diagonal],
            cw, ch, q.code, p.min_weight, budget, closest, *work,
        )  # fmt: skip
    return _finish(grid, p, w, opts, (outcome, end, expanded), k)


def _finish(  # noqa: PLR0917
    grid: GridView, p: Prepared, w: Workspace, opts: QueryOptions, ran: tuple[int, int, int], size: int
) -> PathResult:
    """The result of a kernel's ``(outcome, end node, expansions)`` in workspace ``w``."""
    outcome, end, expanded = ran
    if outcome == SEARCH_FOUND:
        status = PathStatus.FOUND
    elif outcome == SEARCH_BUDGET:
        status = PathStatus.BUDGET_EXHAUSTED
    else:
        status = PathStatus.PARTIAL if opts.allow_partial else PathStatus.NO_PATH
    if outcome != SEARCH_FOUND and not opts.allow_partial:
        return PathResult(status, expanded=int(expanded))
    nodes = path_from_parents(w.parent, end, p.stride)
    return _package(grid, status, nodes, float(w.g[end]), int(expanded), size)


def _package(  # noqa: PLR0917
    grid: GridView, status: PathStatus, nodes: I64, cost: float, expanded: int, size: int
) -> PathResult:
    """The result, its points at the footprints' centres: ``(size - 1) / 2`` cells past the anchors."""
    (ox, oy), (cw, ch) = grid.origin, grid.cell_size
    shift = (size - 1) / 2.0
    points = world_points(
        nodes, grid.width, float(ox) + shift * cw, float(oy) + shift * ch, float(cw), float(ch)
    )
    return PathResult(status, points=points, nodes=nodes, cost=cost, expanded=expanded)


def find_many(
    grid: GridView,
    starts: Sequence[Sequence[int]] | npt.ArrayLike,
    goals: Sequence[Sequence[int]] | npt.ArrayLike,
    *,
    options: QueryOptions | None = None,
    method: Method = "auto",
) -> list[PathResult]:
    """Run a batch of queries on one grid, in order, each as :func:`find_path` runs it.

    Several threads may run batches (and single queries) on the same grid at once: the kernels
    release the GIL. Errors raise as in :func:`find_path` (the first bad query stops the batch).

    Args:
        grid: the grid.
        starts: ``n`` start cells.
        goals: ``n`` goal cells.
        options: applied to every query.
        method: as for :func:`find_path`.

    Returns:
        One :class:`PathResult` per query.

    Raises:
        InvalidQueryError: ``starts`` and ``goals`` differ in length (and as :func:`find_path`).

    Example:
        >>> from python_core.grid import GridGraph
        >>> g = GridGraph(np.ones((2, 3), bool))
        >>> [r.cost for r in find_many(g, [(0, 0), (2, 1)], [(2, 0), (2, 1)])]
        [2.0, 0.0]
    """
    a, b = np.asarray(starts).reshape(-1, 2), np.asarray(goals).reshape(-1, 2)
    if a.shape != b.shape:
        raise InvalidQueryError(f"{len(a)} starts but {len(b)} goals")
    pairs = zip(a.tolist(), b.tolist(), strict=True)
    return [find_path(grid, s, t, options=options, method=method) for s, t in pairs]
