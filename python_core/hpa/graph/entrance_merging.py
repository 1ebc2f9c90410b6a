"""Entrance merging: fewer transitions on borders cut into many short entrances (issue 41).

Quick start::

    import numpy as np
    from python_core.hpa.graph.entrance_merging import merge_crossings
    labels = np.zeros(64, np.int16)                   # one component on each side
    cells = np.array([[3, 4], [19, 20], [35, 36], [51, 52]])  # four entrances down a border
    kept, _, merged = merge_crossings(cells, np.ones((4, 2)), labels, np.ones(64), 3, 16, 1, 2, 3)
    assert merged and kept.tolist() == [[3, 4], [35, 36]]    # pieces of two border cells

Scattered obstacles (a random map, open ground with rocks) cut each cluster border into many
short entrances, and each gets a transition: a 32-cell border of a map with 20% of its cells
blocked has about seven, all joining the same two components. Every transition costs a
Dijkstra over its cluster at build time, a row and a column of the cluster's cost table and the
nodes a query's abstract search expands, but beside its neighbours it adds almost nothing to a
path: the smoother straightens the small detour. So entrances of one border that join the same
pair of local components (equal labels on both sides) and weigh the same are merged into
pieces ``span`` border cells long, keeping the transition nearest each piece's middle, once there
are at least ``least`` of them. Each component pair keeps a transition, so reachability and the
abstract graph's connectivity stand; squeezes (diagonal crossings) are kept. Borders of rooms and
caves, with one or two doors per component pair, are left as they are.
"""

from __future__ import annotations

import numpy as np

from python_core._types import F64, I16, I64
from python_core.compiled import jit

__all__ = ["MERGE_CELLS", "MERGE_LEAST", "MERGE_SPAN", "merge_crossings", "merge_span_for"]

MERGE_SPAN = 8
"""Piece length (border cells) of merged entrances where merging is on by default: a quarter of
a 32-cell border."""
MERGE_CELLS = 2048 * 2048
"""Grids of at least this many cells merge by default. On smaller ones a build takes seconds
anyway, and merging costs paths some length on random ground (mean cost over the exact optimum,
random 1024 x 1024, 20% blocked: 1.007 unmerged, 1.024 with pieces of 8), so they keep every
entrance; on the largest the build is the wait a player sees."""
MERGE_LEAST = 3
"""Entrances of one component pair on one border from which they are merged (a room's two doors
into the same room are not)."""


def merge_span_for(span: int | None, cells: int) -> int:
    """The piece length a grid of ``cells`` cells merges with: ``span`` when given, else (auto)
    :data:`MERGE_SPAN` from :data:`MERGE_CELLS` cells up and ``0`` (no merging) below.

    Example:
        >>> merge_span_for(None, 512 * 512), merge_span_for(None, 4096 * 4096), merge_span_for(4, 16)
        (0, 8, 4)
    """
    if span is not None:
        return span
    return MERGE_SPAN if cells >= MERGE_CELLS else 0


@jit
def merge_crossings(  # noqa: PLR0917 (compiled kernel: positional)
    cells: I64, costs: F64, labels: I16, weights: F64, base0: int, step: int, across: int, span: int,
    least: int,
) -> tuple[I64, F64, bool]:  # fmt: skip
    """The transition pairs of one side border after merging (see the module).

    Args:
        cells: ``(m, 2)`` transition pairs of a side border in border order
            (:func:`~python_core.hpa.graph.entrances.border_crossings`), squeezes after them.
        costs: their ``(m, 2)`` step costs.
        labels: global local-component labels (:mod:`~python_core.hpa.graph.components`).
        weights: global weights.
        base0: the first cluster's cell at border position 0.
        step: cells between two border positions.
        across: from a first-cluster cell to the cell it faces.
        span: piece length in border positions (``<= 0``: no merging).
        least: pairs of one component pair from which they are merged.

    Returns:
        ``(cells, costs, merged)``: the kept pairs, in order, and whether any was dropped.

    Example:
        >>> two = np.array([[3, 4], [19, 20]])
        >>> merge_crossings(two, np.ones((2, 2)), np.zeros(32, np.int16), np.ones(32), 3, 16, 1, 32, 3)[2]
        False
    """
    m = cells.shape[0]
    keep = np.ones(m, dtype=np.bool_)
    if span <= 0 or m < least:
        return cells, costs, False
    seen = np.zeros(m, dtype=np.bool_)
    members = np.empty(m, dtype=np.int64)
    for i in range(m):
        if seen[i] or cells[i, 1] - cells[i, 0] != across:
            continue
        la, lb, w = labels[cells[i, 0]], labels[cells[i, 1]], weights[cells[i, 0]]
        n, even = 0, True
        for j in range(i, m):
            a, b = cells[j, 0], cells[j, 1]
            if not seen[j] and b - a == across and labels[a] == la and labels[b] == lb:
                seen[j] = True
                members[n] = j
                n += 1
                even = even and weights[a] == w and weights[b] == w
        if n < least or not even:
            continue
        k = 0
        while k < n:  # a piece: the members within span positions of its first one
            first = (cells[members[k], 0] - base0) // step
            e = k
            while e < n and (cells[members[e], 0] - base0) // step < first + span:
                e += 1
            mid2 = first + (cells[members[e - 1], 0] - base0) // step
            best, best_off = k, m * step + span
            for q in range(k, e):
                off = abs(2 * ((cells[members[q], 0] - base0) // step) - mid2)
                if off < best_off:
                    best, best_off = q, off
            for q in range(k, e):
                keep[members[q]] = q == best
            k = e
    if keep.all():
        return cells, costs, False
    return cells[keep], costs[keep], True
