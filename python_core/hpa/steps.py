"""The 8-neighbour step of every HPA* kernel: the move table, the diagonal rule and step lengths.

Quick start::

    import numpy as np
    from python_core.hpa.steps import legal_from, move_count, step_length, step_target
    walk = np.ones(9, np.uint8)                       # a 3 x 3 open grid, one rectangle
    reached = [step_target(1, 1, k, 3, 3) for k in range(move_count(3)) if legal_from(walk, 3, 1, 1, k, 3)]
    assert reached == [5, 3, 7, 1, 8, 6, 2, 0] and step_length(4, 1.0, 1.0, 2**0.5) == 2**0.5

Every cluster search, flood fill and tree repair walks the same moves under the same rules, so
they are written once here. They run in the innermost loops, where a call into another compiled
function (numba passes every array as a struct of fields) costs more than the step itself, so
:func:`inline_jit` has numba inline them into each kernel that calls them; that kernel's disk
cache then holds them too (keyed, as every kernel's, by a hash of all python_core sources). Cells
are addressed in a rectangle ``(x0, y0, lw, lh)`` of a grid ``width`` columns wide: local
coordinates ``(lx, ly)``, local index ``ly * lw + lx``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, TypeVar, cast

import numpy as np

from python_core._types import U8
from python_core.compiled import JIT_ENABLED

__all__ = [
    "MOVE_DX",
    "MOVE_DY",
    "inline_jit",
    "legal_from",
    "legal_into",
    "move_count",
    "octile",
    "step_allowed",
    "step_length",
    "step_source",
    "step_target",
]

F = TypeVar("F", bound=Callable[..., Any])


def inline_jit(function: F) -> F:
    """:func:`python_core.compiled.jit` for a small helper of hot loops: compiled by numba with
    ``inline="always"`` (inlined into every compiled caller at numba's IR level, so no call is
    left in the loop), or the function itself when kernels run as plain Python.

    Example (the helpers below are compiled this way, and stay callable from Python)::

        @inline_jit
        def step_length(k, cw, ch, dl): ...
    """
    if not JIT_ENABLED:
        return function
    numba: Any = importlib.import_module("numba")  # configured (cache folder) by python_core.compiled
    return cast(F, numba.njit(inline="always", cache=True, nogil=True)(function))


# Move table: (dx, dy); the diagonals come last so the 4-connected rule just stops after four.
MOVE_DX = np.array([1, -1, 0, 0, 1, -1, 1, -1], dtype=np.int64)
MOVE_DY = np.array([0, 0, 1, -1, 1, 1, -1, -1], dtype=np.int64)


@inline_jit
def move_count(diag: int) -> int:
    """How many moves of the table the diagonal rule uses: 4 without diagonals, else 8.

    Example:
        >>> move_count(0), move_count(2)
        (4, 8)
    """
    return 4 if diag == 0 else 8


@inline_jit
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


@inline_jit
def step_length(k: int, cw: float, ch: float, dl: float) -> float:
    """Length of move ``k`` at weight 1: ``cw`` across, ``ch`` up or down, ``dl`` (the cell's
    diagonal, ``math.hypot(cw, ch)``, computed once by the caller) for a diagonal.

    Example:
        >>> step_length(0, 2.0, 3.0, 5.0), step_length(2, 2.0, 3.0, 5.0), step_length(7, 2.0, 3.0, 5.0)
        (2.0, 3.0, 5.0)
    """
    return dl if k >= 4 else (cw if k < 2 else ch)


@inline_jit
def octile(ax: int, ay: int, diag: int, cw: float, ch: float, dl: float) -> float:  # noqa: PLR0917
    """The cheapest cost at weight 1 of ``ax`` columns and ``ay`` rows on an open grid, every
    search's estimate: diagonal steps for the shorter side (``dl``, as for
    :func:`step_length`), straight ones for the rest; straight ones only when ``diag`` is 0.

    Example:
        >>> octile(3, 1, 1, 1.0, 1.0, 2**0.5) == 2 + 2**0.5, octile(3, 1, 0, 1.0, 1.0, 2**0.5)
        (True, 4.0)
    """
    m = min(ax, ay) if diag != 0 else 0
    return dl * m + cw * (ax - m) + ch * (ay - m)


@inline_jit
def step_target(lx: int, ly: int, k: int, lw: int, lh: int) -> int:
    """The local index of the cell that move ``k`` enters from local ``(lx, ly)`` of an ``lw`` x
    ``lh`` rectangle; -1 when it leaves the rectangle. Callers check their own cheap state
    (settled, labelled) first and :func:`legal_from` last.

    Example:
        >>> step_target(0, 0, 4, 2, 2), step_target(0, 0, 1, 2, 2)
        (3, -1)
    """
    nlx, nly = lx + MOVE_DX[k], ly + MOVE_DY[k]
    if nlx < 0 or nly < 0 or nlx >= lw or nly >= lh:
        return -1
    return int(nly * lw + nlx)


@inline_jit
def step_source(lx: int, ly: int, k: int, lw: int, lh: int) -> int:
    """The local index of the cell that move ``k`` leaves to enter local ``(lx, ly)``; -1 when
    that cell lies outside the rectangle (the move backwards, for searches towards a cell).

    Example:
        >>> step_source(1, 1, 4, 2, 2), step_source(0, 0, 4, 2, 2)
        (0, -1)
    """
    ulx, uly = lx - MOVE_DX[k], ly - MOVE_DY[k]
    if ulx < 0 or uly < 0 or ulx >= lw or uly >= lh:
        return -1
    return int(uly * lw + ulx)


@inline_jit
def legal_from(walk: U8, width: int, x: int, y: int, k: int, diag: int) -> bool:  # noqa: PLR0917
    """Whether move ``k`` may leave global ``(x, y)``: the cell it enters is walkable and the
    diagonal rule lets it pass (the cell left is the caller's).

    Example:
        >>> walk = np.array([1, 0, 1, 1], np.uint8)          # 2 x 2, (1, 0) a wall
        >>> legal_from(walk, 2, 0, 0, 4, 3), legal_from(walk, 2, 0, 0, 4, 2), legal_from(walk, 2, 0, 0, 0, 2)
        (False, True, False)
    """
    dx, dy = MOVE_DX[k], MOVE_DY[k]
    return walk[(y + dy) * width + x + dx] != 0 and step_allowed(walk, width, x, y, dx, dy, diag)


@inline_jit
def legal_into(walk: U8, width: int, x: int, y: int, k: int, diag: int) -> bool:  # noqa: PLR0917
    """Whether move ``k`` may enter global ``(x, y)``: the cell it leaves is walkable and the
    diagonal rule lets it pass (the cell entered is the caller's).

    Example:
        >>> walk = np.array([1, 0, 1, 1], np.uint8)
        >>> legal_into(walk, 2, 1, 1, 4, 3), legal_into(walk, 2, 1, 1, 4, 1)
        (False, True)
    """
    dx, dy = MOVE_DX[k], MOVE_DY[k]
    return walk[(y - dy) * width + x - dx] != 0 and step_allowed(walk, width, x - dx, y - dy, dx, dy, diag)
