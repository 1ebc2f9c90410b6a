"""An exact grid query is encoded from the search's fields (no PathResult): the same wire map as
the navigator's result encoded, byte for byte, whatever the outcome."""

from __future__ import annotations

import numpy as np
import pytest

from bridge.methods.queries import Query, encode_answer, encode_result, run_query
from python_core import GridGraph, PathResult, PathStatus, QueryOptions
from python_core.errors import BlockedEndpointError, OutOfBoundsError
from python_core.navigation.grid import GridNavigator


def _navigator(world: bool) -> GridNavigator:
    walkable = np.random.default_rng(11).random((10, 14)) > 0.3
    walkable[0, :3] = True
    grid = GridGraph(walkable, diagonal="only_if_no_obstacles", cell_size=(2.0, 0.5), origin=(1.0, -3.0))
    grid.place_agent(1, (2, 0))
    return GridNavigator(grid, world=world)


OPTIONS = [
    QueryOptions(),
    QueryOptions(allow_partial=True),
    QueryOptions(max_expansions=2),
    QueryOptions(max_expansions=2, allow_partial=True),
    QueryOptions(size=2),
    QueryOptions(ignore_agents=True),
    QueryOptions(agent=1),
]


@pytest.mark.parametrize("options", OPTIONS)
def test_the_wire_map_is_the_results(options: QueryOptions) -> None:
    nav = _navigator(world=False)
    opened = np.argwhere(nav.grid.walkable)
    statuses = set()
    for (sy, sx), (gy, gx) in zip(opened[::5], opened[::-3], strict=False):
        start, goal = (int(sx), int(sy)), (int(gx), int(gy))
        try:
            want = encode_result(nav.find_path(start, goal, options), 2)
        except BlockedEndpointError:  # a size-2 start without room
            continue
        got = run_query(nav, Query("g", start, goal, options, cells=True))
        assert got == want
        statuses.add(got["status"])
    assert statuses  # found, no path, partial or budget, by the options


def test_world_positions_budgets_and_errors() -> None:
    nav = _navigator(world=True)
    opened = np.argwhere(nav.grid.walkable)
    for (sy, sx), (gy, gx) in zip(opened[::7], opened[::-4], strict=False):
        start, goal = (int(sx), int(sy)), (int(gx), int(gy))
        ends = nav.grid.cell_to_world(start), nav.grid.cell_to_world(goal)
        query = Query("g", *ends, QueryOptions(max_expansions=10**6))
        assert run_query(nav, query) == encode_result(nav.find_path(start, goal, query.options), 2)
        budget = QueryOptions(max_expansions=1)
        assert run_query(nav, query, 1) == encode_result(nav.find_path(start, goal, budget), 2)
    with pytest.raises(OutOfBoundsError):
        run_query(nav, Query("g", (0, 0), (14, 0), QueryOptions(), cells=True))


def test_encode_answer_is_encode_result() -> None:
    result = PathResult(PathStatus.FOUND, np.array([[1.0, 2.0]]), np.array([3]), 0.0, 0)
    fields = (result.status, result.points, result.nodes, result.cost, result.expanded)
    assert encode_answer(*fields, 2) == encode_result(result, 2)
    odd = encode_answer(PathStatus.PARTIAL, np.array([1, 2, 3, 4]), np.array([1, 2], np.int32), 1, 5, 2)
    assert odd["points"] == np.array([[1, 2], [3, 4]], "<f4").tobytes()
    assert odd["nodes"] == np.array([1, 2], "<i8").tobytes()
