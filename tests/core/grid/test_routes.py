"""The one-call routes (search, path, points) give what the separate kernels give, and every
method of :func:`dispatch.find_path` takes the planned path with the same answers."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from python_core import GridGraph, PathStatus, QueryOptions
from python_core._types import DIAG_CODES, SEARCH_FOUND, DiagonalMode
from python_core.errors import InvalidQueryError, OutOfBoundsError
from python_core.grid.cells import world_points
from python_core.grid.search import dispatch
from python_core.grid.search.astar import astar_padded, path_from_parents
from python_core.grid.search.heuristics import HEURISTIC_CODES
from python_core.grid.search.jps import jps_padded
from python_core.grid.search.prepared import prepared_for
from python_core.grid.search.routes import astar_route, jps_route


def _grid(diagonal: str) -> GridGraph:
    walkable = np.random.default_rng(7).random((12, 15)) > 0.3
    walkable[0, 0] = True
    return GridGraph(walkable, diagonal=diagonal, cell_size=(1.5, 0.5), origin=(-2.0, 3.0))


def _ends(grid: GridGraph) -> list[tuple[int, int]]:
    p = prepared_for(grid)
    opened = np.flatnonzero(p.passable)
    return [(int(a), int(b)) for a, b in zip(opened[::7], opened[::-5], strict=False) if a != b]


def _separate(grid: GridGraph, outcome: int, end: int, partial: bool) -> tuple[float, list[int], list[float]]:
    p, work = prepared_for(grid), prepared_for(grid).spare[-1]
    if outcome != SEARCH_FOUND and not partial:
        return np.inf, [], []
    nodes = path_from_parents(work.parent, end, p.stride)
    points = world_points(nodes, grid.width, *grid.origin, *grid.cell_size)
    return float(work.g[end]), nodes.tolist(), points.ravel().tolist()


def _kernel(function: Any) -> Any:
    """A kernel called with its arguments spread from tuples (mypy cannot count them)."""
    return function


@pytest.mark.parametrize("budget", [-1, 3])
def test_jps_route_is_the_separate_calls(budget: int) -> None:
    grid = _grid("only_if_no_obstacles")
    dispatch.prepare(grid)
    p = prepared_for(grid)
    work = p.spare[-1]
    arrays: tuple[Any, ...] = (work.g, work.parent, work.stamp, work.pos, work.heap_nodes, work.heap_keys)
    (cw, ch), (ox, oy) = grid.cell_size, grid.origin
    outcomes = set()
    for s, t in _ends(grid):
        args = (p.passable, 1, p.stride, s, t, cw, ch, 1.0, budget)
        outcome, expanded = _kernel(jps_padded)(*args, *arrays, work.next_tag())
        want = (outcome, expanded, *_separate(grid, outcome, t, partial=False))
        got = _kernel(jps_route)(*args, *arrays, work.next_tag(), ox, oy)
        assert (got[0], got[1], got[2], got[3].tolist(), got[4].ravel().tolist()) == want
        assert got[3].dtype == np.int64
        assert got[4].dtype == np.float64
        assert got[4].shape == (len(got[3]), 2)
        outcomes.add(outcome)
    assert len(outcomes) >= 2  # found, and no path or budget


@pytest.mark.parametrize(("budget", "partial"), [(-1, False), (-1, True), (4, True), (4, False)])
def test_astar_route_is_the_separate_calls(budget: int, partial: bool) -> None:
    grid = _grid("always")
    dispatch.prepare(grid)
    p = prepared_for(grid)
    work = p.spare[-1]
    arrays: tuple[Any, ...] = (work.g, work.parent, work.stamp, work.pos, work.heap_nodes, work.heap_keys)
    (cw, ch), (ox, oy) = grid.cell_size, grid.origin
    code = HEURISTIC_CODES["octile"]
    closest, diag = code if partial else -1, DIAG_CODES[DiagonalMode.ALWAYS]
    for s, t in _ends(grid):
        args: tuple[Any, ...] = (p.passable, 1, p.weights, 1.0, p.stride, s, t, diag, cw, ch, code)
        rest: tuple[Any, ...] = (p.min_weight, budget, closest)
        outcome, end, expanded = _kernel(astar_padded)(*args, *rest, *arrays, work.next_tag())
        want = (outcome, expanded, *_separate(grid, outcome, end, partial))
        got = _kernel(astar_route)(*args, *rest, *arrays, work.next_tag(), ox, oy)
        assert (got[0], got[1], got[2], got[3].tolist(), got[4].ravel().tolist()) == want


def test_explicit_methods_take_the_planned_path() -> None:
    grid = _grid("only_if_no_obstacles")
    for s, t in [((0, 0), (14, 11)), ((0, 0), (3, 0)), ((0, 0), (0, 0))]:
        auto = dispatch.find_path(grid, s, t)
        for method in ("astar", "jps"):
            result = dispatch.find_path(grid, s, t, method=method)
            assert result.status == auto.status
            assert result.cost == pytest.approx(auto.cost)
            assert result.points.shape == (len(result.nodes), 2)
    weighted = GridGraph(np.ones((3, 3), bool), weights=np.arange(1.0, 10.0).reshape(3, 3))
    with pytest.raises(InvalidQueryError, match="method 'jps'"):
        dispatch.find_path(weighted, (0, 0), (2, 2), method="jps")
    with pytest.raises(InvalidQueryError, match="unknown method"):
        dispatch.find_path(weighted, (0, 0), (2, 2), method="bfs")  # type: ignore[arg-type]
    with pytest.raises(OutOfBoundsError):
        dispatch.find_path(weighted, (0, 0), (3, 0), method="astar")
    budget = QueryOptions(max_expansions=2, allow_partial=True)
    partial = dispatch.find_path(grid, (0, 0), (14, 11), options=budget)
    assert partial.status is PathStatus.BUDGET_EXHAUSTED
    assert len(partial.nodes) >= 1
