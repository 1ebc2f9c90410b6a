"""Grids laid out as Godot's TileSet lays them out: square, isometric, half-offset and hexagonal.

Quick start::

    import numpy as np
    from python_core.grid.layouts import TileGrid, TileLayout
    grid = TileGrid(np.ones((10, 12), bool), layout=TileLayout("hexagon", layout=1), cell_size=(36, 40))
    assert grid.find_path((0, 0), (11, 9)).found

Layout: :mod:`~.geometry` (``map_to_local``, neighbours and corners per shape, layout and axis),
:mod:`~.kernel` (the compiled A* over per-parity move tables), :mod:`~.clearance` (how many rings
of neighbours fit at each cell, and its local repair), :mod:`~.footprint` (units' footprints,
footprint weights, radius to size), :mod:`~.prepared` (the padded copy the kernels read),
:mod:`~.agents` (agents' footprints), :mod:`~.search` (validation, unit sizes, workspaces) and
:mod:`~.tile_grid` (the graph: a :class:`~python_core.grid.GridGraph` whose cells sit on the
lattice).
"""

from __future__ import annotations

from python_core.grid.layouts.geometry import TileLayout, TileShape
from python_core.grid.layouts.tile_grid import TileGrid

__all__ = ["TileGrid", "TileLayout", "TileShape"]
