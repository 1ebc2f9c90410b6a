"""Query plans and the one path every compiled grid query takes from its endpoints to its result.

Quick start (:func:`.dispatch.find_path` is the public entry)::

    from python_core.grid.search.planned import planned, find_planned
    prepared, plan = planned(grid, options)        # kept per options object and grid version
    result = find_planned(grid, prepared, plan, (0, 0), (3, 2))

A :class:`Plan` holds what a query's options decide (checked options, heuristic, kernel, budget,
partial code, diagonal code, the unit's size and where its points lie), made once per options
object and prepared copy version for ``method="auto"`` (:func:`planned`) and per query for an
explicit method (:func:`make_plan`, with the method's own checks). :func:`find_planned` then pays
only for the endpoints and one compiled call (:mod:`.routes`: search, path and points together),
or for a size above 1 also asks its index (parts, landmarks) per query. A trivial path's Python
work around its microsecond's kernel is this module's to keep small.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

import numpy as np

from python_core._types import DIAG_CODES, F64, I64, SEARCH_BUDGET, SEARCH_FOUND, U8, DiagonalMode
from python_core.errors import BlockedEndpointError, InvalidQueryError, UnknownPointError
from python_core.grid.cells import as_cell, check_options, world_points
from python_core.grid.clearance import blocked_start, unit_size
from python_core.grid.search.grid_view import GridView
from python_core.grid.search.heuristics import HEURISTIC_CODES, resolve_heuristic
from python_core.grid.search.landmark_kernels import ACTIVE, astar_landmarks
from python_core.grid.search.method_choice import prefers_jps
from python_core.grid.search.prepared import Prepared, Workspace, block_agents, prepared_for, unblock
from python_core.grid.search.routes import (
    Route,
    WireRoute,
    astar_route,
    astar_wire,
    jps_route,
    jps_wire,
    path_and_points,
)
from python_core.grid.search.size_index import SizeIndex, index_for, settle
from python_core.result import PathStatus, QueryOptions

__all__ = [
    "DEFAULT_OPTIONS",
    "METHODS",
    "PLANS_KEPT",
    "Answer",
    "Method",
    "Plan",
    "answer_record",
    "choose_method",
    "find_planned",
    "find_planned_record",
    "jps_exact",
    "make_plan",
    "planned",
]

Method = Literal["auto", "astar", "jps"]
METHODS: tuple[Method, ...] = ("auto", "astar", "jps")
"""``auto`` (the dispatch), ``astar`` (compiled A*), ``jps``; the reference A* is
:func:`python_core.grid.search.reference.find_path`, called by name."""

PLANS_KEPT = 32
"""Plans one prepared copy keeps (all dropped when full: a caller making new options objects for
every query must not grow it)."""
DEFAULT_OPTIONS = QueryOptions()

_EUCLIDEAN, _ZERO = HEURISTIC_CODES["euclidean"], HEURISTIC_CODES["zero"]
_NONE = np.zeros(0, dtype=np.int64)
_NO_PATH = PathStatus.NO_PATH
_STATUS = {SEARCH_FOUND: PathStatus.FOUND, SEARCH_BUDGET: PathStatus.BUDGET_EXHAUSTED}
"""A search's outcome -> status; anything else is no path (partial with allow_partial)."""


Answer = tuple[PathStatus, F64, I64, float, int]
"""A result's fields in :class:`PathResult`'s order: ``PathResult(*answer)``."""


def _no_path() -> Answer:
    return _NO_PATH, np.zeros((0, 2), dtype=np.float64), np.zeros(0, dtype=np.int64), math.inf, 0


@dataclass(slots=True, eq=False)
class Plan:
    """What a query's options decide on one prepared copy, so that a query pays only for its
    endpoints and its search."""

    options: QueryOptions  # the very object (plans are kept by its id)
    version: int  # the prepared copy's version it was made for
    code: int  # the heuristic's kernel code
    use_jps: bool
    budget: int  # -1: none
    closest: int  # A*'s partial-path heuristic code, or -1 without allow_partial
    diag: int
    size: int  # the unit's size in cells
    landmarks: bool  # a size above 1 may run A* with its landmarks (``auto``, default heuristic)
    cell: tuple[float, float]  # the cell size
    first: tuple[float, float]  # the world point of anchor (0, 0): the footprint's centre


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
    if not jps_exact(grid, p, opts):
        return "astar"
    size = unit_size(opts, grid.cell_size)
    # each size decides on its own eroded grid (method_choice's notes)
    clearance = p.clearance if size > 1 else None
    use_jps = prefers_jps(grid, p.uniform_weight, p.open_count, size=size, clearance=clearance)
    return "jps" if use_jps else "astar"


def jps_exact(grid: GridView, prepared: Prepared, opts: QueryOptions) -> bool:
    """Whether JPS gives the exact answer for these options on this grid."""
    return (
        grid.diagonal is DiagonalMode.ONLY_IF_NO_OBSTACLES
        and prepared.uniform_weight > 0.0
        and opts.heuristic in (None, "octile")
        and not opts.allow_partial
    )


def planned(grid: GridView, opts: QueryOptions) -> tuple[Prepared, Plan]:
    """The prepared copy and the ``auto`` plan of ``opts`` on it (made and kept when missing or
    stale).

    Raises:
        InvalidQueryError: bad options (as :func:`make_plan`).
    """
    prepared = prepared_for(grid)
    plan = prepared.plans.get(id(opts))
    if plan is None or plan.options is not opts or plan.version != prepared.version:
        plan = make_plan(grid, prepared, opts, "auto")
        if len(prepared.plans) >= PLANS_KEPT:
            prepared.plans.clear()
        prepared.plans[id(opts)] = plan
    return prepared, plan


def make_plan(grid: GridView, p: Prepared, opts: QueryOptions, method: Method) -> Plan:
    """Check ``opts`` and ``method`` and make their plan.

    Raises:
        InvalidQueryError: bad options, an unknown method, or ``"jps"`` where JPS is not exact.
    """
    check_options(opts)
    size = unit_size(opts, grid.cell_size)
    name = resolve_heuristic(opts.heuristic, eight_connected=grid.diagonal is not DiagonalMode.NEVER)
    code = HEURISTIC_CODES[name]
    chosen = choose_method(grid, opts) if method == "auto" else method
    # ``auto`` picks JPS only where it is exact; an explicit ``jps`` is checked here
    if method == "jps" and not jps_exact(grid, p, replace(opts, heuristic=name)):
        raise InvalidQueryError(
            "method 'jps' needs uniform weights, only_if_no_obstacles diagonals, the octile "
            f"heuristic and no partial paths (heuristic {name!r}, allow_partial {opts.allow_partial})"
        )
    if chosen not in ("astar", "jps"):
        raise InvalidQueryError(f"unknown method {method!r}; expected one of {list(METHODS)}")
    (ox, oy), (cw, ch) = grid.origin, grid.cell_size
    shift = (size - 1) / 2.0  # points are the footprints' centres
    return Plan(
        options=opts, version=p.version, code=code, use_jps=chosen == "jps",
        budget=-1 if opts.max_expansions is None else int(opts.max_expansions),
        closest=(_EUCLIDEAN if code == _ZERO else code) if opts.allow_partial else -1,
        diag=DIAG_CODES[grid.diagonal], size=size,
        landmarks=method == "auto" and opts.heuristic is None,
        cell=(float(cw), float(ch)), first=(float(ox) + shift * cw, float(oy) + shift * ch),
    )  # fmt: skip


def find_planned(
    grid: GridView, p: Prepared, plan: Plan, start: Sequence[int], goal: Sequence[int]
) -> Answer:
    """:func:`.dispatch.find_path` once its options are planned: endpoints, agents, the size's
    index (parts, landmarks) and one compiled search; the result's fields (a server encodes
    them as they are: a :class:`PathResult` costs a microsecond to make)."""
    opts, size = plan.options, plan.size
    s, t = _ends(grid, p, plan, start, goal)
    if s == t:
        return _standing(p, plan, s)
    index = None if size == 1 or opts.allow_partial else _size_index(grid, p, size)
    if index is not None and index.apart(s, t):  # different parts of the eroded grid
        return _no_path()
    # landmarks replace the planned kernel only with the estimate they were probed with
    alt = index is not None and plan.landmarks and index.usable(p)
    w = p.take()
    try:
        walls, closed = p.passable, _NONE
        if grid.agents and not opts.ignore_agents:
            walls, closed = block_agents(grid, p, w, size=size, own=opts.agent)
        try:
            if walls[t] < size and not opts.allow_partial:
                return _no_path()
            ran = _route(grid, p, w, plan, walls, (s, t), index if alt else None)
            outcome, expanded, cost, nodes, points = ran
            status = _STATUS.get(outcome) or (PathStatus.PARTIAL if opts.allow_partial else _NO_PATH)
            if index is not None and (index.stale or not index.tried):  # else nothing to pay for
                no_path = status is PathStatus.NO_PATH
                settle(p, index, no_path, expanded, jumps=plan.use_jps and not alt)
            return status, points, nodes, cost, expanded
        finally:
            if closed.size:
                unblock(p, walls, closed)
    finally:
        p.give(w)


def find_planned_record(
    grid: GridView, p: Prepared, plan: Plan, start: Sequence[int], goal: Sequence[int]
) -> dict[str, Any]:
    """:func:`find_planned`'s answer as a record of plain values, what a server sends: ``status``
    (its string), ``points`` (float32 ``x, y`` pairs, little-endian bytes), ``nodes`` (int64,
    little-endian bytes), ``cost`` and ``expanded``. The same checks, errors and values; a one-cell
    unit's search returns its path already packed (:func:`.routes.jps_wire`), other sizes go
    through :func:`find_planned`."""
    opts = plan.options
    if plan.size != 1 or not _LITTLE:
        return answer_record(find_planned(grid, p, plan, start, goal))
    s, t = _ends(grid, p, plan, start, goal)
    if s == t:
        return answer_record(_standing(p, plan, s))
    spare = p.spare
    try:  # Prepared.take, without its call
        w = spare.pop()
    except IndexError:
        w = p.take()
    try:
        if grid.agents and not opts.ignore_agents:
            walls, closed = block_agents(grid, p, w, size=1, own=opts.agent)
            try:
                if not walls[t] and not opts.allow_partial:
                    return answer_record(_no_path())
                outcome, expanded, cost, packed = _wire_route(p, plan, w, walls, s, t)
            finally:
                if closed.size:
                    unblock(p, walls, closed)
        elif not p.passable[t] and not opts.allow_partial:
            return answer_record(_no_path())
        else:
            outcome, expanded, cost, packed = _wire_route(p, plan, w, p.passable, s, t)
    finally:
        spare.append(w)  # Prepared.give
    status = _STATUS.get(outcome) or (PathStatus.PARTIAL if opts.allow_partial else _NO_PATH)
    data = packed.tobytes()
    half = len(data) >> 1
    return {
        "status": status._value_,
        "points": data[:half],
        "nodes": data[half:],
        "cost": cost,
        "expanded": expanded,
    }


def _wire_route(p: Prepared, plan: Plan, w: Workspace, walls: U8, s: int, t: int) -> WireRoute:  # noqa: PLR0917
    """The plan's packed kernel (:mod:`.routes`) for a one-cell unit."""
    (cw, ch), (ox, oy) = plan.cell, plan.first
    if plan.use_jps:
        return jps_wire(
            walls, 1, p.stride, s, t, cw, ch, p.uniform_weight, plan.budget,
            w.g, w.parent, w.stamp, w.pos, w.heap_nodes, w.heap_keys, w.next_tag(), ox, oy,
        )  # fmt: skip
    return astar_wire(
        walls, 1, p.weights, p.uniform_weight, p.stride, s, t, plan.diag, cw, ch, plan.code,
        p.min_weight, plan.budget, plan.closest,
        w.g, w.parent, w.stamp, w.pos, w.heap_nodes, w.heap_keys, w.next_tag(), ox, oy,
    )  # fmt: skip


def answer_record(answer: Answer) -> dict[str, Any]:
    """:func:`find_planned_record`'s record of an answer's fields."""
    status, points, nodes, cost, expanded = answer
    return {
        "status": status._value_,
        "points": points.astype("<f4").tobytes(),
        "nodes": nodes.astype("<i8").tobytes(),
        "cost": float(cost),
        "expanded": int(expanded),
    }


_LITTLE = sys.byteorder == "little"
"""The packed kernels' bytes are the wire's little-endian ones as they are."""


def _ends(
    grid: GridView, p: Prepared, plan: Plan, start: Sequence[int], goal: Sequence[int]
) -> tuple[int, int]:
    """The padded nodes of a query's endpoints, once its agent, cells and start are checked.

    Raises:
        UnknownPointError: the options' agent is not placed.
        InvalidQueryError, OutOfBoundsError: a malformed cell, or one outside the grid.
        BlockedEndpointError: the start has no room for the unit.
    """
    agent = plan.options.agent
    if agent is not None and agent not in grid.agents:
        raise UnknownPointError(f"no agent with id {agent}")
    width, height, stride = p.width, p.height, p.width + 2
    if type(start) is tuple and type(goal) is tuple and len(start) == 2 and len(goal) == 2:
        (sx, sy), (gx, gy) = start, goal  # as_cell's common case for both, without its calls
        if not (
            type(sx) is int and type(sy) is int and type(gx) is int and type(gy) is int
            and 0 <= sx < width and 0 <= sy < height and 0 <= gx < width and 0 <= gy < height
        ):  # fmt: skip
            sx, sy = as_cell(start, width, height, what="start")
            gx, gy = as_cell(goal, width, height, what="goal")
    else:
        sx, sy = as_cell(start, width, height, what="start")
        gx, gy = as_cell(goal, width, height, what="goal")
    s = (sy + 1) * stride + sx + 1
    if p.passable[s] < plan.size:
        raise BlockedEndpointError(blocked_start((sx, sy), plan.size))
    return s, (gy + 1) * stride + gx + 1


def _standing(p: Prepared, plan: Plan, s: int) -> Answer:
    """The answer of a query whose goal is its start (padded node ``s``)."""
    stride = p.width + 2
    nodes = np.array([(s // stride - 1) * p.width + s % stride - 1])
    points = world_points(nodes, p.width, *plan.first, *plan.cell)
    return PathStatus.FOUND, points, nodes, 0.0, 0


def _route(  # noqa: PLR0917
    grid: GridView,
    p: Prepared,
    w: Workspace,
    plan: Plan,
    walls: U8,
    ends: tuple[int, int],
    index: SizeIndex | None,
) -> Route:
    """The plan's kernel (A* with ``index``'s landmarks when given), its path and points: one
    compiled call (:mod:`.routes`)."""
    (s, t), size, stride, tag = ends, plan.size, p.stride, w.next_tag()
    (cw, ch), (ox, oy) = plan.cell, plan.first
    rows, marks = (index.rows, index.landmarks) if index is not None else (None, None)
    if index is not None and rows is not None and marks is not None:  # exact queries only
        outcome, expanded = astar_landmarks(
            walls, size, stride, s, t, plan.diag, cw, ch, p.uniform_weight, plan.code,
            rows, marks, index.count, ACTIVE, plan.budget,
            w.g, w.parent, w.stamp, w.pos, w.heap_nodes, w.heap_keys, tag,
        )  # fmt: skip
        if outcome != SEARCH_FOUND:
            return outcome, expanded, float("inf"), np.zeros(0, dtype=np.int64), np.zeros((0, 2))
        cost, nodes, points = path_and_points(w.parent, w.g, t, stride, ox, oy, cw, ch)
        return outcome, expanded, cost, nodes, points
    if plan.use_jps:
        return jps_route(
            walls, size, stride, s, t, cw, ch, p.uniform_weight, plan.budget,
            w.g, w.parent, w.stamp, w.pos, w.heap_nodes, w.heap_keys, tag, ox, oy,
        )  # fmt: skip
    return astar_route(
        walls, size, p.weights_for(grid, size), p.uniform_weight, stride, s, t, plan.diag, cw, ch, plan.code,
        p.min_weight, plan.budget, plan.closest,
        w.g, w.parent, w.stamp, w.pos, w.heap_nodes, w.heap_keys, tag, ox, oy,
    )  # fmt: skip


def _size_index(grid: GridView, p: Prepared, size: int) -> SizeIndex:
    """The parts and landmarks of a size above 1 (:mod:`.size_index`; not for partial paths: a
    partial answer searches the start's part whatever the goal's)."""
    return index_for(grid, p, size, use_jps=lambda: _jps(grid, size))


def _jps(grid: GridView, size: int) -> bool:
    """Whether the size's exact queries run JPS when they have no landmarks (default options)."""
    return choose_method(grid, QueryOptions(size=size)) == "jps"
