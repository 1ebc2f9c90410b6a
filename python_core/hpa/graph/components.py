"""Connected components for instant "is the goal reachable at all?" answers.

Quick start::

    import numpy as np
    from python_core.hpa.graph.components import label_clusters
    labels = np.full(4, -1, np.int16)
    counts = label_clusters(np.array([1, 0, 0, 1], np.uint8), 4, 1, 4, 3, labels, np.array([0]))
    assert labels.tolist() == [0, -1, -1, 1] and counts.tolist() == [2]

Two layers: each walkable cell gets the id of its component *inside its cluster* (int16, so the
labels cost two bytes a cell), and each such local component gets a global id, from a union-find
over the abstract graph: local components that share a transition's cluster-component are one,
entrance crossings join components of neighbouring clusters, and a local component without any
transition is a component of its own (no exit can leave it: every crossing cell lies in the same
cluster component as a transition of its entrance). Two cells are connected iff their global ids
agree. A cell change relabels only the clusters it lies in (or patches their labels in place,
:mod:`~python_core.hpa.repair.label_patches`); the union-find is cheap to redo.
"""

from __future__ import annotations

import numpy as np

from python_core._types import I16, I32, I64, U8
from python_core.compiled import jit
from python_core.hpa.graph.cluster_search import cluster_rect
from python_core.hpa.steps import MOVE_DX, MOVE_DY, legal_from, move_count, step_target

__all__ = [
    "LABEL_LIMIT",
    "component_ids",
    "component_of",
    "find_root",
    "label_clusters",
]


LABEL_LIMIT = 30000
"""Local components a cluster may count before a patch labels it afresh instead (labels are int16)."""


@jit
def _label_one(walk: U8, width: int, x0: int, y0: int, lw: int, lh: int, diag: int, labels: I16) -> int:  # noqa: PLR0917
    """Flood-fill one cluster; return its number of components (cells outside it are not read)."""
    n_moves = move_count(diag)
    stack = np.empty(lw * lh, dtype=np.int64)
    for y in range(y0, y0 + lh):
        for x in range(x0, x0 + lw):
            labels[y * width + x] = -1
    count = 0
    for y in range(y0, y0 + lh):
        for x in range(x0, x0 + lw):
            seed = y * width + x
            if walk[seed] == 0 or labels[seed] >= 0:
                continue
            labels[seed] = count
            stack[0] = seed
            top = 1
            while top > 0:
                top -= 1
                cur = stack[top]
                cx, cy = cur % width, cur // width
                for k in range(n_moves):
                    if step_target(cx - x0, cy - y0, k, lw, lh) < 0:
                        continue
                    nxt = cur + MOVE_DY[k] * width + MOVE_DX[k]
                    if labels[nxt] >= 0:  # most neighbours are labelled already: the cheap test first
                        continue
                    if not legal_from(walk, width, cx, cy, k, diag):
                        continue
                    labels[nxt] = count
                    stack[top] = nxt
                    top += 1
            count += 1
    return count


@jit
def label_clusters(  # noqa: PLR0917
    walk: U8, width: int, height: int, csize: int, diag: int, labels: I16, clusters: I64
) -> I64:
    """Label the cluster components of the given clusters (ids ``cy * ncx + cx``).

    Args:
        walk: global walkable flags.
        width: grid columns.
        height: grid rows.
        csize: cluster size.
        diag: diagonal rule code.
        labels: global out: local component id per cell, ``-1`` on walls.
        clusters: the cluster ids to (re)label.

    Returns:
        The component count of each given cluster.

    Example:
        >>> lab = np.zeros(2, np.int16)
        >>> label_clusters(np.ones(2, np.uint8), 2, 1, 1, 0, lab, np.array([0, 1])).tolist()
        [1, 1]
    """
    ncx = (width + csize - 1) // csize
    counts = np.zeros(clusters.shape[0], dtype=np.int64)
    for i in range(clusters.shape[0]):
        x0, y0, lw, lh = cluster_rect(clusters[i], ncx, csize, width, height)
        counts[i] = _label_one(walk, width, x0, y0, lw, lh, diag, labels)
    return counts


@jit
def find_root(root: I64, i: int) -> int:
    while root[i] != i:
        root[i] = root[root[i]]  # path halving keeps the trees flat
        i = root[i]
    return i


@jit
def component_ids(  # noqa: PLR0917
    comp_off: I64, node_cell: I64, node_cluster: I64, labels: I16, inter_off: I64, inter_dst: I64
) -> I32:
    """Global component id of every local component (``comp_off[c] + label``).

    Args:
        comp_off: per cluster, the index of its first local component (length clusters + 1).
        node_cell: cell of each abstract node.
        node_cluster: cluster of each abstract node.
        labels: local component per cell.
        inter_off: CSR offsets of the entrance crossings per node.
        inter_dst: crossing targets.

    Returns:
        int32 id per local component; equal ids mean connected.

    Example:
        >>> component_ids(np.array([0, 1, 2]), np.array([0, 1]), np.array([0, 1]), np.zeros(2, np.int16),
        ...               np.array([0, 1, 2]), np.array([1, 0])).tolist()
        [0, 0]
    """
    total = comp_off[-1]
    root = np.arange(total)
    for u in range(node_cell.shape[0]):
        cu = comp_off[node_cluster[u]] + labels[node_cell[u]]
        for e in range(inter_off[u], inter_off[u + 1]):
            v = inter_dst[e]
            cv = comp_off[node_cluster[v]] + labels[node_cell[v]]
            ru, rv = find_root(root, cu), find_root(root, cv)
            if ru != rv:
                root[max(ru, rv)] = min(ru, rv)
    out = np.empty(total, dtype=np.int32)
    for i in range(total):
        out[i] = find_root(root, i)
    return out


@jit
def component_of(  # noqa: PLR0917 (compiled kernel: positional)
    labels: I16, comp_off: I64, comp_id: I32, width: int, csize: int, ncx: int, cell: int
) -> int:
    """Global component id of a flat cell (``-1`` for a wall); equal ids mean connected.

    Example:
        >>> component_of(np.array([0, -1], np.int16), np.array([0, 1]), np.array([7], np.int32), 2, 2, 1, 0)
        7
    """
    label = labels[cell]
    if label < 0:
        return -1
    return int(comp_id[comp_off[(cell // width // csize) * ncx + cell % width // csize] + label])
