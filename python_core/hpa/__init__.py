"""HPA*: hierarchical pathfinding over grids, with local updates and instant reachability.

Quick start::

    from python_core.grid import GridGraph
    from python_core.hpa import HierarchicalGrid
    grid = GridGraph.from_movingai("tests/data/movingai/lak303d.map")
    hpa = HierarchicalGrid(grid, cluster_size=16).build()
    print(hpa.find_path((40, 40), (150, 160)).cost, hpa.is_reachable((40, 40), (150, 160)))

Sub-packages, each module one job:

- ``graph/`` (the abstract graph and how it is built): ``entrances`` (borders -> transition
  pairs), ``cluster_search`` (exact searches inside a cluster), ``cluster_trees`` (cached
  shortest-path trees per transition), ``abstract_graph`` (per-cluster tables and the flat
  arrays), ``graph_arrays`` (those arrays as one value), ``pieces`` (per-cluster pieces spliced
  into them), ``components`` (component labels), ``distance_table`` (all-pairs table over a small
  abstract graph), ``upper_level`` (level 2: regions of clusters, ``levels=2``).
- ``query/``: ``endpoints`` (a query's start / goal inserted into its cluster), ``abstract_search``
  (A* over the abstract graph), ``upper_search`` (a level-2 query), ``tree_query`` and
  ``tree_walks`` (a whole query in one compiled call over the trees), ``refine`` (transitions ->
  cells), ``corridor`` (exact search in the crossed clusters), ``smoothing`` (straight-line
  shortcuts), ``searches`` (the query half of :class:`HierarchicalGrid`).
- ``repair/``: ``local_updates`` (what a change redoes), ``tree_repair`` and ``tree_costs`` (trees
  kept through it), ``label_patches`` (labels patched in place), ``table_repair``,
  ``table_changes`` and ``table_kernels`` (the all-pairs table repaired), ``changes`` (the change
  half of :class:`HierarchicalGrid`).
- ``lattice/``: HPA* on hexagonal, isometric and half-offset TileGrids
  (:class:`LatticeHierarchy`: clusters of map cells over the layout's own moves).
- ``steps`` (the 8-neighbour step every kernel takes), ``hierarchy`` (the public
  :class:`HierarchicalGrid`: build, query, update), ``warm_up`` (every kernel loaded once, before
  a game waits on one).
"""

from __future__ import annotations

from python_core.hpa.graph.abstract_graph import Progress
from python_core.hpa.hierarchy import HierarchicalGrid
from python_core.hpa.lattice import LatticeHierarchy

__all__ = ["HierarchicalGrid", "LatticeHierarchy", "Progress"]
