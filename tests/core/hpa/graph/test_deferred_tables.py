"""Deferred cluster tables (issue 41): a build that returns before its tables are priced answers
every query by the exact search meanwhile, then exactly as a build that priced them first; a
change during the background pricing leaves the graph a fresh build of the changed grid gives."""

from __future__ import annotations

import copy
import gc
import pickle
import threading

import numpy as np
import pytest

from python_core.errors import InvalidGraphError
from python_core.grid import DiagonalMode, GridGraph
from python_core.grid.search import dispatch
from python_core.hpa import HierarchicalGrid
from python_core.hpa.deferred import DEFER_CELLS, defer_for
from python_core.hpa.graph.table_fill import TableFill
from tests.core.hpa.hierarchy_checks import assert_valid, random_grid, random_pairs
from tests.core.hpa.test_hierarchy_updates import crossings

MODE = DiagonalMode.ONLY_IF_NO_OBSTACLES


def _pair(grid: GridGraph, *, defer: bool) -> HierarchicalGrid:
    return HierarchicalGrid(grid, cluster_size=8, tree_budget=0, defer_tables=defer).build()


def _same_graph(a: HierarchicalGrid, b: HierarchicalGrid) -> None:
    """The flat arrays the searches read: transitions, tables, crossings (in any order), labels."""
    ga, gb = a.graph, b.graph
    for name in ("node_cell", "cl_first", "cl_doff", "dist_flat", "inter_off"):
        assert np.array_equal(getattr(ga, name), getattr(gb, name)), name
    assert crossings(a) == crossings(b)
    assert np.array_equal(ga.labels >= 0, gb.labels >= 0)


def _unpriced(hpa: HierarchicalGrid) -> None:
    """Stop the background pricing and forget what it priced: the state of a build whose tables
    have not been reached yet (a tiny grid's threads may be done before the test looks)."""
    graph = hpa.graph
    graph.pause_fill()
    graph.priced[:] = 0
    if graph._fill is None:  # all priced and dropped already: a fill to resume
        graph._fill = TableFill(graph)


@pytest.mark.parametrize("weighted", [False, True])
def test_queries_meanwhile_are_exact_and_then_those_of_a_full_build(weighted: bool) -> None:
    grid = random_grid(3, MODE, size=64, weighted=weighted)
    full = _pair(GridGraph(grid.walkable.copy(), diagonal=MODE, weights=grid.weights.copy()), defer=False)
    deferred = _pair(grid, defer=True)
    _unpriced(deferred)
    assert not deferred.tables_ready
    assert not deferred.wait_tables(0.0)
    pairs = random_pairs(grid, 12, 4)
    for start, goal in pairs:
        got, exact = deferred.find_path(start, goal), dispatch.find_path(grid, start, goal)
        assert got.status is exact.status
        if exact.found:
            assert_valid(grid, got, start, goal)
            assert got.cost == pytest.approx(exact.cost)
        assert deferred.is_reachable(start, goal) is exact.found
    (x, y), _ = pairs[0]
    assert deferred.find_path((x, y), (x, y)).nodes.tolist() == [y * grid.width + x]
    deferred.graph.resume_fill()
    for twin in (pickle.loads(pickle.dumps(deferred)), copy.deepcopy(deferred)):  # priced first
        assert twin.tables_ready
        _same_graph(full, twin)
    assert deferred.wait_tables(60.0)
    assert deferred.tables_ready
    _same_graph(full, deferred)
    for start, goal in pairs:
        a, b = full.find_path(start, goal), deferred.find_path(start, goal)
        assert (a.status, a.nodes.tolist()) == (b.status, b.nodes.tolist())


def test_a_change_while_tables_are_unpriced_gives_the_changed_grid_s_build() -> None:
    grid = random_grid(5, MODE, size=64)
    deferred = _pair(grid, defer=True)
    _unpriced(deferred)
    deferred.set_walkable([(9, 9), (16, 3), (40, 40), (41, 40)], False)
    deferred.set_walkable([(8, 15), (30, 31)], True)
    deferred.set_weights([(20, 20), (50, 7)], 2.5)
    assert deferred.wait_tables(60.0)
    fresh = _pair(GridGraph(grid.walkable.copy(), diagonal=MODE, weights=grid.weights.copy()), defer=False)
    _same_graph(fresh, deferred)


def test_changes_racing_the_background_threads_repair_right() -> None:
    """Changes made at once after the build, while threads still price: whatever they priced from
    the old cells is priced again, so the end is a fresh build of the changed grid."""
    rng = np.random.default_rng(8)
    for seed in range(3):
        grid = random_grid(seed, MODE, size=160)
        deferred = _pair(grid, defer=True)
        for _ in range(4):
            cells = rng.integers(0, 160, (6, 2))
            deferred.set_walkable(cells, bool(rng.integers(0, 2)))
        assert deferred.wait_tables(120.0)
        fresh = _pair(GridGraph(grid.walkable.copy(), diagonal=MODE), defer=False)
        _same_graph(fresh, deferred)


def test_a_dropped_hierarchy_ends_its_threads_and_defaults_follow_the_grid_size() -> None:
    deferred = _pair(random_grid(2, MODE, size=200), defer=True)
    del deferred
    gc.collect()
    for thread in [t for t in threading.enumerate() if t.name == "hpa-tables"]:
        thread.join(30.0)
        assert not thread.is_alive()
    assert defer_for(None, DEFER_CELLS)
    assert not defer_for(None, DEFER_CELLS - 1)
    assert not defer_for(False, DEFER_CELLS)
    assert defer_for(True, 16)
    with_trees = HierarchicalGrid(random_grid(2, MODE, size=32), cluster_size=8, defer_tables=True).build()
    assert with_trees.graph.has_trees
    assert with_trees.tables_ready
    two = HierarchicalGrid(random_grid(2, MODE, size=32), cluster_size=4, levels=2, region_clusters=2,
                           tree_budget=0, defer_tables=True).build()  # fmt: skip
    assert two.tables_ready  # level 2 reads the tables at once
    for bad in (1, "yes", 0.5):
        with pytest.raises(InvalidGraphError, match="defer_tables"):
            HierarchicalGrid(random_grid(2, MODE, size=16), defer_tables=bad)  # type: ignore[arg-type]
