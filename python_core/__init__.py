"""python_core: the engine-free A* core of A* Bridge (grids, waypoint graphs, navigation meshes).

Quick start::

    from python_core import GridGraph
    grid = GridGraph.from_strings(["....", ".@@.", "...."])
    result = grid.find_path((0, 0), (3, 2))
    assert result.found and result.cost > 0
"""

from __future__ import annotations

from python_core.errors import (
    AStarError,
    BlockedEndpointError,
    GraphFileError,
    InvalidGraphError,
    InvalidQueryError,
    OutOfBoundsError,
    UnknownPointError,
)
from python_core.grid import DiagonalMode, GridGraph
from python_core.navmesh import NavMesh
from python_core.polyanya import load_polyanya_mesh, read_mesh_scenarios
from python_core.result import PathResult, PathStatus, QueryOptions
from python_core.waypoints import WaypointGraph

__all__ = [
    "AStarError",
    "BlockedEndpointError",
    "DiagonalMode",
    "GraphFileError",
    "GridGraph",
    "InvalidGraphError",
    "InvalidQueryError",
    "NavMesh",
    "OutOfBoundsError",
    "PathResult",
    "PathStatus",
    "QueryOptions",
    "UnknownPointError",
    "WaypointGraph",
    "load_polyanya_mesh",
    "read_mesh_scenarios",
]
