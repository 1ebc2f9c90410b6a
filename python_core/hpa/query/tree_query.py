"""One HPA* query in one compiled call, over a hierarchy that keeps its cluster trees.

Quick start (the arrays come from :class:`python_core.hpa.graph.abstract_graph.AbstractGraph`; see
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
straight-line smoothing (``passes``: :data:`~python_core.hpa.query.smoothing.SMOOTH_PASSES`).
Python glue per query is one call, which is what makes HPA* pay on maps where the exact search
itself takes well under a millisecond.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from python_core._types import F64, I64
from python_core.compiled import jit, record
from python_core.grid.cells import world_points
from python_core.hpa.graph.cluster_search import (
    cluster_rect,
    new_scratch,
    parent_walk,
    push_cells,
    rect_search,
)
from python_core.hpa.graph.components import component_of
from python_core.hpa.graph.distance_table import pair_chain
from python_core.hpa.query.abstract_search import (
    ABSTRACT_FOUND,
    ABSTRACT_NO_PATH,
    abstract_astar,
    node_chain,
)
from python_core.hpa.query.smoothing import smooth_passes
from python_core.hpa.query.tree_walks import (
    close_start_costs,
    cluster_of_cell,
    concrete_path,
    cost_bounds,
    direct_path,
    fill_costs,
    lazy_best_pair,
    through_mate,
)
from python_core.hpa.query.upper_search import upper_chain

__all__ = ["TREE_STATIC_FIELDS", "TreeStatic", "tree_query", "tree_query_many", "tree_static"]


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
def tree_query(  # noqa: PLR0917 (compiled kernel: positional)
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
    (``packed``, empty arrays without it, and its ``scratch2``; :mod:`~python_core.hpa.graph.upper_level`:
    it finds the chain of transitions when the ends lie in different regions), and the grid's
    origin (``ox``, ``oy``) for the world points, and the abstract search's ``line_bias``.

    Returns:
        ``(outcome, cells, points, cost, expanded)``: an ``ABSTRACT_*`` outcome
        (``ABSTRACT_NO_PATH``: the ends are not connected), the path's cells and world points
        (empty unless found), its cost and the abstract expansions.
    """
    outcome, nodes, cost, expanded = _tree_cells(start, goal, hcode, budget, passes, qid, static)
    where = world_points(nodes, static.width, static.ox, static.oy, static.cw, static.ch)
    return outcome, nodes, where, cost, expanded


@jit
def _tree_cells(  # noqa: PLR0917, PLR0915 (compiled kernel: positional, one query end to end)
    start: int, goal: int, hcode: int, budget: int, passes: int, qid: int, static: Any
) -> tuple[int, I64, float, int]:
    """:func:`tree_query`'s answer without the world points: ``(outcome, cells, cost, expanded)``
    (a batch places every path's cells at once, in its own arrays)."""
    # Arrays are read from the record where they are used: a field read into a local takes a
    # reference (an atomic increment, its decrement at the end), one per field and query, and
    # level 2's two tuples alone hold 27 arrays (brc202d: 130 of a query's 360 reference counts
    # were the record's). A read inside one call's arguments is dropped again by numba's pruning.
    width, height, csize, diag = static.width, static.height, static.csize, static.diag
    cw, ch, h_scale = static.cw, static.ch, static.h_scale
    exact = static.exact
    node_cell, cl_first = static.node_cell, static.cl_first
    ncx = -(-width // csize)
    sc, tc = cluster_of_cell(start, width, csize, ncx), cluster_of_cell(goal, width, csize, ncx)
    goal_component = component_of(static.labels, static.comp_off, static.comp_id, width, csize, ncx, goal)
    if goal_component < 0 or (
        component_of(static.labels, static.comp_off, static.comp_id, width, csize, ncx, start)
        != goal_component
    ):
        return ABSTRACT_NO_PATH, np.zeros(0, dtype=np.int64), np.inf, 0
    sx0, sy0, slw, slh = cluster_rect(sc, ncx, csize, width, height)
    lo, hi = cl_first[sc], cl_first[sc + 1]
    glo, ghi = cl_first[tc], cl_first[tc + 1]
    buf = np.empty(csize * csize + 1, dtype=np.int64)
    # end costs start as lower bounds (known = 0) and are read off the trees when needed
    goal_costs = cost_bounds(node_cell, glo, ghi, goal, width, diag, cw, ch, h_scale)
    goal_known = np.zeros(ghi - glo, dtype=np.uint8)
    # The start reads the trees too, priced in its own direction (reverse walks): exact where its
    # cluster's weights are uniform (symmetric costs) or without diagonals (the weights of the
    # cells a walk enters differ between the directions by the ends' weights only); elsewhere the
    # cheapest way from the transitions, walked backwards, is a near-cheapest way to them (the
    # mean cost of bench/hpa_weighted.py does not move), and only an exact graph, whose table
    # paths skip smoothing and the check, still searches the start's cluster instead.
    by_trees = static.uniform[sc] != 0 or diag == 0 or not exact
    no_parents = np.zeros(0, dtype=np.int64)  # the searches below fill parents only when they run
    s_parent = no_parents
    if by_trees:
        start_costs = cost_bounds(node_cell, lo, hi, start, width, diag, cw, ch, h_scale)
        start_known = np.zeros(hi - lo, dtype=np.uint8)
    else:
        stops = (node_cell[lo:hi] // width - sy0) * slw + node_cell[lo:hi] % width - sx0
        s_dist, s_parent, s_closed = new_scratch(slw * slh)
        rect_search(
            static.walk, static.weights, width, sx0, sy0, slw, slh, diag, cw, ch, start, -1, 0, 1.0, s_dist,
            s_parent, s_closed, stops,
        )  # fmt: skip
        start_costs = s_dist[stops]
        start_known = np.ones(hi - lo, dtype=np.uint8)
    direct, d_parent = np.inf, no_parents
    if sc == tc:  # the path that stays inside the cluster competes
        direct, d_parent = direct_path(
            static.walk, static.weights, width, height, csize, diag, cw, ch, h_scale, start, goal
        )
    region_of = static.packed[0]  # level 2's region per cluster (empty without it)
    upper = region_of.shape[0] != 0 and region_of[sc] != region_of[tc]
    trees, dims, pricing = (
        (static.pool, static.tree_off, cl_first, node_cell),
        (ncx, csize, width, height),
        (static.weights, cw, ch, static.one_weight),
    )
    # the table answers from the start cluster's rows, when every one of them is valid
    table = static.pair_dist.shape[0] != 0 and not static.pair_stale[lo:hi].any()
    via = no_parents  # per start transition, the one its cost goes through (see below)
    if upper or not table:  # the searches below take every end cost
        fill_costs(trees, dims, pricing, sc, start, buf, start_costs, start_known, True)
        fill_costs(trees, dims, pricing, tc, goal, buf, goal_costs, goal_known, False)
        walked_back = by_trees and static.uniform[sc] == 0 and diag != 0  # exact otherwise
        via = close_start_costs(static.cl_doff, static.dist_flat, sc, start_costs, walked_back)
    if upper:  # level 2 finds the chain
        outcome, chain, expanded = upper_chain(
            node_cell, cl_first, static.cl_doff, static.dist_flat, static.node_cluster, static.inter_off,
            static.inter_dst, static.inter_cost, width, cw, ch, hcode, h_scale, static.aweight, budget,
            static.packed, sc, np.arange(lo, hi), start_costs, tc, goal_costs, goal, qid, static.scratch2,
            static.line_bias, start,
        )  # fmt: skip
        is_direct = False
    elif table:  # the all-pairs table answers without an abstract search
        expanded = 0
        i, j = lazy_best_pair(
            static.pair_dist, trees, dims, pricing, np.array([start, sc, goal, tc]),
            (start_costs, goal_costs), (start_known, goal_known), direct, buf,
            cost_bounds(node_cell, lo, hi, goal, width, diag, cw, ch, h_scale),
        )  # fmt: skip
        outcome = ABSTRACT_NO_PATH if i == -1 else ABSTRACT_FOUND
        is_direct = i == -2
        if exact:  # the abstract optimum is the grid's: the refined path is optimal already
            passes = 0
        chain = pair_chain(static.pair_pred, i, j) if i >= 0 else np.zeros(0, dtype=np.int64)
    else:
        outcome, expanded = abstract_astar(
            node_cell, static.node_cluster, cl_first, static.cl_doff, static.dist_flat, static.inter_off,
            static.inter_dst, static.inter_cost, width, cw, ch, hcode, h_scale, np.arange(lo, hi),
            start_costs, tc, goal_costs, direct, goal, budget, static.g, static.parent, static.stamps, qid,
            static.heap_nodes, static.heap_keys, static.heap_pos, static.aweight, static.line_bias, start,
        )  # fmt: skip
        top = node_cell.shape[0]
        is_direct = static.parent[top] == -2
        chain = node_chain(static.parent, top) if outcome == ABSTRACT_FOUND else np.zeros(0, dtype=np.int64)
    if outcome != ABSTRACT_FOUND:
        return outcome, np.zeros(0, dtype=np.int64), np.inf, expanded
    chain = through_mate(chain, via, lo)
    if is_direct:  # one cluster, no transition on the way
        n = parent_walk(d_parent, sx0, sy0, slw, width, goal, buf)
        out, n = push_cells(np.empty(4 * csize, dtype=np.int64), 0, buf, n, True)
    else:
        out, n = concrete_path(
            trees, dims, pricing, static.node_cluster, chain, start, goal, by_trees, s_parent, buf
        )
    # smoothing writes its path into new arrays: the refined cells are copied out of the walk's
    # buffer only when they are the answer themselves (no pass)
    nodes, cost = smooth_passes(
        out[:n], static.walk, static.weights, width, diag, cw, ch, static.window, passes, static.one_weight
    )
    return outcome, nodes.copy() if passes <= 0 else nodes, cost, expanded


@jit
def tree_query_many(  # noqa: PLR0917 (compiled kernel: positional)
    starts: I64, goals: I64, hcode: int, budget: int, passes: int, qid: int, static: Any, cell_cap: int
) -> tuple[I64, I64, I64, F64, F64, I64]:
    """:func:`tree_query` for each pair ``starts[i], goals[i]`` (query ids ``qid + i``), in one
    call: a batch runs with the GIL released from its first query to its last. It stops early,
    after the first query whose path brings the cells out to ``cell_cap`` or more (so a caller
    bounds its memory by ``cell_cap`` and one path, without cutting a batch into tiny steps).

    Returns:
        ``(outcomes, offsets, cells, points, costs, expanded)`` of the first ``k`` pairs (``k``:
        ``outcomes``' length, every pair unless stopped early): query ``i``'s cells and world
        points are rows ``offsets[i]:offsets[i + 1]`` of ``cells`` and ``points``.
    """
    n = starts.shape[0]
    done = n
    outcomes = np.empty(n, dtype=np.int64)
    costs = np.empty(n)
    expanded = np.empty(n, dtype=np.int64)
    offsets = np.zeros(n + 1, dtype=np.int64)
    cells = np.empty(256 * max(n, 1), dtype=np.int64)
    for i in range(n):
        outcome, nodes, cost, count = _tree_cells(starts[i], goals[i], hcode, budget, passes, qid + i, static)
        outcomes[i], costs[i], expanded[i] = outcome, cost, count
        lo, hi = offsets[i], offsets[i] + nodes.shape[0]
        if hi > cells.shape[0]:  # grow the buffer to twice its size (or what this path needs)
            grown = np.empty(max(hi, 2 * cells.shape[0]), dtype=np.int64)
            grown[:lo] = cells[:lo]
            cells = grown
        cells[lo:hi] = nodes
        offsets[i + 1] = hi
        if hi >= cell_cap and i + 1 < n:
            done = i + 1
            break
    end = offsets[done]
    # every path's world points in one pass, once their number is known: a buffer of points grown
    # with the cells was another copy and most of a megabyte of fresh pages on brc202d's 100
    # queries (a jump between two paths is placed from its cell, as any non-step)
    points = world_points(cells[:end], static.width, static.ox, static.oy, static.cw, static.ch)
    return outcomes[:done], offsets[: done + 1], cells[:end], points, costs[:done], expanded[:done]
