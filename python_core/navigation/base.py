"""What graph kinds without a hierarchy share: every hierarchy request is refused the same way.

from python_core.navigation.base import NoHierarchy
assert NoHierarchy().has_hierarchy is False and NoHierarchy().repair_pending(1.0) is False
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from python_core.errors import InvalidQueryError, UnsupportedOperationError
from python_core.hpa import Progress
from python_core.navigation.interface import BuildReport, HierarchyOptions
from python_core.result import PathResult, QueryOptions

__all__ = ["NoHierarchy", "each_pair"]

NodeT = TypeVar("NodeT")


def each_pair(
    find: Callable[[NodeT, NodeT], PathResult], starts: Sequence[NodeT], goals: Sequence[NodeT]
) -> list[PathResult]:
    """``find(start, goal)`` for each pair, in order: the ``find_many`` of a kind with no batch
    kernel (the first error stops the batch).

    Raises:
        InvalidQueryError: ``starts`` and ``goals`` differ in length.
    """
    if len(starts) != len(goals):
        raise InvalidQueryError(f"{len(starts)} starts but {len(goals)} goals")
    return [find(s, g) for s, g in zip(starts, goals, strict=True)]


class NoHierarchy:
    """The hierarchy half of :class:`Navigator` for a graph kind that has none (only grids do)."""

    kind_name = "graph"
    """How refusals name the graph kind ("a waypoint graph has no hierarchy")."""

    @property
    def has_hierarchy(self) -> bool:
        """Always False."""
        return False

    def _refuse(self) -> UnsupportedOperationError:
        return UnsupportedOperationError(f"a {self.kind_name} has no hierarchy; only grids do")

    def is_reachable(self, start: Any, goal: Any, options: QueryOptions | None = None) -> bool:
        """Refused: reachability comes from a hierarchy."""
        raise self._refuse()

    def check_hierarchy(self, options: HierarchyOptions) -> None:
        """Refused."""
        raise self._refuse()

    def build_hierarchy(self, options: HierarchyOptions, progress: Progress | None = None) -> BuildReport:
        """Refused."""
        raise self._refuse()

    def find_path(
        self,
        start: Any,
        goal: Any,
        options: QueryOptions | None = None,
        *,
        hierarchical: bool = False,
        corridor: bool = False,
    ) -> PathResult:
        """The kind's own search (each kind defines it)."""
        raise NotImplementedError

    def find_many(
        self,
        starts: Sequence[Any],
        goals: Sequence[Any],
        options: QueryOptions | None = None,
        *,
        hierarchical: bool = False,
        corridor: bool = False,
    ) -> list[PathResult]:
        """:meth:`find_path` for each pair, in order (the first error stops the batch): a kind
        without a hierarchy has no batch kernel."""
        return each_pair(
            lambda s, g: self.find_path(s, g, options, hierarchical=hierarchical, corridor=corridor),
            starts,
            goals,
        )

    def ready_for(self, options: QueryOptions | None) -> bool:
        """Nothing is built by a query."""
        return True

    def repair_pending(self, seconds: float) -> bool:
        """Nothing is ever deferred."""
        return False

    def describe(self) -> dict[str, Any]:
        """No facts beyond the size and dimension."""
        return {}
