"""Load (or compile) every HPA* kernel a build, a query and an update call, on tiny hierarchies.

Quick start::

    from python_core.hpa.warm_up import warm_up_hierarchy
    seconds = warm_up_hierarchy()   # once per process, before the first update has to be fast

numba compiles a kernel, or loads it from its disk cache, on its first call in a process. A
hierarchy's build loads the build kernels, but its first query and its first local update would
each load theirs while a game waits: tens of milliseconds from a filled disk cache, and several
seconds per kernel when the cache is cold. This routine makes those first calls on hierarchies
of a few dozen cells, with every option that picks other kernels (trees or none, the all-pairs
table, level 2, weights, the time-boxed repair, smoothing, corridors), so they are paid up front:
``tools/setup.sh`` fills the disk cache with it, and a sidecar worker runs it once after its
first hierarchy is built. It is not part of :func:`python_core.compiled.warm_up`, which every
worker runs at start, since most graphs never get a hierarchy.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from python_core.grid import DiagonalMode, GridGraph
from python_core.grid.layouts import TileGrid, TileLayout
from python_core.hpa.hierarchy import HierarchicalGrid
from python_core.hpa.lattice import LatticeHierarchy
from python_core.hpa.query.refine_ends import SPLIT_LINKS, refine_from_both_ends
from python_core.result import QueryOptions

__all__ = ["warm_up_hierarchy"]

SIDE = 24
"""Cells per side of the warm-up grids: six 4-cell clusters a side, in regions of 2 x 2 clusters."""


def _grids() -> list[GridGraph]:
    """A walled grid with one weight everywhere and the same grid with mixed weights."""
    walk = np.ones((SIDE, SIDE), dtype=bool)
    walk[5, 2:20] = False
    walk[12:22, 9] = False
    weights = np.where(np.arange(SIDE * SIDE).reshape(SIDE, SIDE) % 7 == 0, 2.0, 1.0)
    return [
        GridGraph(walk.copy(), diagonal=DiagonalMode.ONLY_IF_NO_OBSTACLES),
        GridGraph(walk.copy(), diagonal=DiagonalMode.ONLY_IF_NO_OBSTACLES, weights=weights),
    ]


def _cut_borders() -> GridGraph:
    """A grid whose 8-cell cluster borders are cut into three entrances each (every third cell of
    the border columns and rows a wall), so that entrance merging runs (on the largest grids it is
    on by default: :mod:`~python_core.hpa.graph.entrance_merging`)."""
    walk = np.ones((SIDE, SIDE), dtype=bool)
    walk[::3, 7::8] = False
    walk[7::8, ::3] = False
    return GridGraph(walk, diagonal=DiagonalMode.ONLY_IF_NO_OBSTACLES)


OPTIONS: tuple[dict[str, Any], ...] = (
    {},  # trees and the all-pairs table
    {"levels": 2, "region_clusters": 2},  # level 2 (its own tables, no level-1 table)
    {"tree_budget": 0, "table_budget": 0},  # no trees: endpoint searches and the abstract A*
)
"""The hierarchy options whose queries and updates run different kernels."""


def _exercise(hpa: HierarchicalGrid) -> None:
    """Queries of every kind, then walls closed and opened (one cell and a batch, on borders and
    inside clusters), weights changed both ways, and the table refilled after a boxed repair."""
    far, near = ((0, 0), (SIDE - 1, SIDE - 1)), ((0, 0), (1, 2))
    for smooth in (True, False):
        hpa.find_path(*far, smooth=smooth)
        hpa.find_path(*near, smooth=smooth)
    hpa.find_path(*far, corridor=True)
    hpa.find_many([far[0], near[0]], [far[1], near[1]])  # with trees: the batch kernel
    hpa.length_estimates(np.array([far[0], near[0]], np.int64), np.array([far[1], near[1]], np.int64))
    hpa.is_reachable(*far)
    batch = [(3, 3), (4, 4), (8, 8), (4, 0), (0, 4), (15, 5), (7, 6)]
    hpa.repair_seconds = None  # the table repaired row by row
    hpa.set_walkable(batch, False)
    hpa.find_path(*far)
    hpa.repair_seconds = 0.0  # a box with no time: rows left stale for the refill
    hpa.set_walkable(batch, True)
    hpa.find_path(*far)  # starts with stale rows run the abstract search
    hpa.set_walkable([(10, 5)], True)  # a wall cell opened and closed again
    hpa.set_walkable([(10, 5)], False)
    hpa.set_weights(batch, 3.0)
    hpa.set_weights(batch, 1.0)
    hpa.refill_table(0.001)
    hpa.refill_table()
    hpa.find_path(*far)


def warm_up_hierarchy() -> float:
    """Run every HPA* kernel once on tiny hierarchies; return the seconds it took.

    Returns:
        Wall-clock seconds, ``>= 0`` (well under a second from a filled disk cache; tens of
        seconds when numba compiles).

    Example:
        >>> warm_up_hierarchy() >= 0.0
        True
    """
    began = time.perf_counter()
    for grid in _grids():
        for options in OPTIONS:
            _exercise(HierarchicalGrid(grid, cluster_size=4, **options).build())
    _exercise(HierarchicalGrid(_cut_borders(), cluster_size=8, merge_span=4).build())  # merged entrances
    _refine_from_both_ends()
    for grid in _grids():  # the same walls on a hex lattice (python_core.hpa.lattice)
        _exercise_lattice(
            LatticeHierarchy(TileGrid.from_grid(grid, TileLayout("hexagon")), cluster_size=4).build()
        )
    return time.perf_counter() - began


def _refine_from_both_ends() -> None:
    """A chain long enough to be refined from both ends (the warm-up grids' chains are shorter):
    one step a link along a row of 4-cell clusters."""
    cells = 2 * SPLIT_LINKS
    chain = np.arange(SPLIT_LINKS + 1, dtype=np.int64)
    walk, weights = np.ones(cells, dtype=np.uint8), np.ones(cells)
    refine_from_both_ends((walk, weights, cells, 1, 4, 3, 1.0, 1.0, 1.0, 1.0), chain, np.ones(SPLIT_LINKS))


def _exercise_lattice(hpa: LatticeHierarchy) -> None:
    """A lattice hierarchy's queries (refined only, corridor, exact check, a budget) and changes."""
    far, near = ((0, 0), (SIDE - 1, SIDE - 1)), ((0, 6), (1, 4))
    for smooth in (True, False):
        hpa.find_path(*far, smooth=smooth)
        hpa.find_path(*near, smooth=smooth)
    hpa.find_path(*far, smooth=False, corridor=True)
    hpa.find_path(*far, options=QueryOptions(max_expansions=1, heuristic="euclidean"))
    hpa.is_reachable(*far)
    hpa.set_walkable([(3, 3), (4, 4), (8, 8)], False)
    hpa.set_weights([(3, 3), (4, 0)], 3.0)
    hpa.find_path(*far)
