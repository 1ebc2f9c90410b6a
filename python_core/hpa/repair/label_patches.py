"""Component labels kept through a local change: patched in place where no component splits or merges.

Quick start (``labels`` and ``comp_count`` as :func:`~python_core.hpa.graph.components.label_clusters`
left them, the cells already changed in ``walk``)::

    patched = patch_labels(walk, width, height, csize, diag, labels, comp_count, cells)
    sealed = sealed_cells(walk, width, height, cells)        # cells no move can touch
    grown = seal_labels(walk, labels, comp_count, cells[sealed], owner[sealed])

A cluster whose change a patch cannot vouch for (or with more than one changed cell) is labelled
afresh instead (:func:`~python_core.hpa.graph.components.label_clusters`).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from python_core._types import I16, I64, U8
from python_core.compiled import jit
from python_core.hpa.graph.components import LABEL_LIMIT, find_root
from python_core.hpa.steps import MOVE_DX, MOVE_DY, step_allowed

__all__ = ["patch_labels", "seal_labels", "sealed_cells"]


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
            nx, ny = x + MOVE_DX[m], y + MOVE_DY[m]
            inside = x0 <= nx < x1 and y0 <= ny < y1 and walk[ny * width + nx] != 0
            # a closed cell looks at every open ring cell; an opened one at those it can step to
            if inside and (walk[c] == 0 or step_allowed(walk, width, x, y, MOVE_DX[m], MOVE_DY[m], diag)):
                ring[n] = m
                n += 1
        if walk[c] == 0:  # closed: are its open ring cells one set through ring moves?
            for a in range(n):
                root[a] = a
            for a in range(n):
                ax, ay = x + MOVE_DX[ring[a]], y + MOVE_DY[ring[a]]
                for b in range(a + 1, n):
                    dx, dy = MOVE_DX[ring[b]] - MOVE_DX[ring[a]], MOVE_DY[ring[b]] - MOVE_DY[ring[a]]
                    if abs(dx) > 1 or abs(dy) > 1 or not step_allowed(walk, width, ax, ay, dx, dy, diag):
                        continue
                    ra, rb = find_root(root, a), find_root(root, b)
                    root[max(ra, rb)] = min(ra, rb)
            whole = True
            for a in range(n):
                whole = whole and find_root(root, a) == 0
            if whole:
                if n == 0:  # it was a component of its own
                    _drop_label(labels, comp_count, c, k)
                labels[c] = -1
                done[i] = 1
            continue
        label = -1  # opened: the labels of the ring cells it reaches
        merges = False
        for a in range(n):
            other = labels[(y + MOVE_DY[ring[a]]) * width + x + MOVE_DX[ring[a]]]
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
