"""Cells and moves of the flow field kernels: direction bytes, which moves a cell allows, their lengths.

Quick start::

    from python_core.flowfield.moves import DX, DY, GOAL
    nx, ny = x + DX[k], y + DY[k]   # the cell a direction byte k (0..7) leads to; GOAL: arrived

A direction byte is the move toward the next cell, in the grid kernels' move order (``DX``/``DY``):
``0..7``, or :data:`GOAL`, :data:`UNREACHABLE`, :data:`WALL`. The move rule is the grid A*'s
(``MOVES``, one table lookup per cell), so a field's steps are the moves a path may take.
"""

# Compiled kernels take their arguments positionally: numba.njit does not compile keywords.
# ruff: noqa: PLR0917

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from python_core.compiled import jit
from python_core.grid.search.astar import _MOVES

__all__ = ["DX", "DY", "GOAL", "MOVES", "SLACK", "UNREACHABLE", "WALL"]

DX = np.array([1, -1, 0, 0, 1, -1, 1, -1], dtype=np.int64)
DY = np.array([0, 0, 1, -1, 1, 1, -1, -1], dtype=np.int64)
MOVES = _MOVES
"""``MOVES[diagonal, around]``: bit ``k`` set when move ``k`` is allowed (the grid A*'s table)."""
GOAL = 8
"""Direction byte of a goal cell (cost 0)."""
UNREACHABLE = 9
"""Direction byte of a walkable cell from which no goal can be reached."""
WALL = 10
"""Direction byte of a blocked cell (a wall, or an agent's cell where agents block and no exit)."""
SLACK = 1e-9
"""Relative slack of the exactness check: sums of the same steps in another order differ in their
last bits, so a bound equal to the real cost in exact arithmetic must not count as lower."""


@jit
def _open(walk: npt.NDArray[np.uint8], occ: npt.NDArray[np.int32], agents: bool, node: int) -> bool:
    return walk[node] != 0 and not (agents and occ[node] > 0)


@jit
def _moves_from(
    walk: npt.NDArray[np.uint8],
    occ: npt.NDArray[np.int32],
    agents: bool,
    moves: npt.NDArray[np.uint8],
    diagonal: int,
    x: int,
    y: int,
    width: int,
    height: int,
) -> int:
    """Bit ``k`` set when move ``k`` from ``(x, y)`` is allowed (the grid A*'s rule, one lookup)."""
    around = 0
    for k in range(8):
        nx, ny = x + DX[k], y + DY[k]
        if 0 <= nx < width and 0 <= ny < height and _open(walk, occ, agents, ny * width + nx):
            around |= 1 << k
    return int(moves[diagonal, around])


@jit
def _step_length(k: int, cw: float, ch: float, diag: float) -> float:
    if k < 2:
        return cw
    if k < 4:
        return ch
    return diag


@jit
def _is_goal(goals: npt.NDArray[np.int64], node: int) -> bool:
    i = np.searchsorted(goals, node)
    return bool(i < goals.shape[0] and goals[i] == node)
