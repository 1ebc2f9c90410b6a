"""One HPA* query in one compiled call, over a hierarchy that keeps its cluster trees.

Quick start (the arrays come from :class:`python_core.hpa.abstract_graph.AbstractGraph`; see
:meth:`python_core.hpa.HierarchicalGrid.find_path`, which calls this when the trees are kept)::

    outcome, nodes, cost, expanded = tree_query(grid arrays..., graph arrays..., tree arrays...,
                                                scratch..., qid, start, goal, window, passes)

Steps: insert the goal (a walk up each tree of its cluster, no search), insert the start the same
way when its cluster has one weight (costs are symmetric there; otherwise one Dijkstra inside
the cluster), A* inside the cluster when both ends share it, the abstract A* (or, on a small
abstract graph, one look-up of the best transition pair in an all-pairs table), then the concrete
path: every abstract edge inside a cluster is a walk up the tree of its first transition (an
exact optimal piece, no search), every crossing one step. Last, the straight-line smoothing.
Python glue per query is one call, which is what makes HPA* pay on maps where the exact search
itself takes well under a millisecond.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from python_core.compiled import jit
from python_core.hpa.abstract_search import ABSTRACT_FOUND, ABSTRACT_NO_PATH, abstract_astar, node_chain
from python_core.hpa.cluster_search import parent_walk, push_cells, rect_search
from python_core.hpa.cluster_trees import tree_walk
from python_core.hpa.distance_table import best_pair, pair_chain
from python_core.hpa.smoothing import path_cost, shortcut
from python_core.hpa.upper_level import Packed, Scratch, upper_chain

__all__ = ["tree_query"]

U8 = npt.NDArray[np.uint8]
F64 = npt.NDArray[np.float64]
F32 = npt.NDArray[np.float32]
I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]


@jit
def _rect(cluster: int, ncx: int, csize: int, width: int, height: int) -> tuple[int, int, int, int]:
    """``(x0, y0, lw, lh)`` of a cluster (as :meth:`AbstractGraph.rect`)."""
    x0, y0 = (cluster % ncx) * csize, (cluster // ncx) * csize
    return x0, y0, min(csize, width - x0), min(csize, height - y0)


@jit
def _cluster_of(cell: int, width: int, csize: int, ncx: int) -> int:
    """Cluster id of a flat cell (as :meth:`AbstractGraph.cluster_of`)."""
    return (cell // width // csize) * ncx + cell % width // csize


@jit
def _tree(pool: U8, tree_off: I64, cl_first: I64, cluster: int, node: int, size: int) -> U8:  # noqa: PLR0917
    """The tree of transition ``node`` (of ``cluster``, ``size`` cells) in the pool."""
    off = tree_off[cluster] + (node - cl_first[cluster]) * size
    return pool[off : off + size]


@jit
def _tree_costs(  # noqa: PLR0917 (compiled kernel: positional)
    pool: U8,
    tree_off: I64,
    cl_first: I64,
    node_cell: I64,
    cluster: int,
    ncx: int,
    csize: int,
    width: int,
    height: int,
    cell: int,
    weights: F64,
    cw: float,
    ch: float,
    buf: I64,
) -> F64:
    """Cost from each transition of ``cluster`` to ``cell``, read off their trees."""
    x0, y0, lw, lh = _rect(cluster, ncx, csize, width, height)
    lo, hi = cl_first[cluster], cl_first[cluster + 1]
    costs = np.empty(hi - lo)
    for v in range(lo, hi):
        tree = _tree(pool, tree_off, cl_first, cluster, v, lw * lh)
        costs[v - lo] = tree_walk(tree, x0, y0, lw, width, node_cell[v], cell, weights, cw, ch, buf)[1]
    return costs


@jit
def _walk_chain(  # noqa: PLR0917 (compiled kernel: positional)
    pool: U8,
    tree_off: I64,
    node_cell: I64,
    node_cluster: I64,
    cl_first: I64,
    width: int,
    height: int,
    csize: int,
    weights: F64,
    cw: float,
    ch: float,
    chain: I64,
    goal: int,
    out: I64,
    n: int,
    buf: I64,
) -> tuple[I64, int]:
    """Append the cells after each chain node up to the next (the last one: up to ``goal``)."""
    ncx = -(-width // csize)
    for i in range(chain.shape[0]):
        a = chain[i]
        b_cell = goal if i + 1 == chain.shape[0] else node_cell[chain[i + 1]]
        c = node_cluster[a]
        if _cluster_of(b_cell, width, csize, ncx) != c:  # a crossing: one step
            buf[0] = b_cell
            out, n = push_cells(out, n, buf, 1, False)
            continue
        x0, y0, lw, lh = _rect(c, ncx, csize, width, height)
        tree = _tree(pool, tree_off, cl_first, c, a, lw * lh)
        m = tree_walk(tree, x0, y0, lw, width, node_cell[a], b_cell, weights, cw, ch, buf)[0]
        out, n = push_cells(out, n, buf, m - 1, True)  # b ... a reversed, without a itself
    return out, n


@jit
def tree_query(  # noqa: PLR0917, PLR0915 (compiled kernel: positional, one query end to end)
    walk: U8,
    weights: F64,
    width: int,
    height: int,
    csize: int,
    diag: int,
    cw: float,
    ch: float,
    h_scale: float,
    hcode: int,
    aweight: float,
    budget: int,
    node_cell: I64,
    cl_first: I64,
    cl_doff: I64,
    dist_flat: F64,
    inter_off: I64,
    inter_dst: I64,
    inter_cost: F64,
    node_cluster: I64,
    pool: U8,
    tree_off: I64,
    uniform: U8,
    pair_dist: F32,
    pair_pred: I32,
    g: F64,
    parent: I64,
    seen: I32,
    done: I32,
    qid: int,
    heap_nodes: I32,
    heap_keys: F64,
    heap_pos: I32,
    start: int,
    goal: int,
    window: int,
    passes: int,
    packed: Packed,
    scratch2: Scratch,
) -> tuple[int, I64, float, int]:
    """A near-optimal path from ``start`` to ``goal`` (walkable, connected, different cells).

    Arguments are those of :func:`~python_core.hpa.abstract_search.abstract_astar` plus the grid
    (``height``, ``csize``, ``diag``), the tree pool (``pool``, ``tree_off``, ``uniform`` per
    cluster), the all-pairs table (``pair_dist``, ``pair_pred``; empty when not kept: then the
    abstract A* runs), the smoothing window and pass count, and level 2 (``packed``, empty arrays
    without it, and its ``scratch2``; :mod:`~python_core.hpa.upper_level`), which finds the chain
    of transitions when the ends lie in different regions.

    Returns:
        ``(outcome, cells, cost, expanded)``: an ``ABSTRACT_*`` outcome, the path's cells (empty
        unless found), its cost and the abstract expansions.
    """
    ncx = -(-width // csize)
    sc, tc = _cluster_of(start, width, csize, ncx), _cluster_of(goal, width, csize, ncx)
    sx0, sy0, slw, slh = _rect(sc, ncx, csize, width, height)
    lo, hi = cl_first[sc], cl_first[sc + 1]
    buf = np.empty(csize * csize + 1, dtype=np.int64)
    goal_costs = _tree_costs(
        pool, tree_off, cl_first, node_cell, tc, ncx, csize, width, height, goal, weights, cw, ch, buf
    )
    by_trees = uniform[sc] != 0  # symmetric costs: the start reads the trees too
    no_parents = np.zeros(0, dtype=np.int64)  # the searches below fill parents only when they run
    s_parent, d_parent = no_parents, no_parents
    if by_trees:
        start_costs = _tree_costs(
            pool, tree_off, cl_first, node_cell, sc, ncx, csize, width, height, start, weights, cw, ch, buf
        )
    else:
        stops = (node_cell[lo:hi] // width - sy0) * slw + node_cell[lo:hi] % width - sx0
        s_dist, s_parent = np.full(slw * slh, np.inf), np.full(slw * slh, -1, dtype=np.int64)
        rect_search(
            walk, weights, width, sx0, sy0, slw, slh, diag, cw, ch, start, -1, 0, 1.0, s_dist, s_parent,
            np.zeros(slw * slh, dtype=np.uint8), stops,
        )  # fmt: skip
        start_costs = s_dist[stops]
    direct = np.inf
    if sc == tc:
        d_dist, d_parent = np.full(slw * slh, np.inf), np.full(slw * slh, -1, dtype=np.int64)
        rect_search(
            walk, weights, width, sx0, sy0, slw, slh, diag, cw, ch, start, goal, 0, h_scale, d_dist, d_parent,
            np.zeros(slw * slh, dtype=np.uint8), no_parents,
        )  # fmt: skip
        direct = d_dist[(goal // width - sy0) * slw + goal % width - sx0]
    region_of = packed[0]
    if region_of.shape[0] and region_of[sc] != region_of[tc]:  # level 2 finds the chain
        outcome, chain, expanded = upper_chain(
            node_cell, cl_first, cl_doff, dist_flat, node_cluster, inter_off, inter_dst, inter_cost, width,
            cw, ch, hcode, h_scale, aweight, budget, packed, sc, np.arange(lo, hi), start_costs, tc,
            goal_costs, goal, qid, scratch2,
        )  # fmt: skip
        is_direct = False
    elif pair_dist.shape[0]:  # the all-pairs table answers without an abstract search
        expanded = 0
        i, j, _ = best_pair(pair_dist, lo, start_costs, cl_first[tc], goal_costs, direct)
        outcome = ABSTRACT_NO_PATH if i == -1 else ABSTRACT_FOUND
        is_direct = i == -2
        chain = pair_chain(pair_pred, i, j) if i >= 0 else np.zeros(0, dtype=np.int64)
    else:
        outcome, expanded = abstract_astar(
            node_cell, node_cluster, cl_first, cl_doff, dist_flat, inter_off, inter_dst, inter_cost, width,
            cw, ch, hcode, h_scale, np.arange(lo, hi), start_costs, tc, goal_costs, direct, goal, budget, g,
            parent, seen, done, qid, heap_nodes, heap_keys, heap_pos, aweight,
        )  # fmt: skip
        top = node_cell.shape[0]
        is_direct = parent[top] == -2
        chain = node_chain(parent, top) if outcome == ABSTRACT_FOUND else np.zeros(0, dtype=np.int64)
    if outcome != ABSTRACT_FOUND:
        return outcome, np.zeros(0, dtype=np.int64), np.inf, expanded
    out = np.empty(4 * csize, dtype=np.int64)
    if is_direct:  # one cluster, no transition on the way
        m = parent_walk(d_parent, sx0, sy0, slw, width, goal, buf)
        out, n = push_cells(out, 0, buf, m, True)
    else:
        first = chain[0]
        if by_trees:  # the walk up the tree from the start runs start -> transition already
            tree = _tree(pool, tree_off, cl_first, sc, first, slw * slh)
            m = tree_walk(tree, sx0, sy0, slw, width, node_cell[first], start, weights, cw, ch, buf)[0]
            out, n = push_cells(out, 0, buf, m, False)
        else:
            m = parent_walk(s_parent, sx0, sy0, slw, width, node_cell[first], buf)
            out, n = push_cells(out, 0, buf, m, True)
        out, n = _walk_chain(
            pool, tree_off, node_cell, node_cluster, cl_first, width, height, csize, weights, cw, ch, chain,
            goal, out, n, buf,
        )  # fmt: skip
    nodes = out[:n].copy()
    for _ in range(passes):
        nodes = shortcut(nodes, walk, weights, width, diag, cw, ch, window, 24)
    return outcome, nodes, path_cost(nodes, weights, width, cw, ch), expanded
