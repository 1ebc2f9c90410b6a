"""The one result type every query returns: outcomes are data, misuse raises."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

import numpy as np

from python_core._types import F64, I64

__all__ = ["PathResult", "PathStatus", "QueryOptions"]


class PathStatus(str, Enum):
    """Why a query ended. The values are the protocol's status strings."""

    FOUND = "found"
    """A path from start to goal; optimal when the heuristic is admissible."""
    PARTIAL = "partial"
    """No path to the goal; the path leads to the reachable node closest to it (``allow_partial``)."""
    NO_PATH = "no_path"
    """The goal is unreachable; the path is empty."""
    BUDGET_EXHAUSTED = "budget_exhausted"
    """``max_expansions`` ran out first; the path is empty unless ``allow_partial`` was set."""


def _empty_points() -> F64:
    return np.zeros((0, 2), dtype=np.float64)


def _empty_nodes() -> I64:
    return np.zeros(0, dtype=np.int64)


@dataclass(frozen=True, slots=True)
class PathResult:
    """Outcome of one query.

    Attributes:
        status: why the search ended.
        points: ``(n, 2)`` or ``(n, 3)`` float64 waypoints in world units, start first; empty when none.
        nodes: the graph nodes the path visits (grid: flat cell index ``y * width + x``; waypoints:
            point ids; navmesh: polygon ids of the corridor), start first.
        cost: path cost (sum of step length times weight); ``inf`` when there is no path.
        expanded: nodes taken off the open set.
    """

    status: PathStatus
    points: F64 = field(default_factory=_empty_points)
    nodes: I64 = field(default_factory=_empty_nodes)
    cost: float = float("inf")
    expanded: int = 0

    @property
    def found(self) -> bool:
        """True when the path reaches the goal."""
        return self.status is PathStatus.FOUND

    def __len__(self) -> int:
        return int(self.points.shape[0])


@dataclass(frozen=True, slots=True)
class QueryOptions:
    """Options every query takes.

    Attributes:
        heuristic: a heuristic name (``"manhattan"``, ``"octile"``, ``"euclidean"``, ``"chebyshev"``,
            ``"zero"``) or None for the graph type's admissible default.
        allow_partial: when the goal is unreachable, return the path to the closest reachable node
            (by heuristic distance to the goal) with status ``partial``, as Godot's ``allow_partial_path``.
        max_expansions: stop after this many expansions with ``budget_exhausted``; None for no limit.
        agent: the id of the agent asking (grids): its own cell never blocks it.
        ignore_agents: plan through agents as if none were placed (grids).
        optimal: navmeshes: True the exactly shortest path (Polyanya), False the corridor +
            funnel, None (unset) the mode a navigator measured faster on its mesh (Polyanya only
            where it is faster; a mesh on its own, ``NavMesh.find_path``, runs the funnel); grid and
            waypoint searches are exact already and ignore it.
        layers: the query's navigation layer mask (navmeshes, as Godot's ``navigation_layers``):
            polygons and links sharing no bit with it are avoided; None admits every layer.
        size: the unit's size in cells (grids, 1..255): a size-k unit standing at a cell covers the
            k x k cells from it rightwards and downwards; path points are its footprint's centres.
        radius: the unit's radius in world units (finite, > 0) instead of a size: on a grid it
            becomes the size ``GridGraph.size_for_radius(radius)``; on a navmesh it keeps the path
            that far from walls. Giving it with a size other than 1 is an error.
    """

    heuristic: str | None = None
    allow_partial: bool = False
    max_expansions: int | None = None
    agent: int | None = None
    ignore_agents: bool = False
    optimal: bool | None = None
    layers: int | None = None
    size: int = 1
    radius: float | None = None
