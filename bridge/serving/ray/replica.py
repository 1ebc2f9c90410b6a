"""One replica: a Ray actor process holding graphs (a :class:`GraphHolder`) and answering queries
with the same python_core code as the local sidecar. Every method answers a :data:`Reply`.

    Replica = replica_class()                      # the Ray actor class (imports Ray)
    actor = Replica.options(max_concurrency=2).remote(limits, budget_bytes=1 << 30)
    kind, value = ray.get(actor.find.remote(target, {"graph": "g", "start": [0, 0], "goal": [3, 2]}))

Replies are ``("ok", value)``, ``("error", wire error map)`` (the request's own error: the gateway
raises it as sent) or ``("behind", revisions)`` (the replica lacks log items the target did not
carry: it was restarted, or evicted the graph; the gateway resends from ``revisions[graph id]``).
Writes (loads, updates, hierarchy builds) are generators: ``("progress", done, total)`` items, then
the reply. The actor runs several requests at once on threads (the kernels release the GIL); the
gateway never sends a write on a graph while a query on it is in flight, so a graph only changes
while nothing reads it.
"""

from __future__ import annotations

import gc
import logging
import os
import queue
import threading
from collections.abc import Callable, Iterator
from typing import Any, cast

from bridge.methods.hierarchy_params import ProgressThrottle
from bridge.methods.queries import answer_bytes, parse_query, parse_reachable, run_query
from bridge.methods.registry import GraphEntry, Registry
from bridge.serving import entries
from bridge.serving.batches import results_bytes, run_chunk
from bridge.serving.packed import PackedBatch, check_packed, packed_pieces, run_packed_chunk
from bridge.serving.ray.cluster import ray_module
from bridge.serving.ray.graphs import GraphRef, LogItem, Target
from bridge.serving.ray.holder import GraphHolder
from bridge.wire.answers import AnswerBudget
from bridge.wire.errors import from_exception
from bridge.wire.protocol import Limits
from python_core.compiled import FIRST_WARM_UP_MODULES, warm_up

__all__ = ["ReplicaActor", "Reply", "replica_class"]

log = logging.getLogger("bridge.serving.ray")

Reply = tuple[str, Any]
"""``("ok", value)``, ``("error", error map)`` or ``("behind", {graph id: revision held})``."""


class _BehindError(Exception):
    def __init__(self, revisions: dict[str, int]) -> None:
        super().__init__(revisions)
        self.revisions = revisions


def _replied(work: Callable[[], Any]) -> Reply:
    try:
        return ("ok", work())
    except _BehindError as behind:
        return ("behind", behind.revisions)
    except Exception as exc:  # the request's error: the gateway raises it for its client
        return ("error", from_exception(exc).to_wire())


class _Window:
    """A batch's queries ``lo..`` read by their index in the whole batch."""

    def __init__(self, items: list[Any], lo: int) -> None:
        self.items, self.lo = items, lo

    def __getitem__(self, index: int) -> Any:
        return self.items[index - self.lo]


class ReplicaActor:
    """The actor's body (plain Python: :func:`replica_class` makes it a Ray actor).

    Args:
        limits: the gateway's limits (expansion cap and default, answer bytes).
        budget_bytes: what the held graphs may take (``--ray-memory-mb``).
        resolve: an object ref -> its value (``ray.get``; identity in process).
        warm: load the compiled kernels first (a replica process does; a test in process need not).
    """

    def __init__(
        self,
        limits: Limits,
        budget_bytes: int,
        resolve: Callable[[Any], Any] | None = None,
        warm: bool = True,
    ) -> None:
        if resolve is None:  # in the actor's process: the cluster's objects
            resolve = ray_module().get
        self.limits = limits
        self.holder = GraphHolder(budget_bytes, resolve)
        self._warm = threading.Event()
        if warm:  # on a thread, as the local sidecar does: the replica is up at once
            threading.Thread(target=self._warm_up, name="warm-up", daemon=True).start()
        else:
            self._warm.set()

    def _warm_up(self) -> None:
        """Grid and waypoint kernels first (requests wait for those), then every other kernel (a
        navmesh request before they are in loads its own from the cache)."""
        try:
            log.info("replica kernels: first ones in %.2f s", warm_up(FIRST_WARM_UP_MODULES))
        finally:
            self._warm.set()
        warm_up()
        # as the local sidecar does: the kernels' ~130,000 long-lived objects out of the collector's
        # sight (each full collection walked them, 25 ms holding the GIL)
        gc.freeze()

    def ready(self, warm: bool = False) -> int:
        """This replica's process id (once its first kernels are loaded, when ``warm``)."""
        if warm:
            self._warm.wait()
        return os.getpid()

    def held(self) -> dict[str, tuple[int, int]]:
        """``{graph id: (generation, revision)}`` held now (tests, diagnostics)."""
        return self.holder.held()

    # -- writes (generators: progress, then the reply) ----------------------------------------

    def load(self, ref: GraphRef) -> Iterator[Any]:
        """Build a new load; replies ``{"answer", "info", "bytes"}``."""
        yield from self._streamed(lambda progress: self._described(self.holder.load(ref, progress), None))

    def apply(self, target: Target, item: LogItem) -> Iterator[Any]:
        """Apply one change on the graph at ``target``; replies as :meth:`load`."""

        def work(progress: ProgressThrottle) -> dict[str, Any]:
            got = self.holder.apply(target, item, progress)
            if isinstance(got, int):
                raise _BehindError({target.ref.graph_id: got})
            return self._described(got, item[0])

        yield from self._streamed(work)

    def drop(self, graph_id: str) -> None:
        """Forget a dropped graph."""
        self.holder.drop(graph_id)

    @staticmethod
    def _described(entry: GraphEntry, change: str | None) -> dict[str, Any]:
        answer: dict[str, Any] = {"id": entry.graph_id}
        if change is None:
            answer["nodes"] = entry.graph.node_count
        if change == "update":
            answer["version"] = entry.version
        if entry.hierarchy is not None and change != "update":
            answer["hierarchy"] = entry.hierarchy.describe()
        return {"answer": answer, "info": entries.describe(entry), "bytes": entries.footprint(entry)}

    def _streamed(self, work: Callable[[ProgressThrottle], Any]) -> Iterator[Any]:
        """Run ``work`` on a thread, yielding its progress reports as they come, then its reply."""
        reports: queue.Queue[Any] = queue.Queue()
        throttle = ProgressThrottle(lambda done, total: reports.put(("progress", done, total)))

        def run() -> None:
            self._warm.wait()
            reports.put(_replied(lambda: work(throttle)))

        threading.Thread(target=run, name="replica-write", daemon=True).start()
        while True:
            item = reports.get()
            yield item
            if item[0] != "progress":
                return

    # -- queries --------------------------------------------------------------------------------

    def _registry(self, targets: list[Target]) -> Registry:
        self._warm.wait()
        registry = Registry(max_graphs=max(1, len(targets)))
        behind: dict[str, int] = {}
        for target in targets:
            got = self.holder.entry(target)
            if isinstance(got, int):
                behind[target.ref.graph_id] = got
            else:
                registry.put(got)
        if behind:
            raise _BehindError(behind)
        return registry

    def find(self, target: Target, raw: Any, reachable: bool = False) -> Reply:
        """One ``path.find`` (or ``path.reachable``) on the graph at ``target``."""

        def work() -> dict[str, Any]:
            registry = self._registry([target])
            limits = self.limits
            if reachable:
                query = parse_reachable(raw, registry)
            else:
                query = parse_query(raw, registry, limits.max_expansions, default=limits.default_expansions)
            answer = run_query(registry.get(query.graph_id).graph, query)
            if answer_bytes(answer) > limits.max_answer_bytes:
                AnswerBudget(limits.max_answer_bytes, "path.find").add(answer_bytes(answer))
            return answer

        return _replied(work)

    def find_many(self, targets: list[Target], items: list[Any], lo: int, hi: int) -> Reply:
        """Queries ``lo:hi`` of a ``path.find_many`` (``items``: those queries; each answers for
        itself, an error naming its index in the whole batch); replies ``(answers, bytes)``."""

        def work() -> tuple[list[dict[str, Any]], int]:
            registry = self._registry(targets)
            budget = AnswerBudget(self.limits.max_answer_bytes, "path.find_many")
            answers = run_chunk(
                cast(list[Any], _Window(items, lo)),
                range(lo, hi),
                registry=registry,
                shared={t.ref.graph_id for t in targets},
                cap=self.limits.max_expansions,
                default=self.limits.default_expansions,
                budget=budget,
            )
            return answers, results_bytes(answers)

        return _replied(work)

    def packed_pieces(self, target: Target, batch: PackedBatch, count: int) -> Reply:
        """Check a ``path.find_packed`` (its errors before any query runs) and cut it into ``count``
        ranges of about equal work; replies ``[(lo, hi), ...]``."""

        def work() -> list[tuple[int, int]]:
            registry = self._registry([target])
            check_packed(
                batch, registry, cap=self.limits.max_expansions, default=self.limits.default_expansions
            )
            return [(r.start, r.stop) for r in packed_pieces(batch, count, registry)]

        return _replied(work)

    def find_packed(self, target: Target, batch: PackedBatch, lo: int, hi: int) -> Reply:
        """Queries ``lo:hi`` of a ``path.find_packed``; replies a part for ``join_packed``."""

        def work() -> dict[str, Any]:
            registry = self._registry([target])
            return run_packed_chunk(
                batch,
                range(lo, hi),
                registry=registry,
                shared={target.ref.graph_id},
                cap=self.limits.max_expansions,
                default=self.limits.default_expansions,
                budget=AnswerBudget(self.limits.max_answer_bytes, "path.find_packed"),
            )

        return _replied(work)


def replica_class(max_restarts: int = -1) -> Any:
    """:class:`ReplicaActor` as a Ray actor class that Ray restarts when its process dies (its
    graphs are then rebuilt from snapshots and logs when asked for)."""
    return ray_module().remote(max_restarts=max_restarts, max_task_retries=0)(ReplicaActor)
