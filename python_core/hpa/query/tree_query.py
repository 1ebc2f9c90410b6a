"""One HPA* query in one compiled call, over a hierarchy that keeps its cluster trees.

Quick start (the arrays come from :class:`python_core.hpa.build.abstract_graph.AbstractGraph`; see
:meth:`python_core.hpa.HierarchicalGrid.find_path`, which calls this when the trees are kept)::

    static = tree_static(grid arrays..., graph arrays..., tree arrays..., scratch..., window, ...)
    outcome, nodes, points, cost, expanded = tree_query(start, goal, hcode, budget, passes, qid, static)

Steps: the components (ends in different ones: ``no_path`` at once), insert the goal (a walk up
each tree of its cluster, no search), insert the start the same way, each walk priced in the
start's direction (exact where the cluster has one weight or there are no diagonals, near-exact
elsewhere; an exact graph searches a weighted start's cluster instead), A* inside the
cluster when both ends share it, the abstract A* (or, on a small abstract graph, one look-up of
the best transition pair in an all-pairs table: there the end costs start as octile bounds and
only the ends of the current best pair are walked, a few of a big cluster's dozens of cold
trees), then the concrete path: every abstract edge inside a cluster is a walk up the tree of its
first transition (an exact optimal piece, no search), every crossing one step. Last, the
straight-line smoothing (a second pass only when the first gained).
Python glue per query is one call, which is what makes HPA* pay on maps where the exact search
itself takes well under a millisecond.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from python_core.compiled import jit, record
from python_core.grid_search import world_points
from python_core.hpa.build.cluster_search import (
    cluster_rect,
    new_scratch,
    parent_walk,
    push_cells,
    rect_search,
)
from python_core.hpa.build.cluster_trees import tree_walk
from python_core.hpa.build.connectivity import component_of
from python_core.hpa.build.distance_table import best_pair, pair_chain
from python_core.hpa.build.upper_level import upper_chain
from python_core.hpa.query.abstract_search import (
    ABSTRACT_FOUND,
    ABSTRACT_NO_PATH,
    abstract_astar,
    estimate,
    node_chain,
)
from python_core.hpa.query.smoothing import smooth_passes

__all__ = ["TREE_STATIC_FIELDS", "TreeStatic", "tree_query", "tree_static"]

U8 = npt.NDArray[np.uint8]
F64 = npt.NDArray[np.float64]
F32 = npt.NDArray[np.float32]
I64 = npt.NDArray[np.int64]


@jit
def _cluster_of(cell: int, width: int, csize: int, ncx: int) -> int:
    """Cluster id of a flat cell (as :meth:`AbstractGraph.cluster_of`)."""
    return (cell // width // csize) * ncx + cell % width // csize


@jit
def _tree(pool: U8, tree_off: I64, cl_first: I64, cluster: int, node: int, size: int) -> U8:  # noqa: PLR0917
    """The tree of transition ``node`` (of ``cluster``, ``size`` cells) in the pool."""
    off = tree_off[cluster] + (node - cl_first[cluster]) * size
    return pool[off : off + size]


Trees = tuple[U8, I64, I64, I64]
"""``(pool, tree_off, cl_first, node_cell)``: the tree pool and where each cluster's trees start."""
Dims = tuple[int, int, int, int]
"""``(ncx, csize, width, height)``: the cluster grid."""
Pricing = tuple[F64, float, float, float]
"""``(weights, cw, ch, one_weight)``: how steps are priced (:func:`tree_walk`)."""


@jit
def _walk(  # noqa: PLR0917 (compiled kernel: positional)
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
    tree = _tree(pool, tree_off, cl_first, cluster, node, lw * lh)
    root = node_cell[node]
    return tree_walk(tree, x0, y0, lw, width, root, cell, weights, cw, ch, buf, one_weight, reverse)


@jit
def _fill_costs(  # noqa: PLR0917 (compiled kernel: positional)
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
            costs[at] = _walk(trees, dims, pricing, cluster, lo + at, cell, buf, reverse)[1]
            known[at] = 1


@jit
def _cost_bounds(  # noqa: PLR0917 (compiled kernel: positional)
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


@jit
def _lazy_best_pair(  # noqa: PLR0917 (compiled kernel: positional)
    pair_dist: F32,
    trees: Trees,
    dims: Dims,
    pricing: Pricing,
    ends: I64,
    costs: tuple[F64, F64],
    known: tuple[U8, U8],
    direct: float,
    buf: I64,
) -> tuple[int, int]:
    """:func:`best_pair` over end costs of which only some are known, the rest lower bounds.

    ``ends`` is ``(start cell, start cluster, goal cell, goal cluster)``. The cheapest pair under
    the bounds is exact once both its ends are known (every other pair costs at least its bound);
    until then the unknown ends of the winner are read off their trees and the pick repeats. Most
    transitions of a big cluster are never walked: a walk up a cold tree is what a query waits
    for on a 64-cell cluster with dozens of transitions.
    """
    lo, glo = trees[2][ends[1]], trees[2][ends[3]]
    while True:
        i, j, _ = best_pair(pair_dist, lo, costs[0], glo, costs[1], direct)
        if i < 0:
            return i, j
        done = True
        for side, v in ((0, i), (1, j)):
            at = v - (lo if side == 0 else glo)
            if known[side][at]:
                continue
            done = False
            known[side][at] = 1
            cluster, cell = ends[2 * side + 1], ends[2 * side]
            reverse = side == 0  # a start's walks are priced in its own direction
            costs[side][at] = _walk(trees, dims, pricing, cluster, v, cell, buf, reverse)[1]
        if done:
            return i, j


@jit
def _walk_chain(  # noqa: PLR0917 (compiled kernel: positional)
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
    """Append the cells after each chain node up to the next (the last one: up to ``goal``)."""
    node_cell = trees[3]
    ncx, csize, width, _ = dims
    for i in range(chain.shape[0]):
        a = chain[i]
        b_cell = goal if i + 1 == chain.shape[0] else node_cell[chain[i + 1]]
        c = node_cluster[a]
        if _cluster_of(b_cell, width, csize, ncx) != c:  # a crossing: one step
            buf[0] = b_cell
            out, n = push_cells(out, n, buf, 1, False)
            continue
        m = _walk(trees, dims, pricing, c, a, b_cell, buf)[0]
        out, n = push_cells(out, n, buf, m - 1, True)  # b ... a reversed, without a itself
    return out, n


@jit
def _direct(  # noqa: PLR0917 (compiled kernel: positional)
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
    x0, y0, lw, lh = cluster_rect(_cluster_of(start, width, csize, ncx), ncx, csize, width, height)
    dist, parent, closed = new_scratch(lw * lh)
    rect_search(
        walk, weights, width, x0, y0, lw, lh, diag, cw, ch, start, goal, 0, h_scale, dist, parent, closed,
        np.zeros(0, dtype=np.int64),
    )  # fmt: skip
    return dist[(goal // width - y0) * lw + goal % width - x0], parent


@jit
def _close_start_costs(cl_doff: I64, dist_flat: F64, cluster: int, costs: F64, walked_back: bool) -> I64:
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
def _through_mate(chain: I64, via: I64, lo: int) -> I64:
    """``chain``, led by the start transition its first node's cost went through, if any
    (:func:`_close_start_costs`)."""
    if via.shape[0] and chain.shape[0] and via[chain[0] - lo] >= 0:
        return np.concatenate((np.array([lo + via[chain[0] - lo]]), chain))
    return chain


@jit
def _concrete(  # noqa: PLR0917 (compiled kernel: positional)
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
    parents when ``by_trees`` is false) to the first transition, then :func:`_walk_chain`."""
    ncx, csize, width, height = dims
    sc = _cluster_of(start, width, csize, ncx)
    first = chain[0]
    out = np.empty(4 * csize, dtype=np.int64)
    if by_trees:  # the walk up the tree from the start runs start -> transition already
        m = _walk(trees, dims, pricing, sc, first, start, buf)[0]
        out, n = push_cells(out, 0, buf, m, False)
    else:
        x0, y0, lw, _ = cluster_rect(sc, ncx, csize, width, height)
        m = parent_walk(s_parent, x0, y0, lw, width, trees[3][first], buf)
        out, n = push_cells(out, 0, buf, m, True)
    return _walk_chain(trees, dims, pricing, node_cluster, chain, goal, out, n, buf)


TREE_STATIC_FIELDS = (
    "walk",
    "weights",
    "width",
    "height",
    "csize",
    "diag",
    "cw",
    "ch",
    "h_scale",
    "aweight",
    "node_cell",
    "cl_first",
    "cl_doff",
    "dist_flat",
    "inter_off",
    "inter_dst",
    "inter_cost",
    "node_cluster",
    "pool",
    "tree_off",
    "uniform",
    "pair_dist",
    "pair_pred",
    "pair_stale",
    "labels",
    "comp_off",
    "comp_id",
    "g",
    "parent",
    "stamps",
    "heap_nodes",
    "heap_keys",
    "heap_pos",
    "window",
    "one_weight",
    "exact",
    "packed",
    "scratch2",
    "ox",
    "oy",
    "line_bias",
)
"""What :func:`tree_query` takes unchanged from one query to the next, in this order."""

TreeStatic: Any = record("TreeStatic", TREE_STATIC_FIELDS, __name__)
"""Those values as one record: a call then types and unboxes one argument instead of 40 (about
4 us of a 20-45 us query on the 512 maps, with the 28 arrays of level 2 that a one-level
hierarchy passes empty)."""


@jit
def tree_static(*values: Any) -> Any:
    """The :data:`TreeStatic` of ``values``, given in :data:`TREE_STATIC_FIELDS` order (see
    :func:`tree_query` for each); compiled, so the record is built where its machine code is
    cached."""
    return TreeStatic(*values)


@jit
def tree_query(  # noqa: PLR0917, PLR0915 (compiled kernel: positional, one query end to end)
    start: int,
    goal: int,
    hcode: int,
    budget: int,
    passes: int,
    qid: int,
    static: Any,
) -> tuple[int, I64, F64, float, int]:
    """A near-optimal path from ``start`` (walkable) to ``goal`` (another cell), or why none.

    The per-query values come first (the ends, the heuristic code, the expansion budget or -1,
    the smoothing passes, the query id of the scratch stamps); ``static`` is a :data:`TreeStatic`
    (:func:`tree_static`), kept by the caller until the hierarchy changes. It holds the arguments
    of :func:`~python_core.hpa.query.abstract_search.abstract_astar` plus the grid (``height``,
    ``csize``, ``diag``), the tree pool (``pool``, ``tree_off``, ``uniform`` per cluster), the
    all-pairs table (``pair_dist``, ``pair_pred``; empty when not kept: then the abstract A*
    runs; ``pair_stale`` flags its rows a time-boxed repair left, and a start cluster with such a
    row runs the abstract A* too), the components (``labels``, ``comp_off``, ``comp_id``: ends
    in different ones answer ``no_path`` at once), the smoothing window and ``one_weight``
    (:func:`~python_core.hpa.query.smoothing.shortcut_costs`), whether the graph is ``exact``
    (``AbstractGraph.exact``: then a table's path is optimal and is not smoothed), level 2
    (``packed``, empty arrays without it, and its ``scratch2``; :mod:`~python_core.hpa.build.upper_level`:
    it finds the chain of transitions when the ends lie in different regions), and the grid's
    origin (``ox``, ``oy``) for the world points, and the abstract search's ``line_bias``.

    Returns:
        ``(outcome, cells, points, cost, expanded)``: an ``ABSTRACT_*`` outcome
        (``ABSTRACT_NO_PATH``: the ends are not connected), the path's cells and world points
        (empty unless found), its cost and the abstract expansions.
    """
    walk, weights, width = static.walk, static.weights, static.width
    height, csize, diag = static.height, static.csize, static.diag
    cw, ch, h_scale = static.cw, static.ch, static.h_scale
    aweight, node_cell, cl_first = static.aweight, static.node_cell, static.cl_first
    cl_doff, dist_flat, inter_off = static.cl_doff, static.dist_flat, static.inter_off
    inter_dst, inter_cost, node_cluster = static.inter_dst, static.inter_cost, static.node_cluster
    pool, tree_off, uniform = static.pool, static.tree_off, static.uniform
    pair_dist, pair_pred, labels = static.pair_dist, static.pair_pred, static.labels
    pair_stale = static.pair_stale
    comp_off, comp_id, g = static.comp_off, static.comp_id, static.g
    parent, stamps = static.parent, static.stamps
    heap_nodes, heap_keys, heap_pos = static.heap_nodes, static.heap_keys, static.heap_pos
    window, one_weight, exact = static.window, static.one_weight, static.exact
    packed, scratch2, ox = static.packed, static.scratch2, static.ox
    oy, line_bias = static.oy, static.line_bias
    ncx = -(-width // csize)
    sc, tc = _cluster_of(start, width, csize, ncx), _cluster_of(goal, width, csize, ncx)
    goal_component = component_of(labels, comp_off, comp_id, width, csize, ncx, goal)
    if (
        goal_component < 0
        or component_of(labels, comp_off, comp_id, width, csize, ncx, start) != goal_component
    ):
        return ABSTRACT_NO_PATH, np.zeros(0, dtype=np.int64), np.zeros((0, 2)), np.inf, 0
    sx0, sy0, slw, slh = cluster_rect(sc, ncx, csize, width, height)
    lo, hi = cl_first[sc], cl_first[sc + 1]
    glo, ghi = cl_first[tc], cl_first[tc + 1]
    buf = np.empty(csize * csize + 1, dtype=np.int64)
    # end costs start as lower bounds (known = 0) and are read off the trees when needed
    goal_costs = _cost_bounds(node_cell, glo, ghi, goal, width, diag, cw, ch, h_scale)
    goal_known = np.zeros(ghi - glo, dtype=np.uint8)
    # The start reads the trees too, priced in its own direction (reverse walks): exact where its
    # cluster's weights are uniform (symmetric costs) or without diagonals (the weights of the
    # cells a walk enters differ between the directions by the ends' weights only); elsewhere the
    # cheapest way from the transitions, walked backwards, is a near-cheapest way to them (mean
    # cost unchanged to 0.0003 on bench/hpa_weighted.py), and only an exact graph, whose table
    # paths skip smoothing and the check, still searches the start's cluster instead.
    by_trees = uniform[sc] != 0 or diag == 0 or not exact
    no_parents = np.zeros(0, dtype=np.int64)  # the searches below fill parents only when they run
    s_parent = no_parents
    if by_trees:
        start_costs = _cost_bounds(node_cell, lo, hi, start, width, diag, cw, ch, h_scale)
        start_known = np.zeros(hi - lo, dtype=np.uint8)
    else:
        stops = (node_cell[lo:hi] // width - sy0) * slw + node_cell[lo:hi] % width - sx0
        s_dist, s_parent, s_closed = new_scratch(slw * slh)
        rect_search(
            walk, weights, width, sx0, sy0, slw, slh, diag, cw, ch, start, -1, 0, 1.0, s_dist, s_parent,
            s_closed, stops,
        )  # fmt: skip
        start_costs = s_dist[stops]
        start_known = np.ones(hi - lo, dtype=np.uint8)
    direct, d_parent = np.inf, no_parents
    if sc == tc:  # the path that stays inside the cluster competes
        direct, d_parent = _direct(walk, weights, width, height, csize, diag, cw, ch, h_scale, start, goal)
    region_of = packed[0]
    upper = region_of.shape[0] != 0 and region_of[sc] != region_of[tc]
    trees, dims, pricing = (
        (pool, tree_off, cl_first, node_cell),
        (ncx, csize, width, height),
        (weights, cw, ch, one_weight),
    )
    # the table answers from the start cluster's rows, when every one of them is valid
    table = pair_dist.shape[0] != 0 and not pair_stale[lo:hi].any()
    via = no_parents  # per start transition, the one its cost goes through (see below)
    if upper or not table:  # the searches below take every end cost
        _fill_costs(trees, dims, pricing, sc, start, buf, start_costs, start_known, True)
        _fill_costs(trees, dims, pricing, tc, goal, buf, goal_costs, goal_known, False)
        walked_back = by_trees and uniform[sc] == 0 and diag != 0  # exact otherwise
        via = _close_start_costs(cl_doff, dist_flat, sc, start_costs, walked_back)
    if upper:  # level 2 finds the chain
        outcome, chain, expanded = upper_chain(
            node_cell, cl_first, cl_doff, dist_flat, node_cluster, inter_off, inter_dst, inter_cost, width,
            cw, ch, hcode, h_scale, aweight, budget, packed, sc, np.arange(lo, hi), start_costs, tc,
            goal_costs, goal, qid, scratch2, line_bias, start,
        )  # fmt: skip
        is_direct = False
    elif table:  # the all-pairs table answers without an abstract search
        expanded = 0
        i, j = _lazy_best_pair(
            pair_dist, trees, dims, pricing, np.array([start, sc, goal, tc]), (start_costs, goal_costs),
            (start_known, goal_known), direct, buf,
        )  # fmt: skip
        outcome = ABSTRACT_NO_PATH if i == -1 else ABSTRACT_FOUND
        is_direct = i == -2
        if exact:  # the abstract optimum is the grid's: the refined path is optimal already
            passes = 0
        chain = pair_chain(pair_pred, i, j) if i >= 0 else np.zeros(0, dtype=np.int64)
    else:
        outcome, expanded = abstract_astar(
            node_cell, node_cluster, cl_first, cl_doff, dist_flat, inter_off, inter_dst, inter_cost, width,
            cw, ch, hcode, h_scale, np.arange(lo, hi), start_costs, tc, goal_costs, direct, goal, budget, g,
            parent, stamps, qid, heap_nodes, heap_keys, heap_pos, aweight, line_bias, start,
        )  # fmt: skip
        top = node_cell.shape[0]
        is_direct = parent[top] == -2
        chain = node_chain(parent, top) if outcome == ABSTRACT_FOUND else np.zeros(0, dtype=np.int64)
    if outcome != ABSTRACT_FOUND:
        return outcome, np.zeros(0, dtype=np.int64), np.zeros((0, 2)), np.inf, expanded
    chain = _through_mate(chain, via, lo)
    if is_direct:  # one cluster, no transition on the way
        n = parent_walk(d_parent, sx0, sy0, slw, width, goal, buf)
        out, n = push_cells(np.empty(4 * csize, dtype=np.int64), 0, buf, n, True)
    else:
        out, n = _concrete(trees, dims, pricing, node_cluster, chain, start, goal, by_trees, s_parent, buf)
    nodes = out[:n].copy()
    nodes, cost = smooth_passes(nodes, walk, weights, width, diag, cw, ch, window, passes, one_weight)
    return outcome, nodes, world_points(nodes, width, ox, oy, cw, ch), cost, expanded
