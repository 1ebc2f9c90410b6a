"""Which border crossings of a tile lattice become transitions of the hierarchy.

Quick start::

    from python_core.hpa.lattice.entrances import pick_transitions
    a, b, step = pick_transitions(a, b, step, labels, frame, long_len=6)

A crossing is an open move between two clusters (:func:`~.cluster_kernels.crossings`). Between
two side-by-side clusters the crossings are ordered along their border by the map row (or
column) of the cell on the lower-numbered side; an entrance is a maximal run of consecutive rows
(columns) with a crossing, and gets its middle crossing, plus both ends when it is longer than
``long_len`` (HPA*'s rule; of a row's several moves the shortest). Clusters that meet at a corner
form one entrance. On a hex or isometric lattice two cells of a run need not be neighbours, so
the run alone does not keep reachability exact; one more rule does: every pair of in-cluster
components (one each side) that some crossing joins keeps at least one transition. Any path then
maps to transitions between the same components, so the abstract graph joins exactly what the
grid joins.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from python_core._types import F64, I64

__all__ = ["ClusterFrame", "pick_transitions"]


@dataclass(frozen=True, slots=True)
class ClusterFrame:
    """Where padded nodes sit: ``row * stride + col``, cell ``(col - pad, row - pad)``, clusters of
    ``csize`` cells a side, ``nx`` by ``ny`` of them."""

    stride: int
    pad: int
    csize: int
    nx: int
    ny: int

    def cells(self, nodes: I64) -> tuple[I64, I64]:
        """The grid cells ``(x, y)`` of padded nodes."""
        rows, cols = np.divmod(nodes, self.stride)
        return cols - self.pad, rows - self.pad

    def clusters(self, nodes: I64) -> I64:
        """The cluster number of each padded node."""
        x, y = self.cells(nodes)
        out: I64 = (y // self.csize) * self.nx + x // self.csize
        return out


def pick_transitions(
    a: I64, b: I64, step: F64, labels: I64, frame: ClusterFrame, *, long_len: int
) -> tuple[I64, I64, F64]:
    """The transitions among crossings ``a -> b`` (``a`` in the lower-numbered cluster, no copies).

    Args:
        a, b, step: the crossings and their moves' world lengths.
        labels: in-cluster component label of every padded node (:func:`~.cluster_kernels.local_labels`).
        frame: the cluster layout.
        long_len: entrances longer than this get their two ends too.

    Returns:
        The chosen subset of ``(a, b, step)``, ordered by cluster pair.

    Example:
        >>> f = ClusterFrame(stride=10, pad=1, csize=4, nx=2, ny=1)
        >>> a = np.array([14, 24, 34]); b = a + 1; labels = np.zeros(100, np.int64)
        >>> pick_transitions(a, b, np.ones(3), labels, f, long_len=6)[0].tolist()  # the middle row
        [24]
    """
    if not a.size:
        return a, b, step
    ca, cb = frame.clusters(a), frame.clusters(b)
    pair = ca * (frame.nx * frame.ny) + cb
    ax, ay = frame.cells(a)
    side_by_side_x = cb % frame.nx == ca % frame.nx  # one above the other: the border runs along x
    side_by_side_y = cb // frame.nx == ca // frame.nx
    position = np.where(side_by_side_y, ay, np.where(side_by_side_x, ax, 0))
    order = np.lexsort((b, a, step, position, pair))  # the full order: ties never depend on the input's
    pair, position = pair[order], position[order]
    # the first (shortest) crossing of each (pair, position): one per border row
    first = np.ones(order.size, dtype=bool)
    first[1:] = (pair[1:] != pair[:-1]) | (position[1:] != position[:-1])
    rows = order[first]
    row_pair, row_pos = pair[first], position[first]
    starts = np.ones(rows.size, dtype=bool)
    starts[1:] = (row_pair[1:] != row_pair[:-1]) | (row_pos[1:] - row_pos[:-1] > 1)
    run_first = np.flatnonzero(starts)
    run_end = np.append(run_first[1:], rows.size)  # exclusive
    length = run_end - run_first
    chosen = [rows[run_first + (length - 1) // 2]]
    long_runs = length > long_len
    chosen += [rows[run_first[long_runs]], rows[run_end[long_runs] - 1]]
    picked = np.unique(np.concatenate(chosen))
    # reachability: every (component, component) pair a crossing joins keeps a transition
    key = np.stack([labels[a], labels[b]], axis=1)
    kept = {(int(u), int(v)) for u, v in key[picked]}
    unique_keys, index = np.unique(key, axis=0, return_index=True)
    extra = [
        int(i) for (u, v), i in zip(unique_keys.tolist(), index.tolist(), strict=True) if (u, v) not in kept
    ]
    if extra:
        picked = np.unique(np.concatenate([picked, np.array(extra, dtype=np.int64)]))
    return a[picked], b[picked], step[picked]
