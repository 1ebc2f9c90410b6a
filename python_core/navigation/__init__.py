"""One interface over every graph kind, for a path server: resolve endpoints, find paths, apply
update batches all or nothing, build a hierarchy, describe the graph.

Quick start::

    from python_core import GridGraph
    from python_core.navigation import GridNavigator, MoveAgent, PlaceAgent
    nav = GridNavigator(GridGraph.from_strings(["....", ".@@.", "...."]))
    nav.apply([PlaceAgent(1, (1, 0)), MoveAgent(1, (2, 0))])
    assert nav.find_path(nav.resolve((0, 0)), nav.resolve((3, 2))).found

Modules: ``interface`` (the :class:`Navigator` protocol and its value types), ``updates`` (the
changes a batch holds), ``grid`` / ``waypoints`` / ``navmesh`` (one thin adapter per graph kind;
the grid's holds the rules of its hierarchy), ``base`` (what kinds without a hierarchy share).
"""

from __future__ import annotations

from python_core.navigation.grid import GridNavigator
from python_core.navigation.interface import (
    BuildReport,
    Endpoint,
    EndpointForm,
    HierarchyOptions,
    Navigator,
)
from python_core.navigation.navmesh import NavMeshNavigator
from python_core.navigation.updates import (
    MoveAgent,
    MoveRegion,
    PlaceAgent,
    RemoveAgent,
    RemoveLink,
    RemoveRegion,
    SetDisabled,
    SetLink,
    SetLinkEnabled,
    SetObstacles,
    SetRegion,
    SetRegionCosts,
    SetRegionLayers,
    SetWalkable,
    SetWeights,
    Update,
)
from python_core.navigation.waypoints import WaypointNavigator

__all__ = [
    "BuildReport",
    "Endpoint",
    "EndpointForm",
    "GridNavigator",
    "HierarchyOptions",
    "MoveAgent",
    "MoveRegion",
    "NavMeshNavigator",
    "Navigator",
    "PlaceAgent",
    "RemoveAgent",
    "RemoveLink",
    "RemoveRegion",
    "SetDisabled",
    "SetLink",
    "SetLinkEnabled",
    "SetObstacles",
    "SetRegion",
    "SetRegionCosts",
    "SetRegionLayers",
    "SetWalkable",
    "SetWeights",
    "Update",
    "WaypointNavigator",
]
