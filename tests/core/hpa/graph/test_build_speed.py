"""What makes a big map's HPA* build cheap (issue 41): entrance merging (fewer transitions where
scattered obstacles cut borders into short entrances, same reachability, updates equal to a
rebuild) and clusters priced on several threads (the same graph as on one)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from python_core._types import DIAG_CODES
from python_core.errors import InvalidGraphError
from python_core.grid import DiagonalMode, GridGraph
from python_core.hpa import HierarchicalGrid
from python_core.hpa.graph.cluster_search import cluster_table
from python_core.hpa.graph.entrance_merging import MERGE_CELLS, MERGE_SPAN, merge_crossings, merge_span_for
from tests.core.hpa.hierarchy_checks import MODES, check_against_exact, random_grid, random_pairs
from tests.core.hpa.test_hierarchy_updates import crossings

# a vertical border at x = 3 | 4 of an 8 x 16 grid: positions t are rows, cells 8 t + 3 -> 8 t + 4
FOUR = np.array([[8 * t + 3, 8 * t + 4] for t in (0, 2, 4, 6)])


def _merge(
    cells: np.ndarray, labels: np.ndarray, weights: np.ndarray, span: int
) -> tuple[list[list[int]], bool]:
    kept, _, merged = merge_crossings(cells, np.ones(cells.shape), labels, weights, 3, 8, 1, span, 3)
    return kept.tolist(), bool(merged)


def test_entrances_joining_the_same_components_merge_into_pieces() -> None:
    labels, weights = np.zeros(128, np.int16), np.ones(128)
    assert _merge(FOUR, labels, weights, 4) == ([[3, 4], [35, 36]], True)  # pieces {0, 2}, {4, 6}
    assert _merge(FOUR, labels, weights, 16) == ([[19, 20]], True)  # one piece: its middlemost
    assert _merge(FOUR, labels, weights, 0) == (FOUR.tolist(), False)  # 0: no merging


def test_entrances_of_other_components_or_weights_are_kept() -> None:
    labels, weights = np.zeros(128, np.int16), np.ones(128)
    labels[[35, 51]] = 1  # the last two entrances start in another component of the left cluster
    assert _merge(FOUR, labels, weights, 16) == (FOUR.tolist(), False)  # two and two: under 3 each
    labels[:] = 0
    weights[51] = 2.0  # one entrance weighs more: the group is left alone
    assert _merge(FOUR, labels, weights, 16) == (FOUR.tolist(), False)
    assert _merge(FOUR[:2], np.zeros(128, np.int16), np.ones(128), 16) == (FOUR[:2].tolist(), False)


def test_auto_merging_starts_at_the_largest_grids() -> None:
    assert merge_span_for(None, MERGE_CELLS - 1) == 0
    assert merge_span_for(None, MERGE_CELLS) == MERGE_SPAN
    assert merge_span_for(0, MERGE_CELLS) == 0
    with pytest.raises(InvalidGraphError, match="merge_span must be an integer >= 0, got -1"):
        HierarchicalGrid(GridGraph(np.ones((8, 8), bool)), cluster_size=4, merge_span=-1)
    with pytest.raises(InvalidGraphError, match="merge_span"):
        HierarchicalGrid(GridGraph(np.ones((8, 8), bool)), cluster_size=4, merge_span=True)


@pytest.mark.parametrize("mode", MODES)
def test_a_merged_graph_is_smaller_and_answers_every_reachable_pair(mode: DiagonalMode) -> None:
    grid = random_grid(5, mode, size=64)
    full = HierarchicalGrid(grid, cluster_size=16, merge_span=0).build()
    merged = HierarchicalGrid(grid, cluster_size=16, merge_span=8).build()
    assert merged.graph.node_count < 0.8 * full.graph.node_count
    assert not merged.graph.exact
    pairs = random_pairs(grid, 30, 2)
    # reachability exact, paths valid and never under the optimum (checked inside), near it
    check_against_exact(merged, pairs, mean_bound=1.1, worst_bound=1.5, corridor=False)


def test_updates_of_a_merged_graph_equal_a_rebuild() -> None:
    grid = random_grid(21, DiagonalMode.ONLY_IF_NO_OBSTACLES, size=64)
    hpa = HierarchicalGrid(grid, cluster_size=16, merge_span=8).build()
    rng = np.random.default_rng(4)
    for x, y in rng.integers(0, 64, (60, 2)).tolist():
        hpa.set_walkable([(x, y)], not bool(grid.walkable[y, x]))
    hpa.set_walkable([(20, y) for y in range(16, 32)], False)  # a wall across a cluster: new components
    fresh = HierarchicalGrid(
        GridGraph(grid.walkable, diagonal=grid.diagonal), cluster_size=16, merge_span=8
    ).build()
    assert np.array_equal(hpa.graph.node_cell, fresh.graph.node_cell)
    assert np.allclose(hpa.graph.dist_flat, fresh.graph.dist_flat)
    assert crossings(hpa) == crossings(fresh)
    check_against_exact(hpa, random_pairs(grid, 20, 3), mean_bound=1.1, worst_bound=1.5, corridor=False)


def _recorder(calls: list[tuple[int, int]]) -> Callable[[int, int], None]:
    return lambda done, total: calls.append((done, total))


def test_a_build_on_threads_equals_one_on_a_single_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    grid = random_grid(8, DiagonalMode.ONLY_IF_NO_OBSTACLES, size=96, weighted=True)
    built = []
    for threads in ("1", "3"):
        monkeypatch.setenv("ASTAR_BUILD_THREADS", threads)
        calls: list[tuple[int, int]] = []
        built.append(HierarchicalGrid(grid, cluster_size=8).build(_recorder(calls)))
        assert calls[-1] == (calls[-1][1], calls[-1][1])  # the last report says done
        assert [d for d, _ in calls] == sorted(d for d, _ in calls)
    one, many = (b.graph for b in built)
    assert one.has_trees
    assert np.array_equal(one.tree_pool, many.tree_pool)
    assert np.array_equal(one.node_cell, many.node_cell)
    assert np.array_equal(one.dist_flat, many.dist_flat)
    assert set(one.phases) == {"labels", "entrances", "cluster tables", "assemble"}


@pytest.mark.parametrize("mode", MODES)
def test_a_one_weight_table_mirrored_equals_every_row_searched(mode: DiagonalMode) -> None:
    grid = random_grid(3, mode, size=24)
    walk = np.asarray(grid.walkable).view(np.uint8).reshape(-1)
    trans = np.flatnonzero(walk[:24])[::2]  # open cells of the top row as transitions
    code = DIAG_CODES[mode]
    none = np.zeros((0, 0), np.uint8)
    args = (walk, np.ones(24 * 24), 24, 0, 0, 24, 24, code, 1.0, 1.0, trans, none)
    mirrored, searched = cluster_table(*args, True), cluster_table(*args, False)
    np.testing.assert_allclose(mirrored, searched, rtol=1e-12)
    assert np.isinf(searched).any() or trans.shape[0] > 2  # a sample with something to mirror
