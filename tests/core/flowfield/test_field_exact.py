"""Flow fields are exact: every computed cell's cost equals scipy's Dijkstra from the goal set,
and following the directions from it costs exactly that (every diagonal mode, weights, goal sets,
agents, tiles from an HPA* hierarchy or without one, a Moving AI map)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from python_core.errors import InvalidQueryError, OutOfBoundsError
from python_core.flowfield import GOAL, UNREACHABLE, WALL, FlowField
from python_core.flowfield.moves import DX, DY
from python_core.grid import DiagonalMode, GridGraph
from python_core.hpa import HierarchicalGrid
from tests.core.flowfield.oracle import goal_costs

MODES = list(DiagonalMode)


def _random_grid(seed: int, mode: DiagonalMode, *, weighted: bool, side: int = 24) -> GridGraph:
    rng = np.random.default_rng(seed)
    walk = rng.random((side, side + 5)) > 0.28
    weights = rng.choice([0.5, 1.0, 1.0, 3.0], size=walk.shape) if weighted else None
    return GridGraph(walk, diagonal=mode, weights=weights, cell_size=(1.0, 1.5) if weighted else 1.0)


def check_field(field: FlowField, expected: np.ndarray) -> int:
    """Every computed cell: cost == oracle, its step plus the next cell's cost == its cost, and in
    closed tiles (a start there needs nothing more) the walk ends on a goal at the cost. Returns
    how many reachable cells were checked."""
    grid = field.grid
    cw, ch = grid.cell_size
    checked = 0
    for tile in field.tiles:
        dirs, costs = field.tile_arrays(tile)
        tx, ty = tile % field.tiles_x, tile // field.tiles_x
        for ly in range(field.cs):
            for lx in range(field.cs):
                x, y = tx * field.cs + lx, ty * field.cs + ly
                if x >= grid.width or y >= grid.height:
                    continue
                want, got, code = expected[y, x], costs[ly, lx], int(dirs[ly, lx])
                if not grid.walkable[y, x]:
                    assert code == WALL
                    assert np.isinf(got)
                    continue
                if np.isinf(want):
                    assert np.isinf(got), (x, y, got)
                    assert code == UNREACHABLE, (x, y, code)
                    continue
                assert got == pytest.approx(want, rel=1e-9, abs=1e-9), (x, y)
                if code != GOAL:  # the step plus the next cell's cost is the cost
                    nx, ny = x + int(DX[code]), y + int(DY[code])
                    step = math.hypot(int(DX[code]) * cw, int(DY[code]) * ch) * grid.weights[ny, nx]
                    assert step + expected[ny, nx] == pytest.approx(want, rel=1e-9, abs=1e-9), (x, y)
                if field.closed[tile]:  # its chains run through computed tiles to a goal
                    walked, end, last = field.follow((x, y))
                    assert last == GOAL, (x, y, end)
                    assert walked == pytest.approx(want, rel=1e-9, abs=1e-9), (x, y)
                checked += 1
    return checked


@pytest.mark.parametrize("mode", MODES, ids=[m.value for m in MODES])
@pytest.mark.parametrize("weighted", [False, True], ids=["uniform", "weighted"])
def test_every_cell_of_a_whole_field_is_exact(mode: DiagonalMode, weighted: bool) -> None:
    grid = _random_grid(3, mode, weighted=weighted)
    goals = [(2, 3), (20, 18), (27, 1)]
    field = FlowField(grid, goals, tile_size=5)
    everywhere = [(x, y) for y in range(0, grid.height, 5) for x in range(0, grid.width, 5)]
    field.extend(everywhere)
    assert len(field.tiles) == field.tiles_x * field.tiles_y
    assert check_field(field, goal_costs(grid, goals)) > 300


@pytest.mark.parametrize("mode", MODES, ids=[m.value for m in MODES])
def test_a_corridor_field_is_exact_where_computed_and_smaller_than_the_map(mode: DiagonalMode) -> None:
    grid = _random_grid(11, mode, weighted=True, side=48)
    hpa = HierarchicalGrid(grid, cluster_size=8).build()
    goals = [(1, 1)]
    field = FlowField(grid, goals, hierarchy=hpa)
    starts = [(x, y) for x, y in [(50, 45), (45, 40), (30, 44)] if grid.walkable[y, x]]
    field.extend(starts)
    expected = goal_costs(grid, goals)
    assert check_field(field, expected) > 0
    for x, y in starts:
        assert field.cost_at((x, y)) == pytest.approx(expected[y, x])


def test_agents_block_other_cells_but_their_own_cell_gets_a_way_out() -> None:
    grid = GridGraph.from_strings(["......", "......", "......"], diagonal="only_if_no_obstacles")
    grid.place_agent(1, (2, 1))
    grid.place_agent(2, (3, 0))
    field = FlowField(grid, [(5, 1)], tile_size=3, agents_block=True)
    field.extend([(0, 0), (2, 1)])
    check_field(field, goal_costs(grid, [(5, 1)], agents_block=True))
    assert field.direction_at((2, 1)) is not None
    assert field.direction_at((2, 1)) < GOAL
    ignoring = FlowField(grid, [(5, 1)], tile_size=3)
    ignoring.extend([(0, 1)])
    assert ignoring.cost_at((0, 1)) == 5.0


def test_zero_weights_and_unreachable_pockets() -> None:
    walk = np.ones((9, 9), dtype=bool)
    walk[4, :] = False  # the lower half cannot reach the goal
    weights = np.ones((9, 9))
    weights[1, 1:8] = 0.0
    grid = GridGraph(walk, diagonal="always", weights=weights)
    field = FlowField(grid, [(0, 0)], tile_size=3)
    field.extend([(8, 8), (8, 2)])
    expected = goal_costs(grid, [(0, 0)])
    check_field(field, expected)
    assert field.direction_at((8, 8)) == UNREACHABLE
    assert field.cost_at((8, 8)) == np.inf


def test_a_goal_on_a_wall_is_never_reached_and_goal_sets_take_the_nearest() -> None:
    grid = GridGraph.from_strings(["..@...", "......"], diagonal="never")
    field = FlowField(grid, [(2, 0), (5, 1)], tile_size=2)
    field.extend([(0, 0)])
    assert field.cost_at((0, 0)) == 6.0
    assert field.cost_at((2, 0)) == np.inf
    assert field.direction_at((2, 0)) == WALL
    assert field.direction_at((5, 1)) == GOAL


def test_bad_input_raises_named_errors_and_keeps_the_field() -> None:
    grid = GridGraph.from_strings(["....", "...."])
    with pytest.raises(InvalidQueryError):
        FlowField(grid, [])
    with pytest.raises(OutOfBoundsError):
        FlowField(grid, [(9, 9)])
    with pytest.raises(InvalidQueryError):
        FlowField(grid, [(0, 0)], tile_size=1)
    field = FlowField(grid, [(0, 0)], tile_size=2)
    field.extend([(3, 1)])
    with pytest.raises(OutOfBoundsError):
        field.extend([(3, 1), (4, 0)])
    with pytest.raises(InvalidQueryError):
        field.tile_arrays(99)
    assert field.cost_at((3, 1)) == pytest.approx(2 + 2**0.5)


@pytest.mark.parametrize(("name", "cluster"), [("den312d", 16), ("maze-100-1", 8)])
def test_a_moving_ai_map_sampled(name: str, cluster: int) -> None:
    """A few starts: every computed cell exact, and the field a part of the map (the tiles the
    starts' optimal paths cross: on the maze that is most of it)."""
    grid = GridGraph.from_movingai(f"tests/data/movingai/{name}.map")
    hpa = HierarchicalGrid(grid, cluster_size=cluster).build()
    rng = np.random.default_rng(5)
    ys, xs = np.nonzero(grid.walkable)
    cells = list(zip(xs.tolist(), ys.tolist(), strict=True))
    picks = rng.choice(len(cells), size=4, replace=False).tolist()
    goals = [cells[picks[0]], cells[picks[1]]]
    field = FlowField(grid, goals, hierarchy=hpa)
    field.extend([cells[picks[2]], cells[picks[3]]])
    expected = goal_costs(grid, goals)
    assert check_field(field, expected) > 100
    assert len(field.tiles) < field.tiles_x * field.tiles_y
