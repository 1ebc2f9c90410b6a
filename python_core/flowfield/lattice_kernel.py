"""Compiled kernels of a flow field on a tile lattice: the Dijkstra from the goals, and following.

Quick start (:class:`~python_core.flowfield.lattice_field.LatticeField` calls these)::

    cost, dirs = lattice_dijkstra(walk, passable, weights, uniform, moves, steps, corner_sides,
                                  n_sides, n_moves, diagonal, axis, shift, goals, size)

Both work on the padded grid of :mod:`python_core.grid.layouts.search` (a blocked border wide
enough for every move). A cell's moves are row ``parity`` of the tables (its padded row or column
plus ``shift``, modulo 2; 0 when ``axis < 0``). The search runs backwards: a settled cell ``u`` is
entered from ``v = u - moves[q, k]`` for each class ``q`` whose cells ``v`` belongs to, so a
stacked layout's odd and even rows keep their own moves; ``dirs[v] = k`` is the move ``v`` takes.
"""

# Compiled kernels take their arguments positionally: numba.njit does not compile keywords.
# ruff: noqa: PLR0917

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from python_core.compiled import jit
from python_core.flowfield.moves import GOAL, UNREACHABLE, WALL
from python_core.grid.layouts.kernel import _corner_fits, _parity
from python_core.heaps.lazy import heap_pop, heap_push

__all__ = ["lattice_dijkstra", "lattice_follow"]


@jit
def lattice_dijkstra(
    walk: npt.NDArray[np.uint8],
    passable: npt.NDArray[np.uint8],
    weights: npt.NDArray[np.float64],
    uniform_weight: float,
    stride: int,
    moves: npt.NDArray[np.int64],
    steps: npt.NDArray[np.float64],
    corner_sides: npt.NDArray[np.int64],
    n_sides: int,
    n_moves: int,
    diagonal: int,
    parity_axis: int,
    parity_shift: int,
    goals: npt.NDArray[np.int64],
    min_clear: int,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.uint8]]:
    """Exact cost to the nearest goal of every padded cell and the move toward it.

    ``walk``: the padded clearance (a cell gets a cost and a direction where it is at least
    ``min_clear``, the unit's size); ``passable``: the same with the cells where a unit would
    meet a blocking agent closed (never entered, nor counted as open by the diagonal rule; those
    cells still get the way out). Entering ``u`` by move ``k`` of class ``q`` costs ``steps[q, k]``
    times ``u``'s weight (``uniform_weight`` when ``>= 0``; the footprint's highest for sizes).
    """
    n = walk.shape[0]
    cost = np.full(n, np.inf)
    dirs = np.full(n, WALL, dtype=np.uint8)
    for i in range(n):
        if walk[i] >= min_clear:
            dirs[i] = UNREACHABLE
    keys = np.empty(1024, dtype=np.float64)
    items = np.empty(1024, dtype=np.int64)
    size = 0
    for i in range(goals.shape[0]):
        g = goals[i]
        if passable[g] >= min_clear and cost[g] > 0.0:
            cost[g] = 0.0
            dirs[g] = GOAL
            keys, items, size = heap_push(keys, items, size, 0.0, g)
    classes = 1 if parity_axis < 0 else 2
    while size > 0:
        d, u, size = heap_pop(keys, items, size)
        if d > cost[u] or passable[u] < min_clear:
            continue  # stale, or an agent's cell: it is left, never entered
        w = uniform_weight if uniform_weight >= 0.0 else weights[u]
        for q in range(classes):
            for k in range(n_moves):
                v = u - moves[q, k]
                if walk[v] < min_clear or _parity(v, stride, parity_axis, parity_shift) != q:
                    continue
                if k >= n_sides and not _corner_fits(
                    passable, v, moves[q], corner_sides[q, k - n_sides], diagonal, min_clear
                ):
                    continue
                cand = d + steps[q, k] * w
                if cand < cost[v]:
                    cost[v] = cand
                    dirs[v] = k
                    keys, items, size = heap_push(keys, items, size, cand, v)
    return cost, dirs


@jit
def lattice_follow(
    dirs: npt.NDArray[np.uint8],
    known_slot: npt.NDArray[np.int32],
    weights: npt.NDArray[np.float64],
    width: int,
    height: int,
    cs: int,
    tiles_x: int,
    offsets: npt.NDArray[np.int64],
    steps: npt.NDArray[np.float64],
    parity_axis: int,
    parity_shift: int,
    start: int,
    max_steps: int,
) -> tuple[float, int, int]:
    """Walk a lattice field's tiles from ``start`` (an unpadded id), adding each step's cost.
    ``offsets[q, k]`` is move ``k``'s ``(dx, dy)`` for class ``q``; a cell's class is its row
    (``axis`` 1) or column (0) plus ``shift``, modulo 2. Returns ``(cost, end cell, code)`` as
    :func:`python_core.flowfield.walks.follow_cost` (``-1``: left the known tiles, the grid, or
    ran out of steps)."""
    x, y = start % width, start // width
    total = 0.0
    for _ in range(max_steps):
        slot = known_slot[(y // cs) * tiles_x + x // cs]
        if slot < 0:
            return total, y * width + x, -1
        k = dirs[slot, (y % cs) * cs + x % cs]
        if k >= GOAL:
            return total, y * width + x, int(k)
        q = 0
        if parity_axis == 1:
            q = (y + parity_shift) & 1
        elif parity_axis == 0:
            q = (x + parity_shift) & 1
        x, y = x + offsets[q, k, 0], y + offsets[q, k, 1]
        if not (0 <= x < width and 0 <= y < height):
            return total, -1, -1
        total += steps[q, k] * weights[y * width + x]
    return total, y * width + x, -1
