"""Agents as dynamic obstacles: they block others, never themselves, and move cheaply."""

from __future__ import annotations

import numpy as np
import pytest

from python_core.errors import BlockedEndpointError, InvalidQueryError, OutOfBoundsError, UnknownPointError
from python_core.grid import GridGraph
from python_core.result import PathStatus, QueryOptions
from tests.core.grid.conftest import Finder

# A short corridor (row 1) and a long way round (row 3).
LAYOUT = [
    "@@@@@@@",
    ".......",
    ".@@@@@.",
    ".......",
]


def corridor() -> GridGraph:
    return GridGraph.from_strings(LAYOUT, diagonal="never")


def test_agents_block_the_corridor_and_the_path_goes_around(find: Finder) -> None:
    grid = corridor()
    assert find(grid, (0, 1), (6, 1)).cost == 6.0
    grid.place_agent(1, (3, 1))
    around = find(grid, (0, 1), (6, 1))
    assert around.found
    assert around.cost == 10.0
    assert 1 * 7 + 3 not in around.nodes.tolist()


def test_the_querying_agent_does_not_block_itself(find: Finder) -> None:
    grid = corridor()
    grid.place_agent(1, (0, 1))
    grid.place_agent(2, (3, 1))
    mine = find(grid, (3, 1), (6, 1), options=QueryOptions(agent=2))
    assert mine.cost == 3.0
    # agent 1 plans through the corridor only if agent 2 does not block it
    assert find(grid, (0, 1), (6, 1), options=QueryOptions(agent=1)).cost == 10.0
    # agent 2 stands on (3, 1); if it plans a path back through its own cell, that cell is open
    assert find(grid, (2, 1), (4, 1), options=QueryOptions(agent=2)).cost == 2.0


def test_moving_an_agent_away_reopens_the_short_path(find: Finder) -> None:
    grid = corridor()
    grid.place_agent(7, (3, 1))
    assert find(grid, (0, 1), (6, 1)).cost == 10.0
    grid.move_agent(7, (3, 3))
    assert find(grid, (0, 1), (6, 1)).cost == 6.0
    assert grid.agents == {7: (3, 3)}
    grid.remove_agent(7)
    assert len(grid.agents) == 0


def test_ignore_agents_plans_through_them(find: Finder) -> None:
    grid = corridor()
    grid.place_agent(1, (3, 1))
    grid.place_agent(2, (3, 3))
    assert find(grid, (0, 1), (6, 1)).status is PathStatus.NO_PATH
    assert find(grid, (0, 1), (6, 1), options=QueryOptions(ignore_agents=True)).cost == 6.0


def test_goal_occupied_by_another_agent_plans_as_blocked(find: Finder) -> None:
    grid = corridor()
    grid.place_agent(1, (6, 1))
    assert find(grid, (0, 1), (6, 1)).status is PathStatus.NO_PATH
    partial = find(grid, (0, 1), (6, 1), options=QueryOptions(allow_partial=True))
    assert partial.status is PathStatus.PARTIAL
    assert partial.points[-1].tolist() in ([5.0, 1.0], [6.0, 2.0])
    # the occupying agent itself may plan to its own cell
    assert find(grid, (0, 1), (6, 1), options=QueryOptions(agent=1)).cost == 6.0


def test_a_start_shared_with_another_agent_is_not_blocked(find: Finder) -> None:
    grid = corridor()
    grid.place_agent(1, (0, 1))
    assert find(grid, (0, 1), (6, 1)).cost == 6.0


def test_two_agents_on_one_cell_still_block_either_of_them(find: Finder) -> None:
    grid = corridor()
    grid.place_agent(1, (3, 1))
    grid.place_agent(2, (3, 1))
    assert find(grid, (0, 1), (6, 1), options=QueryOptions(agent=1)).cost == 10.0
    grid.remove_agent(2)
    assert find(grid, (0, 1), (6, 1), options=QueryOptions(agent=1)).cost == 6.0


def test_agents_change_corner_cutting_like_walls(find: Finder) -> None:
    grid = GridGraph(np.ones((2, 2), dtype=bool), diagonal="only_if_no_obstacles")
    grid.place_agent(5, (1, 0))
    assert find(grid, (0, 0), (1, 1)).cost == 2.0


def test_walls_still_block_the_start_of_an_agent(find: Finder) -> None:
    grid = corridor()
    grid.place_agent(1, (1, 2))  # on a wall: allowed, the wall blocks anyway
    with pytest.raises(BlockedEndpointError):
        find(grid, (1, 2), (0, 1), options=QueryOptions(agent=1))


def test_agent_errors_name_the_exact_class(find: Finder) -> None:
    grid = corridor()
    grid.place_agent(1, (0, 1))
    with pytest.raises(InvalidQueryError, match="already placed"):
        grid.place_agent(1, (2, 1))
    with pytest.raises(InvalidQueryError, match="agent id"):
        grid.place_agent("a", (2, 1))  # type: ignore[arg-type]
    with pytest.raises(InvalidQueryError, match="agent id"):
        grid.place_agent(True, (2, 1))
    with pytest.raises(OutOfBoundsError):
        grid.place_agent(2, (7, 1))
    with pytest.raises(OutOfBoundsError):
        grid.move_agent(1, (0, 9))
    with pytest.raises(UnknownPointError, match="no agent with id 9"):
        grid.move_agent(9, (0, 1))
    with pytest.raises(UnknownPointError):
        grid.remove_agent(9)
    with pytest.raises(UnknownPointError):
        find(grid, (0, 1), (6, 1), options=QueryOptions(agent=9))
    assert grid.agents == {1: (0, 1)}  # failed calls changed nothing
    assert find(grid, (2, 1), (6, 1)).cost == 4.0
