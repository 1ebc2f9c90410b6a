"""Local updates keep the cached cluster trees: only broken trees are rerun, and every tree, cluster
table and all-pairs table after any sequence of wall and weight changes prices cells exactly as a
fresh build does."""

from __future__ import annotations

import numpy as np
import pytest

from python_core.grid import DiagonalMode, GridGraph
from python_core.hpa import HierarchicalGrid
from python_core.hpa.graph.cluster_search import NO_PARENT, cluster_rows, cluster_table
from python_core.hpa.graph.cluster_trees import tree_cost, tree_walk
from python_core.hpa.repair.tree_repair import repair_trees
from python_core.hpa.steps import step_allowed

MODES = list(DiagonalMode)
DIAG_CODES = [0, 1, 2, 3]  # never, always, at least one side walkable, both sides (step_allowed)


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
    # the left and middle roots reach most of the lower half through it now (too many lowered
    # cells: rerun); the right ones only the corner under the new gap (lowered in place)
    assert repair_trees(*args, dirs, table, gap, 0, stale) == 3
    assert stale.tolist() == [1, 0, 1, 0, 1]
    cluster_rows(*args, np.flatnonzero(stale), table, dirs)
    assert_exact(args, dirs, table)


def assert_exact(args: tuple, dirs: np.ndarray, table: np.ndarray) -> None:
    """The table is a fresh one, and every tree is a tree of legal moves up to its root whose walked
    cost to every cell is the fresh Dijkstra's (``args``: cluster_table's arguments before dirs)."""
    walk, weights, width, x0, y0, lw, lh, diag, cw, ch, trans = args
    size = lw * lh
    fresh_dirs = np.zeros_like(dirs)
    np.testing.assert_allclose(table, cluster_table(*args, fresh_dirs), rtol=1e-9)
    cells = np.arange(size)
    lx, ly = cells % lw, cells // lw
    open_cells = walk[(ly + y0) * width + lx + x0] != 0
    roots = (trans // width - y0) * lw + trans % width - x0
    for t, root in enumerate(roots.tolist()):
        tree, fresh = dirs[t], fresh_dirs[t]
        reached = (fresh != NO_PARENT) | (cells == root)
        np.testing.assert_array_equal(tree == NO_PARENT, ~reached | (cells == root))
        dx, dy = tree.astype(np.int64) % 3 - 1, tree.astype(np.int64) // 3 - 1
        parent = np.where(reached, cells - dy * lw - dx, cells)
        px, py = lx - dx, ly - dy
        assert ((px >= 0) & (py >= 0) & (px < lw) & (py < lh))[reached].all()
        assert open_cells[reached].all()
        assert open_cells[parent[reached]].all()
        for c in np.flatnonzero(reached & (cells != root)).tolist():
            assert step_allowed(walk, width, int(px[c]) + x0, int(py[c]) + y0, int(dx[c]), int(dy[c]), diag)
        top = parent
        for _ in range(int(np.ceil(np.log2(size))) + 1):  # pointer doubling: a cycle never ends at root
            top = top[top]
        assert (top[reached] == root).all()
        for c in np.flatnonzero(reached).tolist():
            got = tree_cost(tree, lw, width, x0, y0, c, root, weights, cw, ch)
            want = tree_cost(fresh, lw, width, x0, y0, c, root, weights, cw, ch)
            assert got == pytest.approx(want, rel=1e-9, abs=1e-12), (t, c)


def random_cluster(
    rng: np.random.Generator, side: int, density: float, diag: int, *, weighted: bool, ch: float
) -> tuple[tuple, np.ndarray, np.ndarray]:
    """A ``side`` x ``side`` cluster at (3, 2) of a slightly larger grid with random walls, a few
    transitions on its border, its trees and table: ``(args, dirs, table)``."""
    width, height, x0, y0 = side + 5, side + 4, 3, 2
    walk = (rng.random(width * height) > density).astype(np.uint8)
    weights = rng.uniform(1.0, 3.0, width * height) if weighted else np.ones(width * height)
    local = np.arange(side * side)
    lx, ly = local % side, local // side
    border = local[(lx == 0) | (ly == 0) | (lx == side - 1) | (ly == side - 1)]
    picks = rng.choice(border, 6, replace=False)
    trans = np.sort((picks // side + y0) * width + picks % side + x0)
    walk[trans] = 1
    args = (walk, weights, width, x0, y0, side, side, diag, 1.0, ch, trans)
    dirs = np.zeros((trans.shape[0], side * side), np.uint8)
    return args, dirs, cluster_table(*args, dirs)


def change_cells(rng: np.random.Generator, args: tuple, n_open: int, n_close: int) -> np.ndarray:
    """Open ``n_open`` walls and close ``n_close`` open cells (never a transition) of the cluster."""
    walk, _, width, x0, y0, lw, lh, *_, trans = args
    local = np.arange(lw * lh)
    cells = (local // lw + y0) * width + local % lw + x0
    walls = cells[walk[cells] == 0]
    free = np.setdiff1d(cells[walk[cells] != 0], trans)
    opened = rng.choice(walls, min(n_open, walls.shape[0]), replace=False)
    closed = rng.choice(free, min(n_close, free.shape[0]), replace=False)
    walk[opened], walk[closed] = 1, 0
    return np.concatenate((opened, closed)).astype(np.int64)


def repair_and_rerun(args: tuple, dirs: np.ndarray, table: np.ndarray, changed: np.ndarray) -> int:
    """Repair the trees as a local update does, rerun the stale ones; the number rerun."""
    stale = np.zeros(dirs.shape[0], np.uint8)
    n_stale = repair_trees(*args, dirs, table, changed, 0, stale)
    assert n_stale == int(stale.sum())
    cluster_rows(*args, np.flatnonzero(stale), table, dirs)
    return n_stale


@pytest.mark.parametrize("diag", DIAG_CODES)
@pytest.mark.parametrize(("side", "density"), [(32, 0.1), (32, 0.3), (64, 0.2)])
def test_opened_walls_lower_the_trees_to_fresh_costs(diag: int, side: int, density: float) -> None:
    rng = np.random.default_rng(side * 10 + diag + int(density * 100))
    for weighted, ch in ((False, 1.0), (True, 1.5)):
        args, dirs, table = random_cluster(rng, side, density, diag, weighted=weighted, ch=ch)
        kept = 0
        for n_open in (1, 1, 3, 1, 8, 2, 30):
            kept += dirs.shape[0] - repair_and_rerun(args, dirs, table, change_cells(rng, args, n_open, 0))
            assert_exact(args, dirs, table)
        assert kept > 0  # the decrease step keeps trees through openings


@pytest.mark.parametrize("diag", DIAG_CODES)
@pytest.mark.parametrize(("side", "density"), [(32, 0.1), (32, 0.3), (64, 0.2)])
def test_walls_opened_and_closed_at_once_repair_to_fresh_trees(diag: int, side: int, density: float) -> None:
    rng = np.random.default_rng(1000 + side * 10 + diag + int(density * 100))
    for weighted, ch in ((False, 1.0), (True, 0.75)):
        args, dirs, table = random_cluster(rng, side, density, diag, weighted=weighted, ch=ch)
        for n_open, n_close in ((1, 1), (2, 1), (1, 3), (5, 5), (1, 1), (20, 10)):
            repair_and_rerun(args, dirs, table, change_cells(rng, args, n_open, n_close))
            assert_exact(args, dirs, table)


@pytest.mark.parametrize("diag", DIAG_CODES)
def test_an_opened_wall_cell_keeps_the_trees_it_shortens(diag: int) -> None:
    side = 32
    walk, weights = np.ones(side * side, np.uint8), np.ones(side * side)
    walk[16 * side + 10 : 16 * side + 23] = 0  # a wall segment across the middle of an open room
    trans = np.array([8, 14, 18, 24])  # on the top edge: the segment hides the cells below it
    args = (walk, weights, side, 0, 0, side, side, diag, 1.0, 1.0, trans)
    dirs = np.zeros((trans.shape[0], side * side), np.uint8)
    table = cluster_table(*args, dirs)
    gap = 16 * side + 16
    walk[gap] = 1  # a straight way down for every root: each tree lowers the cone under the gap
    stale = np.zeros(trans.shape[0], np.uint8)
    assert repair_trees(*args, dirs, table, np.array([gap]), 0, stale) == 0
    assert_exact(args, dirs, table)
    assert (dirs[:, gap] != NO_PARENT).all()


@pytest.mark.parametrize("diag", DIAG_CODES)
def test_many_small_clusters_through_mixed_changes_keep_fresh_trees(diag: int) -> None:
    # small rooms with many roots meet the rarer cases (a raised cell priced through a diagonal
    # the same change opened) often enough to be caught
    rng = np.random.default_rng(diag + 50)
    for case in range(60):
        args, dirs, table = random_cluster(rng, 12, 0.25, diag, weighted=bool(case % 2), ch=1.0)
        for _ in range(5):
            repair_and_rerun(args, dirs, table, change_cells(rng, args, 2, 2))
            assert_exact(args, dirs, table)


def test_a_raised_cell_priced_below_its_old_cost_lowers_its_neighbours() -> None:
    # Closing X raises the cells past it; one of them is priced by a diagonal that opening O makes
    # legal (at least one side walkable), below its old cost: its settled neighbours gain too.
    rows = ["...X..#", "...#..#", "....O..", "#.##...", "...##.#", "...#...", ".#....."]
    side = len(rows)
    grid = np.array([list(r) for r in rows]).ravel()
    walk, weights = np.isin(grid, [".", "X"]).astype(np.uint8), np.ones(side * side)
    trans = np.array([0])
    args = (walk, weights, side, 0, 0, side, side, 2, 1.0, 1.0, trans)
    dirs = np.zeros((1, side * side), np.uint8)
    table = cluster_table(*args, dirs)
    changed = np.flatnonzero(np.isin(grid, ["X", "O"]))
    walk[changed] ^= 1
    stale = np.zeros(1, np.uint8)
    assert repair_trees(*args, dirs, table, changed, 0, stale) == 0
    assert_exact(args, dirs, table)
