"""Exact grid searches for units of any size (issue 38): the compiled door against the reference,
endpoints, points, world positions, agents with footprints.

The full oracle (scipy's Dijkstra on an independently eroded grid) is test_unit_size_oracle.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from python_core.errors import BlockedEndpointError, InvalidQueryError, OutOfBoundsError
from python_core.grid import DiagonalMode, GridGraph
from python_core.grid.search import dispatch, reference
from python_core.navigation import GridNavigator, PlaceAgent
from python_core.result import PathStatus, QueryOptions

MODES = list(DiagonalMode)

# a 1-cell gap in a wall (x = 4): 1x1 units pass it, 2x2 units go round by the open top or bottom rows
DOOR = [
    "..........",
    "..........",
    "....@.....",
    "....@.....",
    "..........",
    "....@.....",
    "....@.....",
    "....@.....",
    "..........",
    "..........",
]


def random_grid(seed: int, mode: DiagonalMode, *, weighted: bool) -> GridGraph:
    rng = np.random.default_rng(seed)
    mask = rng.random((14, 17)) > 0.22
    weights = rng.uniform(0.5, 3.0, mask.shape) if weighted else None
    return GridGraph(mask, diagonal=mode, weights=weights, cell_size=(1.0, 1.5))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("weighted", [False, True])
def test_sizes_1_to_4_match_the_reference(mode: DiagonalMode, weighted: bool) -> None:
    grid = random_grid(7 + weighted, mode, weighted=weighted)
    rng = np.random.default_rng(1)
    for size in (1, 2, 3, 4):
        fits = np.argwhere(grid.clearance >= size)[:, ::-1]
        for _ in range(12):
            s, t = (tuple(int(v) for v in fits[i]) for i in rng.integers(len(fits), size=2))
            for opts in (QueryOptions(size=size), QueryOptions(size=size, allow_partial=True)):
                want = reference.find_path(grid, s, t, options=opts)
                for method in ("auto", "astar"):
                    got = dispatch.find_path(grid, s, t, options=opts, method=method)
                    assert got.status == want.status, (size, s, t)
                    assert got.cost == pytest.approx(want.cost, rel=1e-12), (size, s, t)
                    shift = ((size - 1) / 2, (size - 1) * 0.75)  # footprint centres, cells 1 x 1.5
                    centres = np.stack([got.nodes % 17 + shift[0], got.nodes // 17 * 1.5 + shift[1]], axis=1)
                    assert np.allclose(got.points, centres)


def test_size_one_options_give_exactly_the_old_answers() -> None:
    grid = random_grid(3, DiagonalMode.ONLY_IF_NO_OBSTACLES, weighted=True)
    s, t = (tuple(int(v) for v in cell[::-1]) for cell in np.argwhere(grid.walkable)[[0, -1]])
    a = grid.find_path(s, t, options=QueryOptions(allow_partial=True))
    b = grid.find_path(s, t, options=QueryOptions(allow_partial=True, size=1))
    assert a.status == b.status
    assert a.cost == b.cost
    assert a.nodes.tolist() == b.nodes.tolist()


@pytest.mark.parametrize("method", ["auto", "astar", "jps"])
def test_a_big_unit_goes_round_the_gap_a_small_one_takes(method: str) -> None:
    grid = GridGraph.from_strings(DOOR, diagonal="only_if_no_obstacles")
    small = grid.find_path((1, 4), (7, 4), method=method)  # type: ignore[arg-type]
    big = grid.find_path((1, 3), (7, 3), options=QueryOptions(size=2), method=method)  # type: ignore[arg-type]
    assert small.found
    assert small.cost == 6.0
    assert 4 in (small.nodes % 10).tolist()  # through the door at (4, 4)
    assert big.found
    assert big.cost > small.cost
    xs, ys = big.nodes % 10, big.nodes // 10
    crossing = ys[xs == 4]  # where its anchor passes the wall's column: above or below the wall
    assert crossing.size
    assert set(crossing.tolist()) <= {0, 8}


def test_points_are_footprint_centres() -> None:
    grid = GridGraph.from_strings(["....", "....", "...."], cell_size=2.0, origin=(1.0, 1.0))
    result = grid.find_path((0, 0), (2, 0), options=QueryOptions(size=2))
    assert result.nodes.tolist() == [0, 1, 2]
    assert result.points.tolist() == [[2.0, 2.0], [4.0, 2.0], [6.0, 2.0]]
    assert grid.cell_to_world((2, 0), size=2) == (6.0, 2.0)
    assert grid.world_to_cell((6.2, 1.5), size=2) == (2, 0)
    assert grid.world_to_cell((7.9, 5.9), size=3) == (1, 0)  # the footprint stays inside the grid


def test_radius_becomes_a_size() -> None:
    grid = GridGraph.from_strings(DOOR, cell_size=0.5)
    by_radius = grid.find_path((1, 3), (7, 3), options=QueryOptions(radius=0.5))  # 1 world unit wide: 2 cells
    by_size = grid.find_path((1, 3), (7, 3), options=QueryOptions(size=2))
    assert by_radius.cost == by_size.cost
    assert by_radius.nodes.tolist() == by_size.nodes.tolist()
    with pytest.raises(InvalidQueryError, match="not both"):
        grid.find_path((1, 3), (7, 3), options=QueryOptions(size=2, radius=0.5))


def test_a_start_without_room_raises_and_a_goal_without_room_is_no_path() -> None:
    grid = GridGraph.from_strings(DOOR)
    for door in (dispatch.find_path, reference.find_path):
        with pytest.raises(BlockedEndpointError, match="size 2: its 2x2 footprint"):
            door(grid, (3, 3), (0, 0), options=QueryOptions(size=2))
        with pytest.raises(BlockedEndpointError, match="size 2"):
            door(grid, (9, 0), (0, 0), options=QueryOptions(size=2))  # the footprint leaves the grid
        assert door(grid, (0, 0), (3, 3), options=QueryOptions(size=2)).status is PathStatus.NO_PATH
        partial = door(grid, (0, 0), (3, 3), options=QueryOptions(size=2, allow_partial=True))
        assert partial.status is PathStatus.PARTIAL
        assert partial.nodes[-1] == 3 * 10 + 2  # nearest anchor with room: (2, 3)
        budget = door(grid, (0, 0), (8, 8), options=QueryOptions(size=2, max_expansions=3))
        assert budget.status is PathStatus.BUDGET_EXHAUSTED


def test_agents_block_by_footprint() -> None:
    grid = GridGraph.from_strings(["......", "......", "......", "......"], diagonal="never")
    grid.place_agent(1, (2, 0), size=2)  # covers (2..3, 0..1)
    assert dict(grid.agent_sizes) == {1: 2}
    for door in (dispatch.find_path, reference.find_path):
        # a size-2 unit anchored at (1, 2) covers (1..2, 2..3): free; at (1, 1) it would meet the agent
        assert door(grid, (0, 2), (1, 2), options=QueryOptions(size=2)).found
        assert not door(grid, (0, 2), (1, 1), options=QueryOptions(size=2)).found
        assert not door(grid, (0, 0), (3, 1)).found  # a goal under the agent's footprint
        assert door(grid, (0, 0), (4, 0)).cost == 8.0  # round it: (2..3, 0..1) are all closed
        # the agent never blocks itself, and ignore_agents sees none
        assert door(grid, (2, 0), (1, 1), options=QueryOptions(size=2, agent=1)).found
        assert door(grid, (0, 0), (4, 0), options=QueryOptions(ignore_agents=True)).found
    assert grid.agents_on([1 * 6 + 1], size=2)
    assert not grid.agents_on([2 * 6 + 1], size=2)
    assert not grid.agents_on([1 * 6 + 1], size=2, besides=1)


def test_agent_sizes_are_checked_moved_and_undone() -> None:
    grid = GridGraph.from_strings(["....", "....", "...."])
    with pytest.raises(OutOfBoundsError, match="size 2"):
        grid.place_agent(1, (3, 0), size=2)
    with pytest.raises(InvalidQueryError, match="size"):
        grid.place_agent(1, (0, 0), size=0)
    assert not grid.agents
    grid.place_agent(1, (0, 0), size=2)
    grid.move_agent(1, (2, 1))
    assert grid.agent_sizes[1] == 2
    with pytest.raises(OutOfBoundsError):
        grid.move_agent(1, (3, 1))
    assert grid.agents[1] == (2, 1)

    def fails() -> None:
        with grid.atomic():
            grid.remove_agent(1)
            grid.place_agent(2, (0, 0), size=3)
            grid.place_agent(4, (1, 1), size=3)  # leaves the grid: all three are undone

    with pytest.raises(OutOfBoundsError):
        fails()
    assert dict(grid.agents) == {1: (2, 1)}
    assert dict(grid.agent_sizes) == {1: 2}
    assert grid.agents_on([2 * 4 + 3])
    assert not grid.agents_on([0])
    grid.remove_agent(1)
    assert not grid.agents_on(np.arange(12))


def test_navigator_places_sized_agents_and_resolves_world_positions_by_size() -> None:
    grid = GridGraph.from_strings(DOOR, origin=(0.5, 0.5))
    nav = GridNavigator(grid, world=True)
    nav.apply([PlaceAgent(3, (6, 0), 2)])
    assert grid.agent_sizes[3] == 2
    assert nav.resolve((7.0, 1.0), QueryOptions(size=2)) == (6, 0)
    assert nav.resolve((7.0, 1.0)) == (7, 1)
    dispatch.prepare(grid)  # what a load does
    assert nav.ready_for(QueryOptions(size=3))  # a uniform grid needs nothing built per size
    weighted = GridNavigator(GridGraph(np.ones((8, 8)), weights=np.arange(64.0).reshape(8, 8) + 1))
    dispatch.prepare(weighted.grid)
    assert weighted.ready_for(QueryOptions(size=1))
    assert not weighted.ready_for(QueryOptions(size=3))  # its footprint-max weights come first
    assert weighted.find_path((0, 0), (5, 5), QueryOptions(size=3)).found
    assert weighted.ready_for(QueryOptions(size=3))
