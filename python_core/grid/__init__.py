"""Grids: :class:`GridGraph` (walls, weights, diagonal modes, agents) and its searches.

Quick start::

    from python_core.grid import DiagonalMode, GridGraph
    grid = GridGraph.from_strings(["....", ".@@.", "...."], diagonal=DiagonalMode.NEVER)
    assert grid.find_path((0, 0), (3, 2)).cost == 5.0

Layout: :mod:`~python_core.grid.graph` (the graph), :mod:`~python_core.grid.agents` (who stands
where), :mod:`~python_core.grid.cells` (validating cells, placing them in the world) and
:mod:`~python_core.grid.search` (the compiled kernels, the dispatcher that picks one, and the
plain-Python reference A* that is their test oracle).
"""

from __future__ import annotations

from python_core._types import DiagonalMode
from python_core.grid.cells import Cell
from python_core.grid.graph import GridGraph

__all__ = ["Cell", "DiagonalMode", "GridGraph"]
