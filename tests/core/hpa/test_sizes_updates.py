"""Size layers through local updates (python_core.hpa.sizes): after a door closes and opens, and
after random wall and weight changes, every built layer equals a fresh build's and its paths match
scipy's Dijkstra on the eroded grid again; rebuilds, time boxes and memory."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from python_core.grid import DiagonalMode, GridGraph
from python_core.hpa import HierarchicalGrid
from python_core.hpa.sizes import footprint_reduce
from python_core.result import QueryOptions
from tests.core.hpa.hierarchy_checks import DATA
from tests.core.hpa.sized_checks import Oracle, assert_footprint_clear, eroded, footprint_weights
from tests.core.hpa.test_hierarchy_updates import crossings


def assert_layers_fresh(hpa: HierarchicalGrid) -> None:
    """Each built layer: its eroded grid as the oracle erodes the grid now, and its abstract graph
    a fresh hierarchy's over that grid."""
    grid = hpa.grid
    for k in hpa.sizes:
        layer = hpa.for_size(k)
        walk = eroded(np.asarray(grid.walkable), k)
        assert np.array_equal(layer.grid.walkable, walk), k
        top = footprint_weights(np.asarray(grid.weights), k)
        assert np.array_equal(layer.grid.weights[walk], top[walk]), k
        fresh = HierarchicalGrid(
            GridGraph(walk, diagonal=grid.diagonal, weights=np.where(walk, top, 1.0)),
            cluster_size=hpa.graph.csize,
        ).build()
        assert np.array_equal(layer.graph.node_cell, fresh.graph.node_cell), k
        assert np.allclose(layer.graph.dist_flat, fresh.graph.dist_flat), k
        assert crossings(layer) == crossings(fresh), k
        assert np.array_equal(layer.graph.labels >= 0, fresh.graph.labels >= 0), k


def assert_oracle_paths(
    hpa: HierarchicalGrid, pairs: list[tuple[tuple[int, int], tuple[int, int]]], k: int
) -> None:
    oracle = Oracle(hpa.grid, k)
    for start, goal in pairs:
        best = float(oracle.costs_from(start)[goal[1] * hpa.grid.width + goal[0]])
        got = hpa.find_path(start, goal, options=QueryOptions(size=k))
        assert got.found == np.isfinite(best), (k, start, goal)
        if got.found:
            assert_footprint_clear(hpa.grid, got, k, start, goal)
            assert got.cost >= best - 1e-9
            assert got.cost <= 1.25 * best


def test_a_door_closed_and_opened_leaves_every_size_as_a_fresh_build() -> None:
    rows = ["." * 24 for _ in range(16)]
    walk = np.array([[c == "." for c in row] for row in rows])
    walk[:, 12] = False
    walk[6:10, 12] = True  # a door four cells wide in a wall
    grid = GridGraph(walk, diagonal="only_if_no_obstacles")
    hpa = HierarchicalGrid(grid, cluster_size=8).build()
    pairs = [((0, 0), (20, 12)), ((2, 7), (19, 7)), ((0, 12), (20, 0))]
    for k in (2, 3, 4):
        assert_oracle_paths(hpa, pairs, k)
    door = [(12, y) for y in range(6, 10)]
    hpa.set_walkable(door, False)
    assert_layers_fresh(hpa)
    for k in (2, 3, 4):
        assert not hpa.is_reachable((0, 0), (20, 12), size=k)
        assert_oracle_paths(hpa, pairs, k)
    hpa.set_walkable(door[:2], True)  # half open: a size-2 unit fits, a size-3 does not
    assert hpa.is_reachable((0, 0), (20, 12), size=2)
    assert not hpa.is_reachable((0, 0), (20, 12), size=3)
    hpa.set_walkable(door[2:], True)
    assert_layers_fresh(hpa)
    for k in (2, 3, 4):
        assert hpa.is_reachable((0, 0), (20, 12), size=k)
        assert_oracle_paths(hpa, pairs, k)


@pytest.mark.parametrize("mode", [DiagonalMode.ONLY_IF_NO_OBSTACLES, DiagonalMode.ALWAYS])
def test_random_walls_and_weights_changed_locally_equal_a_fresh_build(mode: DiagonalMode) -> None:
    rng = np.random.default_rng(11)
    grid = GridGraph(rng.random((40, 40)) > 0.1, diagonal=mode, weights=rng.uniform(1, 2, (40, 40)))
    hpa = HierarchicalGrid(grid, cluster_size=8).build()
    for k in (2, 3):
        hpa.for_size(k)
    for _ in range(4):
        cells = rng.integers(0, 40, (25, 2))
        hpa.set_walkable(cells, ~grid.walkable[cells[:, 1], cells[:, 0]])
        spots = rng.integers(0, 40, (10, 2))
        hpa.set_weights(spots, rng.uniform(1, 4, 10))
    hpa.set_weights([(5, 5)], 9.0)  # one cell: the layers' weights around it only
    assert_layers_fresh(hpa)
    anchors = np.argwhere(eroded(np.asarray(grid.walkable), 3))[:, ::-1]
    picks = rng.integers(len(anchors), size=(6, 2))
    pairs = [(tuple(anchors[a].tolist()), tuple(anchors[b].tolist())) for a, b in picks]
    assert_oracle_paths(hpa, pairs, 3)


def test_a_movingai_door_repair_equals_a_fresh_build() -> None:
    grid = GridGraph.from_movingai(DATA / "den312d.map")
    hpa = HierarchicalGrid(grid, cluster_size=16).build()
    for k in (2, 3):
        hpa.for_size(k)
    open_cells = np.argwhere(eroded(np.asarray(grid.walkable), 3))[:, ::-1]
    door = [tuple(c) for c in open_cells[::97][:4].tolist()]
    hpa.set_walkable(door, False)
    hpa.set_walkable(door, True)
    assert_layers_fresh(hpa)


def test_a_rebuild_drops_the_layers_and_time_boxed_repairs_refill() -> None:
    grid = GridGraph(np.ones((32, 32), dtype=bool), diagonal="only_if_no_obstacles")
    hpa = HierarchicalGrid(grid, cluster_size=8, repair_seconds=0.0).build()
    before = hpa.nbytes
    layer = hpa.for_size(2)
    assert hpa.for_size(2) is layer
    assert hpa.nbytes > before + grid.node_count  # the layer's grid and graph are counted
    hpa.set_walkable([(9, 9), (20, 4)], False)
    assert layer.pending_rows > 0
    assert hpa.pending_rows >= layer.pending_rows
    assert hpa.refill_table() == 0
    assert hpa.pending_rows == 0
    hpa.repair_seconds = None
    assert layer.repair_seconds is None
    hpa.build()
    assert hpa.sizes == ()
    assert hpa.for_size(2) is not layer


def test_a_hierarchy_with_size_layers_pickles_and_deep_copies() -> None:
    grid = GridGraph(np.random.default_rng(6).random((32, 32)) > 0.1, diagonal="only_if_no_obstacles")
    hpa = HierarchicalGrid(grid, cluster_size=8).build()
    anchors = np.argwhere(eroded(np.asarray(grid.walkable), 2))[:, ::-1].tolist()
    pairs = list(zip(anchors[:6], anchors[::-1][:6], strict=True))
    options = QueryOptions(size=2)
    before = [hpa.find_path(s, g, options=options) for s, g in pairs]
    for twin in (pickle.loads(pickle.dumps(hpa)), copy.deepcopy(hpa)):
        assert twin.sizes == (2,)
        for (s, g), expected in zip(pairs, before, strict=True):
            assert twin.find_path(s, g, options=options).nodes.tolist() == expected.nodes.tolist()
        twin.set_walkable([(0, 0)], False)  # the twin's layers follow the twin's grid, not the first's
        assert twin.for_size(2).grid.walkable[0, 0] == 0
    assert hpa.for_size(2).grid.walkable[0, 0] == eroded(np.asarray(grid.walkable), 2)[0, 0]


def test_footprint_reduce_equals_slicing() -> None:
    rng = np.random.default_rng(3)
    values = rng.uniform(0, 5, (9, 13))
    walk = rng.random((9, 13)) > 0.2
    for k in range(1, 12):
        assert np.array_equal(footprint_reduce(walk, k, False, np.minimum), eroded(walk, k)), k
        fits = eroded(np.ones(walk.shape, dtype=bool), k)
        top = footprint_reduce(values, k, 0.0, np.maximum)
        assert np.array_equal(top[fits], footprint_weights(values, k)[fits]), k
