"""The table pick of a tree query (python_core.hpa.query.tree_walks.lazy_best_pair): the pair that
best_pair picks once every end cost is walked, whatever lower bounds it starts from, reading rows
of the table lazily (lower bounds to the goal as row bounds), on plain and weighted grids."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import pytest

from python_core.grid import DiagonalMode
from python_core.hpa import HierarchicalGrid
from python_core.hpa.graph.distance_table import best_pair
from python_core.hpa.query.tree_walks import cluster_of_cell, cost_bounds, fill_costs, lazy_best_pair
from tests.core.hpa.hierarchy_checks import random_grid, random_pairs


class Query(NamedTuple):
    """One start / goal pair in two clusters, with what lazy_best_pair takes about them."""

    start: int
    goal: int
    ends: np.ndarray  # (start, start cluster, goal, goal cluster)
    lo: int  # the start cluster's first transition
    hi: int
    glo: int  # the goal cluster's first transition
    ghi: int


class Table:
    """A built 64 x 64 hierarchy with trees and an all-pairs table, as a tree query reads it."""

    def __init__(self, weighted: bool) -> None:
        grid = random_grid(3, DiagonalMode.ONLY_IF_NO_OBSTACLES, size=64, weighted=weighted)
        self.hpa = HierarchicalGrid(grid, cluster_size=16).build()
        graph = self.graph = self.hpa._graph
        assert graph.has_trees
        assert graph.pair_dist.shape[0] > 0  # the table branch of tree_query
        self.width, self.ncx = graph.width, -(-graph.width // graph.csize)
        self.trees = (graph.tree_pool, graph.tree_off, graph.cl_first, graph.node_cell)
        self.dims = (self.ncx, graph.csize, graph.width, graph.height)
        self.pricing = (self.hpa._weights, graph.cw, graph.ch, self.hpa._one_weight)
        self.buf = np.empty(graph.csize * graph.csize + 1, dtype=np.int64)

    def query(self, start: tuple[int, int], goal: tuple[int, int]) -> Query:
        s, g = start[1] * self.width + start[0], goal[1] * self.width + goal[0]
        sc = cluster_of_cell(s, self.width, self.graph.csize, self.ncx)
        tc = cluster_of_cell(g, self.width, self.graph.csize, self.ncx)
        first = self.graph.cl_first
        return Query(s, g, np.array([s, sc, g, tc]), first[sc], first[sc + 1], first[tc], first[tc + 1])

    def bounds(self, lo: int, hi: int, cell: int, kind: str) -> Any:
        """Octile lower bounds between ``cell`` and the nodes ``[lo, hi)``, or zeros (also bounds)."""
        octile = cost_bounds(
            self.graph.node_cell, lo, hi, cell, self.width, 1, 1.0, 1.0, self.hpa._min_weight
        )
        return octile if kind == "octile" else np.zeros_like(octile)

    def pick(
        self, q: Query, costs: tuple[Any, Any], known: tuple[Any, Any], direct: float, to_goal: Any
    ) -> Any:
        return lazy_best_pair(
            self.graph.pair_dist, self.trees, self.dims, self.pricing, q.ends, costs, known, direct, self.buf,
            to_goal,
        )  # fmt: skip


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("bounds", ["octile", "zero"])
def test_lazy_pick_is_the_full_pick(weighted: bool, bounds: str) -> None:
    table = Table(weighted)
    picked = 0
    for start, goal in random_pairs(table.hpa._grid, 120, seed=9):
        q = table.query(start, goal)
        if q.ends[1] == q.ends[3]:
            continue
        # the oracle: every end cost walked, then one scan of every pair
        full = (table.bounds(q.lo, q.hi, q.start, bounds), table.bounds(q.glo, q.ghi, q.goal, bounds))
        for side, cell, reverse in ((0, q.start, True), (1, q.goal, False)):
            cluster, walked = q.ends[2 * side + 1], np.zeros(full[side].shape[0], np.uint8)
            fill_costs(
                table.trees, table.dims, table.pricing, cluster, cell, table.buf, full[side], walked, reverse
            )
        expected = best_pair(table.graph.pair_dist, q.lo, full[0], q.glo, full[1], np.inf)

        costs = (table.bounds(q.lo, q.hi, q.start, bounds), table.bounds(q.glo, q.ghi, q.goal, bounds))
        known = (np.zeros(q.hi - q.lo, np.uint8), np.zeros(q.ghi - q.glo, np.uint8))
        i, j = table.pick(q, costs, known, np.inf, table.bounds(q.lo, q.hi, q.goal, bounds))
        assert (i, j) == expected[:2], (start, goal)
        if i >= 0:
            picked += 1
            assert known[0][i - q.lo]  # the pick's own end costs are walked: exact
            assert known[1][j - q.glo]
            total = costs[0][i - q.lo] + table.graph.pair_dist[i, j] + costs[1][j - q.glo]
            assert total == pytest.approx(expected[2])
    assert picked > 40


def test_a_cheaper_direct_path_wins_without_a_walk() -> None:
    table = Table(False)
    q = next(
        q
        for q in (table.query(s, g) for s, g in random_pairs(table.hpa._grid, 200, seed=4))
        if q.ends[1] != q.ends[3]
    )
    costs = (np.zeros(q.hi - q.lo), np.zeros(q.ghi - q.glo))
    known = (np.zeros(q.hi - q.lo, np.uint8), np.zeros(q.ghi - q.glo, np.uint8))
    assert table.pick(q, costs, known, 0.0, costs[0]) == (-2, -2)
    assert not known[0].any()
    assert not known[1].any()
