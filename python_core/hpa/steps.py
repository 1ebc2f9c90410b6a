"""The 8-neighbour step of every HPA* kernel: the move table, the diagonal rule and step lengths.

Quick start::

    import numpy as np
    from python_core.hpa.steps import move_count, step_into, step_length
    walk = np.ones(9, np.uint8)                       # a 3 x 3 open grid, one rectangle
    reached = [step_into(walk, 3, 0, 0, 3, 3, 1, 1, k, 3) for k in range(move_count(3))]
    assert reached == [5, 3, 7, 1, 8, 6, 2, 0] and step_length(4, 1.0, 1.0, 2**0.5) == 2**0.5

Every cluster search, flood fill and tree repair walks the same moves under the same rules, so
they are written once here. The functions are compiled kernels (:func:`python_core.compiled.jit`)
that the kernels calling them compile in. Cells are addressed in a rectangle ``(x0, y0, lw, lh)``
of a grid ``width`` columns wide: local coordinates ``(lx, ly)``, local index ``ly * lw + lx``.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from python_core.compiled import jit

__all__ = ["MOVE_DX", "MOVE_DY", "move_count", "step_allowed", "step_into", "step_length", "step_out_of"]

U8 = npt.NDArray[np.uint8]

# Move table: (dx, dy); the diagonals come last so the 4-connected rule just stops after four.
MOVE_DX = np.array([1, -1, 0, 0, 1, -1, 1, -1], dtype=np.int64)
MOVE_DY = np.array([0, 0, 1, -1, 1, 1, -1, -1], dtype=np.int64)


@jit
def move_count(diag: int) -> int:
    """How many moves of the table the diagonal rule uses: 4 without diagonals, else 8.

    Example:
        >>> move_count(0), move_count(2)
        (4, 8)
    """
    return 4 if diag == 0 else 8


@jit
def step_allowed(walk: U8, width: int, x: int, y: int, dx: int, dy: int, diag: int) -> bool:  # noqa: PLR0917
    """Whether the diagonal rule lets a step (dx, dy) leave (x, y) (the target is checked apart).

    ``diag``: 0 never, 1 always, 2 at least one side walkable, 3 both sides walkable.

    Example:
        >>> step_allowed(np.array([1, 0, 0, 1], np.uint8), 2, 0, 0, 1, 1, 3)
        False
    """
    if dx == 0 or dy == 0:
        return True
    if diag == 0:
        return False
    if diag == 1:
        return True
    side_x: bool = walk[y * width + x + dx] != 0
    side_y: bool = walk[(y + dy) * width + x] != 0
    if diag == 3:
        return side_x and side_y
    return side_x or side_y


@jit
def step_length(k: int, cw: float, ch: float, dl: float) -> float:
    """Length of move ``k`` at weight 1: ``cw`` across, ``ch`` up or down, ``dl`` (the cell's
    diagonal, ``math.hypot(cw, ch)``, computed once by the caller) for a diagonal.

    Example:
        >>> step_length(0, 2.0, 3.0, 5.0), step_length(2, 2.0, 3.0, 5.0), step_length(7, 2.0, 3.0, 5.0)
        (2.0, 3.0, 5.0)
    """
    return dl if k >= 4 else (cw if k < 2 else ch)


@jit
def step_into(  # noqa: PLR0917 (compiled kernel: positional)
    walk: U8, width: int, x0: int, y0: int, lw: int, lh: int, lx: int, ly: int, k: int, diag: int
) -> int:
    """The local index of the cell that move ``k`` enters from local ``(lx, ly)``; -1 when the
    move leaves the rectangle, enters a wall or the diagonal rule forbids it.

    Example:
        >>> walk = np.array([1, 0, 1, 1], np.uint8)          # 2 x 2, (1, 0) a wall
        >>> step_into(walk, 2, 0, 0, 2, 2, 0, 0, 4, 3), step_into(walk, 2, 0, 0, 2, 2, 0, 0, 4, 2)
        (-1, 3)
    """
    dx, dy = MOVE_DX[k], MOVE_DY[k]
    nlx, nly = lx + dx, ly + dy
    if nlx < 0 or nly < 0 or nlx >= lw or nly >= lh:
        return -1
    x, y = lx + x0, ly + y0
    if walk[(y + dy) * width + x + dx] == 0 or not step_allowed(walk, width, x, y, dx, dy, diag):
        return -1
    return int(nly * lw + nlx)


@jit
def step_out_of(  # noqa: PLR0917 (compiled kernel: positional)
    walk: U8, width: int, x0: int, y0: int, lw: int, lh: int, lx: int, ly: int, k: int, diag: int
) -> int:
    """The local index of the cell that move ``k`` leaves to enter local ``(lx, ly)`` (the move
    backwards, for searches towards a cell); -1 when that cell lies outside the rectangle, is a
    wall or the diagonal rule forbids the move from it.

    Example:
        >>> walk = np.array([1, 0, 1, 1], np.uint8)
        >>> step_out_of(walk, 2, 0, 0, 2, 2, 1, 1, 4, 3), step_out_of(walk, 2, 0, 0, 2, 2, 1, 1, 4, 1)
        (-1, 0)
    """
    dx, dy = MOVE_DX[k], MOVE_DY[k]
    ulx, uly = lx - dx, ly - dy
    if ulx < 0 or uly < 0 or ulx >= lw or uly >= lh:
        return -1
    ux, uy = ulx + x0, uly + y0
    if walk[uy * width + ux] == 0 or not step_allowed(walk, width, ux, uy, dx, dy, diag):
        return -1
    return int(uly * lw + ulx)
