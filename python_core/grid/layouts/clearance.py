"""Clearance on a tile lattice: how many rings of side neighbours around each cell are free.

Quick start::

    import numpy as np
    from python_core.grid.layouts import TileGrid
    grid = TileGrid(np.ones((5, 5), bool), layout="hexagon")
    grid.clearance[2].tolist()   # [1, 2, 3, 2, 1]: a size-3 unit fits only at the centre

A unit of size k on a layout stands on a centre cell c and covers every cell within k - 1 steps
of c over the layer's side neighbours (``get_surrounding_cells``): size 1 is the cell, size 2
adds its ring, and so on. The clearance of an open cell is the largest such k whose cells all
exist inside the grid and are walkable: the BFS distance, in side steps, from the nearest wall or
outside cell (capped at 255, one byte a cell; 0 on walls). Side neighbours are symmetric, so
that distance is the lattice distance to the nearest blocked cell, and clearance is 1-Lipschitz:
neighbours differ by at most one. Both facts make the local repair exact:

* a cell that closes can only lower values, to ``min(old, distance to it)``: a wave from it that
  stops where nothing drops;
* a cell that opens can only raise the values of cells whose nearest blocked cell it was: exactly
  the cells reached from it over steps that rise by one each; those are recomputed from their
  untouched neighbours (a Dijkstra over the region, seeded from its border).

Every kernel works on the padded copy of :mod:`python_core.grid.layouts.search` (a blocked border
wide enough for every move), and reads a node's side moves from its parity class.
"""

# Compiled kernels take their arguments positionally: numba.njit does not compile keywords.
# ruff: noqa: PLR0917

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from python_core.compiled import jit
from python_core.grid.layouts.kernel import _parity

__all__ = ["fill_clearance", "repair_clearance"]

_CAP = 255


@jit
def fill_clearance(
    clear: npt.NDArray[np.uint8],
    stride: int,
    moves: npt.NDArray[np.int64],
    n_sides: int,
    parity_axis: int,
    parity_shift: int,
    pad: int,
    width: int,
    height: int,
) -> None:
    """Turn a padded ``clear`` holding 1 on open cells and 0 elsewhere into the clearance.

    The grid's cells are padded rows ``pad .. pad + height - 1``, columns ``pad .. pad + width
    - 1`` (their side moves stay in the array). A multi-source BFS from the open cells that
    touch a blocked one (value 1); cells it never reaches below 255 keep the cap.
    """
    queue = np.empty(width * height, dtype=np.int32)
    tail = 0
    for row in range(pad, pad + height):
        for node in range(row * stride + pad, row * stride + pad + width):
            if clear[node] != 0:
                clear[node] = _CAP  # not reached yet
    for row in range(pad, pad + height):
        for node in range(row * stride + pad, row * stride + pad + width):
            if clear[node] == 0:
                continue
            p = _parity(node, stride, parity_axis, parity_shift)
            for k in range(n_sides):
                if clear[node + moves[p, k]] == 0:
                    clear[node] = 1
                    queue[tail] = node
                    tail += 1
                    break
    head = 0
    while head < tail:
        node = queue[head]
        head += 1
        level = clear[node] + 1
        if level >= _CAP:
            continue  # the rest keep the cap
        p = _parity(node, stride, parity_axis, parity_shift)
        for k in range(n_sides):
            nbr = node + moves[p, k]
            if clear[nbr] == _CAP:
                clear[nbr] = level
                queue[tail] = nbr
                tail += 1


@jit
def _raise_region(
    clear: npt.NDArray[np.uint8],
    stride: int,
    moves: npt.NDArray[np.int64],
    n_sides: int,
    parity_axis: int,
    parity_shift: int,
    opened: npt.NDArray[np.int64],
    mark: npt.NDArray[np.uint8],
    region: npt.NDArray[np.int32],
) -> int:
    """The cells whose nearest blocked cell was one of ``opened`` (value 0 before, open now):
    reached from them over steps that rise by exactly one (below the cap). Marks and lists them."""
    count = 0
    for i in range(opened.shape[0]):
        node = opened[i]
        if mark[node] == 0:
            mark[node] = 1
            region[count] = node
            count += 1
    head = 0
    while head < count:
        node = region[head]
        head += 1
        level = clear[node] + 1
        if level >= _CAP:
            continue  # capped values cannot rise
        p = _parity(node, stride, parity_axis, parity_shift)
        for k in range(n_sides):
            nbr = node + moves[p, k]
            if mark[nbr] == 0 and clear[nbr] == level:
                mark[nbr] = 1
                region[count] = nbr
                count += 1
    return count


@jit
def _recompute_region(
    clear: npt.NDArray[np.uint8],
    stride: int,
    moves: npt.NDArray[np.int64],
    n_sides: int,
    parity_axis: int,
    parity_shift: int,
    mark: npt.NDArray[np.uint8],
    region: npt.NDArray[np.int32],
    count: int,
) -> None:
    """Recompute the marked region from its untouched border: each cell starts at one more than
    its lowest unmarked side neighbour (walls and outside cells are 0), then a Dijkstra with unit
    steps inside the region (seeds in value order merged with a FIFO of improvements)."""
    seeds = np.empty(count, dtype=np.int64)
    for i in range(count):
        node = region[i]
        best = _CAP
        p = _parity(node, stride, parity_axis, parity_shift)
        for k in range(n_sides):
            nbr = node + moves[p, k]
            if mark[nbr] == 0:
                best = min(best, clear[nbr] + 1)
        clear[node] = best
        seeds[i] = best
    order = np.argsort(seeds, kind="mergesort")
    queue = np.empty(count, dtype=np.int32)
    head = tail = 0
    i = 0
    while i < count or head < tail:
        if head < tail and (i >= count or clear[queue[head]] <= seeds[order[i]]):
            node = queue[head]
            head += 1
        else:
            node = region[order[i]]
            value = seeds[order[i]]
            i += 1
            if clear[node] != value:
                continue  # improved since: its queue entry settles it
        level = clear[node] + 1
        p = _parity(node, stride, parity_axis, parity_shift)
        for k in range(n_sides):
            nbr = node + moves[p, k]
            if mark[nbr] != 0 and clear[nbr] > level:
                clear[nbr] = level
                queue[tail] = nbr
                tail += 1


@jit
def _lower_from(
    clear: npt.NDArray[np.uint8],
    stride: int,
    moves: npt.NDArray[np.int64],
    n_sides: int,
    parity_axis: int,
    parity_shift: int,
    closed: npt.NDArray[np.int64],
    queue: npt.NDArray[np.int32],
) -> int:
    """Close ``closed`` (open before) and lower the values near them: a BFS from them that goes
    on only where a value drops. Returns the cells lowered."""
    tail = 0
    for i in range(closed.shape[0]):
        node = closed[i]
        if clear[node] != 0:
            clear[node] = 0
            queue[tail] = node
            tail += 1
    head = 0
    while head < tail:
        node = queue[head]
        head += 1
        level = clear[node] + 1
        p = _parity(node, stride, parity_axis, parity_shift)
        for k in range(n_sides):
            nbr = node + moves[p, k]
            if clear[nbr] > level:
                clear[nbr] = level
                queue[tail] = nbr
                tail += 1
    return tail


def repair_clearance(
    clear: npt.NDArray[np.uint8],
    moves: npt.NDArray[np.int64],
    n_sides: int,
    parity: tuple[int, int, int],
    opened: npt.NDArray[np.int64],
    closed: npt.NDArray[np.int64],
) -> int:
    """Bring a padded clearance ``clear`` up to date after ``opened`` cells (0 before) became
    walkable and ``closed`` cells (open before) became walls; ``parity`` is ``(stride, axis,
    shift)``. Openings first (the closed cells still count as open), then closings.

    Returns:
        How many cells were looked at (the region raised plus the cells lowered).
    """
    stride, axis, shift = parity
    touched = 0
    if opened.size:
        n = clear.shape[0]
        mark = np.zeros(n, dtype=np.uint8)  # calloc: only the pages the region touches fill
        region = np.empty(n, dtype=np.int32)
        count = int(_raise_region(clear, stride, moves, n_sides, axis, shift, opened, mark, region))
        _recompute_region(clear, stride, moves, n_sides, axis, shift, mark, region, count)
        touched += count
    if closed.size:
        queue = np.empty(clear.shape[0], dtype=np.int32)
        touched += int(_lower_from(clear, stride, moves, n_sides, axis, shift, closed, queue))
    return touched
