"""The edges of the navmesh's search graph in compiled code (see :mod:`python_core.navmesh.graph`).

    indptr, indices, costs = search_edges(pos, dst, left, right, out_ptr, out_nodes, travel, enter,
                                          link_cost, link_starts)

Two passes over the nodes (count, then fill) straight into the CSR arrays: every mesh build and
every obstacle re-cut builds the whole graph again, and the numpy version's temporaries (pieces of
candidate edges) took most of a rebuild's time.
"""

from __future__ import annotations

import math

import numpy as np

from python_core._types import F64, I64
from python_core.compiled import jit

__all__ = ["search_edges"]


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
