"""python_core: the engine-free A* core of A* Bridge (grids, waypoint graphs, navigation meshes).

Quick start::

    from python_core import GridGraph
    grid = GridGraph.from_strings(["....", ".@@.", "...."])
    result = grid.find_path((0, 0), (3, 2))
    assert result.found and result.cost > 0

Packages: :mod:`~python_core.grid` (grids and their compiled searches), :mod:`~python_core.csr`
(waypoint graphs and the CSR A*), :mod:`~python_core.navmesh` (meshes and the funnel),
:mod:`~python_core.hpa` (hierarchical grids) and :mod:`~python_core.formats` (files and records);
shared: :mod:`~python_core.errors`, :mod:`~python_core.result`, :mod:`~python_core.compiled`.
Modules whose name starts with ``_`` (``python_core._types``) are private to the core.
"""

from __future__ import annotations

from python_core.csr import WaypointGraph
from python_core.errors import (
    AStarError,
    BlockedEndpointError,
    GraphFileError,
    InvalidGraphError,
    InvalidQueryError,
    OutOfBoundsError,
    UnknownPointError,
)
from python_core.formats.polyanya import load_polyanya_mesh, read_mesh_scenarios
from python_core.grid import DiagonalMode, GridGraph
from python_core.navmesh import NavMesh
from python_core.result import PathResult, PathStatus, QueryOptions

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
