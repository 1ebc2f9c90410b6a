"""HPA* all-pairs table repair (python_core.hpa.repair.table_repair): after walls, openings, weight changes
and transitions appearing or vanishing, the repaired table equals a fresh ``all_pairs`` and its
predecessors spell paths of that cost; ``pair_rows`` rewrites only the rows it is given."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt
import pytest

from python_core.grid import DiagonalMode, GridGraph
from python_core.hpa.graph.abstract_graph import AbstractGraph
from python_core.hpa.graph.distance_table import all_pairs, pair_rows
from python_core.hpa.graph.graph_arrays import GraphArrays
from python_core.hpa.repair.table_repair import (
    FRESH_SHARE,
    REPAIR_CHUNK,
    refill_rows,
    repair_pairs,
    repair_within,
)

DIAG = {
    DiagonalMode.NEVER: 0,
    DiagonalMode.ALWAYS: 1,
    DiagonalMode.AT_LEAST_ONE_WALKABLE: 2,
    DiagonalMode.ONLY_IF_NO_OBSTACLES: 3,
}
MODES = list(DIAG)
BIG = 1 << 30

Mutation = Callable[[npt.NDArray[np.uint8], npt.NDArray[np.float64], np.random.Generator], np.ndarray]


class Scene:
    """A random grid, its abstract graph (keeping trees and table), and the live cell arrays."""

    def __init__(
        self,
        seed: int,
        mode: DiagonalMode,
        *,
        size: int = 40,
        csize: int = 8,
        weighted: bool = False,
        fresh_share: float = FRESH_SHARE,
    ) -> None:
        self.fresh_share = fresh_share
        self.rng = np.random.default_rng(seed)
        walk = self.rng.random((size, size)) > 0.28
        weights = self.rng.uniform(1.0, 3.0, (size, size)) if weighted else None
        grid = GridGraph(walk, diagonal=mode, weights=weights)
        self.size, self.csize = size, csize
        self.walk = np.asarray(grid.walkable).view(np.uint8).reshape(-1).copy()
        self.weights = np.asarray(grid.weights).reshape(-1).copy()
        self.graph = AbstractGraph(
            self.walk, self.weights, size, size, csize=csize, diag=DIAG[mode],
            tree_budget=BIG, table_budget=BIG,
        )  # fmt: skip
        self.graph.build()

    def change(self, mutate: Mutation, *, weights_changed: bool = False) -> tuple[GraphArrays, int, int]:
        """Apply ``mutate`` (returns the changed cells), repair, check; return (new, rows, old N)."""
        old = GraphArrays.of(self.graph)
        dist, pred = self.graph.pair_dist.copy(), self.graph.pair_pred.copy()
        cells = np.asarray(mutate(self.walk, self.weights, self.rng), dtype=np.int64)
        self.graph.apply_changes(cells, weights_changed)
        new = GraphArrays.of(self.graph, copy=False)
        got_dist, got_pred, rows = repair_pairs(old, new, dist, pred, fresh_share=self.fresh_share)
        assert 0 <= rows <= new.node_count
        assert_table(new, got_dist, got_pred, all_pairs(*new[1:])[0])
        return new, rows, old.node_count


def edge_matrix(graph: GraphArrays) -> npt.NDArray[np.float64]:
    """Dense ``(N, N)`` cheapest edge cost of the graph (``inf``: no edge; diagonal 0)."""
    n = graph.node_count
    cost = np.full((n, n), np.inf)
    for c in range(graph.cl_first.shape[0] - 1):
        lo, hi = int(graph.cl_first[c]), int(graph.cl_first[c + 1])
        k = hi - lo
        off = int(graph.cl_doff[c])
        cost[lo:hi, lo:hi] = graph.dist_flat[off : off + k * k].reshape(k, k)
    src = np.repeat(np.arange(n), np.diff(graph.inter_off))
    np.minimum.at(cost, (src, graph.inter_dst), graph.inter_cost)
    np.fill_diagonal(cost, 0.0)
    return cost


def assert_table(
    graph: GraphArrays,
    dist: npt.NDArray[np.float32],
    pred: npt.NDArray[np.int32],
    expected: npt.NDArray[np.float32],
) -> None:
    """``dist`` equals ``expected`` (a fresh all_pairs) and every pred chain costs ``dist``."""
    n = graph.node_count
    assert dist.shape == pred.shape == expected.shape == (n, n)
    assert dist.dtype == np.float32
    assert pred.dtype == np.int32
    reach = np.isfinite(expected)
    np.testing.assert_array_equal(np.isfinite(dist), reach)
    np.testing.assert_allclose(dist[reach], expected[reach], rtol=1e-5)
    # Walk every chain at once: sum the new graph's edge costs back to the source.
    cost = edge_matrix(graph)
    src = np.repeat(np.arange(n), n).reshape(n, n)
    cur = np.tile(np.arange(n), (n, 1))
    assert (pred[~reach] == -1).all()
    assert (pred[np.arange(n), np.arange(n)] == -1).all()
    total = np.zeros((n, n))
    live = reach & (cur != src)
    for _ in range(n):
        if not live.any():
            break
        p = pred[src[live], cur[live]].astype(np.int64)
        assert (p >= 0).all()
        total[live] += cost[p, cur[live]]
        cur[live] = p
        live = reach & (cur != src)
    assert not live.any(), "a pred chain does not reach its source"
    np.testing.assert_allclose(total[reach], dist[reach], rtol=1e-5, atol=1e-6)


SHARES = pytest.mark.parametrize(
    "share", [FRESH_SHARE, 2.0, 0.0], ids=["default", "repair-only", "fresh-only"]
)
"""Equivalence tests run with the product's split, with every row repaired by the search, and with
every touched row computed afresh, so both ways stay exact."""


def pick(walk: npt.NDArray[np.uint8], value: int, count: int, rng: np.random.Generator) -> np.ndarray:
    return rng.choice(np.flatnonzero(walk == value), count, replace=False)


def border_cells(size: int, csize: int) -> npt.NDArray[np.int64]:
    """Cells on either side of a cluster border."""
    xs = np.arange(size)
    edge = (xs % csize == 0) | (xs % csize == csize - 1)
    grid = edge[None, :] | edge[:, None]
    return np.flatnonzero(grid)


@pytest.mark.parametrize("mode", MODES)
def test_all_pairs_equals_floyd_warshall(mode: DiagonalMode) -> None:
    """``all_pairs`` spreads through a cluster only from nodes entered by a crossing (and the
    source); relaxing every edge of every node (Floyd-Warshall here) must give the same table."""
    scene = Scene(11, mode, size=48, csize=12, weighted=mode is DiagonalMode.AT_LEAST_ONE_WALKABLE)
    graph = GraphArrays.of(scene.graph)
    closure = edge_matrix(graph)
    for via in range(graph.node_count):
        np.minimum(closure, closure[:, via : via + 1] + closure[via : via + 1, :], out=closure)
    dist, pred = all_pairs(*graph[1:])
    assert_table(graph, dist, pred, closure.astype(np.float32))


def test_pair_rows_writes_only_its_rows() -> None:
    scene = Scene(3, DiagonalMode.ALWAYS, size=24)
    graph = GraphArrays.of(scene.graph)
    full_dist, full_pred = all_pairs(*graph[1:])
    n = graph.node_count
    dist, pred = np.full((n, n), 7.0, np.float32), np.full((n, n), 7, np.int32)
    rows = np.array([0, n // 2, n - 1], dtype=np.int64)
    pair_rows(*graph[1:], rows, dist, pred)
    np.testing.assert_array_equal(dist[rows], full_dist[rows])
    np.testing.assert_array_equal(pred[rows], full_pred[rows])
    others = np.setdiff1d(np.arange(n), rows)
    assert (dist[others] == 7.0).all()
    assert (pred[others] == 7).all()
    np.testing.assert_array_equal(full_dist, scene.graph.pair_dist)


@SHARES
@pytest.mark.parametrize("mode", MODES)
def test_walls_added(mode: DiagonalMode, share: float) -> None:
    scene = Scene(10 + MODES.index(mode), mode, fresh_share=share)
    for count in (1, 4):

        def close(
            walk: np.ndarray, _w: np.ndarray, rng: np.random.Generator, count: int = count
        ) -> np.ndarray:
            cells = pick(walk, 1, count, rng)
            walk[cells] = 0
            return cells

        scene.change(close)


@SHARES
@pytest.mark.parametrize("mode", MODES)
def test_walls_removed(mode: DiagonalMode, share: float) -> None:
    scene = Scene(20 + MODES.index(mode), mode, fresh_share=share)
    for count in (1, 4):

        def open_(
            walk: np.ndarray, _w: np.ndarray, rng: np.random.Generator, count: int = count
        ) -> np.ndarray:
            cells = pick(walk, 0, count, rng)
            walk[cells] = 1
            return cells

        scene.change(open_)


@SHARES
@pytest.mark.parametrize("mode", [DiagonalMode.NEVER, DiagonalMode.ONLY_IF_NO_OBSTACLES])
def test_weights_both_ways(mode: DiagonalMode, share: float) -> None:
    scene = Scene(30 + MODES.index(mode), mode, weighted=True, fresh_share=share)
    for factor in (2.5, 0.4, 1.7, 0.6):

        def scale(
            walk: np.ndarray, weights: np.ndarray, rng: np.random.Generator, f: float = factor
        ) -> np.ndarray:
            cells = pick(walk, 1, 5, rng)
            weights[cells] *= f
            return cells

        scene.change(scale, weights_changed=True)


@SHARES
@pytest.mark.parametrize("mode", MODES)
def test_transitions_appear_and_vanish(mode: DiagonalMode, share: float) -> None:
    """Toggling cells on cluster borders changes the node set (ids shift); each repair is exact."""
    scene = Scene(40 + MODES.index(mode), mode, fresh_share=share)
    candidates = border_cells(scene.size, scene.csize)
    added = removed = 0
    for _ in range(12):
        before = scene.graph.node_cell.copy()

        def toggle(walk: np.ndarray, _w: np.ndarray, rng: np.random.Generator) -> np.ndarray:
            cells = rng.choice(candidates, 2, replace=False)
            walk[cells] ^= 1
            return cells

        new, _, _ = scene.change(toggle)
        added += np.setdiff1d(new.node_cell, before).shape[0]
        removed += np.setdiff1d(before, new.node_cell).shape[0]
    assert added > 0
    assert removed > 0


@SHARES
def test_mixed_changes_in_a_row(share: float) -> None:
    """Repairs chain: each starts from the previous repair's graph."""
    scene = Scene(50, DiagonalMode.AT_LEAST_ONE_WALKABLE, weighted=True, fresh_share=share)

    def mixed(walk: np.ndarray, weights: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        cells = rng.choice(walk.shape[0], 6, replace=False)
        walk[cells[:3]] ^= 1
        weights[cells[3:]] = rng.uniform(0.5, 4.0, 3)
        return cells

    for _ in range(4):
        scene.change(mixed, weights_changed=True)


def test_no_change_is_free() -> None:
    scene = Scene(60, DiagonalMode.ONLY_IF_NO_OBSTACLES)
    old = GraphArrays.of(scene.graph)
    dist, pred = scene.graph.pair_dist.copy(), scene.graph.pair_pred.copy()
    scene.graph.apply_changes(np.array([5, 77], dtype=np.int64))  # nothing changed in the cells
    got_dist, got_pred, rows = repair_pairs(old, GraphArrays.of(scene.graph), dist, pred)
    assert rows == 0
    assert got_dist is dist
    assert got_pred is pred


def test_overwrite_reuses_the_arrays() -> None:
    scene = Scene(61, DiagonalMode.ALWAYS, weighted=True)
    old = GraphArrays.of(scene.graph)
    dist, pred = scene.graph.pair_dist.copy(), scene.graph.pair_pred.copy()
    cells = pick(scene.walk, 1, 1, scene.rng)
    scene.weights[cells] *= 3.0
    scene.graph.apply_changes(cells, True)
    new = GraphArrays.of(scene.graph)
    assert np.array_equal(old.node_cell, new.node_cell)
    got_dist, got_pred, _ = repair_pairs(old, new, dist, pred, overwrite=True)
    assert got_dist is dist
    assert got_pred is pred
    assert_table(new, got_dist, got_pred, all_pairs(*new[1:])[0])


def test_single_cell_changes_search_only_changed_rows() -> None:
    """On a 96 x 96 grid with 12-cell clusters one changed cell leaves most rows as they were, and
    the rows the repair searches are (nearly) only those whose distances really changed."""
    scene = Scene(70, DiagonalMode.ONLY_IF_NO_OBSTACLES, size=96, csize=12)
    total_rows = total_nodes = 0
    for step in range(8):
        before = scene.graph.pair_dist.copy()
        cells_before = scene.graph.node_cell.copy()

        def one(walk: np.ndarray, _w: np.ndarray, rng: np.random.Generator, s: int = step) -> np.ndarray:
            cell = pick(walk, s % 2, 1, rng)
            walk[cell] ^= 1
            return cell

        new, rows, _ = scene.change(one)
        total_rows += rows
        total_nodes += new.node_count
        if np.array_equal(cells_before, new.node_cell):  # rows whose distances changed: a lower bound
            changed = int((~np.isclose(before, scene.graph.pair_dist, rtol=1e-6)).any(axis=1).sum())
            assert changed <= rows <= 1.5 * changed + 10
    assert total_rows < 0.5 * total_nodes


def test_a_time_box_leaves_rows_stale_and_refilling_completes_them() -> None:
    """No time: every row of a changed table is left stale; one tiny budget refills one chunk of
    rows, each equal to a fresh table's; refilling the rest gives the fresh table."""
    scene = Scene(80, DiagonalMode.ONLY_IF_NO_OBSTACLES, size=64, csize=8)
    old = GraphArrays.of(scene.graph)
    dist, pred = scene.graph.pair_dist.copy(), scene.graph.pair_pred.copy()
    cells = pick(scene.walk, 1, 6, scene.rng)
    scene.walk[cells] = 0
    scene.graph.apply_changes(cells)
    new = GraphArrays.of(scene.graph, copy=False)
    expected = all_pairs(*new[1:])[0]
    got = repair_within(old, new, dist, pred, seconds=0.0)
    assert got.stale.all()
    assert got.stale.shape == (new.node_count,)
    assert new.node_count > 2 * REPAIR_CHUNK
    left = refill_rows(new, got.dist, got.pred, got.stale, 1e-9)
    assert left == new.node_count - REPAIR_CHUNK
    done = np.flatnonzero(~got.stale)
    assert done.shape == (REPAIR_CHUNK,)
    np.testing.assert_allclose(got.dist[done], expected[done], rtol=1e-5)
    assert refill_rows(new, got.dist, got.pred, got.stale) == 0
    assert_table(new, got.dist, got.pred, expected)


def test_stale_rows_stay_stale_through_later_changes_until_refilled() -> None:
    """Changes in a row, each time-boxed to nothing, keep (and remap) the stale rows; a repair
    without a budget then repairs or refills every row and the table is exact; so is a mix of a
    time-boxed change and refilling."""
    scene = Scene(81, DiagonalMode.AT_LEAST_ONE_WALKABLE, size=48, csize=8)
    candidates = border_cells(scene.size, scene.csize)
    stale = np.zeros(scene.graph.node_count, dtype=np.bool_)
    dist, pred = scene.graph.pair_dist.copy(), scene.graph.pair_pred.copy()
    for step in range(5):
        old = GraphArrays.of(scene.graph)
        cells = scene.rng.choice(candidates, 3, replace=False)  # moves transitions: ids shift
        scene.walk[cells] ^= 1
        scene.graph.apply_changes(cells)
        new = GraphArrays.of(scene.graph, copy=False)
        budget = None if step == 4 else 0.0
        got = repair_within(old, new, dist, pred, stale, budget)
        dist, pred, stale = got.dist, got.pred, got.stale
        if budget is None:
            assert not stale.any()
            assert_table(new, dist, pred, all_pairs(*new[1:])[0])
        else:
            assert stale.shape == (new.node_count,)
            assert stale.any()
    old = GraphArrays.of(scene.graph)
    cells = pick(scene.walk, 1, 2, scene.rng)
    scene.walk[cells] = 0
    scene.graph.apply_changes(cells)
    new = GraphArrays.of(scene.graph, copy=False)
    got = repair_within(old, new, dist, pred, stale, 0.0)
    assert refill_rows(new, got.dist, got.pred, got.stale) == 0
    assert_table(new, got.dist, got.pred, all_pairs(*new[1:])[0])
