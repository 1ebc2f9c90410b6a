"""A field's tiles from an A* from the goals (python_core/flowfield/goal_search.py): exact at every
cell handed back (scipy's Dijkstra), chains closed, only the tiles near the search, pockets not
waited for, and one pass over the map when the search gives up."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from python_core.flowfield import FlowField
from python_core.flowfield.goal_search import solve_from_goals
from python_core.grid import DiagonalMode, GridGraph
from python_core.hpa import HierarchicalGrid
from tests.core.flowfield.oracle import goal_costs
from tests.core.flowfield.test_field_exact import check_field

MODES = list(DiagonalMode)
DEN520D = Path(__file__).parents[2] / "data" / "movingai" / "den520d.map"


def _rooms(side: int, mode: DiagonalMode, *, weighted: bool = False, seed: int = 5) -> GridGraph:
    """Rooms of 8 cells with a 2-cell gap in most walls, pillars, optional uneven weights."""
    rng = np.random.default_rng(seed)
    walk = np.ones((side, side), dtype=bool)
    walk[::8, :] = False
    walk[:, ::8] = False
    for y in range(0, side, 8):
        for x in range(0, side, 8):
            if rng.random() < 0.8:
                walk[y, x + 3 : x + 5] = True  # gap in the wall above the room
            if rng.random() < 0.8:
                walk[y + 3 : y + 5, x] = True  # gap in the wall left of it
    walk &= rng.random(walk.shape) > 0.05
    weights = rng.choice([0.5, 1.0, 2.0], size=walk.shape) if weighted else None
    return GridGraph(walk, diagonal=mode, weights=weights)


def _open_near(grid: GridGraph, x: int, y: int, count: int) -> list[tuple[int, int]]:
    cells = [
        (x + dx, y + dy)
        for dy in range(-6, 7)
        for dx in range(-6, 7)
        if 0 <= x + dx < grid.width and 0 <= y + dy < grid.height and grid.walkable[y + dy, x + dx]
    ]
    return cells[:: max(1, len(cells) // count)][:count]


@pytest.mark.parametrize("mode", MODES, ids=[m.value for m in MODES])
@pytest.mark.parametrize("weighted", [False, True], ids=["uniform", "weighted"])
def test_starts_near_the_goals_get_a_few_exact_tiles(mode: DiagonalMode, weighted: bool) -> None:
    grid = _rooms(256, mode, weighted=weighted)
    goals = [(x, y) for x, y in [(81, 81), (82, 81), (81, 82), (84, 86)] if grid.walkable[y, x]]
    field = FlowField(grid, goals, tile_size=8)
    starts = _open_near(grid, 76, 90, 6)
    tiles = field.extend(starts)
    assert 0 < len(tiles) <= 30  # of 1,024: the region solver's octile check took all of them
    expected = goal_costs(grid, goals)
    assert check_field(field, expected) > 50  # exact, and every chain ends on a goal inside
    for x, y in starts:
        assert field.cost_at((x, y)) == pytest.approx(expected[y, x], rel=1e-9)
    # a start far away still gets the region solver's corridor, exact, beside the tiles held
    field.extend([(150, 150)] if grid.walkable[150, 150] else [(151, 150)])
    check_field(field, expected)


def test_agents_and_unreachable_pockets_near_the_goal() -> None:
    grid = _rooms(256, DiagonalMode.ONLY_IF_NO_OBSTACLES, seed=9)
    walk = grid.walkable.copy()
    walk[70:73, 70:73] = False
    walk[71, 71] = True  # an enclosed pocket next to the goal
    walk[74, 74] = True
    grid = GridGraph(walk, diagonal="only_if_no_obstacles")
    goals = [(74, 74)]
    for agent, cell in enumerate([(75, 75), (73, 75), (76, 73)], start=1):
        if grid.walkable[cell[1], cell[0]]:
            grid.place_agent(agent, cell)
    field = FlowField(grid, goals, tile_size=8, agents_block=True)
    tiles = field.extend([(71, 71), (77, 77)])
    assert len(tiles) < 40  # of 1,024
    check_field(field, goal_costs(grid, goals, agents_block=True))
    assert field.cost_at((71, 71)) == np.inf


def test_a_long_way_round_is_exact_and_a_search_past_its_budget_gives_up() -> None:
    # the goal's side opens only far to the east: every cell nearer than the way round is settled
    # first (past half the map, one pass computes every tile)
    walk = np.ones((96, 200), dtype=bool)
    walk[40, 0:180] = False
    grid = GridGraph(walk, diagonal="only_if_no_obstacles")
    field = FlowField(grid, [(20, 38)], tile_size=8)
    tiles = field.extend([(20, 42)])
    expected = goal_costs(grid, [(20, 38)])
    check_field(field, expected)
    assert field.cost_at((20, 42)) == pytest.approx(expected[42, 20], rel=1e-9)
    assert expected[42, 20] > 300  # around the wall's far end
    assert tiles == field.tiles
    asked = np.array([field.tile_of((150, 90))], dtype=np.int64)
    fresh = FlowField(grid, [(20, 38)], tile_size=8)
    tiles, cost, _, whole, settled = solve_from_goals(fresh, asked, 1000)
    assert settled == 1000
    assert not whole
    assert 0 < len(tiles) < 1000 // 64 + 1  # only tiles settled whole
    assert np.isfinite(cost).all(axis=1).any()
    whole = FlowField(grid, [(20, 38)], tile_size=8)
    whole.extend([(x, 95) for x in range(0, 200, 8)])  # most of the map: one pass for every tile
    assert len(whole.tiles) == whole.tiles_x * whole.tiles_y
    check_field(whole, expected)


def test_a_moving_ai_map_near_a_goal_room() -> None:
    grid = GridGraph.from_movingai(DEN520D)
    hpa = HierarchicalGrid(grid, cluster_size=16).build()
    ys, xs = np.nonzero(grid.walkable[100:160, 100:160])
    goals = [(int(x) + 100, int(y) + 100) for x, y in zip(xs[:40], ys[:40], strict=True)]
    field = FlowField(grid, goals, hierarchy=hpa)
    gx, gy = goals[len(goals) // 2]
    starts = _open_near(grid, gx + 10, gy + 10, 8)
    tiles = field.extend(starts)
    assert 0 < len(tiles) <= 32  # of 256
    assert check_field(field, goal_costs(grid, goals)) > 500


def test_far_requests_one_at_a_time_search_at_most_one_map_before_a_fill() -> None:
    """Each search starts at the goals again: a field asked for far tiles one request at a time
    settles at most one map's worth of cells in its searches, then computes every tile left."""
    grid = _rooms(128, DiagonalMode.ONLY_IF_NO_OBSTACLES, seed=3)
    goal = next((x, y) for x, y in [(60, 60), (61, 61), (59, 61), (62, 60)] if grid.walkable[y, x])
    field = FlowField(grid, [goal], tile_size=8)
    ys, xs = np.nonzero(grid.walkable)
    far = [(int(x), int(y)) for x, y in zip(xs, ys, strict=True) if max(abs(x - 60), abs(y - 60)) > 50]
    for cell in far[:: max(1, len(far) // 40)]:
        field.extend([cell])
        assert field._searched <= grid.node_count
    assert len(field.tiles) == field.tiles_x * field.tiles_y  # the fill came
    check_field(field, goal_costs(grid, [goal]))
