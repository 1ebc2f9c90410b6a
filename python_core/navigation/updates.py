"""The changes a batch sent to :meth:`Navigator.apply` may hold, as plain picklable values.

Each is one kind of change; a batch applies them in order, all or nothing. Grids take walls,
weights and agents; waypoint graphs take disabled points; a navigation map (a navmesh loaded as
regions) takes region and link changes.

    import numpy as np
    from python_core.navigation.updates import MoveAgent, SetWalkable
    batch = [SetWalkable(np.array([[3, 0]]), np.array([False])), MoveAgent(7, (2, 1))]
    assert isinstance(batch[1], MoveAgent) and batch[1].cell == (2, 1)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from python_core._types import F64, I64, B
from python_core.obstacles import ObstacleShape

__all__ = [
    "MoveAgent",
    "MoveRegion",
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
]


# eq=False: the fields are arrays, whose == gives an array, not a bool
@dataclass(frozen=True, slots=True, eq=False)
class SetWalkable:
    """Open (True) or close (False) grid cells: ``cells`` ``(k, 2)`` of ``(x, y)``, ``walkable`` ``(k,)``."""

    cells: I64
    walkable: B


@dataclass(frozen=True, slots=True, eq=False)
class SetWeights:
    """Set the weights of grid cells; ``cells`` None means every cell, row-major (``y * width + x``)."""

    cells: I64 | None
    weights: F64


@dataclass(frozen=True, slots=True)
class PlaceAgent:
    """Put a new agent on a grid cell; ``size`` (cells) is its square footprint from that cell
    rightwards and downwards, as :meth:`GridGraph.place_agent`."""

    agent: int
    cell: tuple[int, int]
    size: int = 1


@dataclass(frozen=True, slots=True)
class MoveAgent:
    """Move a placed agent to another grid cell."""

    agent: int
    cell: tuple[int, int]


@dataclass(frozen=True, slots=True)
class RemoveAgent:
    """Take a placed agent off the grid."""

    agent: int


@dataclass(frozen=True, slots=True, eq=False)
class SetDisabled:
    """Disable (True) or enable (False) waypoints by id: ``points`` ``(k,)``, ``disabled`` ``(k,)``."""

    points: I64
    disabled: B


@dataclass(frozen=True, slots=True, eq=False)
class SetRegion:
    """Add or replace a region of a navigation map (``region`` a ``NavRegion``)."""

    region_id: int
    region: Any


@dataclass(frozen=True, slots=True)
class RemoveRegion:
    """Remove a region of a navigation map."""

    region_id: int


@dataclass(frozen=True, slots=True, eq=False)
class MoveRegion:
    """Give a region a new transform (see ``python_core.navmesh.navmap.check_transform``)."""

    region_id: int
    transform: Any


@dataclass(frozen=True, slots=True)
class SetRegionLayers:
    """Change a region's navigation layer mask."""

    region_id: int
    layers: int


@dataclass(frozen=True, slots=True)
class SetRegionCosts:
    """Change a region's enter and travel costs."""

    region_id: int
    enter_cost: float
    travel_cost: float


@dataclass(frozen=True, slots=True, eq=False)
class SetLink:
    """Add or replace a link (``link`` a ``NavLink``)."""

    link_id: int
    link: Any


@dataclass(frozen=True, slots=True)
class RemoveLink:
    """Remove a link."""

    link_id: int


@dataclass(frozen=True, slots=True)
class SetLinkEnabled:
    """Enable or disable a link."""

    link_id: int
    enabled: bool


@dataclass(frozen=True, slots=True, eq=False)
class SetObstacles:
    """Obstacles of a grid or navmesh, as one ``update_obstacles(shapes, remove, clear)`` call:
    ``clear`` first, then the ids in ``remove`` go, then ``shapes`` are placed (an id already
    there moves)."""

    shapes: Mapping[int, ObstacleShape] = field(default_factory=dict)
    remove: tuple[int, ...] = ()
    clear: bool = False


MapUpdate = (
    SetRegion
    | RemoveRegion
    | MoveRegion
    | SetRegionLayers
    | SetRegionCosts
    | SetLink
    | RemoveLink
    | SetLinkEnabled
)
"""A change of a navigation map."""

Update = (
    SetWalkable | SetWeights | PlaceAgent | MoveAgent | RemoveAgent | SetDisabled | SetObstacles | MapUpdate
)
"""One change of a batch."""
