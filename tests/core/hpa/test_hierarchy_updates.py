"""HPA* local updates (python_core.hpa): walls and weights changed in place give the graph and paths of a
rebuild, time-boxed table repairs keep queries valid, bad repair budgets are refused."""

from __future__ import annotations

import math

import numpy as np
import pytest

from python_core.errors import InvalidGraphError, InvalidQueryError
from python_core.grid import DiagonalMode, GridGraph
from python_core.hpa import HierarchicalGrid
from tests.core.hpa.hierarchy_checks import (
    DATA,
    MODES,
    assert_same_unsmoothed_costs,
    assert_valid,
    check_against_exact,
    random_grid,
    random_pairs,
)


def crossings(hpa: HierarchicalGrid) -> set[tuple[int, int, float]]:
    graph = hpa.graph
    src = np.repeat(np.arange(graph.node_count), np.diff(graph.inter_off))
    cells = zip(
        graph.node_cell[src].tolist(),
        graph.node_cell[graph.inter_dst].tolist(),
        graph.inter_cost.tolist(),
        strict=False,
    )
    return {(a, b, round(c, 9)) for a, b, c in cells}


@pytest.mark.parametrize("mode", MODES)
def test_toggling_100_cells_updates_locally_like_a_rebuild(mode: DiagonalMode) -> None:
    grid = random_grid(21, mode, size=64, weighted=mode is DiagonalMode.ALWAYS)
    hpa = HierarchicalGrid(grid, cluster_size=12).build()
    rng = np.random.default_rng(4)
    cells = rng.integers(0, 64, (100, 2))
    for x, y in cells.tolist():
        hpa.set_walkable([(x, y)], not bool(grid.walkable[y, x]))
    fresh = HierarchicalGrid(
        GridGraph(grid.walkable, diagonal=mode, weights=grid.weights), cluster_size=12
    ).build()
    assert np.array_equal(hpa.graph.node_cell, fresh.graph.node_cell)
    assert np.allclose(hpa.graph.dist_flat, fresh.graph.dist_flat)
    assert crossings(hpa) == crossings(fresh)
    assert np.array_equal(hpa.graph.uniform, fresh.graph.uniform)  # the weight flags too
    check_against_exact(hpa, random_pairs(grid, 40, 9), mean_bound=1.01, worst_bound=1.10)


def test_a_batch_update_on_a_movingai_map_keeps_paths_valid_and_near_optimal() -> None:
    grid = GridGraph.from_movingai(DATA / "den312d.map")
    hpa = HierarchicalGrid(grid, cluster_size=16).build()
    rng = np.random.default_rng(8)
    cells = np.stack((rng.integers(0, grid.width, 100), rng.integers(0, grid.height, 100)), axis=1)
    for value in (False, True):
        hpa.set_walkable(cells[::2] if value else cells, value)
    check_against_exact(hpa, random_pairs(grid, 40, 2), mean_bound=1.01, worst_bound=1.10)


@pytest.mark.parametrize("mode", [DiagonalMode.NEVER, DiagonalMode.ONLY_IF_NO_OBSTACLES])
def test_a_time_boxed_table_repair_keeps_queries_valid_until_refilled(mode: DiagonalMode) -> None:
    """``repair_seconds=0``: a 100-cell update leaves the table's changed rows stale; queries (the
    abstract search from stale clusters) stay valid and within the bounds; refilling gives the
    table of a fresh build, and the same (unsmoothed) costs as that build. On "never" every entrance is
    one pair, so the graph is exact and the table's paths skip the exact check until the update."""
    grid = random_grid(23, mode, size=64)
    hpa = HierarchicalGrid(grid, cluster_size=12, repair_seconds=0).build()
    rng = np.random.default_rng(6)
    cells = np.stack((rng.integers(0, 64, 100), rng.integers(0, 64, 100)), axis=1)
    hpa.set_walkable(cells, ~grid.walkable[cells[:, 1], cells[:, 0]])
    assert 0 < hpa.pending_rows <= hpa.graph.node_count
    pairs = random_pairs(grid, 60, 3)
    check_against_exact(hpa, pairs, mean_bound=1.01, worst_bound=1.10, corridor=False)
    assert hpa.pending_rows > 0  # queries never refill
    assert hpa.refill_table(0.0) == hpa.pending_rows > 0
    assert hpa.refill_table() == hpa.pending_rows == 0
    fresh = HierarchicalGrid(GridGraph(grid.walkable, diagonal=mode), cluster_size=12).build()
    assert np.array_equal(hpa.graph.node_cell, fresh.graph.node_cell)
    np.testing.assert_allclose(hpa.graph.pair_dist, fresh.graph.pair_dist, rtol=1e-6)
    assert_same_unsmoothed_costs(hpa, fresh, pairs, rel=1e-6)  # smoothing may pick among equal paths


def test_a_time_boxed_update_on_a_movingai_map_keeps_paths_valid_and_near_optimal() -> None:
    grid = GridGraph.from_movingai(DATA / "den312d.map")
    hpa = HierarchicalGrid(grid, cluster_size=16, repair_seconds=0.0005).build()
    rng = np.random.default_rng(8)
    cells = np.stack((rng.integers(0, grid.width, 100), rng.integers(0, grid.height, 100)), axis=1)
    for value in (False, True):
        hpa.set_walkable(cells[::2] if value else cells, value)
    assert hpa.pending_rows > 0
    check_against_exact(hpa, random_pairs(grid, 40, 2), mean_bound=1.01, worst_bound=1.10)


@pytest.mark.parametrize("bad", [-1.0, math.inf, math.nan, True, "0.1"])
def test_bad_repair_budgets_are_refused(bad: object) -> None:
    grid = GridGraph(np.ones((8, 8), dtype=bool))
    with pytest.raises(InvalidGraphError, match="repair_seconds"):
        HierarchicalGrid(grid, cluster_size=4, repair_seconds=bad)  # type: ignore[arg-type]
    hpa = HierarchicalGrid(grid, cluster_size=4, repair_seconds=0).build()
    with pytest.raises(InvalidGraphError, match="repair_seconds"):
        hpa.repair_seconds = bad  # type: ignore[assignment]
    assert hpa.repair_seconds == 0.0
    hpa.set_walkable([(5, 4)], False)
    pending = hpa.pending_rows
    with pytest.raises(InvalidQueryError, match="seconds"):
        hpa.refill_table(bad)  # type: ignore[arg-type]
    assert hpa.pending_rows == pending > 0


def test_weight_changes_update_costs() -> None:
    grid = GridGraph(np.ones((1, 12), dtype=bool), diagonal="never")
    hpa = HierarchicalGrid(grid, cluster_size=4).build()
    hpa.set_weights([(5, 0), (9, 0)], 4.0)
    assert hpa.find_path((0, 0), (11, 0)).cost == 17.0
    assert hpa.find_path((11, 0), (0, 0)).cost == 17.0


def test_a_new_weight_on_a_one_weight_map_stops_shape_priced_smoothing() -> None:
    """While every open cell weighs the same the smoother prices lines by shape; a dear band set
    afterwards must be priced by its weights (a shape-priced line would cut straight through)."""
    grid = GridGraph(np.ones((40, 40), dtype=bool), diagonal="always")
    hpa = HierarchicalGrid(grid, cluster_size=8).build()
    band = [(20, y) for y in range(3, 37)]
    hpa.set_weights(band, 30.0)
    for start, goal in (((2, 20), (38, 20)), ((5, 10), (35, 30))):
        exact, raw = grid.find_path(start, goal), hpa.find_path(start, goal, smooth=False)
        got = hpa.find_path(start, goal)
        assert_valid(grid, got, start, goal)
        assert got.cost <= raw.cost + 1e-9
        assert got.cost <= 1.10 * exact.cost
