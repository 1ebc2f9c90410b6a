"""Local updates keep the cached cluster trees: only broken trees are rerun, and every tree, cluster
table and all-pairs table after any sequence of wall and weight changes prices cells exactly as a
fresh build does."""

from __future__ import annotations

import numpy as np
import pytest

from python_core.grid import DiagonalMode, GridGraph
from python_core.hpa import HierarchicalGrid
from python_core.hpa.cluster_search import cluster_rows, cluster_table
from python_core.hpa.cluster_trees import tree_walk
from python_core.hpa.tree_repair import repair_trees

MODES = list(DiagonalMode)


def tree_costs(hpa: HierarchicalGrid, cluster: int) -> np.ndarray:
    """Per tree, the walked cost from its root to every cell of the cluster (inf: unreachable)."""
    graph = hpa.graph
    x0, y0, lw, lh = graph.rect(cluster)
    out = np.empty(lw * lh, dtype=np.int64)
    costs = np.full((graph.trans[cluster].shape[0], lw * lh), np.inf)
    for t, root in enumerate(graph.trans[cluster].tolist()):
        for local in range(lw * lh):
            cell = (local // lw + y0) * graph.width + local % lw + x0
            if graph.walk[cell]:
                costs[t, local] = tree_walk(
                    graph.dirs[cluster][t], x0, y0, lw, graph.width, root, cell, graph.weights, 1.0, 1.0, out
                )[1]
    return costs


def assert_same_as_fresh(hpa: HierarchicalGrid) -> None:
    fresh = HierarchicalGrid(hpa.grid, cluster_size=hpa.graph.csize).build()
    assert fresh.graph.has_trees
    assert hpa.graph.has_trees
    assert np.array_equal(fresh.graph.node_cell, hpa.graph.node_cell)
    np.testing.assert_allclose(hpa.graph.dist_flat, fresh.graph.dist_flat, rtol=1e-9)
    assert hpa.graph.pair_dist.size  # the all-pairs table was repaired, not dropped
    np.testing.assert_allclose(hpa.graph.pair_dist, fresh.graph.pair_dist, rtol=1e-5)
    for cluster in range(hpa.graph.cluster_count):
        np.testing.assert_allclose(tree_costs(hpa, cluster), tree_costs(fresh, cluster), rtol=1e-9)


@pytest.mark.parametrize("mode", MODES)
def test_trees_after_wall_and_weight_changes_price_like_a_fresh_build(mode: DiagonalMode) -> None:
    rng = np.random.default_rng(4)
    weighted = mode is DiagonalMode.AT_LEAST_ONE_WALKABLE
    walk = rng.random((40, 40)) > 0.2
    weights = rng.uniform(1.0, 2.0, (40, 40)) if weighted else None
    hpa = HierarchicalGrid(GridGraph(walk, diagonal=mode, weights=weights), cluster_size=10).build()
    for step in range(6):
        cells = rng.integers(0, 40, (1 if step % 2 else 25, 2))
        flips = ~hpa.grid.walkable[cells[:, 1], cells[:, 0]]
        hpa.set_walkable(cells, flips)
        if weighted:
            hpa.set_weights(rng.integers(0, 40, (5, 2)), rng.uniform(1.0, 3.0, 5))
        assert_same_as_fresh(hpa)


def test_a_new_wall_is_repaired_in_every_tree_and_an_opened_shortcut_is_rerun() -> None:
    side = 16
    walk, weights = np.ones(side * side, np.uint8), np.ones(side * side)
    walk[8 * side : 8 * side + 15] = 0  # a wall across the room, open at its right end
    trans = np.array([0, side - 1, side * (side - 1), side * side - 1, side // 2])
    dirs = np.zeros((trans.shape[0], side * side), np.uint8)
    args = (walk, weights, side, 0, 0, side, side, 3, 1.0, 1.0, trans)
    table = cluster_table(*args, dirs)
    stale = np.zeros(trans.shape[0], np.uint8)
    pillar = 4 * side + 4
    walk[pillar] = 0  # raises a cell or two behind it in some trees: every tree is repaired
    assert repair_trees(*args, dirs, table, np.array([pillar]), 0, stale) == 0
    np.testing.assert_allclose(table, cluster_table(*args, np.zeros_like(dirs)), rtol=1e-12)
    assert (dirs[:, pillar] == 4).all()  # the pillar lost its move in every tree
    walk[4 * side + 12] = 0  # on the diagonal from the top middle to the gap: all below it is raised
    assert repair_trees(*args, dirs, table, np.array([4 * side + 12]), 0, stale) == 1
    assert stale.tolist() == [0, 0, 0, 0, 1]
    cluster_rows(*args, np.flatnonzero(stale), table, dirs)
    np.testing.assert_allclose(table, cluster_table(*args, np.zeros_like(dirs)), rtol=1e-12)
    walk[8 * side + 2] = 0  # no change at all: already a wall
    walk[8 * side + 3] = 1  # a second gap, near the left end: a shortcut for every root
    gap = np.array([8 * side + 2, 8 * side + 3])
    assert repair_trees(*args, dirs, table, gap, 0, stale) == 5
    cluster_rows(*args, np.flatnonzero(stale), table, dirs)
    np.testing.assert_allclose(table, cluster_table(*args, np.zeros_like(dirs)), rtol=1e-12)
