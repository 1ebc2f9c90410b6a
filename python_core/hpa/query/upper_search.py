"""A level-2 query: its ends inserted into their regions, level 2 searched, the result expanded.

Quick start (the arrays come from the level-1 graph and :attr:`UpperLevel.packed`)::

    outcome, chain, expanded = upper_chain(*level1, hcode, h_scale, aweight, budget, packed, ...)
    costs = link_costs(cl_first, cl_doff, dist_flat, node_cluster, inter_off, inter_dst, inter_cost, chain)

Each end is inserted by one Dijkstra over its region of the level-1 graph
(:func:`~python_core.hpa.graph.upper_level.region_search`); level 2 is then searched (or its
all-pairs table read), and each level-2 edge expanded into the level-1 path its region recorded,
so level 1 refines a chain of level-1 nodes into cells as for any query.
"""

from __future__ import annotations

import numpy as np

from python_core._types import F64, I32, I64
from python_core.compiled import jit
from python_core.hpa.graph.cluster_search import push_cells
from python_core.hpa.graph.distance_table import best_pair, pair_chain
from python_core.hpa.graph.upper_level import Packed, Scratch, crossing_cost, region_search
from python_core.hpa.query.abstract_search import ABSTRACT_FOUND, ABSTRACT_NO_PATH, abstract_astar, node_chain

__all__ = ["clear_stamps", "link_costs", "upper_chain"]

_EMPTY_I = np.zeros(0, dtype=np.int64)


@jit
def link_costs(  # noqa: PLR0917 (compiled kernel: positional)
    cl_first: I64,
    cl_doff: I64,
    dist_flat: F64,
    node_cluster: I64,
    inter_off: I64,
    inter_dst: I64,
    inter_cost: F64,
    chain: I64,
) -> F64:
    """Cost of each link of a level-1 chain: its cluster table entry, or its crossing.

    Example:
        >>> link_costs(np.array([0, 1, 2]), np.array([0, 1]), np.zeros(2), np.array([0, 1]),
        ...            np.array([0, 1, 2]), np.array([1, 0]), np.array([2.0, 3.0]), np.array([0, 1, 0]))
        array([2., 3.])
    """
    out = np.empty(max(chain.shape[0] - 1, 0))
    for i in range(chain.shape[0] - 1):
        a, b = chain[i], chain[i + 1]
        c = node_cluster[a]
        if node_cluster[b] == c:
            k = cl_first[c + 1] - cl_first[c]
            out[i] = dist_flat[cl_doff[c] + (a - cl_first[c]) * k + (b - cl_first[c])]
        else:
            out[i] = crossing_cost(inter_off, inter_dst, inter_cost, a, b)
    return out


@jit
def _follow(pred: I32, x: int, nodes: I64, keep_root: bool, buf: I64) -> int:
    """Write the level-1 nodes of local ``x``, ``pred[x]``, ... into ``buf``; the node without a
    predecessor is written only when ``keep_root``. Returns how many were written."""
    m = 0
    while x >= 0 and (keep_root or pred[x] >= 0):
        buf[m] = nodes[x]
        m += 1
        x = pred[x]
    return m


@jit
def _expand(packed: Packed, chain2: I64, rs: int, pred_a: I32, rg: int, pred_b: I32) -> I64:  # noqa: PLR0917
    """Level-2 chain -> level-1 chain: the start region's path to the first level-2 node, the
    recorded level-1 path of each level-2 edge inside a region, the goal region's path on."""
    loc_off, loc_nodes, loc_idx, up_first, up_l1 = packed[1:6]
    cluster2, poff, pred_pool = packed[7], packed[13], packed[14]
    buf = np.empty(max(int(np.max(loc_off[1:] - loc_off[:-1])), 1), dtype=np.int64)
    start_nodes = loc_nodes[loc_off[rs] : loc_off[rs + 1]]
    m = _follow(pred_a, loc_idx[up_l1[chain2[0]]], start_nodes, True, buf)  # exit back to the start
    out, n = push_cells(np.empty(64, dtype=np.int64), 0, buf, m, True)
    for t in range(chain2.shape[0] - 1):
        a, b = chain2[t], chain2[t + 1]
        r = cluster2[a]
        if cluster2[b] != r:  # a crossing between regions
            buf[0] = up_l1[b]
            out, n = push_cells(out, n, buf, 1, False)
            continue
        size = loc_off[r + 1] - loc_off[r]
        row = poff[r] + (a - up_first[r]) * size
        nodes = loc_nodes[loc_off[r] : loc_off[r + 1]]
        m = _follow(pred_pool[row : row + size], loc_idx[up_l1[b]], nodes, False, buf)  # b back, a not
        out, n = push_cells(out, n, buf, m, True)
    goal_nodes = loc_nodes[loc_off[rg] : loc_off[rg + 1]]
    m = _follow(pred_b, pred_b[loc_idx[up_l1[chain2[-1]]]], goal_nodes, True, buf)  # on to the goal
    out, n = push_cells(out, n, buf, m, False)
    result: I64 = out[:n].copy()
    return result


@jit
def upper_chain(  # noqa: PLR0917 (compiled kernel: positional, one query's level 2)
    node_cell: I64,
    cl_first: I64,
    cl_doff: I64,
    dist_flat: F64,
    node_cluster: I64,
    inter_off: I64,
    inter_dst: I64,
    inter_cost: F64,
    width: int,
    cw: float,
    ch: float,
    hcode: int,
    h_scale: float,
    aweight: float,
    budget: int,
    packed: Packed,
    start_cluster: int,
    start_nodes: I64,
    start_costs: F64,
    goal_cluster: int,
    goal_costs: F64,
    goal: int,
    qid: int,
    scratch: Scratch,
    line_bias: float,
    start_cell: int,
) -> tuple[int, I64, int]:
    """The level-1 chain of a query whose ends lie in different regions, found at level 2.

    Args:
        node_cell: level-1 arrays, as for :func:`~python_core.hpa.query.abstract_search.abstract_astar`.
        cl_first: level-1 cluster node ranges.
        cl_doff: level-1 table offsets.
        dist_flat: level-1 tables.
        node_cluster: level-1 cluster per node.
        inter_off: level-1 crossings (CSR).
        inter_dst: their targets.
        inter_cost: their costs.
        width: grid columns.
        cw: cell width.
        ch: cell height.
        hcode: heuristic code of the level-2 A*.
        h_scale: heuristic multiplier (smallest weight).
        aweight: heuristic weight of the level-2 A*.
        budget: level-2 expansion budget (``-1``: none).
        packed: :attr:`UpperLevel.packed`.
        start_cluster: the start's level-1 cluster...
        start_nodes: ... its transitions...
        start_costs: ... and the start's cost to each.
        goal_cluster: the goal's level-1 cluster.
        goal_costs: per transition of that cluster, its cost to the goal.
        goal: the goal cell (for the heuristic).
        qid: this query's number, as for :func:`~python_core.hpa.query.abstract_search.abstract_astar`
            (the level-2 stamps are ``2 qid`` and ``2 qid + 1``).
        scratch: :meth:`UpperLevel.new_scratch`.
        line_bias: as for :func:`~python_core.hpa.query.abstract_search.abstract_astar`, at level 2.
        start_cell: the query's start cell.

    Returns:
        ``(outcome, chain, expanded)``: an ``ABSTRACT_*`` outcome, the level-1 nodes from a
        transition of the start's cluster to one of the goal's (consecutive nodes share a cluster
        or a crossing), and the level-2 expansions.
    """
    region_of, loc_off, loc_nodes, loc_idx, up_first, up_l1, cell2, cluster2, doff2 = packed[:9]
    dist2, ioff2, idst2, icost2, _, _, pair_dist, pair_pred = packed[9:]
    g2, parent2, stamps2, heap_nodes, heap_keys, heap_pos, dist_a, pred_a, dist_b, pred_b = scratch
    l1 = (cl_first, cl_doff, dist_flat, node_cluster, inter_off, inter_dst, inter_cost)
    rs = region_of[start_cluster]
    rg = region_of[goal_cluster]
    index = (region_of, loc_off, loc_nodes, loc_idx)
    region_search(
        *l1, *index, rs, start_nodes, start_costs, 0, dist_a, pred_a, heap_nodes, heap_keys, heap_pos
    )
    glo, ghi = cl_first[goal_cluster], cl_first[goal_cluster + 1]
    goal_nodes = np.arange(glo, ghi)
    region_search(*l1, *index, rg, goal_nodes, goal_costs, 1, dist_b, pred_b, heap_nodes, heap_keys, heap_pos)
    slo, shi = up_first[rs], up_first[rs + 1]
    tlo, thi = up_first[rg], up_first[rg + 1]
    up_start = np.empty(shi - slo)
    for i in range(shi - slo):
        up_start[i] = dist_a[loc_idx[up_l1[slo + i]]]
    up_goal = np.empty(thi - tlo)
    for i in range(thi - tlo):
        up_goal[i] = dist_b[loc_idx[up_l1[tlo + i]]]
    expanded = 0
    if pair_dist.shape[0]:
        i, j, _ = best_pair(pair_dist, slo, up_start, tlo, up_goal, np.inf)
        if i < 0:
            return ABSTRACT_NO_PATH, _EMPTY_I, 0
        chain2 = pair_chain(pair_pred, i, j)
    else:
        outcome, expanded = abstract_astar(
            cell2, cluster2, up_first, doff2, dist2, ioff2, idst2, icost2, width, cw, ch, hcode, h_scale,
            np.arange(slo, shi), up_start, rg, up_goal, np.inf, goal, budget, g2, parent2, stamps2, qid,
            heap_nodes, heap_keys, heap_pos, aweight, line_bias, start_cell,
        )  # fmt: skip
        if outcome != ABSTRACT_FOUND:
            return outcome, _EMPTY_I, expanded
        chain2 = node_chain(parent2, cell2.shape[0])
    out = _expand(packed, chain2, rs, pred_a, rg, pred_b)
    return ABSTRACT_FOUND, out, expanded


def clear_stamps(scratch: Scratch) -> None:
    """Zero the level-2 search's stamps in place (when query numbers start again at 1)."""
    scratch[2][:] = 0
