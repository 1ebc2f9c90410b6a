"""HPA* on the wire: the ``hierarchy`` options, what ``graph.info`` reports, build progress.

The serving layer validates a :class:`HierarchySpec` against the grid (the core checks the
options without building), then builds the hierarchy off the event loop. How a
hierarchy answers queries and takes updates is the core's (``python_core.navigation``).

    from bridge.methods.hierarchy_params import HierarchySpec, ProgressThrottle
    spec = HierarchySpec(cluster_size=16)
    sent = []; throttle = ProgressThrottle(lambda d, t: sent.append((d, t))); throttle(4, 4)
    assert spec.levels == 1 and sent == [(4, 4)]
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bridge.methods.params import Params
from bridge.wire.errors import BadRequestError, GraphRejectedError
from python_core.errors import AStarError
from python_core.navigation import HierarchyOptions, Navigator

__all__ = [
    "HIERARCHY_KEYS",
    "HierarchySpec",
    "HierarchyState",
    "ProgressThrottle",
    "check_query_flags",
    "parse_hierarchy",
    "validate_hierarchy",
]

HIERARCHY_KEYS = (
    "cluster_size",
    "levels",
    "region_clusters",
    "smooth",
    "exact_check",
    "long_entrance",
    "repair_ms",
    "tree_mb",
    "table_mb",
)
REPAIR_MS = 1.0
"""Default time box (ms) of an update's all-pairs table repair; the sidecar refills the rest while
the graph is idle."""
MIN_CLUSTER, MAX_CLUSTER = 8, 256
MAX_REGION = 1024
"""Clusters per region side: 1024 x 256 cells is past the largest grid a load takes."""
MAX_CHECK = 1e6
MAX_REPAIR_MS = 3_600_000.0
TREE_MB, TABLE_MB = 64, 32
"""Default memory budgets (MiB) of a hierarchy's cluster trees and all-pairs table."""
MAX_BUDGET_MB = 16_384
"""A budget past the largest graph a sidecar holds means "no limit" already."""


@dataclass(frozen=True, slots=True)
class HierarchySpec:
    """What the client asked for: cluster side, abstraction levels (and, for 2, clusters per region
    side), path smoothing, how long a smoothed path may be (in cluster sides) for a check
    against the exact search, the entrance length from which an entrance gets more than one
    transition, how long an update may spend on the all-pairs table (ms), and the memory its cluster
    trees and all-pairs table may take (MiB)."""

    cluster_size: int = 32
    levels: int = 1
    region_clusters: int = 16
    smooth: bool = True
    exact_check: float = 4.0
    long_entrance: int = 6
    repair_ms: float = REPAIR_MS
    tree_mb: int = TREE_MB
    table_mb: int = TABLE_MB

    def options(self) -> HierarchyOptions:
        """The core's build options (its time box in seconds)."""
        return HierarchyOptions(
            cluster_size=self.cluster_size, levels=self.levels, region_clusters=self.region_clusters,
            exact_check=self.exact_check, long_entrance=self.long_entrance,
            repair_seconds=self.repair_ms / 1e3, smooth=self.smooth,
            tree_budget=self.tree_mb << 20, table_budget=self.table_mb << 20,
        )  # fmt: skip


@dataclass(slots=True)
class HierarchyState:
    """A grid's hierarchy as the serving layer knows it; filled in when its build is done.

    Shared by every version of a graph entry (updates change cells, not the hierarchy's identity).
    """

    spec: HierarchySpec
    built: bool = False
    nbytes: int = 0
    build_seconds: float = 0.0
    ready: Callable[[], bool] = lambda: True
    """Whether a deferred build's tables are priced (the build's report says; HPA* answers then)."""

    def describe(self) -> dict[str, Any]:
        """The ``hierarchy`` map of ``graph.info``."""
        return {
            "cluster_size": self.spec.cluster_size,
            "levels": self.spec.levels,
            "region_clusters": self.spec.region_clusters,
            "smooth": self.spec.smooth,
            "exact_check": self.spec.exact_check,
            "long_entrance": self.spec.long_entrance,
            "repair_ms": self.spec.repair_ms,
            "tree_mb": self.spec.tree_mb,
            "table_mb": self.spec.table_mb,
            "built": self.built,
            "bytes": self.nbytes,
            "build_seconds": self.build_seconds,
            "tables_ready": bool(self.ready()),
        }


def parse_hierarchy(params: Params) -> HierarchySpec:
    """Type-check a ``hierarchy`` map (``bad_request``); the core checks the rest at validation."""
    params.only(*HIERARCHY_KEYS)
    size = (
        params.integer("cluster_size", minimum=MIN_CLUSTER, maximum=MAX_CLUSTER)
        if params.has("cluster_size")
        else 32
    )
    levels = params.integer("levels", minimum=1, maximum=2) if params.has("levels") else 1
    region = (
        params.integer("region_clusters", minimum=2, maximum=MAX_REGION)
        if params.has("region_clusters")
        else 16
    )
    check = params.number("exact_check", minimum=0, maximum=MAX_CHECK) if params.has("exact_check") else 4.0
    entrance = (
        params.integer("long_entrance", minimum=1, maximum=MAX_CLUSTER) if params.has("long_entrance") else 6
    )  # an entrance lies along one cluster side: longer values all mean the same
    repair = (
        params.number("repair_ms", minimum=0, maximum=MAX_REPAIR_MS) if params.has("repair_ms") else REPAIR_MS
    )
    tree, table = (
        params.integer(key, minimum=0, maximum=MAX_BUDGET_MB) if params.has(key) else default
        for key, default in (("tree_mb", TREE_MB), ("table_mb", TABLE_MB))
    )
    return HierarchySpec(
        cluster_size=size, levels=levels, region_clusters=region, smooth=params.flag("smooth", True),
        exact_check=check, long_entrance=entrance, repair_ms=repair, tree_mb=tree, table_mb=table,
    )  # fmt: skip


def validate_hierarchy(graph: Navigator[Any], spec: HierarchySpec, where: str, graph_id: str) -> None:
    """Raise ``invalid_graph`` when the core refuses ``spec`` for ``graph`` (nothing is built)."""
    try:
        graph.check_hierarchy(spec.options())
    except AStarError as exc:
        raise GraphRejectedError(
            f"{where}: hierarchy: {exc}", {"id": graph_id, "field": "hierarchy"}
        ) from exc


class ProgressThrottle:
    """Pass ``(done, total)`` on at most every 1 % of the work and 100 ms, plus the first and last.

    Args:
        send: receives the calls that get through.
        interval: seconds between two reports (besides the first and the last).
    """

    def __init__(self, send: Callable[[int, int], None], *, interval: float = 0.1) -> None:
        self.send = send
        self.interval = interval
        self._last_done = -1
        self._last_time = 0.0

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        first, last = self._last_done < 0, done >= total
        step = done - self._last_done >= max(1, total // 100)
        if first or last or (step and now - self._last_time >= self.interval):
            self._last_done, self._last_time = done, now
            self.send(done, total)


def check_query_flags(hierarchical: bool, corridor: bool, state: HierarchyState | None, where: str) -> None:
    """``bad_request`` for a hierarchical query on a graph without a hierarchy, or a lone corridor."""
    if hierarchical and state is None:
        raise BadRequestError(
            f"{where}: 'hierarchical' needs a grid with a hierarchy (load it with 'hierarchy' or "
            "call graph.build_hierarchy)",
            {"field": "hierarchical"},
        )
    if corridor and not hierarchical:
        raise BadRequestError(
            f"{where}: 'corridor' applies to hierarchical queries only", {"field": "corridor"}
        )
