"""Repair after a change recomputes only the tiles whose costs can change, and stays exact."""

from __future__ import annotations

import numpy as np
import pytest

from python_core.flowfield import FieldCache, FlowField, farthest_visible
from python_core.grid import GridGraph
from tests.core.flowfield.oracle import goal_costs
from tests.core.flowfield.test_field_exact import check_field


def _open_field(mode: str = "only_if_no_obstacles") -> tuple[GridGraph, FlowField]:
    walk = np.ones((40, 40), dtype=bool)
    walk[20, 5:35] = False
    grid = GridGraph(walk, diagonal=mode)
    field = FlowField(grid, [(2, 2)], tile_size=5)
    field.extend([(x, y) for y in range(0, 40, 5) for x in range(0, 40, 5)])
    return grid, field


@pytest.mark.parametrize("mode", ["only_if_no_obstacles", "always", "never", "at_least_one_walkable"])
def test_a_closed_cell_recomputes_only_the_tiles_whose_chains_pass_it(mode: str) -> None:
    grid, field = _open_field(mode)
    total = len(field.tiles)
    grid.set_walkable([(30, 35)], False)  # far below the wall: only chains through it change
    report = field.repair(dearer=[(30, 35)])
    assert 0 < len(report.recomputed) < total // 2
    assert set(report.changed) <= set(report.recomputed)
    check_field(field, goal_costs(grid, [(2, 2)]))


def test_an_opened_gap_recomputes_what_it_shortens_and_stays_exact() -> None:
    grid, field = _open_field()
    grid.set_walkable([(20, 20)], True)
    report = field.repair(cheaper=[(20, 20)])
    assert report.changed
    assert len(report.recomputed) < len(field.tiles)
    check_field(field, goal_costs(grid, [(2, 2)]))
    untouched = FlowField(grid, [(2, 2)], tile_size=5)
    untouched.extend([(0, 0)])
    tile = untouched.tile_of((0, 0))
    assert np.array_equal(untouched.tile_arrays(tile)[1], field.tile_arrays(tile)[1])


def test_weights_both_ways_and_an_unrepaired_change_is_not_served_stale() -> None:
    grid, field = _open_field()
    grid.set_weights([(10, 10), (11, 10)], [4.0, 0.5])
    field.repair(dearer=[(10, 10)], cheaper=[(11, 10)])
    check_field(field, goal_costs(grid, [(2, 2)]))
    grid.set_walkable([(3, 3)], False)  # nobody told the field
    field.extend([(39, 39)])
    check_field(field, goal_costs(grid, [(2, 2)]))


def test_the_cache_shares_fields_repairs_them_and_keeps_within_its_budget() -> None:
    grid = GridGraph(np.ones((30, 30), dtype=bool))
    cache = FieldCache(budget_bytes=8_000)
    a, _field_a, tiles = cache.request("g", grid, [(0, 0)], [(29, 29)], tile_size=5)
    assert tiles
    assert cache.request("g", grid, [(0, 0)], [(29, 29)], tile_size=5)[2] == []
    b, _, _ = cache.request("g", grid, [(29, 0)], [(0, 29)], tile_size=5)
    assert a != b
    grid.set_walkable([(15, 15)], False)
    reports = cache.cells_changed("g", dearer=[(15, 15)])
    assert set(reports) <= {a, b}
    for k in range(6):  # more goal sets than the budget holds: the oldest go
        cache.request("g", grid, [(k * 4, 5)], [(0, 29)], tile_size=5)
    assert cache.nbytes <= 8_000
    assert a not in cache.ids()
    assert cache.evicted > 0


def test_sight_heads_for_the_farthest_visible_cell_down_the_field() -> None:
    grid = GridGraph.from_strings(["..........", "..........", "@@@@@@@@.."], diagonal="only_if_no_obstacles")
    field = FlowField(grid, [(0, 0)], tile_size=5)
    field.extend([(9, 2)])
    target = farthest_visible(field, (9, 2))
    assert target != (9, 2)
    assert field.cost_at(target) < field.cost_at((9, 2))
    assert farthest_visible(field, (0, 0)) == (0, 0)
