"""HPA* with a second level (levels=2): the same paths as one level with an exact abstract search,
in every diagonal mode, with and without trees and tables; local updates equal to a rebuild;
progress over clusters then regions; typed errors for bad level options."""

from __future__ import annotations

import numpy as np
import pytest

from python_core.errors import InvalidGraphError
from python_core.grid import DiagonalMode, GridGraph
from python_core.hpa import HierarchicalGrid
from tests.core.hpa.test_hierarchy import assert_same_unsmoothed_costs, random_grid, random_pairs

MODES = list(DiagonalMode)
BUDGETS = [(0, 0), (64 << 20, 0), (64 << 20, 64 << 20)]  # (trees, level-2 table)


def two_levels(grid: GridGraph, trees: int, table: int) -> HierarchicalGrid:
    return HierarchicalGrid(
        grid, cluster_size=8, levels=2, region_clusters=3, tree_budget=trees, table_budget=table,
        abstract_weight=1.0,
    ).build()  # fmt: skip


def assert_like_a_fresh_build(
    hpa: HierarchicalGrid, fresh: HierarchicalGrid, queries: int, rng: np.random.Generator
) -> None:
    """Level 2 after updates equals a fresh build's: nodes, region tables, table, path costs."""
    got, want = hpa.upper, fresh.upper
    assert got is not None
    assert want is not None
    assert np.array_equal(got.cell2, want.cell2)
    np.testing.assert_allclose(got.dist2, want.dist2, rtol=1e-9)
    np.testing.assert_allclose(got.pair_dist, want.pair_dist, rtol=1e-5)
    pairs = random_pairs(hpa.grid, queries, int(rng.integers(99)))
    assert_same_unsmoothed_costs(hpa, fresh, pairs, rel=1e-6)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("trees", "table"), BUDGETS)
def test_two_levels_find_the_one_level_exact_abstract_cost(
    mode: DiagonalMode, trees: int, table: int
) -> None:
    grid = random_grid(7, mode, size=96, weighted=mode is DiagonalMode.AT_LEAST_ONE_WALKABLE)
    upper = two_levels(grid, trees, table)
    assert upper.upper is not None
    assert upper.upper.region_count == 16
    assert bool(upper.upper.pair_dist.size) == bool(table)
    one = HierarchicalGrid(
        grid, cluster_size=8, tree_budget=trees, table_budget=0, abstract_weight=1.0
    ).build()
    pairs = random_pairs(grid, 80, 3)
    crossing = [(s, g) for s, g in pairs if s[0] // 24 != g[0] // 24 or s[1] // 24 != g[1] // 24]
    assert len(crossing) > 40  # most pairs lie in different regions: level 2 answers them
    assert_same_unsmoothed_costs(upper, one, pairs, rel=1e-6)
    for start, goal in pairs[:10]:  # smoothing applies as on one level
        smoothed, plain = upper.find_path(start, goal), upper.find_path(start, goal, smooth=False)
        assert smoothed.status is plain.status
        assert smoothed.cost <= plain.cost + 1e-9


@pytest.mark.parametrize("mode", [DiagonalMode.NEVER, DiagonalMode.ONLY_IF_NO_OBSTACLES])
@pytest.mark.parametrize(("trees", "table"), BUDGETS)
def test_level_two_after_local_updates_equals_a_fresh_build(
    mode: DiagonalMode, trees: int, table: int
) -> None:
    grid = random_grid(11, mode, size=96)
    hpa = two_levels(grid, trees, table)
    rng = np.random.default_rng(2)
    for _ in range(3):
        cells = rng.integers(0, 96, (30, 2))
        hpa.set_walkable(cells, ~grid.walkable[cells[:, 1], cells[:, 0]])
        assert_like_a_fresh_build(hpa, two_levels(grid, trees, table), 40, rng)


@pytest.mark.parametrize(("trees", "table"), BUDGETS)
def test_level_two_after_single_cells_equals_a_fresh_build(trees: int, table: int) -> None:
    """One cell at a time: where level 1 keeps its nodes and crossings (a cell inside a
    cluster), level 2 writes its repriced regions over the old ones; every kind of toggle leaves
    the same level 2 as a fresh build, and the in-place path ran."""
    grid = random_grid(12, DiagonalMode.ONLY_IF_NO_OBSTACLES, size=96)
    hpa = two_levels(grid, trees, table)
    rng = np.random.default_rng(4)
    kept = 0
    for _ in range(16):
        cell = rng.integers(0, 96, 2)
        hpa.set_walkable([cell], not grid.walkable[cell[1], cell[0]])
        kept += hpa.graph.nodes_kept
        assert_like_a_fresh_build(hpa, two_levels(grid, trees, table), 20, rng)
    assert 0 < kept < 16, kept


def test_progress_counts_clusters_then_regions() -> None:
    calls: list[tuple[int, int]] = []
    grid = random_grid(1, DiagonalMode.ALWAYS, size=64)
    HierarchicalGrid(grid, cluster_size=8, levels=2, region_clusters=4).build(
        progress=lambda done, total: calls.append((done, total))
    )
    assert {t for _, t in calls} == {64 + 4}
    assert [d for d, _ in calls] == sorted({d for d, _ in calls})
    assert calls[-1] == (68, 68)


def test_bad_level_options_raise_typed_errors() -> None:
    grid = GridGraph.from_strings(["...."] * 4)
    for bad in (0, 3, True, 2.0):
        with pytest.raises(InvalidGraphError):
            HierarchicalGrid(grid, levels=bad)  # type: ignore[arg-type]
    for bad_region in (1, True, 4.0):
        with pytest.raises(InvalidGraphError):
            HierarchicalGrid(grid, levels=2, region_clusters=bad_region)  # type: ignore[arg-type]
