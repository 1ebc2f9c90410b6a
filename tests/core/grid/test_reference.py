"""A* on grids: outcomes (found, no path, partial, budget), query errors, tie-breaking, the kernel.

Each query test runs on the reference A* and on the door users call (``GridGraph.find_path``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from python_core._types import DIAG_NEVER, SEARCH_FOUND, SEARCH_NO_PATH
from python_core.errors import BlockedEndpointError, InvalidQueryError, OutOfBoundsError
from python_core.grid import GridGraph
from python_core.grid.search.heuristics import HEURISTIC_CODES
from python_core.grid.search.reference import astar_grid, run_grid_search, walk_parents
from python_core.result import PathStatus, QueryOptions
from tests.core.grid.conftest import Finder

ROOMS = GridGraph.from_strings(
    [
        "......@....",
        "......@....",
        "......@....",
        "@@@@@.@@@..",
        "...........",
    ],
    diagonal="only_if_no_obstacles",
)
# Cell (5, 0) is a walled pocket nobody can reach; 15 cells are reachable from (0, 0).
POCKET = GridGraph.from_strings(["....@.@", "....@@@", "......."], diagonal="never")


def test_start_equals_goal_is_found_with_cost_zero_and_one_point(find: Finder) -> None:
    result = find(ROOMS, (2, 2), (2, 2))
    assert result.status is PathStatus.FOUND
    assert result.cost == 0.0
    assert len(result) == 1
    assert result.nodes.tolist() == [2 * 11 + 2]


def test_found_path_is_optimal_and_connected(find: Finder) -> None:
    result = find(ROOMS, (0, 0), (10, 0))
    assert result.found
    assert result.cost == pytest.approx(12 + 3 * math.sqrt(2))  # by hand: (5, 2), down to row 4, east, up
    cells = result.points.astype(int)
    steps = np.abs(np.diff(cells, axis=0))
    assert steps.max() == 1
    assert (steps.sum(axis=1) >= 1).all()


def test_unreachable_goal_gives_no_path_with_empty_path(find: Finder) -> None:
    result = find(POCKET, (0, 0), (5, 0))
    assert result.status is PathStatus.NO_PATH
    assert len(result) == 0
    assert result.nodes.size == 0
    assert result.cost == math.inf
    assert result.expanded == 15  # every reachable cell was expanded


def test_allow_partial_leads_to_the_reachable_cell_nearest_the_goal(find: Finder) -> None:
    result = find(POCKET, (0, 0), (5, 0), options=QueryOptions(allow_partial=True))
    assert result.status is PathStatus.PARTIAL
    # (3, 0) and (5, 2) are both 2 away from the goal; the tie goes to the smaller g (3 < 7)
    assert result.points[-1].tolist() == [3.0, 0.0]
    assert result.cost == 3.0
    assert result.nodes.tolist() == [0, 1, 2, 3]


def test_blocked_goal_is_no_path_not_an_error_as_in_godot(find: Finder) -> None:
    result = find(POCKET, (0, 0), (4, 0))
    assert result.status is PathStatus.NO_PATH
    assert result.expanded == 0
    partial = find(POCKET, (0, 0), (4, 0), options=QueryOptions(allow_partial=True))
    assert partial.status is PathStatus.PARTIAL
    assert len(partial) > 0


def test_budget_exhausted_without_and_with_partial(find: Finder) -> None:
    plain = find(ROOMS, (0, 0), (10, 0), options=QueryOptions(max_expansions=5))
    assert plain.status is PathStatus.BUDGET_EXHAUSTED
    assert len(plain) == 0
    assert plain.expanded == 5
    assert plain.cost == math.inf
    partial = find(ROOMS, (0, 0), (10, 0), options=QueryOptions(max_expansions=5, allow_partial=True))
    assert partial.status is PathStatus.BUDGET_EXHAUSTED
    assert len(partial) >= 1
    assert partial.points[0].tolist() == [0.0, 0.0]
    assert math.isfinite(partial.cost)


def test_budget_that_suffices_finds_the_path(find: Finder) -> None:
    full = find(ROOMS, (0, 0), (10, 0))
    again = find(ROOMS, (0, 0), (10, 0), options=QueryOptions(max_expansions=full.expanded))
    assert again.found
    assert again.cost == full.cost
    short = find(ROOMS, (0, 0), (10, 0), options=QueryOptions(max_expansions=full.expanded - 1))
    assert short.status is PathStatus.BUDGET_EXHAUSTED


def test_zero_budget_still_answers_start_equals_goal(find: Finder) -> None:
    assert find(ROOMS, (1, 1), (1, 1), options=QueryOptions(max_expansions=0)).found


@pytest.mark.parametrize("heuristic", ["octile", "euclidean", "chebyshev", "zero"])
def test_admissible_heuristics_agree_on_the_cost(find: Finder, heuristic: str) -> None:
    result = find(ROOMS, (0, 0), (10, 0), options=QueryOptions(heuristic=heuristic))
    assert result.cost == pytest.approx(12 + 3 * math.sqrt(2))


def test_octile_expands_fewer_nodes_than_dijkstra(find: Finder) -> None:
    octile = find(ROOMS, (0, 4), (10, 4))
    dijkstra = find(ROOMS, (0, 4), (10, 4), options=QueryOptions(heuristic="zero"))
    assert octile.expanded < dijkstra.expanded


def test_results_are_deterministic(find: Finder) -> None:
    grid = GridGraph(np.ones((12, 12), dtype=bool), diagonal="never")
    first = find(grid, (0, 0), (11, 11))
    for _ in range(3):
        assert find(grid, (0, 0), (11, 11)).nodes.tolist() == first.nodes.tolist()


def test_ties_prefer_the_larger_g_so_few_nodes_are_expanded(find: Finder) -> None:
    # On an open 4-connected grid with Manhattan every node of the rectangle has the same f; preferring
    # the deeper node walks straight to the goal.
    grid = GridGraph(np.ones((20, 20), dtype=bool), diagonal="never")
    result = find(grid, (0, 0), (19, 19))
    assert result.cost == 38.0
    assert result.expanded == 39


@pytest.mark.parametrize("cell", [(11, 0), (-1, 0), (0, 5)])
def test_out_of_bounds_endpoints_raise_out_of_bounds_error_with_the_value(
    find: Finder, cell: tuple[int, int]
) -> None:
    with pytest.raises(OutOfBoundsError, match=rf"start \({cell[0]}, {cell[1]}\)"):
        find(ROOMS, cell, (0, 0))
    with pytest.raises(OutOfBoundsError, match=rf"goal \({cell[0]}, {cell[1]}\)"):
        find(ROOMS, (0, 0), cell)


def test_blocked_start_raises_blocked_endpoint_error(find: Finder) -> None:
    with pytest.raises(BlockedEndpointError, match=r"\(6, 0\)"):
        find(ROOMS, (6, 0), (0, 0))


@pytest.mark.parametrize("cell", [(0.5, 0), (math.nan, 0), (0, math.inf), ("0", 0), (True, 0), (1,), 3, "ab"])
def test_malformed_cells_raise_invalid_query_error(find: Finder, cell: object) -> None:
    with pytest.raises(InvalidQueryError):
        find(ROOMS, cell, (0, 0))  # type: ignore[arg-type]


def test_integral_floats_and_numpy_ints_are_accepted_as_cells(find: Finder) -> None:
    assert find(ROOMS, (0.0, 0.0), (np.int64(2), np.int32(0))).cost == 2.0


@pytest.mark.parametrize(
    "options",
    [
        QueryOptions(heuristic="dijkstra"),
        QueryOptions(max_expansions=-1),
        QueryOptions(max_expansions=2.5),  # type: ignore[arg-type]
        QueryOptions(max_expansions=True),  # type: ignore[arg-type]
        QueryOptions(agent="me"),  # type: ignore[arg-type]
    ],
)
def test_bad_options_raise_invalid_query_error(find: Finder, options: QueryOptions) -> None:
    with pytest.raises(InvalidQueryError):
        find(ROOMS, (0, 0), (1, 0), options=options)


def test_manhattan_is_the_default_on_four_connected_grids(find: Finder) -> None:
    grid = GridGraph(np.ones((5, 5), dtype=bool), diagonal="never")
    explicit = find(grid, (0, 0), (4, 3), options=QueryOptions(heuristic="manhattan"))
    default = find(grid, (0, 0), (4, 3))
    assert default.expanded == explicit.expanded
    assert default.cost == 7.0


def test_kernel_runs_on_plain_buffers() -> None:
    passable = bytearray(b"\x01\x01\x01\x00\x01\x01")  # 3 x 2, (0, 1) blocked
    closed = bytearray(1 - p for p in passable)
    g, parent = [math.inf] * 6, [-1] * 6
    outcome, end, expanded = astar_grid(
        passable, [1.0] * 6, 3, 2, 0, 3, DIAG_NEVER, 1.0, 1.0, HEURISTIC_CODES["zero"], 1.0, -1, -1,
        g, parent, closed,
    )  # fmt: skip
    assert outcome == SEARCH_NO_PATH
    assert end == 0
    assert expanded == 5
    closed = bytearray(1 - p for p in passable)
    g, parent = [math.inf] * 6, [-1] * 6
    outcome, end, _ = astar_grid(
        passable, [1.0] * 6, 3, 2, 0, 5, DIAG_NEVER, 1.0, 1.0, HEURISTIC_CODES["manhattan"], 1.0, -1, -1,
        g, parent, closed,
    )  # fmt: skip
    assert outcome == SEARCH_FOUND
    assert g[5] == 3.0
    assert walk_parents(parent, 5)[0] == 0


def test_run_grid_search_accepts_lists_as_well_as_bytes() -> None:
    result = run_grid_search([1, 1, 1], [1.0] * 3, width=3, height=1, start=0, goal=2, diagonal=DIAG_NEVER)
    assert result.found
    assert result.nodes.tolist() == [0, 1, 2]
