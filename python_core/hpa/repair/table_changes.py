"""What changed between two abstract graphs: matched nodes, and edges dearer, cheaper or new.

Quick start::

    new2old, old2new = match_nodes(old.node_cell, new.node_cell)
    dearer_u, dearer_v, check_u, check_v, check_cost = edge_changes(old, new, new2old, old2new)

The input of a table repair (:mod:`~python_core.hpa.repair.table_repair`): nodes are matched by
their cells, table entries compared per cluster that changed, crossings by their two cells. All
vectorised numpy over the graphs' flat arrays (:class:`GraphArrays`).
"""

from __future__ import annotations

import numpy as np

from python_core._types import F64, I64
from python_core.hpa.graph.graph_arrays import GraphArrays

__all__ = ["EDGE_RTOL", "Changes", "edge_changes", "match_nodes"]


EDGE_RTOL = 1e-9
"""Relative slack under which a new edge cost does not count as dearer than the old one."""


def match_nodes(old_cells: I64, new_cells: I64) -> tuple[I64, I64]:
    """``(new2old, old2new)``: the other graph's id of the node on the same cell, or ``-1``."""
    _, i_old, i_new = np.intersect1d(old_cells, new_cells, assume_unique=True, return_indices=True)
    new2old = np.full(new_cells.shape[0], -1, dtype=np.int64)
    old2new = np.full(old_cells.shape[0], -1, dtype=np.int64)
    new2old[i_new] = i_old
    old2new[i_old] = i_new
    return new2old, old2new


def _ranges(starts: I64, lengths: I64) -> I64:
    """``concatenate([arange(s, s + n) for s, n in zip(starts, lengths)])``, vectorised."""
    total = int(lengths.sum())
    ends = np.cumsum(lengths)
    return np.repeat(starts - (ends - lengths), lengths) + np.arange(total, dtype=np.int64)


Changes = tuple[I64, I64, I64, I64, F64]


def edge_changes(old: GraphArrays, new: GraphArrays, new2old: I64, old2new: I64) -> Changes:
    """Changed edges between kept nodes, in new ids: ``(dearer_u, dearer_v)`` (dearer or gone)
    and ``(check_u, check_v, check_cost)`` (cheaper or new)."""
    intra = _intra_changes(old, new, new2old)
    cross = _crossing_changes(old, new, new2old, old2new)
    u, v, cu, cv = (np.concatenate((intra[i], cross[i])).astype(np.int64) for i in range(4))
    return u, v, cu, cv, np.concatenate((intra[4], cross[4])).astype(np.float64)


def _intra_changes(old: GraphArrays, new: GraphArrays, new2old: I64) -> Changes:
    """Changed table entries between kept nodes (see :func:`edge_changes`)."""
    k_old, k_new = np.diff(old.cl_first), np.diff(new.cl_first)
    changed = k_old != k_new
    # Clusters with as many nodes as before: did a cell or a table entry change?
    node_c = new.node_cluster
    on = ~changed[node_c]
    local = np.arange(new.node_count, dtype=np.int64) - new.cl_first[node_c]
    moved = new.node_cell[on] != old.node_cell[old.cl_first[node_c[on]] + local[on]]
    changed[node_c[on][moved]] = True
    sizes = k_new * k_new
    entry_c = np.repeat(np.arange(sizes.shape[0], dtype=np.int64), sizes)
    on = ~changed[entry_c]
    pos = np.arange(entry_c.shape[0], dtype=np.int64) - new.cl_doff[entry_c]
    differ = new.dist_flat[on] != old.dist_flat[old.cl_doff[entry_c[on]] + pos[on]]
    changed[entry_c[on][differ]] = True
    # The entries of the changed clusters between kept nodes, matched with their old entries.
    cc = np.flatnonzero(changed)
    e = _ranges(new.cl_doff[cc], sizes[cc])
    c = np.repeat(cc, sizes[cc])
    k = k_new[c]
    loc = e - new.cl_doff[c]
    gu, gv = new.cl_first[c] + loc // k, new.cl_first[c] + loc % k
    ou, ov = new2old[gu], new2old[gv]
    kept = (gu != gv) & (ou >= 0) & (ov >= 0)
    gu, gv, ou, ov, c, now = gu[kept], gv[kept], ou[kept], ov[kept], c[kept], new.dist_flat[e[kept]]
    base = old.cl_first[c]
    was = old.dist_flat[old.cl_doff[c] + (ou - base) * k_old[c] + ov - base]
    dearer, cheaper = now > was * (1.0 + EDGE_RTOL), now < was
    return gu[dearer], gv[dearer], gu[cheaper], gv[cheaper], now[cheaper]


def _crossing_keys(graph: GraphArrays, span: int) -> tuple[I64, F64, I64, I64]:
    """Crossings as unique ``cell_u * span + cell_v`` keys, with their cheapest cost and ends."""
    src = np.repeat(np.arange(graph.node_count, dtype=np.int64), np.diff(graph.inter_off))
    dst = graph.inter_dst
    key = graph.node_cell[src] * span + graph.node_cell[dst]
    order = np.lexsort((graph.inter_cost, key))
    key = key[order]
    first = np.flatnonzero(np.concatenate(([True], key[1:] != key[:-1])))
    pick = order[first]
    return key[first], graph.inter_cost[pick], src[pick], dst[pick]


def _crossing_changes(old: GraphArrays, new: GraphArrays, new2old: I64, old2new: I64) -> Changes:
    """Changed crossings between kept nodes (see :func:`edge_changes`)."""
    span = max(int(old.node_cell.max(initial=-1)), int(new.node_cell.max(initial=-1))) + 1
    key_o, cost_o, src_o, dst_o = _crossing_keys(old, span)
    key_n, cost_n, src_n, dst_n = _crossing_keys(new, span)
    _, io, in_ = np.intersect1d(key_o, key_n, assume_unique=True, return_indices=True)
    gone = np.ones(key_o.shape[0], dtype=np.bool_)
    gone[io] = False
    gone_u, gone_v = old2new[src_o[gone]], old2new[dst_o[gone]]
    kept = (gone_u >= 0) & (gone_v >= 0)
    dearer = cost_n[in_] > cost_o[io] * (1.0 + EDGE_RTOL)
    look = (new2old[src_n] >= 0) & (new2old[dst_n] >= 0)  # new crossings between kept nodes
    look[in_] = cost_n[in_] < cost_o[io]
    return (
        np.concatenate((gone_u[kept], src_n[in_][dearer])),
        np.concatenate((gone_v[kept], dst_n[in_][dearer])),
        src_n[look],
        dst_n[look],
        cost_n[look],
    )
