"""Flow fields: exact cost-to-goal and one direction byte per cell, per HPA* tile, shared by crowds.

Quick start::

    from python_core.flowfield import FieldCache, FlowField, farthest_visible
    field = FlowField(grid, goals, hierarchy=hpa)
    field.extend(unit_cells)                  # only the tiles the units' corridors cross
    cost, end, code = field.follow(unit_cells[0])   # cost == the exact Dijkstra distance

Modules: :mod:`.field` (one field: extension, the exactness check's rounds, repair) over
:mod:`.tiles` (its tiles: layout, storage, reading); compiled, :mod:`.region_solver` (the tile-bounded
Dijkstra and its exactness check), :mod:`.moves` (direction bytes and the move rule),
:mod:`.bounds` (lower bounds for the check), :mod:`.walks` (repair taint, following, line of
sight); :mod:`.landmarks` (landmark lower bounds), :mod:`.goal_search` (the tiles asked for by an
A* from the goals, no check) with :mod:`.guide` (its landmark heuristic) and :mod:`.pockets`,
:mod:`.cache` (fields shared by key within a memory budget) and
:mod:`.sight` (line-of-sight smoothing down a field); :mod:`.lattice_field` over
:mod:`.lattice_kernel` (a field on a hexagonal, isometric or half-offset :class:`TileGrid`: one
whole-map Dijkstra). docs/flowfield.md states the exactness invariant and why it holds.
"""

from __future__ import annotations

import numpy as np

from python_core.compiled import register_warm_up
from python_core.flowfield.cache import FieldCache, FieldKey
from python_core.flowfield.field import FlowField, RepairReport
from python_core.flowfield.landmarks import Landmarks
from python_core.flowfield.lattice_field import LatticeField
from python_core.flowfield.moves import GOAL, UNREACHABLE, WALL
from python_core.flowfield.sight import farthest_visible
from python_core.grid import GridGraph
from python_core.grid.layouts import TileGrid

__all__ = [
    "GOAL",
    "UNREACHABLE",
    "WALL",
    "FieldCache",
    "FieldKey",
    "FlowField",
    "Landmarks",
    "LatticeField",
    "RepairReport",
    "farthest_visible",
]


def _warm_up() -> None:
    """Compile every flow-field kernel on tiny grids (extend, the check's expansion, repair, sight,
    the near-goal Dijkstra)."""
    grid = GridGraph.from_strings(["......", ".@@@..", "......", "......"], diagonal="only_if_no_obstacles")
    field = FlowField(grid, [(0, 0)], tile_size=2)
    field.extend([(5, 3)])
    field.repair(dearer=[(4, 2)], cheaper=[(2, 1)])
    field.follow((5, 3))
    farthest_visible(field, (5, 3))
    marks = Landmarks.build(grid, tile_size=2, count=1)
    FlowField(grid, [(0, 0)], tile_size=2, landmarks=marks).extend([(5, 3)])
    marks = Landmarks.build(grid, tile_size=2, count=2, every_cell=True)  # the search's heuristic
    guided = FlowField(grid, [(0, 0)], tile_size=2, landmarks=marks)
    guided.extend([(5, 3)])
    guided.extend([(3, 2)])  # an open tile of the corridor: its chains walked from stored bytes
    weighted = GridGraph(np.ones((4, 6), dtype=bool), weights=np.arange(24.0).reshape(4, 6) + 1.0)
    marks = Landmarks.build(weighted, tile_size=2, count=1)  # non-uniform: both ways
    FlowField(weighted, [(0, 0)], tile_size=2, landmarks=marks).extend([(5, 3)])
    # the A* from the goals (goal_search), guided and not (past HEURISTIC_TILES tiles asked)
    open_grid = GridGraph(np.ones((40, 40), dtype=bool))
    FlowField(open_grid, [(20, 20)], tile_size=2).extend([(22, 22)])
    FlowField(open_grid, [(20, 20)], tile_size=2).extend([(x, 39) for x in range(0, 40, 2)])
    # tile layouts (lattice_field): parity classes, corners under a diagonal rule, weights, agents
    for shape in ("hexagon", "isometric"):
        tiles = TileGrid(np.ones((4, 5), dtype=bool), layout=shape, diagonal="only_if_no_obstacles")
        tiles.set_weights([(1, 1)], 2.0)
        tiles.place_agent(1, (2, 2))
        lattice = LatticeField(tiles, [(0, 0)], tile_size=2, agents_block=True)
        lattice.extend([(4, 3)])
        lattice.follow((4, 3))


register_warm_up(_warm_up)
