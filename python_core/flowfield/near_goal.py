"""Tiles near the goals without the exactness check: a plain Dijkstra from the goals, kept to a window.

Quick start (:meth:`python_core.flowfield.FlowField.extend` calls it first)::

    found = solve_near_goals(field, tiles)   # None: the window could not hold it
    if found is not None:
        tiles, cost, dirs = found            # per tile a cs * cs row, as the region solver gives

Why: the region solver's octile bounds fail next to the walls of a map of rooms, so even a unit
ten cells from its goal room got a field of the whole map (85-130 ms on a 512 x 512 crowd map,
8 frames before the first unit moved). Units near the goals need only the cells of lower cost than
theirs, and a Dijkstra from the goals settles exactly those first.

Why it is exact: the Dijkstra runs inside a window of tiles holding every goal and every tile
asked for, and stops (``None``) the moment a cell outside the window could step onto a settled
cell. Until then every settled cell's cost is the whole grid's Dijkstra cost: a cheaper path
from a settled cell ``v`` would leave the window, and its last outside cell ``u`` steps onto a
window cell ``w`` of lower cost than ``v`` whose own optimal path stays inside, so ``w`` was
settled before ``v`` and relaxing ``u`` from it would have stopped the search. When the heap runs
dry with no such step, the goals' whole backward reach is inside: every open cell left is
unreachable (``inf``). Pockets (open cells walled in inside the window, with no goal) are found
first and not waited for, or one pocket in a tile asked for would run the search to the window's
edge.

A tile is handed back only once all its open cells are settled, together with every tile that
the directions of its cells run through (the field's invariant: a computed cell's chain of
directions stays in computed tiles); those are settled already (lower costs), and their own
cells are waited for in turn.
"""

# Compiled kernels take their arguments positionally: numba.njit does not compile keywords.
# ruff: noqa: PLR0917, PLR0912, PLR0915

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from python_core._types import DIAG_ALWAYS, DIAG_CODES, F64, I64, U8
from python_core.compiled import jit
from python_core.flowfield.kernels import (
    DX,
    DY,
    GOAL,
    MOVES,
    UNREACHABLE,
    WALL,
    _is_goal,
    _moves_from,
    _open,
    _pop,
    _push,
    _step_length,
)

if TYPE_CHECKING:
    from python_core.flowfield.field import FlowField

__all__ = ["MARGIN_TILES", "WINDOW_SHARE", "solve_near_goals"]

MARGIN_TILES = 2
"""The window is the goals' tiles' bounding box grown on every side by the farthest tile asked for
(in tiles) plus this: the search is a disc around the goals as wide as the farthest cell it must
settle, plus room for paths that bend around walls. A search that reaches the window's edge tries
one twice as wide."""
WINDOW_SHARE = 0.125
"""The largest window, as a share of the map's tiles: past it the region solver runs instead (a
window given up costs at most this share of a full pass)."""


def solve_near_goals(field: FlowField, tiles: I64) -> tuple[I64, F64, U8] | None:
    """Exact costs and directions of ``tiles`` (unknown tile ids) and of the tiles their chains
    run through, by a Dijkstra from the goals inside a window, or None when the window is too
    large or the search reached its edge (the caller then runs the region solver)."""
    if tiles.size == 0:
        return None
    cs, tx = field.cs, field.tiles_x
    goal_tiles = np.unique((field._gy // cs) * tx + field._gx // cs)
    gc, gr = goal_tiles % tx, goal_tiles // tx
    c0, c1, r0, r1 = int(gc.min()), int(gc.max()), int(gr.min()), int(gr.max())
    tc, tr = tiles % tx, tiles // tx
    reach = np.maximum(np.maximum(c0 - tc, tc - c1), np.maximum(r0 - tr, tr - r1)).max()
    margin = max(int(reach), 0) + MARGIN_TILES
    grid = field.grid
    while True:
        wx0, wy0 = max(c0 - margin, 0), max(r0 - margin, 0)
        wx1, wy1 = min(c1 + margin + 1, tx), min(r1 + margin + 1, field.tiles_y)
        if (wx1 - wx0) * (wy1 - wy0) > WINDOW_SHARE * field.known_slot.size:
            return None
        done, cost, dirs, ok = _ball(
            grid.walkable.view(np.uint8).ravel(), grid._occupancy, field.agents_block,
            grid.weights.ravel(), grid.width, grid.height, DIAG_CODES[grid.diagonal],
            grid.cell_size[0], grid.cell_size[1], cs, tx, wx0, wy0, wx1, wy1,
            field.goal_nodes, tiles, field.known_slot,
        )  # fmt: skip
        if ok:
            slots = ((done // tx) - wy0) * (wx1 - wx0) + (done % tx) - wx0
            return done, cost[slots], dirs[slots]
        if wx0 == 0 and wy0 == 0 and wx1 == tx and wy1 == field.tiles_y:
            return None  # (not reached: a window of the whole map has no edge to stop at)
        margin *= 2  # the paths bend farther out: a window twice as wide (the work adds up to 2x)


@jit
def _ball(
    walk: npt.NDArray[np.uint8],
    occ: npt.NDArray[np.int32],
    agents: bool,
    weights: npt.NDArray[np.float64],
    width: int,
    height: int,
    diagonal: int,
    cw: float,
    ch: float,
    cs: int,
    tiles_x: int,
    wx0: int,
    wy0: int,
    wx1: int,
    wy1: int,
    goals: npt.NDArray[np.int64],
    wanted: npt.NDArray[np.int64],
    known_slot: npt.NDArray[np.int32],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64], npt.NDArray[np.uint8], bool]:
    """The Dijkstra over window tiles ``[wx0, wx1) x [wy0, wy1)`` (tile coordinates). Returns
    ``(tiles, cost, dirs, ok)``: the tile ids done (the wanted ones and their chains' tiles, none
    known before), per window tile (row-major in the window) a ``cs * cs`` row of costs and of
    direction bytes, and False when it stopped at the window's edge."""
    ww, wh = wx1 - wx0, wy1 - wy0
    n_tiles = ww * wh
    block = cs * cs
    diag = math.hypot(cw, ch)
    cost = np.full((n_tiles, block), np.inf)
    dirs = np.full((n_tiles, block), WALL, dtype=np.uint8)
    allowed_at = np.zeros((n_tiles, block), dtype=np.uint8)
    left = np.zeros(n_tiles, dtype=np.int64)  # open cells not settled yet, per window tile
    settled = np.zeros((n_tiles, block), dtype=np.bool_)
    x_lo, y_lo = wx0 * cs, wy0 * cs
    x_hi, y_hi = min(wx1 * cs, width), min(wy1 * cs, height)
    for y in range(y_lo, y_hi):
        for x in range(x_lo, x_hi):
            node = y * width + x
            if walk[node] == 0:
                continue
            s = (y // cs - wy0) * ww + x // cs - wx0
            local = (y % cs) * cs + x % cs
            dirs[s, local] = UNREACHABLE
            allowed_at[s, local] = _moves_from(walk, occ, agents, MOVES, diagonal, x, y, width, height)
    # pockets (open cells enclosed inside the window with no goal) never settle: count the rest
    pocket = _pockets(walk, occ, agents, width, height, diagonal, x_lo, y_lo, x_hi, y_hi, goals)
    for y in range(y_lo, y_hi):
        for x in range(x_lo, x_hi):
            if walk[y * width + x] != 0 and not pocket[y - y_lo, x - x_lo]:
                left[(y // cs - wy0) * ww + x // cs - wx0] += 1
    keys = np.empty(max(64, 8 * (x_hi - x_lo + y_hi - y_lo)), dtype=np.float64)
    items = np.empty(keys.shape[0], dtype=np.int64)
    size = 0
    for i in range(goals.shape[0]):
        node = goals[i]
        x, y = node % width, node // width
        if _open(walk, occ, agents, node):
            s = (y // cs - wy0) * ww + x // cs - wx0
            local = (y % cs) * cs + x % cs
            cost[s, local] = 0.0
            dirs[s, local] = GOAL
            keys, items, size = _push(keys, items, size, 0.0, s * block + local)
    # the tiles to hand back: wanted, then the tiles their chains run through
    target = np.zeros(n_tiles, dtype=np.bool_)
    walked = np.zeros(n_tiles, dtype=np.bool_)
    queue = np.empty(n_tiles, dtype=np.int64)
    queued = 0
    waiting = 0  # target tiles with open cells not settled
    for i in range(wanted.shape[0]):
        t = wanted[i]
        s = (t // tiles_x - wy0) * ww + t % tiles_x - wx0
        if not target[s]:
            target[s] = True
            queue[queued] = s
            queued += 1
            if left[s] > 0:
                waiting += 1
    visited = np.zeros((n_tiles, block), dtype=np.bool_)
    ok = True
    while True:
        # settle cells until every target tile is whole (or nothing is left to settle)
        while waiting > 0 and size > 0:
            d, item, size = _pop(keys, items, size)
            s, local = item // block, item % block
            if settled[s, local] or d > cost[s, local]:
                continue
            settled[s, local] = True
            left[s] -= 1
            if left[s] == 0 and target[s]:
                waiting -= 1
            x = (wx0 + s % ww) * cs + local % cs
            y = (wy0 + s // ww) * cs + local // cs
            node = y * width + x
            for k in range(8):
                ux, uy = x - DX[k], y - DY[k]
                if not (0 <= ux < width and 0 <= uy < height):
                    continue
                utx, uty = ux // cs, uy // cs
                if not (wx0 <= utx < wx1 and wy0 <= uty < wy1):
                    if walk[uy * width + ux] != 0 and (
                        _moves_from(walk, occ, agents, MOVES, diagonal, ux, uy, width, height) >> k & 1
                    ):
                        ok = False  # a cell outside could step in here: costs past the window matter
                        break
                    continue
                us = (uty - wy0) * ww + utx - wx0
                ulocal = (uy % cs) * cs + ux % cs
                if not allowed_at[us, ulocal] >> k & 1:
                    continue
                cand = d + _step_length(k, cw, ch, diag) * weights[node]
                if cand < cost[us, ulocal]:
                    cost[us, ulocal] = cand
                    dirs[us, ulocal] = k
                    keys, items, size = _push(keys, items, size, cand, us * block + ulocal)
            if not ok:
                break
        if not ok:
            break
        if size == 0:
            waiting = 0  # the goals' whole reach is settled: the open cells left are unreachable
        # the chains of the whole target tiles not walked yet may add tiles
        added = False
        for q in range(queued):
            s = queue[q]
            if walked[s] or (left[s] > 0 and size > 0):
                continue
            walked[s] = True
            for local in range(block):
                x = (wx0 + s % ww) * cs + local % cs
                y = (wy0 + s // ww) * cs + local // cs
                while not visited[(y // cs - wy0) * ww + x // cs - wx0, (y % cs) * cs + x % cs]:
                    cs_s = (y // cs - wy0) * ww + x // cs - wx0
                    c_local = (y % cs) * cs + x % cs
                    visited[cs_s, c_local] = True
                    k = dirs[cs_s, c_local]
                    if k >= 8:
                        break
                    x, y = x + DX[k], y + DY[k]
                    ns = (y // cs - wy0) * ww + x // cs - wx0
                    if not target[ns] and known_slot[y // cs * tiles_x + x // cs] < 0:
                        target[ns] = True
                        queue[queued] = ns
                        queued += 1
                        added = True
                        if left[ns] > 0 and size > 0:
                            waiting += 1
        if not added and waiting == 0:
            break
    done = np.empty(queued, dtype=np.int64)
    n = 0
    for q in range(queued):
        s = queue[q]
        t = (wy0 + s // ww) * tiles_x + wx0 + s % ww
        if known_slot[t] < 0:
            done[n] = t
            n += 1
    return np.sort(done[:n]), cost, dirs, ok


@jit
def _pockets(
    walk: npt.NDArray[np.uint8],
    occ: npt.NDArray[np.int32],
    agents: bool,
    width: int,
    height: int,
    diagonal: int,
    x_lo: int,
    y_lo: int,
    x_hi: int,
    y_hi: int,
    goals: npt.NDArray[np.int64],
) -> npt.NDArray[np.bool_]:
    """Per window cell: open, in a component that neither holds an open goal nor touches an open
    cell past the window (so no goal can be reached from it). Components join cells by the sides,
    and by the corners with ``always`` (a diagonal move the other modes allow has an open side
    cell between its ends)."""
    ww, wh = x_hi - x_lo, y_hi - y_lo
    label = np.full((wh, ww), -1, dtype=np.int64)
    pocket = np.zeros((wh, ww), dtype=np.bool_)
    stack = np.empty(ww * wh, dtype=np.int64)
    members = np.empty(ww * wh, dtype=np.int64)
    reach = 8 if diagonal == DIAG_ALWAYS else 4
    n_labels = 0
    for sy in range(wh):
        for sx in range(ww):
            if label[sy, sx] >= 0 or walk[(sy + y_lo) * width + sx + x_lo] == 0:
                continue
            label[sy, sx] = n_labels
            stack[0] = sy * ww + sx
            top, count, closed = 1, 0, True
            while top > 0:
                top -= 1
                c = stack[top]
                members[count] = c
                count += 1
                cx, cy = c % ww + x_lo, c // ww + y_lo
                if closed and _is_goal(goals, cy * width + cx) and _open(walk, occ, agents, cy * width + cx):
                    closed = False
                for k in range(reach):
                    nx, ny = cx + DX[k], cy + DY[k]
                    if not (0 <= nx < width and 0 <= ny < height) or walk[ny * width + nx] == 0:
                        continue
                    if not (x_lo <= nx < x_hi and y_lo <= ny < y_hi):
                        closed = False
                        continue
                    if label[ny - y_lo, nx - x_lo] < 0:
                        label[ny - y_lo, nx - x_lo] = n_labels
                        stack[top] = (ny - y_lo) * ww + nx - x_lo
                        top += 1
            if closed:
                for i in range(count):
                    pocket[members[i] // ww, members[i] % ww] = True
            n_labels += 1
    return pocket
