"""The grid as a unit of size k sees it: a read-only :class:`GridView` of the eroded grid.

Quick start::

    from python_core.grid import GridGraph
    from python_core.grid.sized_view import sized_view
    view = sized_view(GridGraph.from_strings(["...", "...", "..@"]), 2)
    assert view.walkable.tolist() == [[True, True, False], [True, False, False], [False, False, False]]

A size-k unit may stand on anchor ``n`` exactly when ``clearance[n] >= k``; its moves are the grid's
diagonal rule applied to that eroded grid (which is the swept-footprint rule), entering an anchor costs
the step times the highest weight under the footprint, and its path points are footprint centres,
so the view's origin is shifted by ``(k - 1) / 2`` cells. Structures built per size (HPA*, flow fields)
build on this view exactly as they build on a size-1 grid.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

import numpy as np

from python_core._types import F64, U8, B, DiagonalMode
from python_core.grid.cells import Cell
from python_core.grid.clearance import check_size
from python_core.grid.search.grid_view import GridView

__all__ = ["SizedView", "footprint_max", "sized_view"]


def footprint_max(weights: F64, size: int) -> F64:
    """For every anchor, the highest weight of the ``size x size`` cells from it rightwards and
    downwards (cut at the grid's edge). Uniform weights come back as they are (no copy).

    Separable sliding maximum by doubling windows: ``log2(size)`` vectorised passes per axis.

    Example:
        >>> footprint_max(np.array([[1.0, 2.0, 1.0], [1.0, 1.0, 5.0]]), 2).tolist()
        [[2.0, 5.0, 5.0], [1.0, 5.0, 5.0]]
    """
    if size == 1 or weights.size == 0 or weights.min() == weights.max():
        return weights
    return _window_max(_window_max(weights, size, axis=1), size, axis=0)


def _window_max(values: F64, size: int, *, axis: int) -> F64:
    """``out[i] = max(values[i : i + size])`` along ``axis``."""
    a = np.moveaxis(values, axis, -1)
    n = a.shape[-1]
    span = 1
    m = a.copy()
    while span * 2 <= size:  # m[i] = max(a[i : i + span]) doubles to span * 2
        if span < n:
            m[..., : n - span] = np.maximum(m[..., : n - span], m[..., span:])
        span *= 2
    rest = size - span  # the window [i, i + size) is [i, i + span) and [i + rest, i + rest + span)
    if 0 < rest < n:
        m[..., : n - rest] = np.maximum(m[..., : n - rest], m[..., rest:])
    return np.ascontiguousarray(np.moveaxis(m, -1, axis))


class _Source(GridView, Protocol):
    """What :class:`SizedView` reads of a grid: a GridView plus its clearance."""

    @property
    def clearance(self) -> U8: ...


class SizedView:
    """A grid eroded for units of one size (see the module docstring); a snapshot of walls and
    weights at :attr:`version`, with the grid's live agents.

    Make one with :func:`sized_view`.
    """

    __slots__ = ("__weakref__", "_grid", "_origin", "_size", "_version", "_walkable", "_weights")

    def __init__(self, grid: _Source, size: int) -> None:
        self._grid = grid
        self._size = size
        self._version = grid.version
        if size == 1:
            self._walkable, self._weights = grid.walkable, grid.weights
        else:
            walkable = grid.clearance >= size
            walkable.flags.writeable = False
            weights = footprint_max(grid.weights, size)
            if weights is not grid.weights:
                weights.flags.writeable = False
            self._walkable, self._weights = walkable, weights
        shift = (size - 1) / 2.0
        cw, ch = grid.cell_size
        self._origin = (grid.origin[0] + shift * cw, grid.origin[1] + shift * ch)

    @property
    def size(self) -> int:
        """The unit size in cells this view is for."""
        return self._size

    @property
    def width(self) -> int:
        """Number of columns (anchors), as the grid's."""
        return self._grid.width

    @property
    def height(self) -> int:
        """Number of rows (anchors), as the grid's."""
        return self._grid.height

    @property
    def diagonal(self) -> DiagonalMode:
        """The grid's diagonal rule."""
        return self._grid.diagonal

    @property
    def cell_size(self) -> tuple[float, float]:
        """The grid's cell size."""
        return self._grid.cell_size

    @property
    def origin(self) -> tuple[float, float]:
        """World position of anchor (0, 0)'s footprint centre: the grid's origin plus ``(k-1)/2`` cells."""
        return self._origin

    @property
    def walkable(self) -> B:
        """Read-only ``(height, width)`` bool: True where the unit's footprint fits (clearance >= size)."""
        return self._walkable

    @property
    def weights(self) -> F64:
        """Read-only ``(height, width)``: the highest weight under the footprint at each anchor."""
        return self._weights

    @property
    def version(self) -> int:
        """The grid's version these walls and weights were taken at (compare with the grid's)."""
        return self._version

    @property
    def agents(self) -> Mapping[int, Cell]:
        """The grid's agents (live), by anchor cell."""
        return self._grid.agents

    @property
    def agent_sizes(self) -> Mapping[int, int]:
        """The grid's agents' sizes (live)."""
        return self._grid.agent_sizes

    def __repr__(self) -> str:
        return (
            f"SizedView(size={self._size}, width={self.width}, height={self.height}, version={self._version})"
        )


def sized_view(grid: _Source, size: int) -> SizedView:
    """The grid eroded for units of ``size`` cells: walkable where the footprint fits, weights the
    footprint's highest, points at footprint centres. Same width, height, diagonal rule, cell size.

    Args:
        grid: a :class:`~python_core.grid.GridGraph`.
        size: unit size in cells, 1..255.

    Returns:
        A read-only :class:`SizedView` (a :class:`GridView`).

    Raises:
        InvalidQueryError: size not an int in 1..255.

    Example:
        >>> from python_core.grid import GridGraph
        >>> v = sized_view(GridGraph.from_strings(["...", "..."], cell_size=2.0), 2)
        >>> v.walkable.tolist(), v.origin
        ([[True, True, False], [False, False, False]], (1.0, 1.0))
        >>> sized_view(GridGraph.from_strings(["."]), 0)
        Traceback (most recent call last):
        ...
        python_core.errors.InvalidQueryError: size must be an integer in 1..255, got 0
    """
    return SizedView(grid, check_size(size))
