"""Fast exact A* over a padded grid: compiled, with the semantics of the reference :func:`astar_grid`.

Quick start (most callers use :meth:`python_core.grid.GridGraph.find_path`)::

    from python_core.grid.search.astar import pad_cells
    passable = pad_cells(walkable_uint8_2d)      # a blocked border: neighbours need no bounds test
    # astar_padded(passable, 1, ...) searches for units of size 1; on padded clearance, any size

The grid is stored with a one-cell blocked border, ``(height + 2) x (width + 2)``, so every
neighbour of a real cell is a valid index and the kernel never tests bounds. Per-query state lives
in workspace arrays that are reused across queries: ``stamp[n] == tag`` marks a node seen (open)
in this query and ``tag + 1`` closed, so nothing of size n is cleared between queries. The open
list is the 4-ary heap of :mod:`python_core.heaps.packed` (decrease-key, f and the
deeper-first tie-break packed in one integer key). The moves allowed from a node come from one
lookup of its 8 neighbours' open bits in :data:`_MOVES` (per diagonal rule), not from a wall test
and a corner rule per neighbour.
"""

# Compiled kernels take their arguments positionally: numba.njit does not compile keywords.
# ruff: noqa: PLR0917

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from python_core._types import (
    DIAG_ALWAYS,
    DIAG_AT_LEAST_ONE_WALKABLE,
    DIAG_NEVER,
    DIAG_ONLY_IF_NO_OBSTACLES,
    SEARCH_BUDGET,
    SEARCH_FOUND,
    SEARCH_NO_PATH,
)
from python_core.compiled import jit
from python_core.heaps.packed import heap_decrease, heap_pop, heap_push, pack_key

__all__ = [
    "astar_padded",
    "estimate",
    "pad_cells",
    "path_from_parents",
]


def pad_cells(cells: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    """Return a flat C-contiguous uint8 copy of a ``(h, w)`` 0/1 array with a 0 border around it.

    Example:
        >>> pad_cells(np.ones((1, 2), np.uint8)).reshape(3, 4).tolist()
        [[0, 0, 0, 0], [0, 1, 1, 0], [0, 0, 0, 0]]
    """
    h, w = cells.shape
    out = np.zeros((h + 2, w + 2), dtype=np.uint8)
    out[1:-1, 1:-1] = cells != 0
    return out.ravel()


def _allowed_diagonals(around: int, *, both_sides: bool) -> int:
    """Open diagonals of ``around`` whose two orthogonal side cells are open (``both_sides``) or
    at least one of them is."""
    out = 0
    for k in range(4, 8):
        side_x = around >> (0 if k in (4, 6) else 1) & 1
        side_y = around >> (2 if k < 6 else 3) & 1
        ok = side_x and side_y if both_sides else side_x or side_y
        if around >> k & 1 and ok:
            out |= 1 << k
    return out


def _move_table() -> npt.NDArray[np.uint8]:
    """``table[diagonal, around]``: bit ``k`` set when move ``k`` may be taken from a node whose
    open neighbours are the bits of ``around`` (move order of ``offsets`` in the kernels)."""
    table = np.zeros((4, 256), dtype=np.uint8)
    for around in range(256):
        straight = around & 0x0F
        table[DIAG_NEVER, around] = straight
        table[DIAG_ALWAYS, around] = around
        table[DIAG_ONLY_IF_NO_OBSTACLES, around] = straight | _allowed_diagonals(around, both_sides=True)
        table[DIAG_AT_LEAST_ONE_WALKABLE, around] = straight | _allowed_diagonals(around, both_sides=False)
    return table


_MOVES = _move_table()
"""Which moves are allowed per diagonal rule and open-neighbour pattern: one load per expansion
replaces a wall test and the corner rule per neighbour (Godot's rules: a diagonal squeezes
between the two orthogonal cells beside it)."""
_DX = (1, -1, 0, 0, 1, -1, 1, -1)
_DY = (0, 0, 1, -1, 1, 1, -1, -1)


@jit
def estimate(code: int, nx: int, ny: int, cell_w: float, cell_h: float, diag: float, scale: float) -> float:
    """The grid heuristic of :func:`heuristics.grid_estimate` (same codes, same values), with
    ``diag = hypot(cell_w, cell_h)`` computed once per query by the caller."""
    if code == 1:  # rectangular octile, the default first
        m = min(nx, ny)
        return scale * (diag * m + cell_w * (nx - m) + cell_h * (ny - m))
    if code == 0:  # manhattan
        return scale * (nx * cell_w + ny * cell_h)
    if code == 2:
        return scale * math.hypot(nx * cell_w, ny * cell_h)
    if code == 3:
        return scale * max(nx * cell_w, ny * cell_h)
    return 0.0


@jit
def _open_around(passable: npt.NDArray[np.uint8], node: int, stride: int, min_clear: int) -> int:
    """Bit ``k`` set when the neighbour in move ``k`` is open: its clearance is ``>= min_clear``."""
    up, down = node - stride, node + stride
    return (
        int(passable[node + 1] >= min_clear)
        | int(passable[node - 1] >= min_clear) << 1
        | int(passable[down] >= min_clear) << 2
        | int(passable[up] >= min_clear) << 3
        | int(passable[down + 1] >= min_clear) << 4
        | int(passable[down - 1] >= min_clear) << 5
        | int(passable[up + 1] >= min_clear) << 6
        | int(passable[up - 1] >= min_clear) << 7
    )


@jit
def astar_padded(
    passable: npt.NDArray[np.uint8],
    min_clear: int,
    weights: npt.NDArray[np.float64],
    uniform_weight: float,
    stride: int,
    start: int,
    goal: int,
    diagonal: int,
    cell_w: float,
    cell_h: float,
    heuristic: int,
    h_scale: float,
    max_expansions: int,
    closest_code: int,
    g: npt.NDArray[np.float64],
    parent: npt.NDArray[np.int32],
    stamp: npt.NDArray[np.int32],
    pos: npt.NDArray[np.int32],
    heap_nodes: npt.NDArray[np.int32],
    heap_keys: npt.NDArray[np.float64],
    tag: int,
) -> tuple[int, int, int]:
    """A* between two padded node ids; the same contract as :func:`reference.astar_grid`.

    Entering node ``n`` costs ``step_length * weight``, the weight being ``uniform_weight`` when it
    is ``>= 0`` and ``weights[n]`` otherwise. ``passable`` (padded, border 0) holds each node's
    clearance (or 0/1 walls): a node can be entered when it is ``>= min_clear``, the unit's size.
    On return ``g``/``parent`` hold valid values for nodes with ``stamp`` in ``(tag, tag + 1)``.

    Args:
        passable, min_clear, weights, uniform_weight: the padded grid and unit size (see above).
        stride: padded row length, ``width + 2``.
        start, goal: padded node ids.
        diagonal: diagonal rule code (``python_core._types.DIAG_*``).
        cell_w, cell_h: cell size; straight steps cost these, diagonals their hypot.
        heuristic, h_scale: ``HEURISTIC_CODES`` value and its multiplier (minimum weight).
        max_expansions: expansion budget, ``-1`` for none.
        closest_code: heuristic code ranking closed nodes for partial paths, ``-1`` for none.
        g, parent, stamp, pos, heap_nodes: workspace, one slot per padded node.
        heap_keys: workspace, one float64 slot per padded node, used as int64 keys
            (:mod:`.packed_heap`).
        tag: an even stamp value no earlier query used (``tag + 1`` marks closed nodes).

    Returns:
        ``(outcome, end, expanded)`` as ``astar_grid``: the goal when found, else the closed node
        closest to the goal (ties: smaller g; the start when not tracked).
    """
    diag = math.hypot(cell_w, cell_h)
    offsets = (1, -1, stride, -stride, stride + 1, stride - 1, -stride + 1, -stride - 1)
    lengths = (cell_w, cell_w, cell_h, cell_h, diag, diag, diag, diag)
    uniform = uniform_weight >= 0.0
    costs = (  # the cost of each move on a uniform grid: the same product as step * weight
        cell_w * uniform_weight, cell_w * uniform_weight, cell_h * uniform_weight, cell_h * uniform_weight,
        diag * uniform_weight, diag * uniform_weight, diag * uniform_weight, diag * uniform_weight,
    )  # fmt: skip
    n_moves = 4 if diagonal == DIAG_NEVER else 8
    keys = heap_keys.view(np.int64)
    closed_tag = tag + 1
    gy = goal // stride
    gx = goal - gy * stride
    g[start] = 0.0
    parent[start] = -1
    stamp[start] = tag
    sy = start // stride
    h0 = estimate(heuristic, abs(gx - (start - sy * stride)), abs(gy - sy), cell_w, cell_h, diag, h_scale)
    size = heap_push(heap_nodes, keys, pos, 0, start, pack_key(h0, h0))
    expanded = 0
    best, best_h, best_g = start, math.inf, math.inf
    while size > 0:
        if expanded == max_expansions:
            return SEARCH_BUDGET, best, expanded
        node, size = heap_pop(heap_nodes, keys, pos, size)
        stamp[node] = closed_tag
        expanded += 1
        y = node // stride
        x = node - y * stride
        g_node = g[node]
        if closest_code >= 0:
            h_best = estimate(closest_code, abs(gx - x), abs(gy - y), cell_w, cell_h, diag, 1.0)
            if h_best < best_h or (h_best == best_h and g_node < best_g):
                best, best_h, best_g = node, h_best, g_node
        if node == goal:
            return SEARCH_FOUND, goal, expanded
        moves = _MOVES[diagonal, _open_around(passable, node, stride, min_clear)]
        for k in range(n_moves):
            if not (moves >> k) & 1:
                continue
            nbr = node + offsets[k]
            mark = stamp[nbr]
            if mark == closed_tag:
                continue
            new_g = g_node + (costs[k] if uniform else lengths[k] * weights[nbr])
            if mark == tag and new_g >= g[nbr]:
                continue
            g[nbr] = new_g
            parent[nbr] = node
            h = estimate(heuristic, abs(gx - x - _DX[k]), abs(gy - y - _DY[k]), cell_w, cell_h, diag, h_scale)
            if mark == tag:
                heap_decrease(heap_nodes, keys, pos, nbr, pack_key(new_g + h, h))
            else:
                stamp[nbr] = tag
                size = heap_push(heap_nodes, keys, pos, size, nbr, pack_key(new_g + h, h))
    return SEARCH_NO_PATH, best, expanded


@jit
def path_from_parents(parent: npt.NDArray[np.int32], end: int, stride: int) -> npt.NDArray[np.int64]:
    """Unpadded node ids ``y * width + x`` from the root to padded node ``end``.

    Consecutive entries of ``parent`` may be several cells apart along a straight or diagonal
    line (jump point search); the cells in between are filled in.
    """
    width = stride - 2
    count = 1
    node = end
    while parent[node] >= 0:
        prev = parent[node]
        count += max(abs(node % stride - prev % stride), abs(node // stride - prev // stride))
        node = prev
    out = np.empty(count, dtype=np.int64)
    i = count - 1
    node = end
    while True:
        x, y = node % stride, node // stride
        out[i] = (y - 1) * width + (x - 1)
        i -= 1
        prev = parent[node]
        if prev < 0:
            break
        px, py = prev % stride, prev // stride
        steps = max(abs(x - px), abs(y - py))
        sx = 1 if px > x else (-1 if px < x else 0)
        sy = 1 if py > y else (-1 if py < y else 0)
        for j in range(1, steps):
            out[i] = (y + sy * j - 1) * width + (x + sx * j - 1)
            i -= 1
        node = prev
    return out
