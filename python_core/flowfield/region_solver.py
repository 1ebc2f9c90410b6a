"""The flow field's region solver: the tile-bounded Dijkstra with its exactness check (compiled).

Quick start (most callers use :class:`python_core.flowfield.FlowField`)::

    cost, dirs, culprits, violated = solve_region(...)   # see the docstring

Cells are flat ids ``y * width + x``; a tile ``t = ty * tiles_x + tx`` holds the cells of one HPA*
cluster, stored row-major in a ``cs * cs`` block (cells past the grid's edge stay walls). Direction
bytes and moves: :mod:`.moves`; the lower bounds: :mod:`.bounds`; the kernels that walk a field
(repair taint, following, line of sight): :mod:`.walks`.

The exactness argument (see docs/flowfield.md): the real Dijkstra over the region's cells gives
``d_R(v)``, the cost of a real path (inside the region, then an exact known cell or a goal), an
upper bound of the true cost ``d(v)``. The bound Dijkstra seeds every exit into an unknown tile
with a LOWER bound of that cell's cost (``wmin * octile distance to the nearest goal``): any path
from ``v`` either stays in the region (cost ``>= d_R(v)``) or leaves it first at such an exit (cost
``>= E(v)``). Where ``d_R(v) <= E(v)``, ``d_R(v) = d(v)``. A cell where the bound is lower is a
violation; the caller keeps the tiles without one (exact) and solves the others again with the
tiles the bounds came from.
"""

# Compiled kernels take their arguments positionally: numba.njit does not compile keywords.
# ruff: noqa: PLR0917, PLR0912, PLR0915

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from python_core.compiled import jit
from python_core.flowfield.bounds import _landmark_bound, goal_bound
from python_core.flowfield.moves import (
    DX,
    DY,
    GOAL,
    MOVES,
    SLACK,
    UNREACHABLE,
    WALL,
    _is_goal,
    _moves_from,
    _open,
    _step_length,
)
from python_core.flowfield.tiles import FieldGround
from python_core.heaps.lazy import heap_pop, heap_push

__all__ = ["solve_region"]


@jit
def solve_region(
    ground: FieldGround,
    region_tiles: npt.NDArray[np.int64],
    region_slot: npt.NDArray[np.int32],
    known_slot: npt.NDArray[np.int32],
    known_cost: npt.NDArray[np.float64],
    goals: npt.NDArray[np.int64],
    gx: npt.NDArray[np.int64],
    gy: npt.NDArray[np.int64],
    wmin: float,
    lm_to: npt.NDArray[np.float64],
    lm_from: npt.NDArray[np.float64],
    g_to: npt.NDArray[np.float64],
    g_from: npt.NDArray[np.float64],
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.uint8], npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
    """Exact costs and directions, on ``ground`` (the grid and tiling: :class:`FieldGround`), over
    the tiles ``region_tiles`` (``region_slot[t]`` = their index, ``-1`` elsewhere), given the
    exact costs of the known tiles (``known_slot[t]`` row of ``known_cost``, ``-1`` unknown) and the
    sorted goal ids ``goals`` (``gx``/``gy``: every goal, walls included, for the lower bounds).
    ``lm_to``/``lm_from`` (``(K, tiles, 4 * cs)``, see :mod:`python_core.flowfield.landmarks`) and
    ``g_to``/``g_from`` (``K``) add landmark bounds to the octile one (``K = 0``: none).

    Returns:
        ``(cost, dirs, culprits, violated)``: per region tile a ``cs * cs`` row of costs and of
        direction bytes, the unknown tiles whose lower bounds beat a real cost somewhere (sorted,
        unique), and per region tile whether one of its cells is such a violation. Every cell of
        a tile not violated is exact.
    """
    walk, occ, agents, weights = ground.walk, ground.occ, ground.agents, ground.weights
    width, height, diagonal, cw = ground.width, ground.height, ground.diagonal, ground.cw
    ch, cs, tiles_x = ground.ch, ground.cs, ground.tiles_x
    n_reg = region_tiles.shape[0]
    block = cs * cs
    diag = math.hypot(cw, ch)
    moves = MOVES
    cost = np.full((n_reg, block), np.inf)
    dirs = np.full((n_reg, block), WALL, dtype=np.uint8)
    allowed_at = np.zeros((n_reg, block), dtype=np.uint8)  # the move bits of each cell, found once
    keys = np.empty(max(64, 8 * n_reg * cs), dtype=np.float64)  # about a frontier; grows
    items = np.empty(keys.shape[0], dtype=np.int64)
    size = 0
    # seeds: goals in the region, exits into known tiles or onto goals (exact, real)
    for r in range(n_reg):
        t = region_tiles[r]
        x0, y0 = (t % tiles_x) * cs, (t // tiles_x) * cs
        for ly in range(cs):
            y = y0 + ly
            if y >= height:
                break
            for lx in range(cs):
                x = x0 + lx
                if x >= width:
                    break
                node = y * width + x
                if walk[node] == 0:
                    continue
                local = ly * cs + lx
                dirs[r, local] = UNREACHABLE
                allowed = _moves_from(walk, occ, agents, moves, diagonal, x, y, width, height)
                allowed_at[r, local] = allowed
                if _is_goal(goals, node) and _open(walk, occ, agents, node):
                    cost[r, local] = 0.0
                    dirs[r, local] = GOAL
                    keys, items, size = heap_push(keys, items, size, 0.0, r * block + local)
                    continue
                if 0 < lx < cs - 1 and 0 < ly < cs - 1:
                    continue  # inner cells have no neighbour outside their tile
                for k in range(8):
                    if not allowed >> k & 1:
                        continue
                    nx, ny = x + DX[k], y + DY[k]
                    nt = (ny // cs) * tiles_x + nx // cs
                    if region_slot[nt] >= 0:
                        continue
                    nn = ny * width + nx
                    if _is_goal(goals, nn):
                        beyond = 0.0
                    elif known_slot[nt] >= 0:
                        beyond = known_cost[known_slot[nt], (ny % cs) * cs + nx % cs]
                    else:
                        continue
                    cand = beyond + _step_length(k, cw, ch, diag) * weights[nn]
                    if cand < cost[r, local]:
                        cost[r, local] = cand
                        dirs[r, local] = k
                        keys, items, size = heap_push(keys, items, size, cand, r * block + local)
    # the real Dijkstra, backwards: a popped cell v is entered from u = v - move k
    while size > 0:
        d, item, size = heap_pop(keys, items, size)
        r, local = item // block, item % block
        if d > cost[r, local]:
            continue
        t = region_tiles[r]
        x = (t % tiles_x) * cs + local % cs
        y = (t // tiles_x) * cs + local // cs
        node = y * width + x
        for k in range(8):
            ux, uy = x - DX[k], y - DY[k]
            if not (0 <= ux < width and 0 <= uy < height):
                continue
            ur = region_slot[(uy // cs) * tiles_x + ux // cs]
            ulocal = (uy % cs) * cs + ux % cs
            if ur < 0 or not allowed_at[ur, ulocal] >> k & 1:
                continue
            cand = d + _step_length(k, cw, ch, diag) * weights[node]
            if cand < cost[ur, ulocal]:
                cost[ur, ulocal] = cand
                dirs[ur, ulocal] = k
                keys, items, size = heap_push(keys, items, size, cand, ur * block + ulocal)
    culprits, violated = _check_bounds(
        ground,
        region_tiles,
        region_slot,
        known_slot,
        goals,
        gx,
        gy,
        wmin,
        cost,
        allowed_at,
        lm_to,
        lm_from,
        g_to,
        g_from,
    )
    return cost, dirs, culprits, violated


@jit
def _check_bounds(
    ground: FieldGround,
    region_tiles: npt.NDArray[np.int64],
    region_slot: npt.NDArray[np.int32],
    known_slot: npt.NDArray[np.int32],
    goals: npt.NDArray[np.int64],
    gx: npt.NDArray[np.int64],
    gy: npt.NDArray[np.int64],
    wmin: float,
    cost: npt.NDArray[np.float64],
    allowed_at: npt.NDArray[np.uint8],
    lm_to: npt.NDArray[np.float64],
    lm_from: npt.NDArray[np.float64],
    g_to: npt.NDArray[np.float64],
    g_from: npt.NDArray[np.float64],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
    """The bound Dijkstra: lower bounds through exits into unknown tiles, kept only where they
    beat the real cost (a bound no lower than ``d_R(v)`` at ``v`` stays no lower at every cell it
    would reach through ``v``, as ``d_R`` obeys the same steps). Returns the culprit tiles and
    the region tiles with a violation."""
    walk, weights, width, height = ground.walk, ground.weights, ground.width, ground.height
    diagonal, cw, ch, cs = ground.diagonal, ground.cw, ground.ch, ground.cs
    tiles_x = ground.tiles_x
    n_reg = region_tiles.shape[0]
    block = cs * cs
    diag = math.hypot(cw, ch)
    bound = np.full((n_reg, block), np.inf)
    source = np.full((n_reg, block), -1, dtype=np.int64)
    keys = np.empty(64, dtype=np.float64)
    items = np.empty(64, dtype=np.int64)
    size = 0
    for r in range(n_reg):
        t = region_tiles[r]
        x0, y0 = (t % tiles_x) * cs, (t // tiles_x) * cs
        for ly in range(cs):
            y = y0 + ly
            if y >= height:
                break
            for lx in range(cs):
                x = x0 + lx
                if x >= width:
                    break
                if 0 < lx < cs - 1 and 0 < ly < cs - 1:
                    continue
                node = y * width + x
                local = ly * cs + lx
                if walk[node] == 0 or cost[r, local] == 0.0:
                    continue
                limit = cost[r, local] * (1.0 - SLACK)
                allowed = allowed_at[r, local]
                for k in range(8):
                    if not allowed >> k & 1:
                        continue
                    nx, ny = x + DX[k], y + DY[k]
                    nt = (ny // cs) * tiles_x + nx // cs
                    if region_slot[nt] >= 0 or known_slot[nt] >= 0:
                        continue
                    nn = ny * width + nx
                    if _is_goal(goals, nn):
                        continue
                    low = goal_bound(nx, ny, gx, gy, cw, ch, diagonal, wmin)
                    if lm_to.shape[0]:
                        nlocal = (ny % cs) * cs + nx % cs
                        low = max(low, _landmark_bound(nt, nlocal, cs, lm_to, lm_from, g_to, g_from))
                    cand = low + _step_length(k, cw, ch, diag) * weights[nn]
                    if cand < limit and cand < bound[r, local]:
                        bound[r, local] = cand
                        source[r, local] = nt
                        keys, items, size = heap_push(keys, items, size, cand, r * block + local)
    while size > 0:
        d, item, size = heap_pop(keys, items, size)
        r, local = item // block, item % block
        if d > bound[r, local]:
            continue
        t = region_tiles[r]
        x = (t % tiles_x) * cs + local % cs
        y = (t // tiles_x) * cs + local // cs
        node = y * width + x
        for k in range(8):
            ux, uy = x - DX[k], y - DY[k]
            if not (0 <= ux < width and 0 <= uy < height):
                continue
            ur = region_slot[(uy // cs) * tiles_x + ux // cs]
            ulocal = (uy % cs) * cs + ux % cs
            if ur < 0 or not allowed_at[ur, ulocal] >> k & 1:
                continue
            cand = d + _step_length(k, cw, ch, diag) * weights[node]
            if cand < cost[ur, ulocal] * (1.0 - SLACK) and cand < bound[ur, ulocal]:
                bound[ur, ulocal] = cand
                source[ur, ulocal] = source[r, local]
                keys, items, size = heap_push(keys, items, size, cand, ur * block + ulocal)
    violated = np.zeros(n_reg, dtype=np.bool_)
    for r in range(n_reg):
        violated[r] = (source[r] >= 0).any()
    found = source.ravel()
    return np.unique(found[found >= 0]), violated
