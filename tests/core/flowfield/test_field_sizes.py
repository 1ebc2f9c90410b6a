"""Flow fields for units of size k: every computed anchor's cost equals scipy's Dijkstra on the grid
eroded for that size (built independently: tests/core/flowfield/sized_oracle.py), following the
directions costs exactly that and keeps the footprint clear on every step (checked cell by cell on
the grid's own cells), under each diagonal mode, with weights, on random maps and a Moving AI map;
a door that closes and opens is repaired back to the oracle's costs; fields are cached per size."""

from __future__ import annotations

import numpy as np
import pytest

from python_core.errors import InvalidQueryError
from python_core.flowfield import GOAL, UNREACHABLE, WALL, FieldCache, FlowField, Landmarks, farthest_visible
from python_core.flowfield.moves import DX, DY
from python_core.grid import DiagonalMode, GridGraph
from tests.core.flowfield.sized_oracle import eroded, footprint_clear, sized_goal_costs

MODES = list(DiagonalMode)


def _random_grid(
    seed: int, mode: DiagonalMode, *, weighted: bool, side: int = 22, walls: float = 0.12
) -> GridGraph:
    rng = np.random.default_rng(seed)
    walk = rng.random((side, side + 3)) > walls
    weights = rng.choice([0.5, 1.0, 1.0, 3.0], size=walk.shape) if weighted else None
    return GridGraph(walk, diagonal=mode, weights=weights, cell_size=(1.0, 1.5) if weighted else 1.0)


def check_sized_field(field: FlowField, expected: np.ndarray, *, walk_every: int = 1) -> int:
    """Every computed anchor: cost == oracle, the byte right for walls and pockets; from every
    ``walk_every``-th reachable anchor, the walk costs the cost and each step is footprint-clear.
    Returns how many reachable anchors were checked."""
    grid, k = field.grid, field.size
    fits, _ = eroded(grid, k)
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
                if not fits[y, x]:
                    assert (code, got) == (WALL, np.inf), (x, y)
                    continue
                if np.isinf(want):
                    assert (code, got) == (UNREACHABLE, np.inf), (x, y)
                    continue
                assert got == pytest.approx(want, rel=1e-9, abs=1e-9), (x, y, k)
                checked += 1
                if checked % walk_every:
                    continue
                walked, _, last = field.follow((x, y))
                assert last == GOAL, (x, y)
                assert walked == pytest.approx(want, rel=1e-9, abs=1e-9), (x, y)
                _assert_clear_walk(field, (x, y))
    return checked


def _assert_clear_walk(field: FlowField, start: tuple[int, int]) -> None:
    here = start
    while (code := field.direction_at(here)) is not None and code < GOAL:
        nxt = (here[0] + int(DX[code]), here[1] + int(DY[code]))
        assert footprint_clear(field.grid, field.size, here, nxt), (here, nxt, field.size)
        here = nxt


@pytest.mark.parametrize("mode", MODES, ids=[m.value for m in MODES])
@pytest.mark.parametrize("size", [1, 2, 3, 4])
def test_a_whole_field_per_size_equals_the_eroded_oracle(mode: DiagonalMode, size: int) -> None:
    grid = _random_grid(7, mode, weighted=size % 2 == 0, walls=0.2 / size)  # room for big units
    goals = [(2, 3), (18, 15), (22, 0)]
    field = FlowField(grid, goals, tile_size=5, size=size)
    field.extend([(x, y) for y in range(0, grid.height, 5) for x in range(0, grid.width, 5)])
    assert len(field.tiles) == field.tiles_x * field.tiles_y
    assert check_sized_field(field, sized_goal_costs(grid, goals, size), walk_every=3) > 40


@pytest.mark.parametrize("size", [2, 3])
def test_a_moving_ai_map_per_size_from_a_few_starts(size: int) -> None:
    """Tiles from the search toward a few starts only: exact where computed, a part of the map."""
    grid = GridGraph.from_movingai("tests/data/movingai/den312d.map")
    fits, _ = eroded(grid, size)
    ys, xs = np.nonzero(fits)
    rng = np.random.default_rng(size)
    picks = rng.choice(xs.size, size=3, replace=False).tolist()
    goals = [(int(xs[picks[0]]), int(ys[picks[0]]))]
    field = FlowField(grid, goals, tile_size=16, size=size)
    field.extend([(int(xs[i]), int(ys[i])) for i in picks[1:]])
    assert 0 < len(field.tiles) < field.tiles_x * field.tiles_y
    assert check_sized_field(field, sized_goal_costs(grid, goals, size), walk_every=7) > 50


def test_a_one_cell_gap_leads_size_one_through_and_size_two_around() -> None:
    rows = [
        "..........",
        "..........",
        "@@@@.@@@..",
        "..........",
        "..........",
    ]
    grid = GridGraph.from_strings(rows, diagonal="only_if_no_obstacles")
    small = FlowField(grid, [(4, 4)], tile_size=5)
    big = FlowField(grid, [(4, 3)], tile_size=5, size=2)
    small.extend([(4, 0)])
    big.extend([(4, 0)])
    assert small.cost_at((4, 0)) == 4.0
    assert (big.cost_at((4, 0)) or 0.0) > 6.0  # around the wall: the 2-wide gap at x = 8, 9
    assert big.direction_at((0, 0)) is not None
    assert check_sized_field(big, sized_goal_costs(grid, [(4, 3)], 2)) > 10


@pytest.mark.parametrize("mode", [DiagonalMode.ONLY_IF_NO_OBSTACLES, DiagonalMode.AT_LEAST_ONE_WALKABLE])
def test_a_door_that_closes_and_opens_is_repaired_to_the_oracle(mode: DiagonalMode) -> None:
    grid = _random_grid(21, mode, weighted=True, side=20)
    grid.set_walkable([(x, 10) for x in range(grid.width)], False)
    door = [(x, 10) for x in range(9, 13)]
    grid.set_walkable(door, True)
    goals = [(3, 2)]
    fields = {k: FlowField(grid, goals, tile_size=4, size=k) for k in (1, 2, 3)}
    for field in fields.values():
        field.extend([(x, y) for y in range(0, grid.height, 4) for x in range(0, grid.width, 4)])
    for closed, shut in ((True, door[1:3]), (False, door[1:3]), (True, door[:1])):
        grid.set_walkable(shut, not closed)
        for k, field in fields.items():
            report = field.repair(dearer=shut if closed else [], cheaper=[] if closed else shut)
            assert report.recomputed, (k, closed)
            check_sized_field(field, sized_goal_costs(grid, goals, k), walk_every=5)


def test_a_weight_change_under_a_footprint_reweighs_the_anchors_that_cover_it() -> None:
    grid = GridGraph(np.ones((8, 8), dtype=bool), diagonal="never")
    field = FlowField(grid, [(5, 5)], tile_size=4, size=3)
    field.extend([(0, 0)])
    assert field.cost_at((0, 0)) == 10.0
    grid.set_weights([(7, 7)], [4.0])  # only the anchors whose 3x3 footprint holds (7, 7): x, y >= 5
    report = field.repair(dearer=[(7, 7)], cheaper=[(7, 7)])
    check_sized_field(field, sized_goal_costs(grid, [(5, 5)], 3))
    assert field.cost_at((0, 0)) == 9.0 + 4.0  # entering the goal (5, 5) costs 4, the rest 1 each
    assert report.changed


def test_the_cache_keeps_a_field_per_size_and_sight_uses_the_footprint() -> None:
    grid = GridGraph.from_strings(["........", "........", "....@...", "........"])
    cache = FieldCache(budget_bytes=1 << 20)
    one, field_1, _ = cache.request("g", grid, [(0, 0)], [(7, 3)], tile_size=4)
    two, field_2, _ = cache.request("g", grid, [(0, 0)], [(6, 2)], tile_size=4, size=2)
    assert one != two
    assert field_1.size == 1
    assert field_2.size == 2
    assert cache.request("g", grid, [(0, 0)], [(6, 0)], tile_size=4, size=2)[0] == two
    # a size-2 unit at (6, 2) cannot see (0, 0) past the wall at (4, 2): its footprint would meet it
    assert farthest_visible(field_2, (6, 2)) != (0, 0)
    assert farthest_visible(field_1, (7, 0)) == (0, 0)
    reports = cache.cells_changed("g", dearer=[(1, 1)])
    assert set(reports) == {one, two}


def test_bad_sizes_are_refused_and_landmarks_are_for_size_one() -> None:
    grid = GridGraph.from_strings(["....", "...."])
    for bad in (0, 256, 1.5, True, "2"):
        with pytest.raises(InvalidQueryError):
            FlowField(grid, [(0, 0)], tile_size=2, size=bad)  # type: ignore[arg-type]
    marks = Landmarks.build(grid, tile_size=2, count=1)
    with pytest.raises(InvalidQueryError):
        FlowField(grid, [(0, 0)], tile_size=2, size=2, landmarks=marks)
    field = FlowField(grid, [(0, 0)], tile_size=2, size=2)
    assert field.extend([(2, 0)])
    assert field.cost_at((2, 0)) == 2.0
    assert field.direction_at((3, 0)) == WALL  # a 2x2 footprint at x = 3 leaves the grid


@pytest.mark.parametrize("size", [1, 2, 3])
def test_agents_block_anchors_whose_footprint_meets_theirs(size: int) -> None:
    grid = GridGraph(np.ones((10, 12), dtype=bool), diagonal="only_if_no_obstacles")
    grid.set_walkable([(x, 5) for x in range(3, 12)], False)  # the way round: x = 0..2
    grid.place_agent(1, (4, 2), size=2)
    grid.place_agent(2, (9, 1))
    everywhere = [(x, y) for y in range(0, 10, 4) for x in range(0, 12, 4)]
    field = FlowField(grid, [(9, 7)], tile_size=4, size=size, agents_block=True)
    field.extend(everywhere)
    assert check_sized_field(field, sized_goal_costs(grid, [(9, 7)], size, agents_block=True)) > 10
    grid.move_agent(1, (1, 4))  # into the way round (agents do not repair a field: a new one)
    fresh = FlowField(grid, [(9, 7)], tile_size=4, size=size, agents_block=True)
    fresh.extend(everywhere)
    check_sized_field(fresh, sized_goal_costs(grid, [(9, 7)], size, agents_block=True))
    assert (fresh.cost_at((0, 0)) == np.inf) == (size > 1)  # one cell (0, 5) is left


@pytest.mark.parametrize("size", [1, 2])
def test_a_pocket_of_many_tiles_is_repaired_when_its_far_door_opens(size: int) -> None:
    """Closing the only door cuts off the whole upper half; opening it again must recompute every
    tile of that pocket, not only the tiles next to the door (which the repair used to do)."""
    walk = np.ones((16, 48), dtype=bool)
    walk[8, :] = False
    walk[8, 44:46] = True
    grid = GridGraph(walk, diagonal="only_if_no_obstacles")
    goals = [(3, 12)]
    field = FlowField(grid, goals, tile_size=8, size=size)
    field.extend([(3, 2)])
    open_cost = field.cost_at((3, 2))
    door = [(44, 8), (45, 8)]
    grid.set_walkable(door, False)
    field.repair(dearer=door)
    assert field.cost_at((3, 2)) == np.inf
    grid.set_walkable(door, True)
    field.repair(cheaper=door)
    assert field.cost_at((3, 2)) == open_cost
    check_sized_field(field, sized_goal_costs(grid, goals, size))
