"""Landmarks of the abstract graph (issue 41): exact distances from each landmark, a heuristic that
keeps an exact abstract search exact, and a table that follows the graph through its changes."""

from __future__ import annotations

import heapq

import numpy as np
import pytest

from python_core.grid import DiagonalMode, GridGraph
from python_core.hpa import HierarchicalGrid
from python_core.hpa.graph import landmarks
from python_core.hpa.graph.abstract_graph import AbstractGraph
from python_core.hpa.graph.landmarks import NO_LANDMARKS, landmark_table
from python_core.hpa.query import abstract_search, searches
from python_core.hpa.query.abstract_search import LANDMARK_SEARCH_WEIGHT, LANDMARK_WEIGHT
from tests.core.hpa.hierarchy_checks import assert_valid, random_grid, random_pairs

MODE = DiagonalMode.ONLY_IF_NO_OBSTACLES


def _table(graph: AbstractGraph, count: int = landmarks.LANDMARKS) -> np.ndarray:
    table = landmark_table(
        graph.cl_first, graph.cl_doff, graph.dist_flat, graph.node_cluster, graph.inter_off,
        graph.inter_dst, graph.inter_cost, graph.node_cell, graph.width, count,
    )  # fmt: skip
    assert table is not None
    return table


def _dijkstra(graph: AbstractGraph, source: int) -> np.ndarray:
    """Every edge of the abstract graph relaxed, from a plain heap: the reference."""
    dist = np.full(graph.node_count, np.inf)
    dist[source] = 0.0
    todo = [(0.0, source)]
    while todo:
        d, u = heapq.heappop(todo)
        if d > dist[u]:
            continue
        c = int(graph.node_cluster[u])
        base, k = int(graph.cl_first[c]), int(graph.cl_first[c + 1] - graph.cl_first[c])
        row = int(graph.cl_doff[c]) + (u - base) * k
        edges = [(base + j, float(graph.dist_flat[row + j])) for j in range(k)]
        edges += [
            (int(graph.inter_dst[e]), float(graph.inter_cost[e]))
            for e in range(int(graph.inter_off[u]), int(graph.inter_off[u + 1]))
        ]
        for v, cost in edges:
            if d + cost < dist[v]:
                dist[v] = d + cost
                heapq.heappush(todo, (d + cost, v))
    return dist


@pytest.mark.parametrize("weighted", [False, True])
def test_table_holds_exact_distances_from_far_apart_landmarks(weighted: bool) -> None:
    hpa = HierarchicalGrid(random_grid(3, MODE, size=64, weighted=weighted), cluster_size=8, tree_budget=0)
    graph = hpa.build().graph
    table = _table(graph, 4)
    assert table.shape == (graph.node_count, 4)
    sources = [int(np.flatnonzero(table[:, i] == 0.0)[0]) for i in range(4)]
    assert len(set(sources)) == 4
    for i, source in enumerate(sources):
        np.testing.assert_allclose(table[:, i], _dijkstra(graph, source), rtol=1e-6)
    # farthest-first: each landmark is the node farthest from the ones before it
    nearest = table[:, 0].astype(np.float64)
    for i in range(1, 4):
        finite = np.where(np.isfinite(nearest), nearest, -1.0)
        assert nearest[sources[i]] == finite.max()
        nearest = np.minimum(nearest, table[:, i])


@pytest.mark.parametrize("weighted", [False, True])
def test_landmarks_keep_an_exact_abstract_search_exact(weighted: bool) -> None:
    """With weight 1 and no line bias the abstract search is optimal with and without landmarks
    (their bound is admissible), so the refined paths cost the same; with the default weights
    they stay valid paths."""
    grid = random_grid(5, MODE, size=96, weighted=weighted)
    exact = HierarchicalGrid(grid, cluster_size=8, tree_budget=0, abstract_weight=1.0, line_bias=0.0).build()
    table = _table(exact.graph)
    pairs = random_pairs(grid, 40, seed=7)
    for start, goal in pairs:
        exact.graph.landmarks = NO_LANDMARKS
        plain = exact.find_path(start, goal, smooth=False)
        exact.graph.landmarks = table
        alt = exact.find_path(start, goal, smooth=False)
        assert alt.status == plain.status
        if plain.found:
            assert alt.cost == pytest.approx(plain.cost, rel=1e-9)
            assert alt.expanded <= plain.expanded
            assert_valid(grid, alt, start, goal)
    weighted_search = HierarchicalGrid(grid, cluster_size=8, tree_budget=0).build()
    weighted_search.graph.landmarks = _table(weighted_search.graph)
    for start, goal in pairs:
        found = weighted_search.find_path(start, goal)
        if found.found:
            assert_valid(grid, found, start, goal)


def test_weighted_landmarks_expand_fewer_transitions_within_the_weights_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The big-map weights (1.13 and a line bias of 0.2) on scattered walls, where the octile
    estimate falls short: the landmark bound weighted by LANDMARK_WEIGHT expands fewer transitions
    in all than the same bound unweighted, and every path stays within the bound of the sum."""
    rng = np.random.default_rng(5)
    grid = GridGraph(rng.random((192, 192)) > 0.2, diagonal=MODE)
    hpa = HierarchicalGrid(grid, cluster_size=8, tree_budget=0, abstract_weight=1.13, line_bias=0.2).build()
    hpa.graph.landmarks = _table(hpa.graph)
    pairs = random_pairs(grid, 60, seed=3)
    optimum = [grid.find_path(start, goal).cost for start, goal in pairs]
    expanded: dict[float, int] = {}
    for weight in (LANDMARK_WEIGHT, 1.0):
        monkeypatch.setattr(searches, "LANDMARK_WEIGHT", weight)
        expanded[weight] = 0
        for (start, goal), best in zip(pairs, optimum, strict=True):
            found = hpa.find_path(start, goal)
            assert found.found == np.isfinite(best)
            if found.found:
                assert_valid(grid, found, start, goal)
                assert found.cost <= (1.13 + 0.2) * best + 1e-9
                expanded[weight] += found.expanded
    assert 1.0 < LANDMARK_WEIGHT <= 1.13
    assert expanded[LANDMARK_WEIGHT] < expanded[1.0]


def test_on_big_maps_a_search_with_landmarks_weighs_more_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    """Default weights on a map counted as big: the search the landmarks guide runs as with
    ``abstract_weight`` LANDMARK_SEARCH_WEIGHT, the one without them as with the plain default."""
    monkeypatch.setattr(abstract_search, "BIG_MAP_CELLS", 64 * 64)
    grid = GridGraph(np.random.default_rng(9).random((96, 96)) > 0.2, diagonal=MODE)

    def built(weight: float | None) -> HierarchicalGrid:
        return HierarchicalGrid(grid, cluster_size=8, tree_budget=0, abstract_weight=weight).build()

    default, plain, heavier = built(None), built(1.1), built(LANDMARK_SEARCH_WEIGHT)
    assert abstract_search.search_defaults(grid.width * grid.height) == (1.1, 0.2)
    pairs = random_pairs(grid, 20, seed=4)
    for landmarked in (True, False):
        for hpa in (default, heavier, plain):
            hpa.graph.landmarks = _table(hpa.graph) if landmarked else NO_LANDMARKS
        same = heavier if landmarked else plain
        for start, goal in pairs:
            a, b = default.find_path(start, goal, smooth=False), same.find_path(start, goal, smooth=False)
            assert (a.nodes.tolist(), a.expanded) == (b.nodes.tolist(), b.expanded)
    for hpa in (default, plain):  # and with landmarks the default is not 1.1's search
        hpa.graph.landmarks = _table(hpa.graph)
    expanded = [(default.find_path(s, g).expanded, plain.find_path(s, g).expanded) for s, g in pairs]
    assert any(a != b for a, b in expanded)


def test_table_is_computed_in_the_background_and_follows_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(landmarks, "LANDMARK_NODES", 1)
    grid = random_grid(11, MODE, size=64)
    hpa = HierarchicalGrid(grid, cluster_size=8, tree_budget=0).build()
    graph = hpa.graph
    assert graph.wait_landmarks(30.0)
    np.testing.assert_array_equal(graph.landmarks, _table(graph))
    before = graph.nbytes()
    wall = next((x, y) for y in range(30, 64) for x in range(30, 64) if grid.walkable[y, x])
    hpa.set_walkable([wall], False)  # the table is dropped at once, and computed again
    assert graph.wait_landmarks(30.0)
    np.testing.assert_array_equal(graph.landmarks, _table(graph))
    assert before > graph.landmarks.nbytes > 0  # the table counts in the hierarchy's bytes
    for start, goal in random_pairs(grid, 10, seed=2):
        found = hpa.find_path(start, goal)
        if found.found:
            assert_valid(grid, found, start, goal)


def test_small_graphs_and_graphs_with_trees_get_none(monkeypatch: pytest.MonkeyPatch) -> None:
    grid = random_grid(13, MODE, size=48)
    small = HierarchicalGrid(grid, cluster_size=8, tree_budget=0).build().graph
    assert not small.wait_landmarks(30.0)  # fewer nodes than LANDMARK_NODES
    monkeypatch.setattr(landmarks, "LANDMARK_NODES", 1)
    trees = HierarchicalGrid(grid, cluster_size=8).build().graph
    assert trees.has_trees
    assert not trees.wait_landmarks(30.0)
