"""Kernels that walk a flow field's chains of directions or a straight line: the repair's taint
test, following a field to its goal, and line of sight.

Quick start (:class:`~python_core.flowfield.FlowField` and :mod:`.sight` call these)::

    total, end, code = follow_cost(dirs, known_slot, weights, width, cs, tiles_x, cw, ch, start, steps)
    dirty = tainted_tiles(dirs, tiles, known_slot, width, height, cs, tiles_x, taint)
"""

# Compiled kernels take their arguments positionally: numba.njit does not compile keywords.
# ruff: noqa: PLR0917

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from python_core._types import DIAG_ALWAYS, DIAG_AT_LEAST_ONE_WALKABLE
from python_core.compiled import jit
from python_core.flowfield.moves import DX, DY, _is_goal, _open, _step_length

__all__ = ["follow_cost", "line_of_sight", "tainted_tiles"]


@jit
def tainted_tiles(
    dirs: npt.NDArray[np.uint8],
    tiles: npt.NDArray[np.int64],
    known_slot: npt.NDArray[np.int32],
    width: int,
    height: int,
    cs: int,
    tiles_x: int,
    taint: npt.NDArray[np.int64],
) -> npt.NDArray[np.bool_]:
    """Per known tile (``tiles[i]`` stored in row ``known_slot[tiles[i]]`` of ``dirs``): whether a
    cell's chain of directions passes through a cell of the sorted ``taint`` ids (the cells around
    a change that got dearer: a chain that avoids them keeps its cost, so its cell keeps its value).
    Each cell is walked once: states 0 unseen, 1 clean, 2 tainted."""
    block = cs * cs
    state = np.zeros((dirs.shape[0], block), dtype=np.uint8)
    out = np.zeros(tiles.shape[0], dtype=np.bool_)
    stack = np.empty(64, dtype=np.int64)
    for i in range(tiles.shape[0]):
        t = tiles[i]
        s = known_slot[t]
        x0, y0 = (t % tiles_x) * cs, (t // tiles_x) * cs
        for local in range(block):
            x, y = x0 + local % cs, y0 + local // cs
            if x >= width or y >= height:
                continue
            if state[s, local] != 0:
                out[i] = out[i] or state[s, local] == 2
                continue
            depth = 0
            cx, cy, cslot, clocal = x, y, s, local
            verdict = 1
            while True:
                if _is_goal(taint, cy * width + cx):
                    verdict = 2
                    break
                if cslot < 0:  # a goal in an unknown tile ends the chain
                    break
                seen = state[cslot, clocal]
                if seen != 0:
                    verdict = seen
                    break
                if depth == stack.shape[0]:
                    bigger = np.empty(2 * depth, dtype=np.int64)
                    bigger[:depth] = stack
                    stack = bigger
                stack[depth] = cslot * block + clocal
                depth += 1
                k = dirs[cslot, clocal]
                if k >= 8:
                    break
                cx, cy = cx + DX[k], cy + DY[k]
                cslot = known_slot[(cy // cs) * tiles_x + cx // cs]
                clocal = (cy % cs) * cs + cx % cs
            for j in range(depth):
                state[stack[j] // block, stack[j] % block] = verdict
            if state[s, local] == 2:
                out[i] = True
    return out


@jit
def follow_cost(
    dirs: npt.NDArray[np.uint8],
    known_slot: npt.NDArray[np.int32],
    weights: npt.NDArray[np.float64],
    width: int,
    cs: int,
    tiles_x: int,
    cw: float,
    ch: float,
    start: int,
    max_steps: int,
) -> tuple[float, int, int]:
    """Walk the field from ``start`` adding each step's cost. Returns ``(cost, end cell, code)``:
    code is the last direction byte (``GOAL``...), or ``-1`` when the walk left the known tiles
    or took ``max_steps``."""
    diag = math.hypot(cw, ch)
    x, y = start % width, start // width
    total = 0.0
    for _ in range(max_steps):
        slot = known_slot[(y // cs) * tiles_x + x // cs]
        if slot < 0:
            return total, y * width + x, -1
        k = dirs[slot, (y % cs) * cs + x % cs]
        if k >= 8:
            return total, y * width + x, int(k)
        x, y = x + DX[k], y + DY[k]
        total += _step_length(k, cw, ch, diag) * weights[y * width + x]
    return total, y * width + x, -1


@jit
def line_of_sight(
    walk: npt.NDArray[np.uint8],
    occ: npt.NDArray[np.int32],
    agents: bool,
    diagonal: int,
    width: int,
    height: int,
    ax: int,
    ay: int,
    bx: int,
    by: int,
) -> bool:
    """Whether the segment between the centres of two cells crosses only open cells, each step
    between the cells it touches being a move the diagonal rule allows (a corner crossed exactly
    is a diagonal move: ``never`` and ``only_if_no_obstacles`` want both side cells open,
    ``at_least_one_walkable`` one, ``always`` none)."""
    if not _open(walk, occ, agents, ay * width + ax) or not _open(walk, occ, agents, by * width + bx):
        return False
    dx, dy = abs(bx - ax), abs(by - ay)
    sx = 1 if bx > ax else -1
    sy = 1 if by > ay else -1
    x, y = ax, ay
    # supercover walk: compare the crossings of the next vertical and horizontal cell edges
    # (in units of 2 * dx * dy to stay in integers)
    err = dx - dy
    for _ in range(dx + dy):
        if err > 0:
            x += sx
            err -= 2 * dy
        elif err < 0:
            y += sy
            err += 2 * dx
        else:  # through a corner: a diagonal step between the two side cells
            side_a = _open(walk, occ, agents, y * width + x + sx)
            side_b = _open(walk, occ, agents, (y + sy) * width + x)
            if diagonal == DIAG_AT_LEAST_ONE_WALKABLE:
                if not (side_a or side_b):
                    return False
            elif diagonal != DIAG_ALWAYS and not (side_a and side_b):
                return False
            x += sx
            y += sy
            err += 2 * dx - 2 * dy
        if not _open(walk, occ, agents, y * width + x):
            return False
        if x == bx and y == by:
            return True
    return x == bx and y == by
