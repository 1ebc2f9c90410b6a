"""A navigation mesh behind the :class:`Navigator` interface: endpoints are positions. A mesh
loaded as one piece never changes; a navigation map (regions and links) takes region and link
updates.

    from python_core import NavMesh
    from python_core.navigation import NavMeshNavigator
    nav = NavMeshNavigator(NavMesh([[0, 0], [2, 0], [2, 2], [0, 2]], [[0, 1, 2, 3]]))
    assert nav.find_path(nav.resolve((0, 0)), nav.resolve((2, 2))).found and nav.node_count == 1
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from python_core.errors import UnsupportedOperationError
from python_core.navigation.base import NoHierarchy
from python_core.navigation.interface import Endpoint, EndpointForm
from python_core.navigation.updates import (
    MoveRegion,
    RemoveLink,
    RemoveRegion,
    SetLink,
    SetLinkEnabled,
    SetRegion,
    SetRegionCosts,
    SetRegionLayers,
    Update,
)
from python_core.navmesh import NavMesh
from python_core.navmesh.navmap import NavMap
from python_core.navmesh.polyanya import find_optimal_path
from python_core.result import PathResult, QueryOptions

__all__ = ["NavMeshNavigator"]

Point = npt.NDArray[np.float64]

_IN_PLACE = (SetRegionLayers, SetLinkEnabled)
"""Changes the built mesh takes in place; every other map change rebuilds it from the regions."""


def _apply_one(nav: NavMap, change: Update) -> None:
    """One change to a map (its checks raise before anything changes)."""
    if isinstance(change, SetRegion):
        nav.set_region(change.region_id, change.region)
    elif isinstance(change, RemoveRegion):
        nav.remove_region(change.region_id)
    elif isinstance(change, MoveRegion):
        nav.move_region(change.region_id, change.transform)
    elif isinstance(change, SetRegionLayers):
        nav.set_region_layers(change.region_id, change.layers)
    elif isinstance(change, SetRegionCosts):
        nav.set_region_costs(change.region_id, change.enter_cost, change.travel_cost)
    elif isinstance(change, SetLink):
        nav.set_link(change.link_id, change.link)
    elif isinstance(change, RemoveLink):
        nav.remove_link(change.link_id)
    elif isinstance(change, SetLinkEnabled):
        nav.set_link_enabled(change.link_id, change.enabled)
    else:
        raise UnsupportedOperationError(
            f"a navmesh takes region and link changes, not {type(change).__name__}"
        )


class NavMeshNavigator(NoHierarchy):
    """A :class:`NavMesh` (fixed) or a :class:`NavMap` (regions and links, updatable) as a navigator.

    Example:
        >>> nav = NavMeshNavigator(NavMesh([[0, 0], [1, 0], [1, 1]], [[0, 1, 2]]))
        >>> nav.apply([]); nav.endpoints.size, nav.resolve((0.5, 0.25)).tolist()
        (2, [0.5, 0.25])
    """

    kind_name = "navmesh"

    def __init__(self, mesh: NavMesh | NavMap) -> None:
        self._map = mesh if isinstance(mesh, NavMap) else None
        self._mesh = mesh.mesh if isinstance(mesh, NavMap) else mesh
        self._endpoints = EndpointForm(size=self._mesh.dim)

    @property
    def mesh(self) -> NavMesh:
        """The mesh searched now."""
        return self._mesh

    @property
    def navigation_map(self) -> NavMap | None:
        """The regions and links, when loaded as a map."""
        return self._map

    @property
    def dim(self) -> int:
        """2 or 3, as the mesh."""
        return int(self._mesh.dim)

    @property
    def node_count(self) -> int:
        """Polygons in the mesh."""
        return int(self._mesh.polygon_count)

    @property
    def endpoints(self) -> EndpointForm:
        """Positions of the mesh's dimension."""
        return self._endpoints

    def resolve(self, endpoint: Endpoint) -> Point:
        """The position as an array; :meth:`find_path` snaps it onto the mesh."""
        return np.asarray(endpoint, dtype=np.float64)

    def find_path(
        self,
        start: Point,
        goal: Point,
        options: QueryOptions | None = None,
        *,
        hierarchical: bool = False,
        corridor: bool = False,
    ) -> PathResult:
        """A* over portals and links, then the funnel (see :meth:`NavMesh.find_path`); the
        options' ``layers`` is the query's navigation layer mask; with
        ``options.optimal``, the exactly shortest path by Polyanya
        (:func:`python_core.navmesh.polyanya.find_optimal_path`), the layers as its polygon mask.

        Raises:
            UnsupportedOperationError: ``hierarchical`` or ``corridor`` (only grids have a hierarchy).
        """
        if hierarchical or corridor:
            raise self._refuse()
        layers = None if options is None else options.layers
        if options is not None and options.optimal:
            traversable = None if layers is None else (self._mesh.layers & layers) != 0
            return find_optimal_path(self._mesh, start, goal, options=options, traversable=traversable)
        return self._mesh.find_path(start, goal, options=options, layers=layers)

    def apply(self, updates: Sequence[Update]) -> None:
        """Region and link changes of a map, in order, all or nothing: they are tried on a copy
        of the map's description first; layer and link switches then change the built mesh in
        place, anything else builds a new mesh that replaces the old once built.

        Raises:
            UnsupportedOperationError: any change to a mesh loaded as one piece, or a grid's or
                waypoint graph's change.
            InvalidGraphError: a bad change (an unknown region or link, a bad region ...).
        """
        if not updates:
            return
        if self._map is None:
            raise UnsupportedOperationError(
                "a navmesh loaded as one mesh cannot be updated; load it as regions"
            )
        trial = self._map.copy()
        trial._mesh = None  # a description only: nothing shared is changed while trying
        for change in updates:
            _apply_one(trial, change)
        if all(isinstance(change, _IN_PLACE) for change in updates):
            for change in updates:
                _apply_one(self._map, change)
            return
        self._mesh = trial.mesh  # builds (and may raise) before anything is replaced
        self._map = trial

    def describe(self) -> dict[str, Any]:
        """Regions and links, when loaded as a map."""
        if self._map is None:
            return {}
        return {"regions": len(self._map.regions), "links": len(self._map.links)}
