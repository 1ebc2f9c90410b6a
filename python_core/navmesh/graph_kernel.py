"""The edges of the navmesh's search graph in compiled code (see :mod:`python_core.navmesh.graph`).

    indptr, indices, costs = search_edges(pos, dst, left, right, out_ptr, out_nodes, travel, enter,
                                          link_cost, link_starts)

Two passes over the nodes (count, then fill) straight into the CSR arrays: every mesh build and
every obstacle re-cut builds the whole graph again, and the numpy version's temporaries (pieces of
candidate edges) took most of a rebuild's time.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from python_core._types import F64, I64, B
from python_core.compiled import jit

__all__ = ["copy_rows", "corner_links_of", "group_nodes", "patch_nodes", "search_edges", "writable"]


def writable(a: Any, dtype: Any = np.int64) -> Any:
    """``a`` as a contiguous, writable array of ``dtype`` (a copy only when it is not): the kernels
    are compiled for that type alone (a read-only array would compile a second signature)."""
    out = np.ascontiguousarray(a, dtype=dtype)
    return out if out.flags.writeable else out.copy()


@jit
def corner_links_of(ptr: I64) -> tuple[I64, I64]:
    """Per corner of the CSR polygons ``ptr``: its polygon and the next corner of that polygon
    (one pass: the numpy version's repeat and modulo temporaries cost milliseconds per call on
    aurora, and a region move calls it several times)."""
    n = ptr[ptr.shape[0] - 1]
    poly = np.empty(n, dtype=np.int64)
    nxt = np.empty(n, dtype=np.int64)
    for p in range(ptr.shape[0] - 1):
        a, b = ptr[p], ptr[p + 1]
        for c in range(a, b):
            poly[c] = p
            nxt[c] = c + 1
        if b > a:
            nxt[b - 1] = a
    return poly, nxt


@jit
def group_nodes(keys: I64, count: int) -> tuple[I64, I64]:
    """A counting sort: ``(ptr, items)`` with the indices ``i`` of ``keys[i] == k`` (in order) in
    ``items[ptr[k]:ptr[k+1]]``; negative keys are left out."""
    ptr = np.zeros(count + 1, dtype=np.int64)
    for i in range(keys.shape[0]):
        if keys[i] >= 0:
            ptr[keys[i] + 1] += 1
    for k in range(count):
        ptr[k + 1] += ptr[k]
    fill = ptr[:count].copy()
    items = np.empty(ptr[count], dtype=np.int64)
    for i in range(keys.shape[0]):
        k = keys[i]
        if k >= 0:
            items[fill[k]] = i
            fill[k] += 1
    return ptr, items


@jit
def search_edges(  # noqa: PLR0917 - the graph's node arrays
    pos: F64,
    dst: I64,
    left: I64,
    right: I64,
    out_ptr: I64,
    out_nodes: I64,
    travel: F64,
    enter: F64,
    link_cost: F64,
    link_starts: int,
) -> tuple[I64, I64, F64]:
    """CSR rows: node ``u`` entering polygon ``dst[u]`` leads to every node leaving it, in
    ``out_nodes`` order, but not straight back out through the portal just entered (the same two
    vertices the other way round); link start ``link_starts + k`` leads to its end
    ``link_starts + m + k`` at ``link_cost[k]``. An edge crossing polygon ``p`` costs its length
    times ``travel[p]`` plus ``enter[u]``."""
    n = pos.shape[0]
    m = link_cost.shape[0]
    dim = pos.shape[1]
    indptr = np.zeros(n + 1, dtype=np.int64)
    for u in range(n):
        count = 0
        if link_starts <= u < link_starts + m:
            count = 1
        elif dst[u] >= 0:
            p = dst[u]
            for k in range(out_ptr[p], out_ptr[p + 1]):
                v = out_nodes[k]
                if not (left[u] >= 0 and left[u] == right[v] and right[u] == left[v]):
                    count += 1
        indptr[u + 1] = indptr[u] + count
    indices = np.empty(indptr[n], dtype=np.int64)
    costs = np.empty(indptr[n], dtype=np.float64)
    for u in range(n):
        at = indptr[u]
        if link_starts <= u < link_starts + m:
            indices[at] = u + m
            costs[at] = link_cost[u - link_starts]
            continue
        p = dst[u]
        if p < 0:
            continue
        for k in range(out_ptr[p], out_ptr[p + 1]):
            v = out_nodes[k]
            if left[u] >= 0 and left[u] == right[v] and right[u] == left[v]:
                continue
            length = 0.0
            for d in range(dim):
                step = pos[v, d] - pos[u, d]
                length += step * step
            indices[at] = v
            costs[at] = math.sqrt(length) * travel[p] + enter[u]
            at += 1
    return indptr, indices, costs


@jit
def patch_nodes(  # noqa: PLR0917 - the new mesh's arrays and the last graph's
    corner: I64, cpoly: I64, twin: I64, flat: I64, nxt: I64, region: I64, enter_cost: F64, layers: I64,
    samples: int, old_dst: I64, old_of_new: I64, kept_portal: B, changed: B,
) -> tuple[I64, I64, I64, I64, F64, I64, B, I64]:  # fmt: skip
    """A patched search graph's per-node arrays in one pass (see :mod:`~python_core.navmesh.patch`):
    ``src, dst, left, right, enter, layers`` of each portal ``corner`` (-1: gone, its nodes lead
    nowhere), whether a node's row is the last graph's (the same portal into the same polygon,
    whose portals did not change) and, for the others, the polygon whose row is computed again."""
    k = corner.shape[0]
    n = k * samples
    n_old = old_dst.shape[0]
    src = np.full(n, -1, dtype=np.int64)
    dst = np.full(n, -1, dtype=np.int64)
    left = np.full(n, -1, dtype=np.int64)
    right = np.full(n, -1, dtype=np.int64)
    enter = np.zeros(n)
    node_layers = np.zeros(n, dtype=np.int64)
    reused = np.zeros(n, dtype=np.bool_)
    redo = np.full(n, -1, dtype=np.int64)
    for i in range(k):
        c = corner[i]
        if c < 0:
            continue
        s, d = cpoly[c], cpoly[twin[c]]
        e = enter_cost[d] if region[s] != region[d] else 0.0
        same_portal = i < kept_portal.shape[0] and kept_portal[i] and old_of_new[d] >= 0 and not changed[d]
        for j in range(samples):
            u = i * samples + j
            src[u], dst[u], left[u], right[u] = s, d, flat[nxt[c]], flat[c]
            enter[u], node_layers[u] = e, layers[d]
            reused[u] = same_portal and u < n_old and old_of_new[d] == old_dst[u]
            redo[u] = -1 if reused[u] else d
    return src, dst, left, right, enter, node_layers, reused, redo


@jit
def copy_rows(  # noqa: PLR0917 - both graphs' rows
    indptr: I64, old_indptr: I64, old_indices: I64, old_costs: F64, r_ptr: I64, r_idx: I64, r_cost: F64,
    reused: B,
) -> tuple[I64, F64]:  # fmt: skip
    """The patched graph's edges: row ``u`` from the last graph's where ``reused[u]``, else from the
    rows computed again (``r_*``); ``indptr`` is the patched graph's."""
    n = reused.shape[0]
    indices = np.empty(indptr[n], dtype=np.int64)
    costs = np.empty(indptr[n])
    for u in range(n):
        at = indptr[u]
        if reused[u]:
            a = old_indptr[u]
            for j in range(old_indptr[u + 1] - a):
                indices[at + j] = old_indices[a + j]
                costs[at + j] = old_costs[a + j]
        else:
            a = r_ptr[u]
            for j in range(r_ptr[u + 1] - a):
                indices[at + j] = r_idx[a + j]
                costs[at + j] = r_cost[a + j]
    return indices, costs
