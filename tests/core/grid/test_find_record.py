"""``dispatch.find_record`` (a server's answer: the packed kernels) gives exactly the record of
``dispatch.find_answer``'s fields, and the same errors, on every kind of grid and query."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

from python_core import GridGraph, QueryOptions
from python_core.errors import BlockedEndpointError, InvalidQueryError, OutOfBoundsError, UnknownPointError
from python_core.grid.search import dispatch
from python_core.grid.search.planned import answer_record


def _grid(diagonal: str, *, weighted: bool = False, seed: int = 3) -> GridGraph:
    rng = np.random.default_rng(seed)
    walkable = rng.random((11, 14)) > 0.28
    walkable[0, 0] = walkable[10, 13] = True
    weights = rng.uniform(1.0, 4.0, walkable.shape) if weighted else None
    return GridGraph(walkable, diagonal=diagonal, weights=weights, cell_size=(1.5, 0.5), origin=(-2.0, 3.0))


def _cells(grid: GridGraph) -> list[tuple[int, int]]:
    return [(x, y) for y in range(grid.height) for x in range(grid.width)][::5]


def _same(grid: GridGraph, start: Any, goal: Any, options: QueryOptions | None) -> str:
    """Both doors' records (or both errors, same type and message); the status."""
    try:
        expected: Any = answer_record(dispatch.find_answer(grid, start, goal, options))
    except Exception as exc:  # whatever it is, the other door must raise it too
        expected = exc
    if isinstance(expected, Exception):
        with pytest.raises(type(expected)) as raised:
            dispatch.find_record(grid, start, goal, options)
        assert str(raised.value) == str(expected)
        return "error"
    record = dispatch.find_record(grid, start, goal, options)
    assert list(record) == ["status", "points", "nodes", "cost", "expanded"]
    assert record == expected
    assert type(record["cost"]) is float
    assert type(record["expanded"]) is int
    return str(record["status"])


@pytest.mark.parametrize("diagonal", ["only_if_no_obstacles", "always", "never", "at_least_one_walkable"])
@pytest.mark.parametrize("weighted", [False, True])
def test_records_match_the_answers(diagonal: str, weighted: bool) -> None:
    grid = _grid(diagonal, weighted=weighted)
    options = [
        None,
        QueryOptions(max_expansions=4),
        QueryOptions(allow_partial=True),
        QueryOptions(allow_partial=True, max_expansions=3),
        QueryOptions(heuristic="zero"),
        QueryOptions(size=2),
    ]
    seen = set()
    cells = _cells(grid)
    for opts in options:
        for start, goal in itertools.islice(itertools.product(cells, cells[::3]), 0, None, 4):
            seen.add(_same(grid, start, goal, opts))
    assert seen == {"found", "no_path", "partial", "budget_exhausted", "error"}  # errors: blocked starts


def test_records_with_agents_and_trivial_paths() -> None:
    grid = _grid("only_if_no_obstacles")
    open_cells = [c for c in _cells(grid) if grid.walkable[c[1], c[0]]]
    grid.place_agent(1, open_cells[3])
    grid.place_agent(2, open_cells[7])
    for opts in (
        None,
        QueryOptions(agent=1),
        QueryOptions(ignore_agents=True),
        QueryOptions(agent=1, size=2),
    ):
        for start, goal in itertools.product(open_cells[:6], open_cells[::4]):
            _same(grid, start, goal, opts)
        _same(grid, open_cells[3], open_cells[3], opts)  # start is goal: one point


def test_record_errors_are_find_paths() -> None:
    grid = _grid("always")
    blocked = next(c for c in _cells(grid) if not grid.walkable[c[1], c[0]])
    cases: list[tuple[Any, Any, QueryOptions | None, type[Exception]]] = [
        ((0, 0), (99, 0), None, OutOfBoundsError),
        ((0.5, 0), (1, 1), None, InvalidQueryError),
        (blocked, (0, 0), None, BlockedEndpointError),
        ((0, 0), (1, 1), QueryOptions(agent=9), UnknownPointError),
    ]
    for start, goal, opts, error in cases:
        with pytest.raises(error):
            dispatch.find_record(grid, start, goal, opts)
        assert _same(grid, start, goal, opts) == "error"
