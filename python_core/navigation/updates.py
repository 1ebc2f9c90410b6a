"""The changes a batch sent to :meth:`Navigator.apply` may hold, as plain picklable values.

Each is one kind of change; a batch applies them in order, all or nothing. Grids take walls,
weights and agents; waypoint graphs take disabled points; a navmesh takes none.

    import numpy as np
    from python_core.navigation.updates import MoveAgent, SetWalkable
    batch = [SetWalkable(np.array([[3, 0]]), np.array([False])), MoveAgent(7, (2, 1))]
    assert isinstance(batch[1], MoveAgent) and batch[1].cell == (2, 1)
"""

from __future__ import annotations

from dataclasses import dataclass

from python_core._types import F64, I64, B

__all__ = ["MoveAgent", "PlaceAgent", "RemoveAgent", "SetDisabled", "SetWalkable", "SetWeights", "Update"]


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
    """Put a new agent on a grid cell."""

    agent: int
    cell: tuple[int, int]


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


Update = SetWalkable | SetWeights | PlaceAgent | MoveAgent | RemoveAgent | SetDisabled
"""One change of a batch."""
