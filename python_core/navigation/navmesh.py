"""A navigation mesh behind the :class:`Navigator` interface: endpoints are positions, and the mesh
never changes (a changed level is a new mesh).

    from python_core import NavMesh
    from python_core.navigation import NavMeshNavigator
    nav = NavMeshNavigator(NavMesh([[0, 0], [2, 0], [2, 2], [0, 2]], [[0, 1, 2, 3]]))
    assert nav.find_path(nav.resolve((0, 0)), nav.resolve((2, 2))).found and nav.node_count == 1
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from python_core.errors import UnsupportedOperationError
from python_core.navigation.base import NoHierarchy
from python_core.navigation.interface import Endpoint, EndpointForm
from python_core.navigation.updates import Update
from python_core.navmesh import NavMesh
from python_core.navmesh.polyanya import find_optimal_path
from python_core.result import PathResult, QueryOptions

__all__ = ["NavMeshNavigator"]

Point = npt.NDArray[np.float64]


class NavMeshNavigator(NoHierarchy):
    """A :class:`NavMesh` as a navigator.

    Example:
        >>> nav = NavMeshNavigator(NavMesh([[0, 0], [1, 0], [1, 1]], [[0, 1, 2]]))
        >>> nav.apply([]); nav.endpoints.size, nav.resolve((0.5, 0.25)).tolist()
        (2, [0.5, 0.25])
    """

    kind_name = "navmesh"

    def __init__(self, mesh: NavMesh) -> None:
        self._mesh = mesh
        self._endpoints = EndpointForm(size=mesh.dim)

    @property
    def mesh(self) -> NavMesh:
        """The mesh."""
        return self._mesh

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
        """A* over portals, then the funnel (see :meth:`NavMesh.find_path`); with
        ``options.optimal``, the exactly shortest path by Polyanya
        (:func:`python_core.navmesh.polyanya.find_optimal_path`).

        Raises:
            UnsupportedOperationError: ``hierarchical`` or ``corridor`` (only grids have a hierarchy).
        """
        if hierarchical or corridor:
            raise self._refuse()
        if options is not None and options.optimal:
            return find_optimal_path(self._mesh, start, goal, options=options)
        return self._mesh.find_path(start, goal, options=options)

    def apply(self, updates: Sequence[Update]) -> None:
        """Only an empty batch: a mesh never changes.

        Raises:
            UnsupportedOperationError: any change.
        """
        if updates:
            raise UnsupportedOperationError("a navmesh cannot be updated; build a new one")
