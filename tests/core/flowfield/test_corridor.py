"""A field's corridor on a map of random obstacles stays near the start's optimal paths (issue 41):
the tiles the start tile's chains cross, not every tile those tiles' own chains reach (which on
random obstacles was the whole map); exact against scipy's Dijkstra with and without the landmark
heuristic; open tiles become closed when asked for; the landmark heuristic is consistent at every
move (float32 tables) and narrows the search where the octile bound is weak."""

from __future__ import annotations

import math

import numpy as np
import pytest

from python_core.errors import InvalidQueryError
from python_core.flowfield import GOAL, FlowField, Landmarks
from python_core.flowfield.goal_search import solve_from_goals
from python_core.flowfield.guide import guide_bound, search_guide, tiles_guide
from python_core.flowfield.moves import DX, DY
from python_core.grid import DiagonalMode, GridGraph
from tests.core.flowfield.oracle import goal_costs
from tests.core.flowfield.test_field_exact import check_field

MODES = list(DiagonalMode)


def _random_blocks(mode: DiagonalMode, *, weighted: bool = False, side: int = 48, seed: int = 4) -> GridGraph:
    """10 % random obstacles scaled 2x (as the benchmark's random512-10-0 x8, smaller)."""
    rng = np.random.default_rng(seed)
    walk = np.kron(rng.random((side, side)) > 0.1, np.ones((2, 2), dtype=bool))
    walk[:3, :3] = walk[-3:, -3:] = True
    weights = rng.choice([0.5, 1.0, 2.0], size=walk.shape) if weighted else None
    return GridGraph(walk, diagonal=mode, weights=weights, cell_size=(1.0, 1.25) if weighted else 1.0)


def test_a_corner_to_corner_field_is_its_corridor_not_the_map() -> None:
    """Before: the tiles the chains of every computed tile's cells crossed, closed over: all
    256 tiles here (every tile at 4096 x 4096). Now the start tile's chains only."""
    grid = _random_blocks(DiagonalMode.ONLY_IF_NO_OBSTACLES, side=64)
    field = FlowField(grid, [(1, 1)], tile_size=8)
    field.extend([(126, 126)])
    assert len(field.tiles) < 0.3 * field.known_slot.size
    assert field.closed[field.tile_of((126, 126))]
    assert int(field.closed.sum()) == 1  # the corridor's other tiles are exact, not closed
    assert check_field(field, goal_costs(grid, [(1, 1)])) > 100
    assert field.extend([(120, 125)]) == []  # a start in a closed tile costs nothing


@pytest.mark.parametrize("mode", MODES, ids=[m.value for m in MODES])
@pytest.mark.parametrize("weighted", [False, True], ids=["even", "weighted"])
def test_corridor_fields_are_exact_with_and_without_landmarks(mode: DiagonalMode, weighted: bool) -> None:
    grid = _random_blocks(mode, weighted=weighted, side=24)
    goals = [(1, 1), (2, 30)]
    expected = goal_costs(grid, goals)
    marks = Landmarks.build(grid, tile_size=6, count=3, every_cell=True)
    assert marks.tables is not None
    assert marks.tables.shape[0] == (6 if weighted else 3)  # both ways with uneven weights
    for landmarks in (None, marks):
        field = FlowField(grid, goals, tile_size=6, landmarks=landmarks)
        field.extend([(46, 46)])
        field.extend([(40, 3), (45, 20)])
        assert check_field(field, expected) > 50


def test_a_start_in_an_open_tile_closes_it_and_its_chains_reach_a_goal() -> None:
    grid = _random_blocks(DiagonalMode.ALWAYS, side=32)
    field = FlowField(grid, [(1, 1)], tile_size=8)
    field.extend([(62, 62)])
    open_tiles = [t for t in field.tiles if not field.closed[t]]
    assert open_tiles
    tile = open_tiles[len(open_tiles) // 2]
    x0, y0 = (tile % field.tiles_x) * 8, (tile // field.tiles_x) * 8
    cell = next((x0 + i % 8, y0 + i // 8) for i in range(64) if grid.walkable[y0 + i // 8, x0 + i % 8])
    field.extend([cell])
    assert field.closed[tile]
    expected = goal_costs(grid, [(1, 1)])
    for i in range(64):
        x, y = x0 + i % 8, y0 + i // 8
        if grid.walkable[y, x] and math.isfinite(expected[y, x]):
            cost, _, code = field.follow((x, y))
            assert code == GOAL
            assert cost == pytest.approx(expected[y, x], rel=1e-9)
    check_field(field, expected)


def test_after_a_repair_tiles_are_asked_again_and_stay_exact() -> None:
    grid = _random_blocks(DiagonalMode.ONLY_IF_NO_OBSTACLES, side=32)
    field = FlowField(grid, [(1, 1)], tile_size=8)
    field.extend([(62, 62)])
    ys, xs = np.nonzero(grid.walkable[20:40, 20:40])
    door = (int(xs[0]) + 20, int(ys[0]) + 20)
    grid.set_walkable([door], False)
    field.repair(dearer=[door])
    # new chains may run through open tiles: none is closed unless every tile is computed
    assert (field.known_slot >= 0).all() or not field.closed.any()
    field.extend([(62, 62)])
    assert field.closed[field.tile_of((62, 62))]
    check_field(field, goal_costs(grid, [(1, 1)]))


def _wall_map() -> GridGraph:
    """An open map cut by a wall with a gap at the bottom: from one side to the other the octile
    bound points through the wall, and the search floods the goal's side."""
    walk = np.ones((64, 64), dtype=bool)
    walk[:60, 32] = False
    return GridGraph(walk, diagonal="always")


def test_landmarks_narrow_the_search_where_the_octile_bound_is_weak() -> None:
    grid = _wall_map()
    marks = Landmarks.build(grid, tile_size=8, count=2, every_cell=True)
    settled = []
    for landmarks in (None, marks):
        field = FlowField(grid, [(28, 30)], tile_size=8, landmarks=landmarks)
        asked = np.array([field.tile_of((36, 30))])
        guide = tiles_guide(field, landmarks, asked)
        *_, whole, count = solve_from_goals(field, asked, grid.node_count, guide)
        assert whole
        settled.append(count)
    assert settled[1] < 0.6 * settled[0]  # 1,263 cells against 2,365


@pytest.mark.parametrize("weighted", [False, True], ids=["even", "weighted"])
def test_the_landmark_bound_is_consistent_at_every_move(weighted: bool) -> None:
    """h(v) - h(u) <= cost of the move u -> v for every move (the search's exactness rests on it),
    with float32 tables of costs in the thousands."""
    rng = np.random.default_rng(9)
    walk = rng.random((40, 40)) > 0.15
    weights = rng.choice([1.0, 7.5, 40.0], size=walk.shape) if weighted else None
    grid = GridGraph(walk, diagonal="at_least_one_walkable", weights=weights, cell_size=(1.0, 1.5))
    marks = Landmarks.build(grid, tile_size=8, count=4, every_cell=True)
    ys, xs = np.nonzero(walk)
    targets = (ys * 40 + xs)[rng.choice(xs.size, size=30, replace=False)]
    goals = (ys * 40 + xs)[:3]
    wmin = float(grid.weights[walk].min())
    guide = search_guide(marks, targets, goals, wmin, 1.0)
    assert guide.row.size > 0
    h = np.array([guide_bound(guide, n) for n in range(40 * 40)])
    cw, ch = grid.cell_size
    for y, x in zip(ys.tolist(), xs.tolist(), strict=True):
        for k in range(8):
            nx, ny = x + int(DX[k]), y + int(DY[k])
            if not (0 <= nx < 40 and 0 <= ny < 40 and walk[ny, nx]):
                continue
            if k >= 4 and not (walk[y, nx] or walk[ny, x]):
                continue
            step = math.hypot(DX[k] * cw, DY[k] * ch) * grid.weights[ny, nx]
            assert h[ny * 40 + nx] - h[y * 40 + x] <= step, (x, y, k)


def test_bad_landmark_options_raise_and_tables_are_optional() -> None:
    grid = _random_blocks(DiagonalMode.ALWAYS, side=8)
    with pytest.raises(InvalidQueryError):
        Landmarks.build(grid, tile_size=4, every_cell="yes")  # type: ignore[arg-type]
    marks = Landmarks.build(grid, tile_size=4, count=2)
    assert marks.tables is None
    field = FlowField(grid, [(1, 1)], tile_size=4, landmarks=marks)
    assert field.extend([(14, 14)])
    assert tiles_guide(field, marks, np.array([0])).row.size == 0
