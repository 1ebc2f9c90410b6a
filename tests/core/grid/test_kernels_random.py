"""The compiled kernels against the reference A* on random maps of up to 40 x 40 cells.

Every diagonal mode, every heuristic that is admissible for it, weights, rectangular cells,
partial paths and expansion budgets. Costs must equal the reference's; budgets must be kept.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from python_core.grid import DiagonalMode, GridGraph
from python_core.grid.search import dispatch
from python_core.grid.search.astar import _MOVES
from python_core.grid.search.planned import jps_exact
from python_core.grid.search.prepared import prepared_for
from python_core.grid.search.reference import find_path as reference_path
from python_core.result import PathStatus, QueryOptions

Pairs = list[tuple[tuple[int, int], tuple[int, int]]]
MODE_CODES = {"never": 0, "always": 1, "at_least_one_walkable": 2, "only_if_no_obstacles": 3}
# Move k of the kernels: its (dx, dy), and for diagonals the two orthogonal moves beside it.
MOVES = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, 1), (1, -1), (-1, -1)]


def same_cost(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


@pytest.mark.parametrize("mode", list(MODE_CODES))
def test_move_table_follows_godots_diagonal_rules(mode: str) -> None:
    for around in range(256):
        is_open = {MOVES[k]: bool(around >> k & 1) for k in range(8)}
        for k, (dx, dy) in enumerate(MOVES):
            side_x, side_y = is_open[(dx, 0)] if dx and dy else True, is_open[(0, dy)] if dx and dy else True
            rule = {
                "never": not (dx and dy),
                "always": True,
                "at_least_one_walkable": side_x or side_y,
                "only_if_no_obstacles": side_x and side_y,
            }[mode]
            assert bool(_MOVES[MODE_CODES[mode], around] >> k & 1) == (is_open[(dx, dy)] and rule)


@st.composite
def maps(draw: st.DrawFn) -> tuple[GridGraph, Pairs, str | None]:
    width, height = draw(st.integers(2, 40)), draw(st.integers(2, 40))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    mask = rng.random((height, width)) >= draw(st.sampled_from([0.0, 0.1, 0.25, 0.4]))
    mode = draw(st.sampled_from(list(DiagonalMode)))
    weights = rng.choice([0.5, 1.0, 1.0, 2.0, 4.0], size=mask.shape) if draw(st.booleans()) else None
    cell = draw(st.sampled_from([(1.0, 1.0), (1.0, 1.5), (2.0, 0.5)]))
    grid = GridGraph(mask, diagonal=mode, weights=weights, cell_size=cell)
    ys, xs = np.nonzero(mask)
    pairs = []
    for _ in range(4 if len(xs) else 0):
        i, j = rng.integers(len(xs), size=2)
        pairs.append(((int(xs[i]), int(ys[i])), (int(xs[j]), int(ys[j]))))
    names = ["octile", "euclidean", "chebyshev", "zero"] + (
        ["manhattan"] if mode is DiagonalMode.NEVER else []
    )
    heuristic = draw(st.sampled_from([None, *names]))
    return grid, pairs, heuristic


@settings(max_examples=150, deadline=None)
@given(maps())
def test_costs_and_statuses_equal_the_reference(case: tuple[GridGraph, Pairs, str | None]) -> None:
    grid, pairs, heuristic = case
    for partial in (False, True):
        opts = QueryOptions(heuristic=heuristic, allow_partial=partial)
        for start, goal in pairs:
            ref = reference_path(grid, start, goal, options=opts)
            exact_jps = jps_exact(grid, prepared_for(grid), opts)
            methods: list[dispatch.Method] = ["astar", "auto", "jps"] if exact_jps else ["astar", "auto"]
            for method in methods:
                got = dispatch.find_path(grid, start, goal, options=opts, method=method)
                assert got.status is ref.status, (method, start, goal)
                assert same_cost(got.cost, ref.cost), (method, start, goal, got.cost, ref.cost)


@settings(max_examples=100, deadline=None)
@given(maps(), st.integers(1, 60))
def test_budgets_are_kept_and_what_is_found_is_optimal(
    case: tuple[GridGraph, Pairs, str | None], budget: int
) -> None:
    grid, pairs, heuristic = case
    for start, goal in pairs:
        best = reference_path(grid, start, goal, options=QueryOptions(heuristic=heuristic))
        opts = QueryOptions(heuristic=heuristic, max_expansions=budget)
        got = dispatch.find_path(grid, start, goal, options=opts, method="astar")
        assert got.expanded <= budget
        if got.status is PathStatus.FOUND:
            assert best.status is PathStatus.FOUND
            assert same_cost(got.cost, best.cost)
        elif got.status is PathStatus.BUDGET_EXHAUSTED:
            assert got.expanded == budget
        else:
            assert best.status is PathStatus.NO_PATH
