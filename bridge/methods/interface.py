"""The seam between the method table and whatever runs the graphs.

:class:`bridge.methods.handlers.Handlers` turns wire requests into calls of a :class:`Serving`; this
process's implementation is :class:`bridge.serving.local.LocalServing` (graphs in memory, searches
on a thread pool). Everything crossing the seam is plain data (ids, records, parameter maps), so a
distributed implementation (several servers sharing graphs) can be added beside it without touching
the protocol.

    serving: Serving = LocalServing(limits, threads=2)
    await serving.start()
    answer = serving.find(client, {"graph": "g", "start": [0, 0], "goal": [3, 2]})
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Hashable
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any, Protocol

from bridge.methods.hierarchy_params import HierarchySpec
from bridge.methods.kinds import GraphKind
from bridge.methods.params import Params
from bridge.methods.registry import GraphEntry
from bridge.wire.answers import Encoded

__all__ = ["BatchOutcome", "Connection", "Handler", "LoadRequest", "Outcome", "Progress", "Serving"]

Outcome = dict[str, Any] | Awaitable[dict[str, Any]]
"""A result map now, or an awaitable of one (the request waits its turn or runs off the loop)."""

BatchOutcome = Awaitable[dict[str, Any] | Encoded] | Encoded
"""A batch's answer, later (a large one already encoded, packed off the loop), or now, encoded (a
small ``path.find_packed`` searched on the event loop)."""

Progress = Callable[[int, int], None]
"""``progress(done, total)`` of a hierarchy build, called on the event loop."""


def _no_notify(method: str, params: dict[str, Any]) -> None:
    """The notifier of a connection that has no session (tests)."""


@dataclass(slots=True, eq=False)
class Connection:
    """Per-connection state the handlers see; ``notify`` sends a notification to this peer. Compared
    by identity: it also names the client to the serving layer (fair shares, dropped work)."""

    peer: str
    authorized: bool = False
    client: str = ""
    notify: Callable[[str, dict[str, Any]], None] = _no_notify


Handler = Callable[[Connection, Any], Outcome | BatchOutcome]
"""One protocol method: the connection and its parameters -> its answer."""


@dataclass(frozen=True, slots=True)
class LoadRequest:
    """A validated ``graph.load_*``: the graph's id, kind, record (its fields but ``id`` and
    ``hierarchy``) and the hierarchy to build with it, if any."""

    graph_id: str
    kind: GraphKind
    record: dict[str, Any]
    hierarchy: HierarchySpec | None = None


class Serving(Protocol):
    """Graphs by id, their changes in arrival order, and the queries over them.

    Every method is called on the event loop and must not block it. Requests on one graph id take
    effect in the order the methods were called: a query called after an update sees it.
    ``client`` names the connection (for fair shares and :meth:`forget`).
    """

    async def start(self) -> None:
        """Get ready to serve (threads, compiled kernels)."""

    async def close(self) -> None:
        """Stop: queued work is dropped, running work finishes."""

    def load(self, request: LoadRequest, progress: Progress | None) -> Outcome:
        """Build a graph (and its hierarchy) and put it under its id, replacing the old one only
        once the new one is whole: a failed load leaves the old graph as it was."""

    def build_hierarchy(self, graph_id: str, spec: HierarchySpec, progress: Progress | None) -> Outcome:
        """Give a loaded grid a new hierarchy."""

    def update(self, graph_id: str, fields: Params) -> Outcome:
        """Apply a ``graph.update`` (all or nothing); answers ``{"id", "version"}``."""

    def drop(self, graph_id: str) -> Outcome:
        """Unload a graph."""

    def info(self, graph_id: str) -> Outcome:
        """``graph.info`` of one graph."""

    def graphs(self) -> list[dict[str, Any]]:
        """``graph.info`` of every graph, in load order."""

    def find(self, client: Hashable, raw: Any) -> Outcome:
        """One ``path.find`` parameter map, validated when its turn comes."""

    def find_many(self, client: Hashable, items: list[Any]) -> BatchOutcome:
        """Many queries; each answers for itself (``{"results": [...]}``)."""

    def find_packed(self, client: Hashable, raw: Any) -> BatchOutcome:
        """One ``path.find_packed`` (one grid, one options map, ``bin`` endpoints and answers)."""

    def reachable(self, client: Hashable, raw: Any) -> Outcome:
        """One ``path.reachable`` parameter map."""

    def exclusive(
        self,
        graph_id: str,
        work: Callable[[GraphEntry], dict[str, Any]],
        *,
        executor: Executor | None = None,
    ) -> Outcome:
        """Run ``work`` with the graph held alone, after the requests on it before this one; on
        ``executor`` when given (long work), else where the implementation likes."""

    def forget(self, client: Hashable) -> None:
        """The client went away: drop its queued work."""

    def allow_inline_until(self, deadline: float, *, alone: bool = False) -> None:
        """Queries handled before ``deadline`` (a ``time.perf_counter()`` value) may run on the event
        loop; later ones go to the search threads. A connection sets it per slice of its requests.
        ``alone``: the request at hand is all the server has to do (one connection, nothing pending
        on it, the read held just this request), so a longer query may run inline too: there is no
        other client to hold up."""
