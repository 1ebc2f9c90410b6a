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

Where the work is: :mod:`.planned` checks a query's options once into a plan and runs every query
from its endpoints to its result; :mod:`.routes` is its search, path and points in one compiled call.

Threads: any number may query one grid at once (changes to it wait for them: the caller's
readers-writer lock). The padded copy is shared and never written by a query; each running query
takes a search workspace from the grid's pool and gives it back, so there are as many workspaces as
queries ever ran at the same time, and a query with agents to block closes their cells in its
workspace's private copy of the walls, never in the shared one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from python_core.errors import InvalidQueryError
from python_core.grid.search.grid_view import GridView
from python_core.grid.search.planned import (
    DEFAULT_OPTIONS,
    METHODS,
    PLANS_KEPT,
    Answer,
    Method,
    choose_method,
    find_planned,
    find_planned_record,
    make_plan,
    planned,
)
from python_core.grid.search.prepared import prepared_for
from python_core.result import PathResult, QueryOptions

__all__ = [
    "METHODS",
    "PLANS_KEPT",
    "Answer",
    "Method",
    "choose_method",
    "find_answer",
    "find_many",
    "find_path",
    "find_record",
    "prepare",
    "workspace_bytes",
]


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
    opts = options if options is not None else DEFAULT_OPTIONS
    if method == "auto":  # the options' checks and choices made once (:mod:`.planned`)
        prepared, plan = planned(grid, opts)
    else:  # an explicit method is checked per query
        prepared = prepared_for(grid)
        plan = make_plan(grid, prepared, opts, method)
    return PathResult(*find_planned(grid, prepared, plan, start, goal))


def find_answer(
    grid: GridView, start: Sequence[int], goal: Sequence[int], options: QueryOptions | None = None
) -> Answer:
    """:func:`find_path` with ``method="auto"`` as the result's fields, ``PathResult(*answer)``
    (the same checks and errors): what a server that encodes them at once calls."""
    prepared, plan = planned(grid, options if options is not None else DEFAULT_OPTIONS)
    return find_planned(grid, prepared, plan, start, goal)


def find_record(
    grid: GridView, start: Sequence[int], goal: Sequence[int], options: QueryOptions | None = None
) -> dict[str, Any]:
    """:func:`find_answer` as the record a server sends (the same checks and errors): ``status``
    (its string), ``points`` (float32 pairs) and ``nodes`` (int64) as little-endian bytes, ``cost``
    and ``expanded`` (:func:`.planned.find_planned_record`).

    Example:
        >>> from python_core.grid import GridGraph
        >>> r = find_record(GridGraph(np.ones((2, 3), bool)), (0, 0), (2, 0))
        >>> r["status"], np.frombuffer(r["points"], "<f4").tolist(), np.frombuffer(r["nodes"], "<i8").tolist()
        ('found', [0.0, 0.0, 1.0, 0.0, 2.0, 0.0], [0, 1, 2])
    """
    prepared, plan = planned(grid, options if options is not None else DEFAULT_OPTIONS)
    return find_planned_record(grid, prepared, plan, start, goal)


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
