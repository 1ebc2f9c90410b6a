"""Jump Point Search (Harabor & Grastien) on uniform-cost grids without corner cutting.

Quick start (most callers use :meth:`python_core.grid.GridGraph.find_path`, which picks JPS itself)::

    from python_core.grid.search.jps import jps_padded
    outcome, expanded = jps_padded(passable, 1, stride, start, goal, 1.0, 1.0, 1.0, -1, *workspace, tag)

JPS returns the same optimal cost as A* on a grid where every cell costs the same, by expanding
only "jump points": from each node it scans straight and diagonal lines and stops only where a
cell has a *forced* neighbour (one an optimal path can reach only through that cell). The rules
here are those for ``DiagonalMode.ONLY_IF_NO_OBSTACLES`` (no corner cutting, the Moving AI rule):

- a diagonal step needs both orthogonal cells it squeezes between to be open;
- moving straight along x into ``n``, the cell beside ``n`` (``n + side``) is forced when it is open
  and the cell beside the previous one (``n - step + side``) is blocked; the straight move to it and
  the diagonal beyond it become successors; likewise along y;
- a diagonal move has no forced neighbours; its natural successors are the two straight moves and
  the diagonal; a diagonal scan stops where either straight scan from it finds a jump point.

The grid is padded with a blocked border (see :mod:`python_core.grid.search.astar`), so no scan tests
bounds, and the per-query workspace is shared with the A* kernel. ``parent`` links jump points;
:func:`astar.path_from_parents` fills in the cells between them.
"""

# Compiled kernels take their arguments positionally: numba.njit does not compile keywords.
# ruff: noqa: PLR0917

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from python_core._types import SEARCH_BUDGET, SEARCH_FOUND, SEARCH_NO_PATH
from python_core.compiled import jit
from python_core.heaps.packed import heap_decrease, heap_pop, heap_push, pack_key

__all__ = ["jps_padded", "jump_diagonal", "jump_straight"]


@jit
def _octile(lengths: tuple[float, float, float], nx: int, ny: int) -> float:
    """Octile estimate of ``nx`` columns and ``ny`` rows, in the step costs ``lengths``."""
    m = min(nx, ny)
    return lengths[2] * m + lengths[0] * (nx - m) + lengths[1] * (ny - m)


@jit
def jump_straight(
    passable: npt.NDArray[np.uint8], min_clear: int, node: int, step: int, side: int, goal: int
) -> int:
    """Scan from ``node`` by ``step`` (``±1`` or ``±stride``); return the steps to the first jump
    point, or 0 when the scan runs into a wall first.

    ``side`` is the perpendicular offset (``stride`` for a scan along x, ``1`` along y).
    """
    count = 0
    while True:
        node += step
        count += 1
        if passable[node] < min_clear:
            return 0
        if node == goal:
            return count
        if (passable[node + side] >= min_clear and passable[node - step + side] < min_clear) or (
            passable[node - side] >= min_clear and passable[node - step - side] < min_clear
        ):
            return count


@jit
def jump_diagonal(
    passable: npt.NDArray[np.uint8],
    min_clear: int,
    node: int,
    step_x: int,
    step_y: int,
    stride: int,
    goal: int,
) -> int:
    """Scan diagonally by ``step_x + step_y`` (``±1``, ``±stride``); return the steps to the first
    jump point, or 0 when there is none."""
    count = 0
    while True:
        if passable[node + step_x] < min_clear or passable[node + step_y] < min_clear:
            return 0  # no corner cutting: both cells beside the diagonal must be open
        node += step_x + step_y
        count += 1
        if passable[node] < min_clear:
            return 0
        if node == goal:
            return count
        if jump_straight(passable, min_clear, node, step_x, stride, goal) > 0:
            return count
        if jump_straight(passable, min_clear, node, step_y, 1, goal) > 0:
            return count


@jit
def _relax(
    passable: npt.NDArray[np.uint8],
    min_clear: int,
    stride: int,
    node: int,
    dx: int,
    dy: int,
    goal: int,
    lengths: tuple[float, float, float],
    g: npt.NDArray[np.float64],
    parent: npt.NDArray[np.int32],
    stamp: npt.NDArray[np.int32],
    pos: npt.NDArray[np.int32],
    heap_nodes: npt.NDArray[np.int32],
    keys: npt.NDArray[np.int64],
    tag: int,
    size: int,
) -> int:
    """Jump from ``node`` in direction ``(dx, dy)`` (each -1, 0 or 1) and offer the jump point to
    the open list; return the new open-list size."""
    step_y = dy * stride
    if dx != 0 and dy != 0:
        count = jump_diagonal(passable, min_clear, node, dx, step_y, stride, goal)
        length = lengths[2]
    elif dx != 0:
        count = jump_straight(passable, min_clear, node, dx, stride, goal)
        length = lengths[0]
    else:
        count = jump_straight(passable, min_clear, node, step_y, 1, goal)
        length = lengths[1]
    if count == 0:
        return size
    target = node + count * (dx + step_y)
    mark = stamp[target]
    if mark == tag + 1:
        return size
    new_g = g[node] + count * length
    if mark == tag and new_g >= g[target]:
        return size
    g[target] = new_g
    parent[target] = node
    # The goal's offset from node, less the jump: the target's distance to the goal.
    y = node // stride
    goal_y = goal // stride
    nx = abs(goal - goal_y * stride - (node - y * stride) - count * dx)
    ny = abs(goal_y - y - count * dy)
    h = _octile(lengths, nx, ny)
    if mark == tag:
        heap_decrease(heap_nodes, keys, pos, target, pack_key(new_g + h, h))
        return size
    stamp[target] = tag
    return heap_push(heap_nodes, keys, pos, size, target, pack_key(new_g + h, h))


@jit
def _expand(
    passable: npt.NDArray[np.uint8],
    min_clear: int,
    stride: int,
    node: int,
    goal: int,
    lengths: tuple[float, float, float],
    g: npt.NDArray[np.float64],
    parent: npt.NDArray[np.int32],
    stamp: npt.NDArray[np.int32],
    pos: npt.NDArray[np.int32],
    heap_nodes: npt.NDArray[np.int32],
    keys: npt.NDArray[np.int64],
    tag: int,
    size: int,
) -> int:
    """Offer every jump point reachable from ``node`` (pruned by the direction it was reached
    in); return the new open-list size."""
    back = parent[node]
    if back < 0:  # the start: every direction
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                if dx != 0 or dy != 0:
                    size = _relax(
                        passable, min_clear, stride, node, dx, dy, goal, lengths,
                        g, parent, stamp, pos, heap_nodes, keys, tag, size,
                    )  # fmt: skip
        return size
    by, ny = back // stride, node // stride
    ddx, ddy = node - ny * stride - (back - by * stride), ny - by
    dx = 1 if ddx > 0 else (-1 if ddx < 0 else 0)
    dy = 1 if ddy > 0 else (-1 if ddy < 0 else 0)
    if dx != 0 and dy != 0:  # diagonal: the two straight moves and the diagonal
        size = _relax(
            passable, min_clear, stride, node, dx, 0, goal, lengths,
            g, parent, stamp, pos, heap_nodes, keys, tag, size,
        )  # fmt: skip
        size = _relax(
            passable, min_clear, stride, node, 0, dy, goal, lengths,
            g, parent, stamp, pos, heap_nodes, keys, tag, size,
        )  # fmt: skip
        return _relax(
            passable, min_clear, stride, node, dx, dy, goal, lengths,
            g, parent, stamp, pos, heap_nodes, keys, tag, size,
        )  # fmt: skip
    size = _relax(
        passable, min_clear, stride, node, dx, dy, goal, lengths,
        g, parent, stamp, pos, heap_nodes, keys, tag, size,
    )  # fmt: skip
    step, side = dx + dy * stride, (stride if dx != 0 else 1)
    for s in (side, -side):
        if passable[node + s] >= min_clear and passable[node - step + s] < min_clear:
            # A forced neighbour: straight to it, and diagonally past it.
            ox, oy = (0, 1 if s > 0 else -1) if dx != 0 else (1 if s > 0 else -1, 0)
            size = _relax(
                passable, min_clear, stride, node, ox, oy, goal, lengths,
                g, parent, stamp, pos, heap_nodes, keys, tag, size,
            )  # fmt: skip
            size = _relax(
                passable, min_clear, stride, node, dx + ox, dy + oy, goal, lengths,
                g, parent, stamp, pos, heap_nodes, keys, tag, size,
            )  # fmt: skip
    return size


@jit
def jps_padded(
    passable: npt.NDArray[np.uint8],
    min_clear: int,
    stride: int,
    start: int,
    goal: int,
    cell_w: float,
    cell_h: float,
    weight: float,
    max_expansions: int,
    g: npt.NDArray[np.float64],
    parent: npt.NDArray[np.int32],
    stamp: npt.NDArray[np.int32],
    pos: npt.NDArray[np.int32],
    heap_nodes: npt.NDArray[np.int32],
    heap_keys: npt.NDArray[np.float64],
    tag: int,
) -> tuple[int, int]:
    """JPS between two padded node ids of a grid whose every open cell has weight ``weight > 0``.

    Args:
        passable: padded clearance (or 0/1 walls), border 0.
        min_clear: the unit's size: a node is open when its clearance is ``>= min_clear``.
        stride: padded row length.
        start, goal: padded node ids; ``goal`` open and different from ``start``.
        cell_w, cell_h: cell size.
        weight: the common cell weight (every step costs ``length * weight``).
        max_expansions: budget of expanded jump points, ``-1`` for none.
        g, parent, stamp, pos, heap_nodes, heap_keys, tag: workspace as for ``astar_padded``.

    Returns:
        ``(outcome, expanded)``: ``SEARCH_FOUND`` (``g[goal]`` is the cost, ``parent`` links jump
        points), ``SEARCH_NO_PATH`` or ``SEARCH_BUDGET``; expanded jump points.
    """
    lengths = (cell_w * weight, cell_h * weight, math.hypot(cell_w, cell_h) * weight)
    keys = heap_keys.view(np.int64)
    g[start] = 0.0
    parent[start] = -1
    stamp[start] = tag
    h0 = _octile(lengths, abs(goal % stride - start % stride), abs(goal // stride - start // stride))
    size = heap_push(heap_nodes, keys, pos, 0, start, pack_key(h0, h0))
    expanded = 0
    while size > 0:
        if expanded == max_expansions:
            return SEARCH_BUDGET, expanded
        node, size = heap_pop(heap_nodes, keys, pos, size)
        stamp[node] = tag + 1
        expanded += 1
        if node == goal:
            return SEARCH_FOUND, expanded
        size = _expand(
            passable,
            min_clear,
            stride,
            node,
            goal,
            lengths,
            g,
            parent,
            stamp,
            pos,
            heap_nodes,
            keys,
            tag,
            size,
        )
    return SEARCH_NO_PATH, expanded
