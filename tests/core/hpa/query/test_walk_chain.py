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
