"""The compiled row kernels of a table repair: reindex old rows, repair each by a small search.

Quick start (as :func:`~python_core.hpa.repair.table_repair.repair_within` calls them)::

    reindex_rows(dist, pred, new2old, old2new, broken, rows, out_dist, out_pred)
    searched = repair_rows(*new[1:], in_off, in_src, in_cost, out_dist, out_pred, rows, broken,
                           added, dearer_u, dearer_v, check_u, check_v, check_cost, fresh_share, refresh)

A row is repaired in the two steps :mod:`~python_core.hpa.repair.table_repair` explains: mark X
(nodes whose tree path broke) and bound it from outside (:func:`_mark_region`, :func:`_settle`),
then lower what cheaper or new edges improve (:func:`_lower`) by one Dijkstra over X and them.
"""

from __future__ import annotations

import numpy as np

from python_core._types import F32, F64, I32, I64, B
from python_core.compiled import jit
from python_core.heaps.indexed import heap_decrease, heap_pop, heap_push

__all__ = ["RTOL", "reindex_rows", "repair_rows"]


RTOL = 1e-6
"""Relative margin by which a new path must beat a node's old value to replace it."""

_BROKEN = -2
"""``pred`` mark (while repairing) of a node whose old predecessor was removed."""


@jit
def reindex_rows(  # noqa: PLR0917 (compiled kernel: positional)
    dist: F32, pred: I32, new2old: I64, old2new: I64, broken: B, rows: I64, out_dist: F32, out_pred: I32
) -> None:
    """Rows of the old table in new ids (kept nodes' rows only; added nodes' columns ``inf`` /
    ``-1``); a predecessor that was removed becomes :data:`_BROKEN` and flags its row in
    ``broken``."""
    n = new2old.shape[0]
    for r in range(rows.shape[0]):
        s = rows[r]
        os = new2old[s]
        for t in range(n):
            ot = new2old[t]
            if ot < 0:
                out_dist[s, t], out_pred[s, t] = np.inf, -1
                continue
            out_dist[s, t] = dist[os, ot]
            p = pred[os, ot]
            q = -1 if p < 0 else old2new[p]
            if p >= 0 and q < 0:
                broken[s] = True
                q = _BROKEN
            out_pred[s, t] = q


@jit
def repair_rows(  # noqa: PLR0917 (compiled kernel: positional)
    cl_first: I64,
    cl_doff: I64,
    dist_flat: F64,
    node_cluster: I64,
    inter_off: I64,
    inter_dst: I64,
    inter_cost: F64,
    in_off: I64,
    in_src: I64,
    in_cost: F64,
    dist: F32,
    pred: I32,
    rows: I64,
    broken: B,
    added: I64,
    dearer_u: I64,
    dearer_v: I64,
    check_u: I64,
    check_v: I64,
    check_cost: F64,
    fresh_share: float,
    refresh: B,
) -> int:
    """Repair the given rows of the reindexed table in place (module docstring, steps 1 and 2).

    ``in_off`` / ``in_src`` / ``in_cost``: the crossings as CSR by target node. A row whose X
    holds more than ``fresh_share`` of the nodes is left as it is and flagged in ``refresh``: a
    fresh Dijkstra costs less there. Returns the number of rows in which a node other than an
    added one was searched again (flagged rows not counted).
    """
    n = node_cluster.shape[0]
    g = np.empty(n)  # float64 values of the nodes the current row touched (tv == stamp)
    tv = np.zeros(n, dtype=np.int64)
    mark = np.zeros(n, dtype=np.int64)  # 2 * stamp + 1: in X, 2 * stamp: outside
    state = np.zeros(n, dtype=np.int64)  # 2 * stamp: open, 2 * stamp + 1: settled
    touched = np.empty(n, dtype=np.int64)  # X first, then the nodes the search lowered
    walk = np.empty(n, dtype=np.int64)
    heap_nodes = np.empty(n, dtype=np.int32)
    heap_keys = np.empty(n)
    heap_pos = np.empty(n, dtype=np.int32)
    searched = 0
    for r in range(rows.shape[0]):
        s, stamp = rows[r], r + 1
        nx, broke = _mark_region(pred, s, broken[s], added, dearer_u, dearer_v, mark, touched, walk, stamp)
        if nx > fresh_share * n:
            refresh[s] = True
            continue
        for i in range(nx):
            x = touched[i]
            tv[x], g[x], pred[s, x] = stamp, np.inf, -1
        size, nt = np.int64(0), nx  # (not a literal: one compiled _lower)
        for i in range(nx):  # step 1: X's values from in-edges leaving the rest of the graph
            x = touched[i]
            c = node_cluster[x]
            base = cl_first[c]
            k = cl_first[c + 1] - base
            col = cl_doff[c] + x - base
            for j in range(k + in_off[x + 1] - in_off[x]):
                if j < k:
                    y, cost = base + j, dist_flat[col + j * k]
                else:
                    y, cost = in_src[in_off[x] + j - k], in_cost[in_off[x] + j - k]
                if cost < np.inf and mark[y] != 2 * stamp + 1 and dist[s, y] < np.inf:
                    size, nt, _ = _lower(
                        dist, pred, s, x, y, dist[s, y] + cost, g, tv, state, touched, nt, stamp,
                        heap_nodes, heap_keys, heap_pos, size,
                    )  # fmt: skip
        fresh = False
        for e in range(check_u.shape[0]):  # step 2: seeds, then the search
            u, v = check_u[e], check_v[e]
            if mark[u] == 2 * stamp + 1 or mark[v] == 2 * stamp + 1:
                continue  # relaxed when u settles / among v's in-edges
            du = g[u] if tv[u] == stamp else np.float64(dist[s, u])
            size, nt, low = _lower(
                dist, pred, s, v, u, du + check_cost[e], g, tv, state, touched, nt, stamp,
                heap_nodes, heap_keys, heap_pos, size,
            )  # fmt: skip
            fresh |= low
        nt, low = _settle(
            cl_first, cl_doff, dist_flat, node_cluster, inter_off, inter_dst, inter_cost, dist, pred, s,
            g, tv, state, touched, nt, stamp, heap_nodes, heap_keys, heap_pos, size,
        )  # fmt: skip
        fresh |= low
        for i in range(nt):
            dist[s, touched[i]] = g[touched[i]]
        searched += broke or fresh
    return searched


@jit
def _mark_region(  # noqa: PLR0917 (compiled kernel: positional)
    pred: I32,
    s: int,
    broken: bool,
    added: I64,
    dearer_u: I64,
    dearer_v: I64,
    mark: I64,
    region: I64,
    walk: I64,
    stamp: int,
) -> tuple[int, bool]:
    """X of row ``s`` into ``region`` (``mark == 2 * stamp + 1``): the added nodes, the heads of
    dearer tree edges, the nodes whose predecessor was removed, and those nodes' subtrees.

    Returns:
        ``(size of X, whether the tree broke)``; without a break X is only the added nodes and
        the other marks stay unset.
    """
    inside, outside = 2 * stamp + 1, 2 * stamp
    nx = 0
    for i in range(added.shape[0]):
        mark[added[i]] = inside
        region[nx] = added[i]
        nx += 1
    roots = nx
    for e in range(dearer_u.shape[0]):
        v = dearer_v[e]
        if pred[s, v] == dearer_u[e] and mark[v] != inside:
            mark[v] = inside
            region[nx] = v
            nx += 1
    if broken:
        for t in range(pred.shape[1]):
            if pred[s, t] == _BROKEN:
                mark[t] = inside
                region[nx] = t
                nx += 1
    if nx == roots:
        return nx, False
    for t in range(pred.shape[1]):  # walk up each tree path to a node of known side
        depth, v = 0, t
        while mark[v] != inside and mark[v] != outside:
            p = pred[s, v]
            if p < 0:
                mark[v] = outside
                break
            walk[depth] = v
            depth += 1
            v = p
        side = mark[v]
        for i in range(depth):
            mark[walk[i]] = side
            if side == inside:
                region[nx] = walk[i]
                nx += 1
    return nx, True


@jit
def _settle(  # noqa: PLR0917 (compiled kernel: positional)
    cl_first: I64,
    cl_doff: I64,
    dist_flat: F64,
    node_cluster: I64,
    inter_off: I64,
    inter_dst: I64,
    inter_cost: F64,
    dist: F32,
    pred: I32,
    s: int,
    g: F64,
    tv: I64,
    state: I64,
    touched: I64,
    nt: int,
    stamp: int,
    heap_nodes: I32,
    heap_keys: F64,
    heap_pos: I32,
    size: int,
) -> tuple[int, bool]:
    """Dijkstra from the open nodes of row ``s``, lowering with :func:`_lower`.

    Returns:
        ``(touched count, whether an untouched node was lowered)``.
    """
    fresh = False
    while size > 0:
        top, size = heap_pop(heap_nodes, heap_keys, heap_pos, g, size)
        u = np.int64(top)
        state[u] = 2 * stamp + 1
        c = node_cluster[u]
        base = cl_first[c]
        k = cl_first[c + 1] - base
        row = cl_doff[c] + (u - base) * k
        for j in range(k + inter_off[u + 1] - inter_off[u]):
            if j < k:
                v, cost = base + j, dist_flat[row + j]
            else:
                v, cost = inter_dst[inter_off[u] + j - k], inter_cost[inter_off[u] + j - k]
            if cost < np.inf and state[v] != 2 * stamp + 1:
                size, nt, low = _lower(
                    dist, pred, s, v, u, g[u] + cost, g, tv, state, touched, nt, stamp,
                    heap_nodes, heap_keys, heap_pos, size,
                )  # fmt: skip
                fresh |= low
    return nt, fresh


@jit
def _lower(  # noqa: PLR0917 (compiled kernel: positional)
    dist: F32,
    pred: I32,
    s: int,
    v: int,
    u: int,
    value: float,
    g: F64,
    tv: I64,
    state: I64,
    touched: I64,
    nt: int,
    stamp: int,
    heap_nodes: I32,
    heap_keys: F64,
    heap_pos: I32,
    size: int,
) -> tuple[int, int, bool]:
    """Lower ``v`` to ``value`` through ``u`` when that beats its current value (its old table
    value by more than :data:`RTOL`), and open it.

    Returns:
        ``(heap size, touched count, whether v was an untouched node lowered)``.
    """
    fresh = tv[v] != stamp
    if fresh:
        if not value < np.float64(dist[s, v]) * (1.0 - RTOL):
            return size, nt, False
        tv[v] = stamp
        touched[nt] = v
        nt += 1
    elif not value < g[v]:
        return size, nt, False
    g[v], pred[s, v] = value, u
    if state[v] == 2 * stamp:
        heap_decrease(heap_nodes, heap_keys, heap_pos, g, v, value)
    else:
        state[v] = 2 * stamp
        size = heap_push(heap_nodes, heap_keys, heap_pos, g, size, v, value)
    return size, nt, fresh
