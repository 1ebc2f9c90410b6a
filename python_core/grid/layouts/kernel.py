"""Compiled A* over a padded grid whose moves come from a per-parity neighbour table.

Quick start (most callers use :meth:`python_core.grid.layouts.TileGrid.find_path`)::

    from python_core.grid.layouts.kernel import layout_astar

The grid is stored with a blocked border ``pad`` cells wide, so every move of a real cell lands
on a valid index. A node's moves are row ``parity`` of the move tables, where ``parity`` is its
padded row (``parity_axis == 1``) or column (``0``) plus ``parity_shift``, modulo 2, or 0 always
(``-1``). Moves ``0 .. n_sides - 1`` are sides; the rest are corners, taken under the grid's
diagonal rule over the two sides ``corner_sides`` names. ``passable`` holds each cell's clearance
(:mod:`.clearance`): a unit of size k enters cells whose value is at least k, and the diagonal
rule reads the sides the same way (the rule on the eroded grid). Entering node ``n`` by move ``k`` costs
``step[parity, k] * weight[n]`` (world distance between centres). The heuristic is the least
weight times a distance no step's cost is below: the lattice's own norm by default (the least cost
of any mix of moves covering the displacement: hex distance in world units on regular hexagons,
as tight as octile on a square grid), or the euclidean distance; either is admissible and
consistent. Centres come from an affine map of the padded coordinates plus ``odd`` times the
parity (stacked layouts' half shift). Per-query state follows
:mod:`python_core.grid.search.astar` (stamps, the packed 4-ary heap).
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
    SEARCH_BUDGET,
    SEARCH_FOUND,
    SEARCH_NO_PATH,
)
from python_core.compiled import jit
from python_core.heaps.packed import heap_decrease, heap_pop, heap_push, pack_key

__all__ = ["layout_astar", "unpad_path"]


@jit
def _centre(
    node: int, stride: int, frame: npt.NDArray[np.float64], axis: int, shift: int
) -> tuple[float, float]:
    """World centre of a padded node, less a constant: ``frame`` is ``(ax, bx, ay, by, odd_x, odd_y)``."""
    row = node // stride
    col = node - row * stride
    odd = 0
    if axis == 1:
        odd = (row + shift) & 1
    elif axis == 0:
        odd = (col + shift) & 1
    return (
        frame[0] * col + frame[1] * row + frame[4] * odd,
        frame[2] * col + frame[3] * row + frame[5] * odd,
    )


@jit
def _distance(dx: float, dy: float, facets: npt.NDArray[np.float64]) -> float:
    """The lattice distance of a world displacement: the largest ``n . d`` over the facet normals
    of the moves' unit polygon (the least cost of any mix of moves covering ``d``; hex distance
    in world units on regular hexagons), or the euclidean distance when ``facets`` is empty."""
    if facets.shape[0] == 0:
        return math.hypot(dx, dy)
    best = 0.0
    for i in range(facets.shape[0]):
        v = facets[i, 0] * dx + facets[i, 1] * dy
        best = max(best, v)
    return best


@jit
def _parity(node: int, stride: int, axis: int, shift: int) -> int:
    if axis < 0:
        return 0
    row = node // stride
    return ((row if axis == 1 else node - row * stride) + shift) & 1


@jit
def _corner_allowed(
    passable: npt.NDArray[np.uint8],
    node: int,
    moves: npt.NDArray[np.int64],
    sides: npt.NDArray[np.int64],
    diagonal: int,
) -> bool:
    """Godot's diagonal rule for a corner move over the two sides beside it."""
    return _corner_fits(passable, node, moves, sides, diagonal, 1)


@jit
def _corner_fits(
    passable: npt.NDArray[np.uint8],
    node: int,
    moves: npt.NDArray[np.int64],
    sides: npt.NDArray[np.int64],
    diagonal: int,
    min_clear: int,
) -> bool:
    """The diagonal rule on the grid eroded for size ``min_clear``: a side is open where its
    clearance is at least ``min_clear``."""
    if diagonal == DIAG_ALWAYS:
        return True
    a = passable[node + moves[sides[0]]] >= min_clear
    b = passable[node + moves[sides[1]]] >= min_clear
    return bool(a or b) if diagonal == DIAG_AT_LEAST_ONE_WALKABLE else bool(a and b)


@jit
def layout_astar(
    passable: npt.NDArray[np.uint8],
    weights: npt.NDArray[np.float64],
    uniform_weight: float,
    stride: int,
    start: int,
    goal: int,
    moves: npt.NDArray[np.int64],
    steps: npt.NDArray[np.float64],
    corner_sides: npt.NDArray[np.int64],
    n_sides: int,
    n_moves: int,
    diagonal: int,
    parity_axis: int,
    parity_shift: int,
    frame: npt.NDArray[np.float64],
    facets: npt.NDArray[np.float64],
    h_scale: float,
    max_expansions: int,
    track_closest: bool,
    min_clear: int,
    g: npt.NDArray[np.float64],
    parent: npt.NDArray[np.int32],
    stamp: npt.NDArray[np.int32],
    pos: npt.NDArray[np.int32],
    heap_nodes: npt.NDArray[np.int32],
    heap_keys: npt.NDArray[np.float64],
    tag: int,
) -> tuple[int, int, int]:
    """A* between two padded node ids (contract of :func:`python_core.grid.search.astar.astar_padded`).

    Args:
        passable, weights, uniform_weight: the padded grid (weights unused when
            ``uniform_weight >= 0``).
        stride: padded row length.
        start, goal: padded node ids.
        moves: ``(2, n_moves)`` padded index offsets per parity class, sides first.
        steps: ``(2, n_moves)`` world lengths of those moves.
        corner_sides: ``(2, n_moves - n_sides, 2)`` the side moves beside each corner move.
        n_sides, n_moves: side moves, all moves (``n_sides`` when the diagonal rule is never).
        diagonal: the grid's diagonal rule code (corner moves only).
        parity_axis, parity_shift: see the module notes.
        frame: the affine centre map (see :func:`_centre`).
        facets: ``(f, 2)`` facet normals of the moves' unit polygon (:func:`_distance`), or
            ``(0, 2)`` for the euclidean distance.
        h_scale: the least weight (heuristic multiplier).
        max_expansions: budget, ``-1`` for none.
        track_closest: keep the closed node nearest the goal (partial paths).
        min_clear: the unit's size: a node is open where ``passable`` (the padded clearance)
            is at least this (1: every walkable cell).
        g, parent, stamp, pos, heap_nodes, heap_keys, tag: workspace, as ``astar_padded``.

    Returns:
        ``(outcome, end, expanded)``: ``end`` is the goal when found, else the closed node
        nearest the goal by world distance (ties: smaller g).
    """
    keys = heap_keys.view(np.int64)
    closed_tag = tag + 1
    uniform = uniform_weight >= 0.0
    gx, gy = _centre(goal, stride, frame, parity_axis, parity_shift)
    sx, sy = _centre(start, stride, frame, parity_axis, parity_shift)
    g[start] = 0.0
    parent[start] = -1
    stamp[start] = tag
    h0 = h_scale * _distance(gx - sx, gy - sy, facets)
    size = heap_push(heap_nodes, keys, pos, 0, start, pack_key(h0, h0))
    expanded = 0
    best, best_h, best_g = start, math.inf, math.inf
    while size > 0:
        if expanded == max_expansions:
            return SEARCH_BUDGET, best, expanded
        node, size = heap_pop(heap_nodes, keys, pos, size)
        stamp[node] = closed_tag
        expanded += 1
        g_node = g[node]
        if track_closest:
            cx, cy = _centre(node, stride, frame, parity_axis, parity_shift)
            h_best = math.hypot(gx - cx, gy - cy)
            if h_best < best_h or (h_best == best_h and g_node < best_g):
                best, best_h, best_g = node, h_best, g_node
        if node == goal:
            return SEARCH_FOUND, goal, expanded
        p = _parity(node, stride, parity_axis, parity_shift)
        for k in range(n_moves):
            nbr = node + moves[p, k]
            if passable[nbr] < min_clear:
                continue
            if k >= n_sides and not _corner_fits(
                passable, node, moves[p], corner_sides[p, k - n_sides], diagonal, min_clear
            ):
                continue
            mark = stamp[nbr]
            if mark == closed_tag:
                continue
            new_g = g_node + steps[p, k] * (uniform_weight if uniform else weights[nbr])
            if mark == tag and new_g >= g[nbr]:
                continue
            g[nbr] = new_g
            parent[nbr] = node
            nx, ny = _centre(nbr, stride, frame, parity_axis, parity_shift)
            h = h_scale * _distance(gx - nx, gy - ny, facets)
            if mark == tag:
                heap_decrease(heap_nodes, keys, pos, nbr, pack_key(new_g + h, h))
            else:
                stamp[nbr] = tag
                size = heap_push(heap_nodes, keys, pos, size, nbr, pack_key(new_g + h, h))
    return SEARCH_NO_PATH, best, expanded


@jit
def unpad_path(parent: npt.NDArray[np.int32], end: int, stride: int, pad: int) -> npt.NDArray[np.int64]:
    """Unpadded node ids ``y * width + x`` from the root to padded node ``end`` (every step one move)."""
    width = stride - 2 * pad
    count = 1
    node = end
    while parent[node] >= 0:
        node = parent[node]
        count += 1
    out = np.empty(count, dtype=np.int64)
    node = end
    for i in range(count - 1, -1, -1):
        row = node // stride
        out[i] = (row - pad) * width + (node - row * stride - pad)
        node = parent[node]
    return out
