"""The refinement of a tree query (python_core.hpa.query.tree_walks.walk_chain): each abstract
edge inside a cluster is the walk up its first transition's tree, the cells tree_walk gives
(reversed, without the transition itself) wherever the tree reaches, also in the narrower
clusters of the grid's right and bottom edges, and an edge between clusters is one step."""

from __future__ import annotations

import numpy as np
import pytest

from python_core.grid import DiagonalMode, GridGraph
from python_core.hpa import HierarchicalGrid
from python_core.hpa.graph.cluster_trees import tree_walk
from python_core.hpa.query.tree_walks import cluster_of_cell, walk_chain


@pytest.mark.parametrize("weighted", [False, True])
def test_every_edge_inside_a_cluster_is_its_tree_walk(weighted: bool) -> None:
    rng = np.random.default_rng(11)
    walk = rng.random((45, 53)) > 0.25  # 53 x 45: the last column and row of clusters are narrower
    weights = rng.uniform(1.0, 3.0, walk.shape) if weighted else None
    grid = GridGraph(walk, diagonal=DiagonalMode.ONLY_IF_NO_OBSTACLES, weights=weights)
    hpa = HierarchicalGrid(grid, cluster_size=16).build()
    graph = hpa._graph
    assert graph.has_trees
    width, csize, ncx = graph.width, graph.csize, graph.ncx
    trees = (graph.tree_pool, graph.tree_off, graph.cl_first, graph.node_cell)
    dims = (ncx, csize, width, graph.height)
    pricing = (hpa._weights, graph.cw, graph.ch, hpa._one_weight)
    buf = np.empty(csize * csize + 1, dtype=np.int64)
    expected = np.empty_like(buf)
    edges = narrow = 0
    for c in range(graph.cluster_count):
        x0, y0, lw, lh = graph.rect(c)
        tree_size = lw * lh
        for a in range(graph.cl_first[c], graph.cl_first[c + 1]):
            for b in range(graph.cl_first[c], graph.cl_first[c + 1]):
                goal = int(graph.node_cell[b])
                out, n = walk_chain(
                    trees, dims, pricing, graph.node_cluster, np.array([a]), goal,
                    np.empty(4, dtype=np.int64), 0, buf,
                )  # fmt: skip
                walked, _ = tree_walk(
                    graph.tree_pool, x0, y0, lw, width, int(graph.node_cell[a]), goal, hpa._weights,
                    graph.cw, graph.ch, expected, 0.0, False, graph.tree_off[c]
                    + (a - graph.cl_first[c]) * tree_size,
                )  # fmt: skip
                if walked == 0:  # the tree misses the other transition: no abstract edge here
                    continue
                assert out[:n].tolist() == expected[: walked - 1][::-1].tolist()
                edges += 1
                narrow += lw < csize or lh < csize
    assert edges > 100
    assert narrow > 10
    # an edge to another cluster: one step, the cell of the next transition
    a = int(graph.cl_first[0])
    mate = next(
        int(graph.inter_dst[k])
        for k in range(graph.inter_off[a], graph.inter_off[a + 1])
        if cluster_of_cell(int(graph.node_cell[graph.inter_dst[k]]), width, csize, ncx) != 0
    )
    out, n = walk_chain(
        trees, dims, pricing, graph.node_cluster, np.array([a]), int(graph.node_cell[mate]),
        np.empty(4, dtype=np.int64), 0, buf,
    )  # fmt: skip
    assert out[:n].tolist() == [int(graph.node_cell[mate])]


def test_the_cells_do_not_depend_on_the_room_given() -> None:
    """``out`` grows between the walks of a long chain (the loop stops at the walk that does not
    fit and goes on from it): a chain's cells are the same from 1 cell of room as from plenty."""
    rng = np.random.default_rng(3)
    walk = np.ones((64, 64), dtype=bool)  # open: every tree reaches every cell of its cluster
    walk[20:44, 30] = False
    grid = GridGraph(walk, diagonal=DiagonalMode.ONLY_IF_NO_OBSTACLES)
    hpa = HierarchicalGrid(grid, cluster_size=16).build()
    graph = hpa._graph
    trees = (graph.tree_pool, graph.tree_off, graph.cl_first, graph.node_cell)
    dims = (graph.ncx, graph.csize, graph.width, graph.height)
    pricing = (hpa._weights, graph.cw, graph.ch, hpa._one_weight)
    buf = np.empty(graph.csize * graph.csize + 1, dtype=np.int64)
    for _ in range(20):
        c = int(rng.integers(graph.cluster_count))
        lo, hi = int(graph.cl_first[c]), int(graph.cl_first[c + 1])
        chain = rng.integers(lo, hi, size=6) if hi - lo > 1 else np.arange(lo, hi)
        goal = int(graph.node_cell[rng.integers(lo, hi)]) if hi > lo else 0
        answers = []
        for room in (1, 3, 4096):
            out, n = walk_chain(
                trees, dims, pricing, graph.node_cluster, chain.astype(np.int64), goal,
                np.full(room, -7, dtype=np.int64), 0, buf,
            )  # fmt: skip
            answers.append(out[:n].tolist())
        assert answers[0] == answers[1] == answers[2]
