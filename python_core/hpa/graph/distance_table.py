"""All-pairs shortest paths over a small abstract graph: a query without an abstract search.

Quick start (the arrays come from :class:`python_core.hpa.graph.abstract_graph.AbstractGraph`)::

    dist, pred = all_pairs(cl_first, cl_doff, dist_flat, node_cluster, inter_off, inter_dst, inter_cost)
    # dist[i, j]: cost from transition i to j over the abstract graph; pred[i, j]: j's predecessor

When the abstract graph has a few thousand nodes at most, one Dijkstra from every node costs a
fraction of a second and ``N * N * 8`` bytes, and a query then only looks up the best pair of a
start-cluster and a goal-cluster transition: the optimum over the abstract graph (as an exact
abstract A* would find it) in ``k_start * k_goal`` reads instead of hundreds of expansions.
"""

from __future__ import annotations

import numpy as np

from python_core._types import F32, F64, I32, I64
from python_core.compiled import jit
from python_core.heaps.indexed import heap_decrease, heap_pop, heap_push
from python_core.huge_pages import huge_empty

__all__ = ["all_pairs", "best_pair", "pair_chain", "pair_rows"]


def all_pairs(  # noqa: PLR0917 (the kernels' arrays, positional)
    cl_first: I64,
    cl_doff: I64,
    dist_flat: F64,
    node_cluster: I64,
    inter_off: I64,
    inter_dst: I64,
    inter_cost: F64,
) -> tuple[F32, I32]:
    """One Dijkstra per node over the abstract graph (intra-cluster tables plus crossings).

    Returns:
        ``(dist, pred)``, both ``(N, N)``: ``dist[i, j]`` the cost from i to j (``inf`` when
        unreachable), ``pred[i, j]`` the node before j on that path (``-1`` for i itself and for
        unreachable j). In huge pages where the system has them (:mod:`python_core.huge_pages`):
        a query reads a few scattered rows of tables tens of MiB large.

    Example:
        >>> # two clusters of one node each, joined by a crossing of cost 1 both ways
        >>> d, p = all_pairs(np.array([0, 1, 2]), np.array([0, 1]), np.zeros(2), np.array([0, 1]),
        ...                  np.array([0, 1, 2]), np.array([1, 0]), np.array([1.0, 1.0]))
        >>> d.tolist(), p.tolist()
        ([[0.0, 1.0], [1.0, 0.0]], [[-1, 0], [1, -1]])
    """
    n = node_cluster.shape[0]
    dist, pred = huge_empty((n, n), np.float32), huge_empty((n, n), np.int32)
    pair_rows(
        cl_first, cl_doff, dist_flat, node_cluster, inter_off, inter_dst, inter_cost,
        np.arange(n, dtype=np.int64), dist, pred,
    )  # fmt: skip
    return dist, pred


@jit
def pair_rows(  # noqa: PLR0917 (compiled kernel: positional)
    cl_first: I64,
    cl_doff: I64,
    dist_flat: F64,
    node_cluster: I64,
    inter_off: I64,
    inter_dst: I64,
    inter_cost: F64,
    sources: I64,
    dist: F32,
    pred: I32,
) -> None:
    """One Dijkstra per node of ``sources``, written over those rows of ``dist`` and ``pred``.

    The rows are fully overwritten (``inf`` / ``-1`` where unreachable); every other row is left
    alone, so a table can be repaired row by row (:mod:`~python_core.hpa.repair.table_repair`).

    Args:
        cl_first: ``(C + 1,)`` first node id of every cluster (nodes are grouped by cluster).
        cl_doff: ``(C,)`` offset of every cluster's ``k x k`` table in ``dist_flat``.
        dist_flat: the tables back to back, row-major (``inf``: no path inside the cluster).
        node_cluster: ``(N,)`` cluster of every node.
        inter_off: ``(N + 1,)`` CSR offsets of the crossings by source node.
        inter_dst: the crossings' target nodes.
        inter_cost: the crossings' costs.
        sources: the rows to compute (node ids).
        dist: ``(N, N)`` float32 output, written in place.
        pred: ``(N, N)`` int32 output, written in place.

    Example:
        >>> d, p = np.zeros((2, 2), np.float32), np.zeros((2, 2), np.int32)
        >>> pair_rows(np.array([0, 1, 2]), np.array([0, 1]), np.zeros(2), np.array([0, 1]),
        ...           np.array([0, 1, 1]), np.array([1]), np.array([2.0]), np.array([1]), d, p)
        >>> d.tolist(), p.tolist()
        ([[0.0, 0.0], [inf, 0.0]], [[0, 0], [-1, -1]])
    """
    n = node_cluster.shape[0]
    g = np.empty(n)
    par = np.empty(n, dtype=np.int64)
    state = np.zeros(n, dtype=np.int32)  # stamp * 2 (+1 once settled) of the current source
    heap_nodes = np.empty(n, dtype=np.int32)
    heap_keys = np.empty(n)
    heap_pos = np.empty(n, dtype=np.int32)
    for i in range(sources.shape[0]):
        src = sources[i]
        dist[src, :] = np.inf
        pred[src, :] = -1
        open_, done = 2 * i + 2, 2 * i + 3
        g[src], par[src], state[src] = 0.0, -1, open_
        size = heap_push(heap_nodes, heap_keys, heap_pos, g, 0, src, 0.0)
        while size > 0:
            u, size = heap_pop(heap_nodes, heap_keys, heap_pos, g, size)
            state[u] = done
            dist[src, u], pred[src, u] = g[u], par[u]
            c = node_cluster[u]
            base = cl_first[c]
            k = cl_first[c + 1] - base
            row = cl_doff[c] + (u - base) * k
            # settled from a cluster mate: that mate offered every other one a path no dearer
            # (the tables are shortest paths), so only the source and nodes entered by a crossing
            # spread through their cluster
            p = par[u]
            first = k if p >= 0 and node_cluster[p] == c else 0
            for j in range(first, k + inter_off[u + 1] - inter_off[u]):
                if j < k:
                    v, cost = base + j, dist_flat[row + j]
                else:
                    e = inter_off[u] + j - k
                    v, cost = inter_dst[e], inter_cost[e]
                if cost == np.inf or state[v] == done:
                    continue
                ng = g[u] + cost
                if state[v] != open_:
                    g[v], par[v], state[v] = ng, u, open_
                    size = heap_push(heap_nodes, heap_keys, heap_pos, g, size, v, ng)
                elif ng < g[v]:
                    g[v], par[v] = ng, u
                    heap_decrease(heap_nodes, heap_keys, heap_pos, g, v, ng)


@jit
def best_pair(  # noqa: PLR0917 (compiled kernel: positional)
    dist: F32, lo: int, start_costs: F64, glo: int, goal_costs: F64, direct: float
) -> tuple[int, int, float]:
    """The cheapest ``start -> i -> ... -> j -> goal`` over the table, or the direct path.

    Returns:
        ``(i, j, cost)`` with node ids; ``(-2, -2, direct)`` when the direct path is no dearer,
        ``(-1, -1, inf)`` when nothing connects.

    Example:
        >>> best_pair(np.array([[0.0, 5.0], [5.0, 0.0]], np.float32), 0, np.array([1.0]), 1,
        ...           np.array([2.0]), np.inf)
        (0, 1, 8.0)
    """
    bi, bj, best = -1, -1, np.inf
    if direct < np.inf:
        bi, bj, best = -2, -2, direct
    for a in range(start_costs.shape[0]):
        if start_costs[a] == np.inf:
            continue
        for b in range(goal_costs.shape[0]):
            total = start_costs[a] + np.float64(dist[lo + a, glo + b]) + goal_costs[b]
            if total < best:
                bi, bj, best = lo + a, glo + b, total
    return bi, bj, best


@jit
def pair_chain(pred: I32, i: int, j: int) -> I64:
    """The nodes of the table's path from ``i`` to ``j``, both included.

    Example:
        >>> pair_chain(np.array([[-1, 0, 1], [-1, -1, -1], [-1, -1, -1]], np.int32), 0, 2).tolist()
        [0, 1, 2]
    """
    n = 1
    v = j
    while v != i:
        v = pred[i, v]
        n += 1
    out = np.empty(n, dtype=np.int64)
    v = j
    for k in range(n - 1, -1, -1):
        out[k] = v
        v = pred[i, v]
    return out
