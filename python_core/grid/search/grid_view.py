"""What the grid searches read of a grid: a Protocol that :class:`~python_core.grid.GridGraph` meets.

Quick start::

    from python_core.grid.search.grid_view import GridView
    def cells(grid: GridView) -> int:
        return grid.width * grid.height

Why a Protocol: :mod:`python_core.grid.graph` calls the searches, so the searches may not import the
graph back, not even for type checking (two modules that need each other are one module in two
files). They name this read-only view instead; the graph module stays the only one that knows both.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from python_core._types import F64, B, DiagonalMode
from python_core.grid.cells import Cell

__all__ = ["GridView"]


class GridView(Protocol):
    """The read-only properties of a grid that a search uses (see :class:`~python_core.grid.GridGraph`
    for what each means)."""

    @property
    def width(self) -> int: ...
    @property
    def height(self) -> int: ...
    @property
    def diagonal(self) -> DiagonalMode: ...
    @property
    def cell_size(self) -> tuple[float, float]: ...
    @property
    def origin(self) -> tuple[float, float]: ...
    @property
    def walkable(self) -> B: ...
    @property
    def weights(self) -> F64: ...
    @property
    def version(self) -> int: ...
    @property
    def agents(self) -> Mapping[int, Cell]: ...
    @property
    def agent_sizes(self) -> Mapping[int, int]: ...
