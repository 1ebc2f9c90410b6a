"""Clearance: the largest square unit footprint that fits at each cell of a grid.

Quick start::

    import numpy as np
    from python_core.grid.clearance import clearance_of
    clear = clearance_of(np.ones((3, 4), dtype=bool))
    assert clear[0].tolist() == [3, 3, 2, 1]  # a 3x3 unit fits at (0, 0), only 1x1 in the last column

A unit of size k (k x k cells) standing at cell ``(x, y)`` covers ``[x, x+k) x [y, y+k)``: the cell
is its footprint's top-left corner (its *anchor*). ``clearance[y, x]`` is the largest ``k <=``
:data:`MAX_UNIT_SIZE` whose footprint at ``(x, y)`` lies inside the grid on walkable cells, 0 on
walls, so a size-k unit may stand at ``(x, y)`` exactly when ``clearance[y, x] >= k``. One byte per
cell answers every size. :func:`repair_clearance` recomputes it locally after cells change.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from python_core._types import U8
from python_core.compiled import jit, register_warm_up
from python_core.errors import InvalidGraphError, InvalidQueryError
from python_core.result import QueryOptions

__all__ = [
    "MAX_UNIT_SIZE",
    "blocked_start",
    "check_radius",
    "check_size",
    "clearance_of",
    "fill_clearance",
    "repair_clearance",
    "size_for_radius",
    "unit_size",
]

MAX_UNIT_SIZE = 255
"""The largest unit size in cells: clearance is stored in one byte per cell."""


_ROWS = 4
"""Rows whose runs one sweep counts at once: four independent chains keep the core busy where one
row's ``run = run + 1 or 0`` waits on itself every cell (4x faster on 4096 x 4096)."""


@jit
def _clearance_kernel(open_cells: Any, out: Any) -> None:
    """``out[y, x] = min(run, 1 + min(below, below_right))``, 0 on walls, capped at 255: ``run``
    counts the open cells from ``x`` rightwards, and cells past the grid's right or bottom edge
    count 0, so a footprint never leaves the grid. A k x k square fits at ``(x, y)`` exactly when
    row ``y`` holds k open cells from ``x`` and (k-1)-squares fit at ``(x, y+1)`` and
    ``(x+1, y+1)``: the classic ``1 + min(right, below, below_right)`` without its right-hand
    neighbour, so the pass over a row carries nothing from cell to cell (it vectorises); only the
    runs do, counted for :data:`_ROWS` rows at once. Rows go bottom to top; ``below`` is the last
    row written (0 past the grid)."""
    h, w = open_cells.shape
    runs = np.empty((_ROWS, w), dtype=np.uint8)
    below = np.zeros(w + 1, dtype=np.uint8)
    y = h - 1
    while y >= 0:
        n = min(_ROWS, y + 1)
        if n == _ROWS:
            r0 = r1 = r2 = r3 = 0
            a0, a1, a2, a3 = open_cells[y], open_cells[y - 1], open_cells[y - 2], open_cells[y - 3]
            for x in range(w - 1, -1, -1):
                r0 = min(r0 + 1, 255) if a0[x] else 0
                r1 = min(r1 + 1, 255) if a1[x] else 0
                r2 = min(r2 + 1, 255) if a2[x] else 0
                r3 = min(r3 + 1, 255) if a3[x] else 0
                runs[0, x], runs[1, x], runs[2, x], runs[3, x] = r0, r1, r2, r3
        else:
            for i in range(n):
                r = 0
                row = open_cells[y - i]
                for x in range(w - 1, -1, -1):
                    r = min(r + 1, 255) if row[x] else 0
                    runs[i, x] = r
        for i in range(n):
            target, run = out[y - i], runs[i]
            for x in range(w):
                m = min(below[x], below[x + 1])
                value = min(run[x], m + (m < 255))
                target[x] = value
                below[x] = value
        y -= n


@jit
def _repair_kernel(  # noqa: PLR0917 - numba kernel, scalars passed positionally
    open_cells: Any, clear: Any, x0: int, y0: int, x1: int, y1: int, flags: Any
) -> int:
    """Recompute ``clear`` after cells in ``[x0, x1] x [y0, y1]`` changed; return cells rewritten.

    A cell's value reads only its own cell and its right, lower and lower-right neighbours, so only
    cells up-left of the change can differ, and a cell outside the box needs recomputing only when
    one of those neighbours changed. Rows go bottom to top from ``y1``, each right to left from
    ``x1``; ``flags[r, x]`` (rows alternate) marks the cells that changed, valid from the row's
    leftmost change ``lo`` to ``x1`` (column ``x1 + 1`` is never written, so stays 0). The repair
    ends at the first row above the box where nothing changed."""
    h, w = open_cells.shape
    written = 0
    prev, prev_lo = 0, w  # the row below: its flags row and leftmost change (w: none)
    for y in range(y1, -1, -1):
        cur = 1 - prev
        in_box = y >= y0
        lo = w
        right_changed = False
        x = x1
        while x >= 0:
            below = y + 1 < h and (
                (x >= prev_lo and flags[prev, x] != 0) or (x + 1 >= prev_lo and flags[prev, x + 1] != 0)
            )
            if not ((in_box and x >= x0) or right_changed or below):
                if x < prev_lo and not (in_box and x - 1 >= x0):
                    break  # nothing left of here reads a changed cell
                flags[cur, x] = 0
                x -= 1
                continue
            if open_cells[y, x] == 0:
                value = 0
            elif y == h - 1 or x == w - 1:
                value = 1
            else:
                m = min(clear[y, x + 1], clear[y + 1, x], clear[y + 1, x + 1])
                value = m + 1 if m < 255 else 255
            right_changed = value != clear[y, x]
            flags[cur, x] = 1 if right_changed else 0
            if right_changed:
                clear[y, x] = value
                written += 1
                lo = x
            x -= 1
        if lo == w and not in_box:
            break
        prev, prev_lo = cur, lo
    return written


def clearance_of(walkable: npt.ArrayLike) -> U8:
    """Clearance of every cell: the largest square unit size whose footprint fits there.

    Args:
        walkable: ``(height, width)`` array, nonzero / True = walkable.

    Returns:
        ``(height, width)`` uint8 array; 0 on walls, at most :data:`MAX_UNIT_SIZE`.

    Raises:
        InvalidGraphError: not a non-empty 2D array.

    Example:
        >>> clearance_of([[1, 1, 0], [1, 1, 1]]).tolist()
        [[2, 1, 0], [1, 1, 1]]
        >>> clearance_of([1, 1])
        Traceback (most recent call last):
        ...
        python_core.errors.InvalidGraphError: walkable must be a non-empty 2D array, got shape (2,)
    """
    array = np.asarray(walkable)
    if array.ndim != 2 or 0 in array.shape:
        raise InvalidGraphError(f"walkable must be a non-empty 2D array, got shape {array.shape}")
    out = np.empty(array.shape, dtype=np.uint8)
    fill_clearance(array, out)
    return out


def fill_clearance(walkable: npt.NDArray[Any], out: U8) -> None:
    """Write the clearance of ``walkable`` (``(h, w)``, nonzero = walkable) into ``out``, a
    ``(h, w)`` uint8 array or view (the inside of a padded copy, say); see :func:`clearance_of`."""
    if walkable.dtype == np.bool_:
        walkable = walkable.view(np.uint8)  # bools are bytes of 0 and 1: no copy
    elif walkable.dtype != np.uint8:
        walkable = np.asarray(walkable != 0, dtype=np.uint8)
    # one machine code for every input layout (numba compiles one per type)
    _clearance_kernel(np.ascontiguousarray(walkable), out)


def repair_clearance(walkable: npt.NDArray[Any], clear: U8, box: tuple[int, int, int, int]) -> int:
    """Bring ``clear`` (in place) back to ``clearance_of(walkable)`` after cells in the box
    ``box = (x0, y0, x1, y1)`` (inclusive) changed; only cells up-left of the box are looked at.
    ``walkable`` is the ``(height, width)`` grid after the change (nonzero = walkable).

    Returns:
        The number of cells whose clearance changed.

    Example:
        >>> open_cells = np.ones((3, 3), dtype=np.uint8); clear = clearance_of(open_cells)
        >>> open_cells[2, 2] = 0; repair_clearance(open_cells, clear, (2, 2, 2, 2))
        3
        >>> bool((clear == clearance_of(open_cells)).all())
        True
    """
    x0, y0, x1, y1 = (int(v) for v in box)
    flags = np.zeros((2, clear.shape[1] + 1), dtype=np.uint8)
    return int(_repair_kernel(walkable, clear, x0, y0, x1, y1, flags))


def check_size(size: Any) -> int:
    """``size`` as an int in ``1..MAX_UNIT_SIZE``, else :class:`InvalidQueryError`.

    Example:
        >>> check_size(0)
        Traceback (most recent call last):
        ...
        python_core.errors.InvalidQueryError: size must be an integer in 1..255, got 0
    """
    if isinstance(size, bool) or not isinstance(size, int | np.integer) or not 1 <= size <= MAX_UNIT_SIZE:
        raise InvalidQueryError(f"size must be an integer in 1..{MAX_UNIT_SIZE}, got {size!r}")
    return int(size)


def check_radius(radius: Any) -> float:
    """``radius`` as a float, finite and > 0, else :class:`InvalidQueryError`.

    Example:
        >>> check_radius(float("nan"))
        Traceback (most recent call last):
        ...
        python_core.errors.InvalidQueryError: radius must be a finite number > 0, got nan
    """
    if isinstance(radius, bool) or not isinstance(radius, int | float | np.integer | np.floating):
        raise InvalidQueryError(f"radius must be a finite number > 0, got {radius!r}")
    if not math.isfinite(float(radius)) or radius <= 0:
        raise InvalidQueryError(f"radius must be a finite number > 0, got {radius!r}")
    return float(radius)


def size_for_radius(radius: Any, cell_size: tuple[float, float]) -> int:
    """The unit size in cells for a round unit of ``radius`` world units: the smallest square of
    cells as wide as the unit, ``max(1, ceil(2 * radius / min(cell_w, cell_h)))`` (a hair of
    tolerance so ``radius = 1.5`` on unit cells is size 3, not 4).

    Raises:
        InvalidQueryError: radius not a finite number > 0, or wider than :data:`MAX_UNIT_SIZE` cells.

    Example:
        >>> [size_for_radius(r, (1.0, 1.0)) for r in (0.25, 0.5, 1.5)], size_for_radius(0.6, (1.0, 2.0))
        ([1, 1, 3], 2)
    """
    r = check_radius(radius)
    size = max(1, math.ceil(2.0 * r / min(cell_size) - 1e-9))
    if size > MAX_UNIT_SIZE:
        raise InvalidQueryError(
            f"radius {r} is {size} cells wide, more than the largest size {MAX_UNIT_SIZE}"
        )
    return size


def blocked_start(cell: tuple[int, int], size: int) -> str:
    """The message of the error a search raises for a start where the unit does not fit.

    Example:
        >>> blocked_start((1, 2), 1)
        'start cell (1, 2) is blocked'
        >>> blocked_start((1, 2), 3)
        'start cell (1, 2) is blocked for a unit of size 3: its 3x3 footprint does not fit'
    """
    if size == 1:
        return f"start cell {cell} is blocked"
    return f"start cell {cell} is blocked for a unit of size {size}: its {size}x{size} footprint does not fit"


def unit_size(options: QueryOptions, cell_size: tuple[float, float]) -> int:
    """The size in cells a query's unit has on a grid of ``cell_size``: ``options.size``, or the
    size of ``options.radius`` (:func:`size_for_radius`). Options are checked already.

    Example:
        >>> unit_size(QueryOptions(radius=1.0), (1.0, 1.0)), unit_size(QueryOptions(size=4), (1.0, 1.0))
        (2, 4)
    """
    return options.size if options.radius is None else size_for_radius(options.radius, cell_size)


@register_warm_up
def _warm_up() -> None:
    """Every array type the grid code passes (numba compiles one machine code per type): a grid's
    read-only walls into a plain array (``GridGraph.clearance``) or into the inside of a padded
    copy (a strided view: the searches'), writable walls (``clearance_of`` of a copy), and the
    repairs of both."""
    cells = np.ones((3, 4), dtype=np.uint8)
    clear = clearance_of(cells)
    cells[1, 1] = 0
    repair_clearance(cells, clear, (1, 1, 1, 1))
    walls = cells.copy()
    walls.flags.writeable = False
    repair_clearance(walls, clearance_of(walls), (1, 1, 1, 1))
    padded = np.zeros((5, 6), dtype=np.uint8)
    fill_clearance(walls, padded[1:-1, 1:-1])
    repair_clearance(walls, padded[1:-1, 1:-1], (1, 1, 1, 1))
