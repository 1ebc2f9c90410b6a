"""Cells of a grid: validating them (and the inputs that describe a grid), and placing them in the world.

Quick start::

    from python_core.grid.cells import as_cell, world_points
    assert as_cell((2.0, 1), 3, 3) == (2, 1)
    assert world_points(np.array([0, 5]), 4, 0.0, 0.0, 1.0, 1.0).tolist() == [[0.0, 0.0], [1.0, 1.0]]

Every public method of :class:`~python_core.grid.GridGraph` and both searches validate with these
helpers, so one input gives the same error whichever door it came through. Errors name the bad value.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from python_core._types import F64, I64, B
from python_core.compiled import jit
from python_core.errors import InvalidGraphError, InvalidQueryError, OutOfBoundsError
from python_core.grid.clearance import check_radius, check_size
from python_core.result import QueryOptions

__all__ = [
    "NOT_A_STEP",
    "Cell",
    "as_cell",
    "as_cells",
    "check_agent_id",
    "check_options",
    "parse_mask",
    "parse_pair",
    "parse_weights",
    "reject_bad",
    "step_offset",
    "world_points",
]

Cell = tuple[int, int]
"""A grid cell ``(x, y)``: x is the column, y the row."""

NOT_A_STEP = 2
"""What :func:`step_offset` returns when two cells are not neighbours (a real offset is -1..1)."""


@jit
def step_offset(d: int, x: int, width: int) -> tuple[int, int]:
    """``(sx, sy)`` of the step between two cells ``d = b - a`` apart, ``a`` in column ``x``, or
    ``(NOT_A_STEP, NOT_A_STEP)`` when ``b`` is not one of ``a``'s eight neighbours: a path's cells
    decoded without a division. Unique when ``width >= 3``; narrower grids read ``NOT_A_STEP``.

    Example:
        >>> step_offset(5, 1, 4), step_offset(-1, 0, 4), step_offset(9, 1, 4)
        ((1, 1), (2, 2), (2, 2))
    """
    if width < 3:
        return NOT_A_STEP, NOT_A_STEP
    sy = 1 if d > 1 else (-1 if d < -1 else 0)
    sx = d - sy * width
    if -1 <= sx <= 1 and 0 <= x + sx < width:
        return sx, sy
    return NOT_A_STEP, NOT_A_STEP


@jit
def world_points(  # noqa: PLR0917 (compiled kernel: positional)
    nodes: npt.NDArray[np.int64], width: int, ox: float, oy: float, cw: float, ch: float
) -> npt.NDArray[np.float64]:
    """World points of flat cells ``origin + (x, y) * cell_size`` (one compiled pass:
    numpy's half dozen small ops cost more).

    A cell one step from the one before (a path) is placed by its offset, without dividing by
    ``width`` (a 474-cell brc202d path: 2.1 -> 1.5 us in a compiled loop, scratch).

    Example:
        >>> world_points(np.array([0, 5]), 4, 10.0, 0.0, 2.0, 1.0).tolist()
        [[10.0, 0.0], [12.0, 1.0]]
    """
    out = np.empty((nodes.shape[0], 2))
    x = y = 0
    for i in range(nodes.shape[0]):
        sx, sy = step_offset(nodes[i] - nodes[i - 1], x, width) if i > 0 else (NOT_A_STEP, NOT_A_STEP)
        if sx == NOT_A_STEP:
            x, y = nodes[i] % width, nodes[i] // width
        else:
            x, y = x + sx, y + sy
        out[i, 0] = ox + x * cw
        out[i, 1] = oy + y * ch
    return out


# -- input validation shared by GridGraph and its searches --------------------------------------


def _integral(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise InvalidQueryError(f"{what} must be an integer, got {value!r}")
    if not math.isfinite(value) or value != math.floor(value):
        raise InvalidQueryError(f"{what} must be a finite integer, got {value!r}")
    return int(value)


def as_cell(cell: Any, width: int, height: int, *, what: str = "cell") -> Cell:
    """Validate one ``(x, y)`` cell: two integral numbers (``3.0`` is accepted) inside the grid.

    Args:
        cell: the candidate.
        width: columns.
        height: rows.
        what: its name in error messages (``"start"``, ``"goal"``...).

    Returns:
        ``(x, y)`` as Python ints.

    Raises:
        InvalidQueryError: not a pair, or a coordinate that is not a finite integer.
        OutOfBoundsError: outside ``[0, width) x [0, height)``.

    Example:
        >>> as_cell((2.0, 1), 3, 3)
        (2, 1)
        >>> as_cell((3, 0), 3, 3, what="goal")
        Traceback (most recent call last):
        ...
        python_core.errors.OutOfBoundsError: goal (3, 0) is outside the 3 x 3 grid
    """
    if type(cell) is tuple and len(cell) == 2:  # the common case, checked in a fraction of the time
        x, y = cell
        if type(x) is int and type(y) is int and 0 <= x < width and 0 <= y < height:
            return x, y
    if isinstance(cell, str | bytes) or not isinstance(cell, Sequence | np.ndarray) or len(cell) != 2:
        raise InvalidQueryError(f"{what} must be an (x, y) pair, got {cell!r}")
    x, y = _integral(cell[0], what), _integral(cell[1], what)
    if not (0 <= x < width and 0 <= y < height):
        raise OutOfBoundsError(f"{what} {(x, y)} is outside the {width} x {height} grid")
    return x, y


def as_cells(cells: npt.ArrayLike, width: int, height: int) -> npt.NDArray[np.int64]:
    """Validate one cell or an ``(n, 2)`` array of cells; return their flat node ids.

    Raises:
        InvalidQueryError: wrong shape, or non-integral / non-finite coordinates.
        OutOfBoundsError: a cell outside the grid (names the first one).

    Example:
        >>> as_cells([(0, 0), (1, 2)], 2, 3).tolist(), as_cells((1, 0), 2, 3).tolist()
        ([0, 5], [1])
    """
    try:
        array = np.asarray(cells)
    except (TypeError, ValueError) as exc:
        raise InvalidQueryError(f"cells must be (x, y) pairs: {exc}") from exc
    if array.size == 0:
        return np.zeros(0, dtype=np.int64)
    array = array.reshape(1, 2) if array.shape == (2,) else array
    numeric = np.issubdtype(array.dtype, np.integer) or np.issubdtype(array.dtype, np.floating)
    if array.ndim != 2 or array.shape[1] != 2 or not numeric:
        raise InvalidQueryError(f"cells must be (x, y) pairs, got shape {array.shape} of {array.dtype}")
    if not (np.isfinite(array).all() and (array == np.floor(array)).all()):
        raise InvalidQueryError(f"cells must be finite integers, got {array.tolist()!r:.80}")
    xs, ys = array[:, 0].astype(np.int64), array[:, 1].astype(np.int64)
    outside = (xs < 0) | (xs >= width) | (ys < 0) | (ys >= height)
    if outside.any():
        i = int(np.argmax(outside))
        raise OutOfBoundsError(f"cell {(int(xs[i]), int(ys[i]))} is outside the {width} x {height} grid")
    return ys * width + xs


def parse_pair(
    what: str, value: Any, *, positive: bool, error: type[Exception] = InvalidGraphError
) -> tuple[float, float]:
    """Validate two finite floats (``positive``: also ``> 0``), such as a cell size or an origin.

    Example:
        >>> parse_pair("origin", [1, 2], positive=False)
        (1.0, 2.0)
    """
    try:
        x, y = (float(v) for v in value)
    except (TypeError, ValueError):
        raise error(f"{what} must be two numbers, got {value!r}") from None
    if not (math.isfinite(x) and math.isfinite(y)) or (positive and (x <= 0 or y <= 0)):
        raise error(f"{what} must be finite{' and positive' if positive else ''}, got {(x, y)}")
    return x, y


def check_agent_id(agent_id: Any) -> None:
    """Raise :class:`InvalidQueryError` unless ``agent_id`` is an int (bools are not ids)."""
    if isinstance(agent_id, bool) or not isinstance(agent_id, int | np.integer):
        raise InvalidQueryError(f"agent id must be an integer, got {agent_id!r}")


def check_options(options: Any) -> None:
    """Raise :class:`InvalidQueryError` for malformed :class:`QueryOptions` fields.

    Example:
        >>> check_options(QueryOptions(max_expansions=-1))
        Traceback (most recent call last):
        ...
        python_core.errors.InvalidQueryError: max_expansions must be an integer >= 0 or None, got -1
    """
    if not isinstance(options, QueryOptions):
        raise InvalidQueryError(f"options must be QueryOptions, got {type(options).__name__}")
    budget = options.max_expansions
    if budget is not None and (isinstance(budget, bool) or not isinstance(budget, int) or budget < 0):
        raise InvalidQueryError(f"max_expansions must be an integer >= 0 or None, got {budget!r}")
    if options.agent is not None:
        check_agent_id(options.agent)
    check_size(options.size)
    if options.radius is not None:
        check_radius(options.radius)
        if options.size != 1:
            raise InvalidQueryError(
                f"give a size or a radius, not both (size={options.size!r}, radius={options.radius!r})"
            )


def parse_mask(walkable: npt.ArrayLike) -> B:
    """A validated ``(height, width)`` bool copy of a walkable array (numbers: 0 blocked, > 0 open)."""
    try:
        array = np.asarray(walkable)
    except (TypeError, ValueError) as exc:
        raise InvalidGraphError(f"walkable is not an array: {exc}") from exc
    if array.ndim != 2 or 0 in array.shape:
        raise InvalidGraphError(f"walkable must be a non-empty 2D array, got shape {array.shape}")
    if array.dtype == np.bool_:
        return np.array(array, dtype=np.bool_)
    if not (np.issubdtype(array.dtype, np.integer) or np.issubdtype(array.dtype, np.floating)):
        raise InvalidGraphError(f"walkable must be bool or numeric, got dtype {array.dtype}")
    reject_bad("walkable values", array.ravel(), array.shape[1])
    return np.asarray(array != 0, dtype=np.bool_)


def parse_weights(weights: npt.ArrayLike | None, shape: tuple[int, int]) -> F64:
    """Validated flat float64 weights (all 1 when None); each finite and ``>= 0``."""
    if weights is None:
        return np.ones(shape[0] * shape[1], dtype=np.float64)
    try:
        array = np.array(weights, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidGraphError(f"weights are not numbers: {exc}") from exc
    if array.shape != shape:
        raise InvalidGraphError(f"weights must have the walkable shape {shape}, got {array.shape}")
    reject_bad("weight", array.ravel(), shape[1])
    return array.ravel()


def reject_bad(what: str, values: npt.NDArray[Any], width: int, nodes: I64 | None = None) -> None:
    """Raise InvalidGraphError naming the first value (and its cell) that is negative or not finite."""
    bad = ~(np.isfinite(values) & (values >= 0))
    if bad.any():
        i = int(np.argmax(bad))
        node = i if nodes is None else int(nodes[i])
        cell = (node % width, node // width)
        raise InvalidGraphError(f"{what} must be finite and >= 0, got {values[i].item()!r} at cell {cell}")
