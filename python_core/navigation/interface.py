"""The one interface every graph kind offers a path server, in the manner of Detour's dtNavMeshQuery.

A server holds :class:`Navigator` objects and never asks which kind of graph it holds: it resolves
endpoints, finds paths, applies update batches and describes the graph through these methods.

    from python_core.grid import GridGraph
    from python_core.navigation import GridNavigator, Navigator
    nav: Navigator[tuple[int, int]] = GridNavigator(GridGraph.from_strings(["...", ".@."]))
    start, goal = nav.resolve((0, 0)), nav.resolve((2, 1))
    assert nav.find_path(start, goal).found and nav.describe()["width"] == 3
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from python_core.hpa import Progress
from python_core.navigation.updates import Update
from python_core.result import PathResult, QueryOptions

__all__ = [
    "BuildReport",
    "Endpoint",
    "EndpointForm",
    "HierarchyOptions",
    "Navigator",
]

Endpoint = Sequence[float] | int
"""A query endpoint before :meth:`Navigator.resolve`: coordinates (a cell or a position) or an id."""

NodeT = TypeVar("NodeT")


@dataclass(frozen=True, slots=True)
class EndpointForm:
    """What an endpoint of a query may be for one graph, so a caller can check its input up front.

    Attributes:
        size: how many coordinates an endpoint given by coordinates has (2 or 3).
        cells: the coordinates must be whole numbers (grid cells, not positions).
        ids: a bare integer names a node (a waypoint id) instead of coordinates.
    """

    size: int
    cells: bool = False
    ids: bool = False


@dataclass(frozen=True, slots=True)
class HierarchyOptions:
    """How to build an HPA* hierarchy over a grid (see :class:`python_core.hpa.HierarchicalGrid`).

    Attributes:
        cluster_size: side of a cluster, in cells.
        levels: 1, or 2 to add regions of ``region_clusters`` x ``region_clusters`` clusters.
        region_clusters: clusters per region side (``levels=2``).
        exact_check: smoothed paths up to this many cluster sides long that may be detours are
            checked against the exact search (0 never checks).
        long_entrance: entrance length from which an entrance gets more than one transition.
        repair_seconds: time box of one update's all-pairs table repair (None: no box).
        smooth: the default of hierarchical queries: shortcut paths along straight lines.
        tree_budget: bytes the cached cluster trees may take (0: none kept).
        table_budget: bytes the all-pairs table of the top level may take (0: none).
    """

    cluster_size: int = 32
    levels: int = 1
    region_clusters: int = 16
    exact_check: float = 4.0
    long_entrance: int = 6
    repair_seconds: float | None = None
    smooth: bool = True
    tree_budget: int = 64 << 20
    table_budget: int = 32 << 20


def _done() -> bool:
    return True


@dataclass(frozen=True, slots=True)
class BuildReport:
    """What building a hierarchy cost: bytes held by its arrays and seconds the build took, and
    ``ready()``: whether what the build deferred (cluster tables and trees, priced in the
    background) is done, so that hierarchical queries run HPA* (the exact search until then)."""

    nbytes: int
    seconds: float
    ready: Callable[[], bool] = _done


class Navigator(Protocol[NodeT]):
    """One graph with everything a path server asks of it; ``NodeT`` is what an endpoint resolves to
    (a grid cell, a waypoint id, a point on a mesh)."""

    @property
    def dim(self) -> int:
        """Coordinates per point of a path (2 or 3)."""
        ...

    @property
    def node_count(self) -> int:
        """Nodes of the graph: cells, points or polygons."""
        ...

    @property
    def endpoints(self) -> EndpointForm:
        """What :meth:`resolve` takes."""
        ...

    @property
    def has_hierarchy(self) -> bool:
        """True when a hierarchy is built (hierarchical queries and reachability work)."""
        ...

    def resolve(self, endpoint: Endpoint, options: QueryOptions | None = None) -> NodeT:
        """The node a query endpoint stands for (a position snaps to its cell or nearest point; on
        a grid, for a unit of ``options.size`` cells, to the anchor whose footprint centre is
        nearest)."""
        ...

    def find_path(
        self,
        start: NodeT,
        goal: NodeT,
        options: QueryOptions | None = None,
        *,
        hierarchical: bool = False,
        corridor: bool = False,
    ) -> PathResult:
        """A path between two resolved endpoints; ``hierarchical`` asks the hierarchy, ``corridor``
        refines its path by an exact search in the clusters it crosses."""
        ...

    def find_many(
        self,
        starts: Sequence[NodeT],
        goals: Sequence[NodeT],
        options: QueryOptions | None = None,
        *,
        hierarchical: bool = False,
        corridor: bool = False,
    ) -> list[PathResult]:
        """:meth:`find_path` for each pair, in order, with its answers and errors (the first bad
        pair raises); where a kind can, the batch's searches run in one compiled call that holds
        no GIL (a grid's hierarchy), which is what lets threads answering batches run in parallel."""
        ...

    def ready_for(self, options: QueryOptions | None) -> bool:
        """False when a query with ``options`` would first build something whose cost grows with
        the graph (a navmesh shrunk for a new radius): a server runs it on a thread, never inline
        on its event loop."""
        ...

    def is_reachable(self, start: NodeT, goal: NodeT, options: QueryOptions | None = None) -> bool:
        """Whether any path joins two resolved endpoints, from the hierarchy (no search), for a
        unit of ``options.size`` (or ``options.radius``) cells."""
        ...

    def apply(self, updates: Sequence[Update]) -> None:
        """Apply a batch of changes in order, all or nothing: when one fails, none stays."""
        ...

    def check_hierarchy(self, options: HierarchyOptions) -> None:
        """Raise what building a hierarchy with ``options`` would raise, without building one."""
        ...

    def build_hierarchy(self, options: HierarchyOptions, progress: Progress | None = None) -> BuildReport:
        """Build (or rebuild) the hierarchy, reporting ``progress(done, total)``."""
        ...

    def repair_pending(self, seconds: float) -> bool:
        """Spend about ``seconds`` on repairs an update deferred; False when none was pending."""
        ...

    def describe(self) -> dict[str, Any]:
        """Facts about the graph beyond its size, for an info request (empty when there are none)."""
        ...
