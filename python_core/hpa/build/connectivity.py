"""Connected components for instant "is the goal reachable at all?" answers.

Quick start::

    import numpy as np
    from python_core.hpa.build.connectivity import label_clusters
    labels = np.full(4, -1, np.int16)
    counts = label_clusters(np.array([1, 0, 0, 1], np.uint8), 4, 1, 4, 3, labels, np.array([0]))
    assert labels.tolist() == [0, -1, -1, 1] and counts.tolist() == [2]

Two layers: each walkable cell gets the id of its component *inside its cluster* (int16, so the
labels cost two bytes a cell), and each such local component gets a global id, from a union-find
over the abstract graph: local components that share a transition's cluster-component are one,
entrance crossings join components of neighbouring clusters, and a local component without any
transition is a component of its own (no exit can leave it: every crossing cell lies in the same
cluster component as a transition of its entrance). Two cells are connected iff their global ids
agree. A cell change relabels only the clusters it lies in; the union-find is cheap to redo.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from python_core.compiled import jit
from python_core.hpa.build.cluster_search import cluster_rect, step_allowed

__all__ = [
    "LABEL_LIMIT",
    "component_ids",
    "component_of",
    "label_clusters",
    "patch_labels",
    "seal_labels",
    "sealed_cells",
]

U8 = npt.NDArray[np.uint8]
I16 = npt.NDArray[np.int16]
I32 = npt.NDArray[np.int32]
I64 = npt.NDArray[np.int64]

LABEL_LIMIT = 30000
"""Local components a cluster may count before a patch labels it afresh instead (labels are int16)."""

_DX = np.array([1, -1, 0, 0, 1, -1, 1, -1], dtype=np.int64)
_DY = np.array([0, 0, 1, -1, 1, 1, -1, -1], dtype=np.int64)


@jit
def _label_one(walk: U8, width: int, x0: int, y0: int, lw: int, lh: int, diag: int, labels: I16) -> int:  # noqa: PLR0917
    """Flood-fill one cluster; return its number of components (cells outside it are not read)."""
    n_moves = 4 if diag == 0 else 8
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
                    nx, ny = cx + _DX[k], cy + _DY[k]
                    if nx < x0 or ny < y0 or nx >= x0 + lw or ny >= y0 + lh:
                        continue
                    nxt = ny * width + nx
                    if walk[nxt] == 0 or labels[nxt] >= 0:
                        continue
                    if step_allowed(walk, width, cx, cy, _DX[k], _DY[k], diag):
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
def patch_labels(  # noqa: PLR0912, PLR0917 (compiled kernel: positional)
    walk: U8, width: int, height: int, csize: int, diag: int, labels: I16, comp_count: I64, cells: I64
) -> U8:
    """Patch the labels after each given cell changed, where the change can neither split nor
    merge a component of its cluster; each cell must be the only changed cell of its cluster.

    Only moves that end at the cell or squeeze past it change, and all of them join cells of its
    ring (the eight neighbours, inside its cluster). A closed cell whose open ring cells stay
    connected through the ring splits nothing: a path through it can go round. An opened cell
    that reaches ring cells of one label only (or none: a component of its own) merges nothing;
    the moves it makes legal between ring cells join cells it reaches itself.

    Args:
        walk: global walkable flags, already changed.
        width: grid columns.
        height: grid rows.
        csize: cluster size.
        diag: diagonal rule code.
        labels: local component ids, patched in place.
        comp_count: per cluster, its number of local components, patched in place.
        cells: the changed cells.

    Returns:
        Per cell, 1 when patched, 0 when its cluster must be labelled afresh.

    Example:
        >>> walk = np.array([1, 1, 1, 0], np.uint8)     # one row; then cell 1 closes: a split
        >>> lab, count = np.zeros(4, np.int16), np.array([1])
        >>> lab[3] = -1; walk[1] = 0
        >>> patch_labels(walk, 4, 1, 4, 3, lab, count, np.array([1])).tolist()
        [0]
    """
    ncx = (width + csize - 1) // csize
    done = np.zeros(cells.shape[0], dtype=np.uint8)
    ring = np.empty(8, dtype=np.int64)
    root = np.empty(8, dtype=np.int64)
    for i in range(cells.shape[0]):
        c = cells[i]
        x, y = c % width, c // width
        k = (y // csize) * ncx + x // csize
        x0, y0 = (x // csize) * csize, (y // csize) * csize
        x1, y1 = min(x0 + csize, width), min(y0 + csize, height)
        n = 0
        for m in range(8):
            nx, ny = x + _DX[m], y + _DY[m]
            inside = x0 <= nx < x1 and y0 <= ny < y1 and walk[ny * width + nx] != 0
            # a closed cell looks at every open ring cell; an opened one at those it can step to
            if inside and (walk[c] == 0 or step_allowed(walk, width, x, y, _DX[m], _DY[m], diag)):
                ring[n] = m
                n += 1
        if walk[c] == 0:  # closed: are its open ring cells one set through ring moves?
            for a in range(n):
                root[a] = a
            for a in range(n):
                ax, ay = x + _DX[ring[a]], y + _DY[ring[a]]
                for b in range(a + 1, n):
                    dx, dy = _DX[ring[b]] - _DX[ring[a]], _DY[ring[b]] - _DY[ring[a]]
                    if abs(dx) > 1 or abs(dy) > 1 or not step_allowed(walk, width, ax, ay, dx, dy, diag):
                        continue
                    ra, rb = _find(root, a), _find(root, b)
                    root[max(ra, rb)] = min(ra, rb)
            whole = True
            for a in range(n):
                whole = whole and _find(root, a) == 0
            if whole:
                if n == 0:  # it was a component of its own
                    _drop_label(labels, comp_count, c, k)
                labels[c] = -1
                done[i] = 1
            continue
        label = -1  # opened: the labels of the ring cells it reaches
        merges = False
        for a in range(n):
            other = labels[(y + _DY[ring[a]]) * width + x + _DX[ring[a]]]
            if label < 0:
                label = other
            elif other != label:
                merges = True
        if merges or (label < 0 and comp_count[k] >= LABEL_LIMIT):
            continue
        if label < 0 and labels[c] < 0:
            label = comp_count[k]
            comp_count[k] += 1
        elif label < 0:
            label = labels[c]  # already open and alone: keeps its label
        labels[c] = label
        done[i] = 1
    return done


@jit
def sealed_cells(walk: U8, width: int, height: int, cells: I64) -> npt.NDArray[np.bool_]:
    """Which cells have no open neighbour among their eight (walls or off the grid): whether open
    or not, no move enters, leaves or squeezes past them.

    Example:
        >>> sealed_cells(np.array([1, 0, 0, 0], np.uint8), 4, 1, np.array([0, 1, 3])).tolist()
        [True, False, True]
    """
    out = np.ones(cells.shape[0], dtype=np.bool_)
    for i in range(cells.shape[0]):
        x, y = cells[i] % width, cells[i] // width
        for ny in range(max(y - 1, 0), min(y + 2, height)):
            for nx in range(max(x - 1, 0), min(x + 2, width)):
                if (nx != x or ny != y) and walk[ny * width + nx] != 0:
                    out[i] = False
    return out


@jit
def seal_labels(walk: U8, labels: I16, comp_count: I64, cells: I64, owner: I64) -> I64:
    """Labels after sealed cells (no open neighbour among their eight) changed, each in cluster
    ``owner[i]``: an opened one is a component of its own, the cluster's next label; a closed
    one loses its label, whose number stays unused (a component without nodes is harmless)
    unless it was the last one, as when a cell opened before closes again.

    Returns:
        The clusters (maybe repeated) whose label count would outgrow the int16 labels: the
        caller labels them afresh.

    Example:
        >>> lab, count = np.array([-1, -1, 0], np.int16), np.array([1])
        >>> seal_labels(np.array([1, 0, 1], np.uint8), lab, count, np.array([0]), np.array([0])).tolist()
        []
        >>> lab.tolist(), count.tolist()
        ([1, -1, 0], [2])
    """
    fresh = np.empty(cells.shape[0], dtype=np.int64)
    n = 0
    for i in range(cells.shape[0]):
        cell, c = cells[i], owner[i]
        if walk[cell] == 0:
            _drop_label(labels, comp_count, cell, c)
        elif labels[cell] < 0:
            if comp_count[c] >= LABEL_LIMIT:
                fresh[n] = c
                n += 1
                continue
            labels[cell] = comp_count[c]
            comp_count[c] += 1
    return fresh[:n]


@jit
def _drop_label(labels: I16, comp_count: I64, cell: int, cluster: int) -> None:
    """A closed cell that was a component of its own loses its label; the cluster gives the
    number back when it was the last one given (as when a cell opened before closes again)."""
    if labels[cell] >= 0 and labels[cell] == comp_count[cluster] - 1:
        comp_count[cluster] -= 1
    labels[cell] = -1


@jit
def _find(root: I64, i: int) -> int:
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
            ru, rv = _find(root, cu), _find(root, cv)
            if ru != rv:
                root[max(ru, rv)] = min(ru, rv)
    out = np.empty(total, dtype=np.int32)
    for i in range(total):
        out[i] = _find(root, i)
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
