"""Deferred cluster trees (issue 41): a build that keeps trees returns before they are priced (in
one compiled call per chunk of clusters, on background threads), single queries and batches
answer by the exact search meanwhile, and the end is the graph a build that priced them first
gives, also after changes made meanwhile. Defaults defer from 1024 x 1024 cells."""

from __future__ import annotations

import numpy as np
import pytest

from bench.generated_maps import random_blocked
from python_core.grid import DiagonalMode, GridGraph
from python_core.grid.search import dispatch
from python_core.hpa import HierarchicalGrid
from python_core.hpa.deferred import DEFER_CELLS
from python_core.hpa.graph.table_fill import TableFill
from python_core.result import PathStatus, QueryOptions
from tests.core.hpa.hierarchy_checks import assert_valid, random_grid, random_pairs
from tests.core.hpa.test_hierarchy_updates import crossings

MODE = DiagonalMode.ONLY_IF_NO_OBSTACLES


def _build(grid: GridGraph, *, defer: bool) -> HierarchicalGrid:
    """Trees kept, no all-pairs table (it would be derived from the tables at once: no deferring)."""
    return HierarchicalGrid(grid, cluster_size=8, table_budget=0, defer_tables=defer).build()


def _copy(grid: GridGraph) -> GridGraph:
    return GridGraph(grid.walkable.copy(), diagonal=MODE, weights=grid.weights.copy())


def _unpriced(hpa: HierarchicalGrid) -> None:
    """The state of a build whose trees have not been reached yet (a small grid's threads may be
    done before the test looks): the pricing stopped and what it priced forgotten."""
    graph = hpa.graph
    graph.pause_fill()
    graph.priced[:] = 0
    if graph._fill is None:
        graph._fill = TableFill(graph)


def _same_graph(a: HierarchicalGrid, b: HierarchicalGrid) -> None:
    """The flat arrays the tree queries read, trees and weight flags included."""
    ga, gb = a.graph, b.graph
    for name in ("node_cell", "cl_first", "cl_doff", "dist_flat", "tree_off", "tree_pool", "uniform"):
        assert np.array_equal(getattr(ga, name), getattr(gb, name)), name
    assert crossings(a) == crossings(b)


def _exact_meanwhile(
    hpa: HierarchicalGrid, grid: GridGraph, pairs: list[tuple[tuple[int, int], tuple[int, int]]]
) -> None:
    """Every answer, single and batched, is the exact search's cost."""
    batch = hpa.find_many([s for s, _ in pairs], [g for _, g in pairs])
    for (start, goal), batched in zip(pairs, batch, strict=True):
        exact = dispatch.find_path(grid, start, goal)
        for got in (hpa.find_path(start, goal), batched):
            assert got.status is exact.status
            if exact.found:
                assert_valid(grid, got, start, goal)
                assert got.cost == pytest.approx(exact.cost)


@pytest.mark.parametrize("weighted", [False, True])
def test_trees_priced_in_the_background_answer_exactly_meanwhile(weighted: bool) -> None:
    grid = random_grid(4, MODE, size=64, weighted=weighted)
    full = _build(_copy(grid), defer=False)
    deferred = _build(grid, defer=True)
    assert deferred.graph.has_trees
    assert full.graph.has_trees
    _unpriced(deferred)
    assert not deferred.tables_ready
    pairs = random_pairs(grid, 10, 7)
    _exact_meanwhile(deferred, grid, pairs)
    deferred.graph.resume_fill()
    assert deferred.wait_tables(60.0)
    _same_graph(full, deferred)
    for (start, goal), got in zip(
        pairs, deferred.find_many([s for s, _ in pairs], [g for _, g in pairs]), strict=True
    ):
        want = full.find_path(start, goal)
        assert (got.status, got.nodes.tolist()) == (want.status, want.nodes.tolist())


def test_changes_while_trees_are_unpriced_give_the_changed_grid_s_build() -> None:
    grid = random_grid(6, MODE, size=64)
    deferred = _build(grid, defer=True)
    _unpriced(deferred)
    deferred.set_walkable([(9, 9), (16, 3), (40, 40), (41, 40), (7, 8)], False)  # (7, 8): a border
    deferred.set_walkable([(8, 15), (30, 31)], True)
    deferred.set_weights([(20, 20), (50, 7)], 2.5)
    _unpriced(deferred)  # the threads resumed after each change: a small grid may be done already
    _exact_meanwhile(deferred, grid, random_pairs(grid, 4, 2))
    deferred.graph.resume_fill()
    assert deferred.wait_tables(60.0)
    _same_graph(_build(_copy(grid), defer=False), deferred)


def test_a_default_1024_load_answers_exactly_before_its_trees_exist() -> None:
    grid = GridGraph(random_blocked(1024, blocked=0.2, seed=5), diagonal=MODE)
    assert grid.width * grid.height >= DEFER_CELLS
    hpa = HierarchicalGrid(grid).build()
    hpa.graph.pause_fill()  # tens of seconds of trees: the test looks before they are done
    assert hpa.graph.has_trees
    assert not hpa.tables_ready
    assert not (hpa.graph.priced != 0).all()
    _exact_meanwhile(hpa, grid, [((0, 0), (1000, 1000)), ((5, 900), (900, 5)), ((3, 3), (40, 60))])


def test_meanwhile_partial_and_full_answers_are_one_exact_search() -> None:
    """``allow_partial`` toward an unreachable goal gets the same search as a reachable one: agents
    ignored (an unplaced agent id is no error) and ``max_expansions`` (abstract expansions) no
    bound."""
    walk = np.ones((24, 24), dtype=bool)
    walk[:, 12] = False  # two halves
    grid = GridGraph(walk, diagonal=MODE)
    hpa = _build(grid, defer=True)
    _unpriced(hpa)
    asked = QueryOptions(allow_partial=True, agent=99, max_expansions=3)
    plain = QueryOptions(allow_partial=True, ignore_agents=True)
    for start, goal in (((1, 1), (20, 20)), ((1, 1), (10, 22))):
        got, want = (
            hpa.find_path(start, goal, options=asked),
            dispatch.find_path(grid, start, goal, options=plain),
        )
        assert (got.status, got.nodes.tolist()) == (want.status, want.nodes.tolist())
    assert hpa.find_path((1, 1), (20, 20)).status is PathStatus.NO_PATH
