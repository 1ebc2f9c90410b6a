"""The one copy of every loaded graph, by id: what queries search and ``graph.info`` describes.

An entry is put here only when whole (the serving layer builds a load off to the side first), so a
failed load leaves the old graph as it was.

    from bridge.methods.registry import GraphEntry, Registry
    reg = Registry(max_graphs=2)
    assert reg.ids() == [] and reg.find("g") is None
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bridge.methods.hierarchy_params import HierarchyState
from bridge.methods.kinds import GraphKind
from bridge.wire.errors import TooLargeError, UnknownGraphError
from python_core.navigation import Navigator

__all__ = ["GraphEntry", "Registry"]


@dataclass(frozen=True, slots=True)
class GraphEntry:
    """One loaded graph.

    Attributes:
        graph_id: the id the client chose.
        kind: its graph type as the wire knows it (load and update fields, ``graph.info``'s kind).
        graph: the python_core navigator every request goes through.
        version: bumped on every update (1 when loaded).
        hierarchy: the graph's HPA* hierarchy (its options and build report), or None.
    """

    graph_id: str
    kind: GraphKind
    graph: Navigator[Any]
    version: int = 1
    hierarchy: HierarchyState | None = None


class Registry:
    """Graphs by id. Only the event loop changes it (under a graph's write turn), so no lock is
    needed; search threads read it while they hold a read turn."""

    def __init__(self, *, max_graphs: int) -> None:
        self.max_graphs = max_graphs
        self._entries: dict[str, GraphEntry] = {}

    def find(self, graph_id: str) -> GraphEntry | None:
        """The entry under ``graph_id``, or None."""
        return self._entries.get(graph_id)

    def get(self, graph_id: str) -> GraphEntry:
        """The entry under ``graph_id``.

        Raises:
            UnknownGraphError: nothing is loaded under that id.
        """
        entry = self._entries.get(graph_id)
        if entry is None:
            raise UnknownGraphError(graph_id)
        return entry

    def check_room(self, graph_id: str) -> None:
        """Raise ``too_large`` when loading a new id would pass ``max_graphs``."""
        if graph_id not in self._entries and len(self._entries) >= self.max_graphs:
            raise TooLargeError(
                f"at most {self.max_graphs} graphs may be loaded at once", {"limit": self.max_graphs}
            )

    def put(self, entry: GraphEntry) -> None:
        """Store (or atomically replace) an entry."""
        self._entries[entry.graph_id] = entry

    def drop(self, graph_id: str) -> GraphEntry:
        """Remove and return an entry (``unknown_graph`` when absent)."""
        entry = self.get(graph_id)
        del self._entries[graph_id]
        return entry

    def ids(self) -> list[str]:
        """Loaded ids, in load order."""
        return list(self._entries)
