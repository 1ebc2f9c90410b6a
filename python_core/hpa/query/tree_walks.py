"""The pieces of a tree query: walks up cached cluster trees, end costs, the concrete path.

Quick start (inside :func:`~python_core.hpa.query.tree_query.tree_query`; ``trees``, ``dims`` and
``pricing`` are its record's tree, size and weight fields)::

    cells, cost = walk_tree(trees, dims, pricing, cluster, node, cell, buf, reverse)
    n = walk_chain(...)                  # every abstract edge inside a cluster: one walk, no search

A cluster's tree of a transition holds, per cell, the move that entered it on a shortest path from
that transition (:mod:`~python_core.hpa.graph.cluster_trees`): walking up it from any cell of the
cluster gives that cell's path and cost without a search, which is what lets a whole query run
in one compiled call.
"""

from __future__ import annotations

import numpy as np

from python_core._types import F32, F64, I64, U8
from python_core.compiled import jit
from python_core.hpa.graph.cluster_search import (
    NO_PARENT,
    cluster_rect,
    new_scratch,
    parent_walk,
    push_cells,
    rect_search,
)
from python_core.hpa.graph.cluster_trees import tree_walk
from python_core.hpa.query.abstract_search import estimate
from python_core.hpa.steps import inline_jit

__all__ = [
    "close_start_costs",
    "cluster_of_cell",
    "concrete_path",
    "cost_bounds",
    "direct_path",
    "fill_costs",
    "lazy_best_pair",
    "through_mate",
    "tree_of",
    "walk_chain",
    "walk_tree",
]


@inline_jit
def cluster_of_cell(cell: int, width: int, csize: int, ncx: int) -> int:
    """Cluster id of a flat cell (as :meth:`AbstractGraph.cluster_of`)."""
    return (cell // width // csize) * ncx + cell % width // csize


@inline_jit
def tree_of(pool: U8, tree_off: I64, cl_first: I64, cluster: int, node: int, size: int) -> U8:  # noqa: PLR0917
    """The tree of transition ``node`` (of ``cluster``, ``size`` cells) in the pool."""
    off = tree_off[cluster] + (node - cl_first[cluster]) * size
    return pool[off : off + size]


Trees = tuple[U8, I64, I64, I64]
"""``(pool, tree_off, cl_first, node_cell)``: the tree pool and where each cluster's trees start."""
Dims = tuple[int, int, int, int]
"""``(ncx, csize, width, height)``: the cluster grid."""
Pricing = tuple[F64, float, float, float]
"""``(weights, cw, ch, one_weight)``: how steps are priced (:func:`tree_walk`)."""


@inline_jit
def walk_tree(  # noqa: PLR0917 (compiled kernel: positional)
    trees: Trees,
    dims: Dims,
    pricing: Pricing,
    cluster: int,
    node: int,
    cell: int,
    buf: I64,
    reverse: bool = False,
) -> tuple[int, float]:
    """:func:`tree_walk` up the tree of transition ``node`` of ``cluster`` from ``cell``: the cells
    into ``buf``, their count and the cost (of the walk's own direction with ``reverse``)."""
    pool, tree_off, cl_first, node_cell = trees
    ncx, csize, width, height = dims
    weights, cw, ch, one_weight = pricing
    x0, y0, lw, lh = cluster_rect(cluster, ncx, csize, width, height)
    tree = tree_of(pool, tree_off, cl_first, cluster, node, lw * lh)
    root = node_cell[node]
    return tree_walk(tree, x0, y0, lw, width, root, cell, weights, cw, ch, buf, one_weight, reverse)


@jit
def fill_costs(  # noqa: PLR0917 (compiled kernel: positional)
    trees: Trees,
    dims: Dims,
    pricing: Pricing,
    cluster: int,
    cell: int,
    buf: I64,
    costs: F64,
    known: U8,
    reverse: bool,
) -> None:
    """Replace the bounds among a cluster's end ``costs`` (``known == 0``) by tree costs (priced
    from ``cell`` to each transition with ``reverse``: a start's)."""
    lo = trees[2][cluster]
    for at in range(costs.shape[0]):
        if not known[at]:
            costs[at] = walk_tree(trees, dims, pricing, cluster, lo + at, cell, buf, reverse)[1]
            known[at] = 1


@jit
def cost_bounds(  # noqa: PLR0917 (compiled kernel: positional)
    node_cell: I64, lo: int, hi: int, cell: int, width: int, diag: int, cw: float, ch: float, h_scale: float
) -> F64:
    """A lower bound of the cost between ``cell`` and each node in ``[lo, hi)``: the octile
    distance (Manhattan without diagonals) times the smallest weight."""
    code = 1 if diag != 0 else 0
    cx, cy = cell % width, cell // width
    bounds = np.empty(hi - lo)
    for v in range(lo, hi):
        nx, ny = abs(node_cell[v] % width - cx), abs(node_cell[v] // width - cy)
        bounds[v - lo] = estimate(code, nx, ny, cw, ch, h_scale)
    return bounds


@inline_jit
def _row_best(  # noqa: PLR0917 (compiled kernel: positional)
    pair_dist: F32, lo: int, glo: int, a: int, start_costs: F64, goal_costs: F64
) -> tuple[float, int]:
    """The cheapest pair of start transition ``a`` under the current end costs: its total and goal
    transition (``inf, -1`` when none; the first of equal totals, as :func:`best_pair` picks).
    The total is summed in :func:`best_pair`'s order, so both pick the same pair."""
    best, arg = np.inf, -1
    s = start_costs[a]
    if s == np.inf:
        return best, arg
    for b in range(goal_costs.shape[0]):
        total = s + np.float64(pair_dist[lo + a, glo + b]) + goal_costs[b]
        if total < best:
            best, arg = total, b
    return best, arg


@jit
def lazy_best_pair(  # noqa: PLR0917 (compiled kernel: positional)
    pair_dist: F32,
    trees: Trees,
    dims: Dims,
    pricing: Pricing,
    ends: I64,
    costs: tuple[F64, F64],
    known: tuple[U8, U8],
    direct: float,
    buf: I64,
    to_goal: F64,
) -> tuple[int, int]:
    """:func:`best_pair` over end costs of which only some are known, the rest lower bounds.

    ``ends`` is ``(start cell, start cluster, goal cell, goal cluster)``; ``to_goal`` a lower
    bound of the cost from each start transition to the goal cell (:func:`cost_bounds`). The
    cheapest pair under the bounds is exact once both its ends are known (every other pair costs
    at least its bound); until then the unknown ends of the winner are read off their trees and
    the pick repeats. Most transitions of a big cluster are never walked: a walk up a cold tree is
    what a query waits for on a 64-cell cluster with dozens of transitions.

    The table is read a row at a time, lazily: row ``a`` (start transition ``a`` against every goal
    transition) stands for its least total, which is at least ``start cost + to_goal`` (the
    triangle inequality of the octile bounds) until the row is read; only a row whose bound
    comes first is read, and after a walk only the rows the walk changed are read again. On
    random512-10-0 (64-cell clusters, ~44 transitions each) a fifth of the rows are read, once:
    the table's rows are cold (32 MiB), and rescanning the whole 44 x 44 block at each of about
    five picks was a third of the query. The pick is :func:`best_pair`'s (the first of equal
    totals, summed in its order): a bound is shaded by a millionth, below the float32 rounding
    of the table's costs, so it never passes a row's read total.
    """
    # the tuples unpacked once: walk_tree's own unpacking took six references per walk
    pool, tree_off, cl_first, node_cell = trees
    ncx, csize, width, height = dims
    weights, cw, ch, one_weight = pricing
    lo, glo = cl_first[ends[1]], cl_first[ends[3]]
    start_costs, goal_costs = costs
    rows = start_costs.shape[0]
    row_cost, row_arg = np.empty(rows), np.full(rows, -1, dtype=np.int64)
    for a in range(rows):  # row_arg -1: not read yet, row_cost its bound
        row_cost[a] = start_costs[a] + to_goal[a] * (1.0 - 1e-6)
    while True:
        i, best = -1, np.inf  # the first row of the least total or bound, as best_pair's scan
        if direct < np.inf:
            i, best = -2, direct
        for a in range(rows):
            if row_cost[a] < best:
                i, best = a, row_cost[a]
        if i < 0:
            return i, i
        if row_arg[i] < 0:  # a bound: read the row, and pick again
            row_cost[i], row_arg[i] = _row_best(pair_dist, lo, glo, i, start_costs, goal_costs)
            continue  # (a row that reaches no goal transition reads inf: never picked again)
        j = row_arg[i]
        done = True
        if not known[0][i]:
            done = False
            known[0][i] = 1
            x0, y0, lw, lh = cluster_rect(ends[1], ncx, csize, width, height)
            at = tree_off[ends[1]] + i * (lw * lh)  # walk_tree's, without the tuples
            start_costs[i] = tree_walk(
                pool[at : at + lw * lh], x0, y0, lw, width, node_cell[lo + i], ends[0], weights, cw, ch, buf,
                one_weight, True,
            )[1]  # fmt: skip
            row_cost[i], row_arg[i] = _row_best(pair_dist, lo, glo, i, start_costs, goal_costs)
        if not known[1][j]:
            done = False
            known[1][j] = 1
            was = goal_costs[j]
            x0, y0, lw, lh = cluster_rect(ends[3], ncx, csize, width, height)
            at = tree_off[ends[3]] + j * (lw * lh)
            goal_costs[j] = tree_walk(
                pool[at : at + lw * lh], x0, y0, lw, width, node_cell[glo + j], ends[2], weights, cw, ch, buf,
                one_weight, False,
            )[1]  # fmt: skip
            for a in range(rows):  # a walk cheaper than its bound would move any read row (never)
                if row_arg[a] == j or (row_arg[a] >= 0 and goal_costs[j] < was):
                    row_cost[a], row_arg[a] = _row_best(pair_dist, lo, glo, a, start_costs, goal_costs)
        if done:
            return lo + i, glo + j


@jit
def walk_chain(  # noqa: PLR0917 (compiled kernel: positional)
    trees: Trees,
    dims: Dims,
    pricing: Pricing,
    node_cluster: I64,
    chain: I64,
    goal: int,
    out: I64,
    n: int,
    buf: I64,
) -> tuple[I64, int]:
    """Append the cells after each chain node up to the next (the last one: up to ``goal``).

    The tuples are unpacked once and the walks written straight into ``out`` (:func:`_chain_walks`):
    per chain node the loop takes no array reference (reference counts are atomic operations, and
    the loop's used to be a fifth of an HPA* query's time on brc202d; ``out`` grown inside it was
    one more per node, 35 per query). The walks are :func:`tree_walk`'s cells without its cost
    (``pricing`` is not read): a step is two look-ups in tables of the nine moves, not a division
    and a price (a refinement 0.8-1 us less of an 8-17 us query on 32room and brc202d)."""
    pool, tree_off, cl_first, node_cell = trees
    width = dims[2]
    # a tree's code k = (dy + 1) * 3 + (dx + 1) steps a cell to its parent by -step[k] (local) and
    # -shift[k] (global): one table look-up per cell, no division (NO_PARENT, 4, steps by 0)
    step, shift = np.empty(9, dtype=np.int64), np.empty(9, dtype=np.int64)
    for k in range(9):
        shift[k] = (k // 3 - 1) * width + k % 3 - 1
    i, table_lw = 0, -1
    while True:  # once, and once more after each time ``out`` grows
        i, n, m, crossing, table_lw = _chain_walks(
            pool, tree_off, cl_first, node_cell, dims, node_cluster, chain, goal, out, n, buf, step, shift,
            i, table_lw,
        )  # fmt: skip
        if i == chain.shape[0]:
            return out, n
        grown = np.empty(2 * (n + m), dtype=np.int64)  # node i's walk (in ``buf``) did not fit
        grown[:n] = out[:n]
        out = grown
        for k in range(m):
            out[n + k] = buf[k] if crossing else buf[m - 1 - k]
        n += m
        i += 1


@inline_jit
def _chain_walks(  # noqa: PLR0917 (compiled kernel: positional)
    pool: U8,
    tree_off: I64,
    cl_first: I64,
    node_cell: I64,
    dims: Dims,
    node_cluster: I64,
    chain: I64,
    goal: int,
    out: I64,
    n: int,
    buf: I64,
    step: I64,
    shift: I64,
    first: int,
    table_lw: int,
) -> tuple[int, int, int, bool, int]:
    """:func:`walk_chain`'s walks from chain node ``first`` on, appended to ``out`` from ``n`` while they
    fit (``out`` is never replaced here: a loop that may replace an array takes a reference on
    every turn). Returns ``(node, n, m, crossing, table_lw)``: ``node`` is the chain's length when
    every walk fitted, else the node whose ``m`` cells wait in ``buf`` (in walk order: reversed
    unless ``crossing``); ``table_lw`` is the width ``step`` holds."""
    ncx, csize, width, height = dims
    for i in range(first, chain.shape[0]):
        a = chain[i]
        b_cell = goal if i + 1 == chain.shape[0] else node_cell[chain[i + 1]]
        c = node_cluster[a]
        crossing = cluster_of_cell(b_cell, width, csize, ncx) != c
        if crossing:  # one step
            m = 1
            buf[0] = b_cell
        else:  # b ... a up the tree of a (its cost is not needed), appended reversed, without a
            x0, y0, lw, lh = cluster_rect(c, ncx, csize, width, height)
            if lw != table_lw:
                table_lw = lw
                for k in range(9):
                    step[k] = (k // 3 - 1) * lw + k % 3 - 1
            cur = tree_off[c] + (a - cl_first[c]) * (lw * lh)  # the tree's first cell in the pool
            cur += (b_cell // width - y0) * lw + b_cell % width - x0
            here = b_cell
            buf[0] = here
            code = pool[np.uint64(cur)]
            walked = 0 if code == NO_PARENT and b_cell != node_cell[a] else 1  # 0: not reached
            while code != NO_PARENT:
                cur -= step[code]
                here -= shift[code]
                buf[walked] = here
                walked += 1
                code = pool[np.uint64(cur)]
            m = walked - 1
        if n + m > out.shape[0]:
            return i, n, m, crossing, table_lw
        for k in range(m):
            out[n + k] = buf[k] if crossing else buf[m - 1 - k]
        n += m
    return chain.shape[0], n, 0, False, table_lw


@jit
def direct_path(  # noqa: PLR0917 (compiled kernel: positional)
    walk: U8,
    weights: F64,
    width: int,
    height: int,
    csize: int,
    diag: int,
    cw: float,
    ch: float,
    h_scale: float,
    start: int,
    goal: int,
) -> tuple[float, I64]:
    """Cost and parents (local cells) of the best path between two cells of one cluster that stays
    inside it (A*; ``inf`` when there is none)."""
    ncx = -(-width // csize)
    x0, y0, lw, lh = cluster_rect(cluster_of_cell(start, width, csize, ncx), ncx, csize, width, height)
    dist, parent, closed = new_scratch(lw * lh)
    rect_search(
        walk, weights, width, x0, y0, lw, lh, diag, cw, ch, start, goal, 0, h_scale, dist, parent, closed,
        np.zeros(0, dtype=np.int64),
    )  # fmt: skip
    return dist[(goal // width - y0) * lw + goal % width - x0], parent


@jit
def close_start_costs(cl_doff: I64, dist_flat: F64, cluster: int, costs: F64, walked_back: bool) -> I64:
    """With ``walked_back`` (the start's costs are walks priced backwards), lower each start
    cost to the way through another transition of the start's cluster where that is cheaper (the
    walk to it plus the cluster table's edge on), and return the transition each cost now goes
    through (``-1``: its own walk; empty without ``walked_back``). Such walks are not always the
    cheapest way to a transition, and the abstract A* does not spread from the start's
    transitions through their cluster (it counts on costs that are). One step is enough: the
    table's edges are the cluster's shortest paths."""
    if not walked_back:
        return np.zeros(0, dtype=np.int64)
    k = costs.shape[0]
    base = cl_doff[cluster]
    walked = costs.copy()
    via = np.full(k, -1, dtype=np.int64)
    for b in range(k):
        for a in range(k):
            if a != b:
                through = walked[a] + dist_flat[base + a * k + b]
                if through < costs[b]:
                    costs[b], via[b] = through, a
    return via


@jit
def through_mate(chain: I64, via: I64, lo: int) -> I64:
    """``chain``, led by the start transition its first node's cost went through, if any
    (:func:`close_start_costs`)."""
    if via.shape[0] and chain.shape[0] and via[chain[0] - lo] >= 0:
        return np.concatenate((np.array([lo + via[chain[0] - lo]]), chain))
    return chain


@jit
def concrete_path(  # noqa: PLR0917 (compiled kernel: positional)
    trees: Trees,
    dims: Dims,
    pricing: Pricing,
    node_cluster: I64,
    chain: I64,
    start: int,
    goal: int,
    by_trees: bool,
    s_parent: I64,
    buf: I64,
) -> tuple[I64, int]:
    """The cells from ``start`` along ``chain`` to ``goal``: up the start's tree (or its search's
    parents when ``by_trees`` is false) to the first transition, then :func:`walk_chain`."""
    ncx, csize, width, height = dims
    sc = cluster_of_cell(start, width, csize, ncx)
    first = chain[0]
    # room for the walks of every chain node without growing (each time is one more turn of
    # walk_chain's outer loop, and a reference to each of its arrays): a walk inside a cluster is
    # rarely longer than its side (brc202d: 2 growths a query from 4 sides; now about 10 KB)
    out = np.empty((chain.shape[0] + 4) * csize, dtype=np.int64)
    if by_trees:  # the walk up the tree from the start runs start -> transition already
        m = walk_tree(trees, dims, pricing, sc, first, start, buf)[0]
        out, n = push_cells(out, 0, buf, m, False)
    else:
        x0, y0, lw, _ = cluster_rect(sc, ncx, csize, width, height)
        m = parent_walk(s_parent, x0, y0, lw, width, trees[3][first], buf)
        out, n = push_cells(out, 0, buf, m, True)
    return walk_chain(trees, dims, pricing, node_cluster, chain, goal, out, n, buf)
