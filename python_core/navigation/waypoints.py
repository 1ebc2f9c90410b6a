"""A waypoint graph behind the :class:`Navigator` interface.

Endpoints are point ids, or positions that snap to the nearest enabled point; the one change a
waypoint graph takes is disabling and enabling points.

    import numpy as np
    from python_core import WaypointGraph
    from python_core.navigation import SetDisabled, WaypointNavigator
    graph = WaypointGraph(); graph.add_point(1, (0, 0)); graph.add_point(2, (4, 0))
    graph.connect_points(1, 2)
    nav = WaypointNavigator(graph); nav.apply([SetDisabled(np.array([2]), np.array([True]))])
    assert nav.resolve((3.0, 0.0)) == 1 and not nav.find_path(1, 2).found
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from python_core.csr import WaypointGraph
from python_core.errors import UnsupportedOperationError
from python_core.navigation.base import NoHierarchy
from python_core.navigation.interface import Endpoint, EndpointForm
from python_core.navigation.updates import SetDisabled, Update
from python_core.result import PathResult, QueryOptions

__all__ = ["WaypointNavigator"]


class WaypointNavigator(NoHierarchy):
    """A :class:`WaypointGraph` as a navigator; it changes in place when updates are applied.

    Example:
        >>> graph = WaypointGraph(dim=3); graph.add_point(5, (0, 0, 0))
        >>> nav = WaypointNavigator(graph); nav.resolve(5), nav.resolve((1, 1, 1)), nav.endpoints.ids
        (5, 5, True)
    """

    kind_name = "waypoint graph"

    def __init__(self, graph: WaypointGraph) -> None:
        self._graph = graph
        self._endpoints = EndpointForm(size=graph.dim, ids=True)

    @property
    def graph(self) -> WaypointGraph:
        """The waypoint graph."""
        return self._graph

    @property
    def dim(self) -> int:
        """2 or 3, as the graph."""
        return self._graph.dim

    @property
    def node_count(self) -> int:
        """Points in the graph."""
        return len(self._graph)

    @property
    def endpoints(self) -> EndpointForm:
        """Ids, or positions of the graph's dimension."""
        return self._endpoints

    def resolve(self, endpoint: Endpoint, options: QueryOptions | None = None) -> int:
        """The id itself, or the id of the enabled point nearest a position (-1 when none is);
        ``options`` change nothing here (a unit size is refused by the search).

        Raises:
            InvalidQueryError: a position of the wrong size or with non-finite coordinates.
        """
        if isinstance(endpoint, int | np.integer) and not isinstance(endpoint, bool):
            return int(endpoint)
        return self._graph.get_closest_point(np.asarray(endpoint, dtype=np.float64))

    def find_path(
        self,
        start: int,
        goal: int,
        options: QueryOptions | None = None,
        *,
        hierarchical: bool = False,
        corridor: bool = False,
    ) -> PathResult:
        """A* between two point ids (see :meth:`WaypointGraph.find_path`).

        Raises:
            UnsupportedOperationError: ``hierarchical`` or ``corridor`` (only grids have a hierarchy).
        """
        if hierarchical or corridor:
            raise self._refuse()
        return self._graph.find_path(start, goal, options=options)

    def apply(self, updates: Sequence[Update]) -> None:
        """Disable or enable points, all or nothing: every id is checked before any flag changes.

        Raises:
            UnknownPointError: an id the graph does not hold (nothing changes).
            UnsupportedOperationError: a change other than :class:`SetDisabled` (nothing changes).
        """
        for update in updates:
            if not isinstance(update, SetDisabled):
                raise UnsupportedOperationError(
                    f"a waypoint graph does not take {type(update).__name__} changes"
                )
            for point in update.points.tolist():
                self._graph.is_point_disabled(point)  # raises for an unknown id
        for update in updates:
            assert isinstance(update, SetDisabled)
            for point, flag in zip(update.points.tolist(), update.disabled.tolist(), strict=True):
                self._graph.set_point_disabled(point, flag)
