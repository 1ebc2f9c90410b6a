"""HPA*: hierarchical pathfinding over grids, with local updates and instant reachability.

Quick start::

    from python_core.grid import GridGraph
    from python_core.hpa import HierarchicalGrid
    grid = GridGraph.from_movingai("tests/data/movingai/lak303d.map")
    hpa = HierarchicalGrid(grid, cluster_size=16).build()
    print(hpa.find_path((26, 12), (150, 160)).cost, hpa.is_reachable((26, 12), (150, 160)))

Modules, one job each: ``entrances`` (borders -> transition pairs), ``cluster_search`` (exact
searches inside a cluster), ``cluster_trees`` (cached shortest-path trees per transition),
``tree_repair`` (those trees kept through a local change: only broken ones are rerun),
``endpoints`` (a query's start / goal inserted into its cluster by search, without trees),
``abstract_graph`` (per-cluster tables and the flat arrays, whose per-cluster pieces ``pieces``
splices), ``distance_table`` (all-pairs table over a small abstract graph), ``table_repair``
(that table repaired after a local change),
``abstract_search`` (A* over them), ``upper_level`` (level 2: regions of clusters over the
level-1 graph, ``levels=2``), ``tree_query`` (a whole query in one compiled call over the trees),
``smoothing`` (straight-line shortcuts), ``corridor`` (exact search in the crossed clusters),
``connectivity`` (component labels), ``hierarchy`` (the public :class:`HierarchicalGrid`: build,
query, update), ``warm_up`` (every kernel loaded once, before a game waits on one).
"""

from __future__ import annotations

from python_core.hpa.build.abstract_graph import Progress
from python_core.hpa.hierarchy import HierarchicalGrid

__all__ = ["HierarchicalGrid", "Progress"]
