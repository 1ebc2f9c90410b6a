"""Graphs stored as CSR adjacency: :class:`WaypointGraph` and the one compiled A* they share.

Quick start::

    from python_core.csr import WaypointGraph
    graph = WaypointGraph()
    graph.add_point(1, (0.0, 0.0)); graph.add_point(2, (3.0, 4.0)); graph.connect_points(1, 2)
    assert graph.find_path(1, 2).cost == 5.0

Layout: :mod:`~python_core.csr.graph` (the immutable CSR arrays), :mod:`~python_core.csr.kernel`
(the A* kernel, compiled once), :mod:`~python_core.csr.search` (a search packaged as a
PathResult) and :mod:`~python_core.csr.waypoints` (Godot ``AStar2D``/``AStar3D``-style graphs).
"""

from __future__ import annotations

from python_core.csr.waypoints import WaypointGraph

__all__ = ["WaypointGraph"]
