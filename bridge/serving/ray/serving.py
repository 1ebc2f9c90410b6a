"""The sidecar as a gateway to a Ray cluster: :class:`RayServing`, the distributed
:class:`~bridge.methods.interface.Serving` (``serve --ray``; see docs/scale-out.md).

    serving = RayServing(limits, RayOptions("local", replicas=2, memory_mb=1024))
    await serving.start()                  # starts or joins Ray, starts the replicas
    answer = await serving.find(client, {"graph": "g", "start": [0, 0], "goal": [3, 2]})

The gateway keeps the protocol, the auth, the limits and the order of requests; the graphs and the
searches live in replica actors. Per graph id, a :class:`~bridge.serving.graph_lock.GraphLock`
grants requests in arrival order as the local sidecar's does (queries share, writes go alone), so a
query sent after an update is dispatched once the update is logged, naming the revision that
includes it; whichever replica answers first applies the log up to it.

- A load puts its record in the object store once (``ray.put``) and has the graph's home replica
  build it (the load's errors and ``graph.info`` come from there).
- An update or hierarchy build is applied by the home replica at the current revision; only once
  that succeeds is it appended to the graph's log (its object ref), so a refused update is not
  logged; every other replica applies it when a request names that revision. A replica never
  applies a revision twice: it only moves a held graph forward, or rebuilds it from the snapshot.
- Flow fields run in the gateway (``exclusive``): it keeps its own copy of a grid that has fields,
  brought to the current revision from the same snapshot and log.

Why plain actors, not Ray Serve's model multiplexing: routing and versions are ours to control
(rendezvous hashing by graph id, a revision named by each request, retries by hand), with no HTTP
stack or Serve controller in each request's path (an actor call costs about 1 ms); Serve would add
a proxy hop and hide which replica holds what.

Faults: replicas are restartable actors (``max_restarts=-1``); a request whose replica dies is sent
once more to the next replica of its graph (queries are idempotent; a write is logged only after
its reply). The gateway holds every snapshot and log ref, so nothing loaded or updated is lost while
it lives. Test and bench hooks: :meth:`RayServing.kill_replica` (in process) and
:mod:`bridge.serving.ray.faults` (a ``serve --ray local`` subprocess, by its pid).
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from collections.abc import Awaitable, Callable, Hashable
from concurrent.futures import Executor
from typing import Any

from bridge.methods.hierarchy_params import HierarchySpec
from bridge.methods.interface import BatchOutcome, LoadRequest, Outcome, Progress
from bridge.methods.kinds import KINDS
from bridge.methods.params import Params
from bridge.methods.queries import parse_query, parse_reachable
from bridge.methods.registry import GraphEntry, Registry
from bridge.serving import kernel_warm_up
from bridge.serving.graph_lock import GraphLocks
from bridge.serving.packed import parse_packed
from bridge.serving.ray import spread
from bridge.serving.ray.cluster import RayOptions, connect, ray_module
from bridge.serving.ray.graphs import BUILD, UPDATE, GraphRef, GraphState, LogItem, Target
from bridge.serving.ray.holder import GraphHolder
from bridge.serving.ray.pool import ReplicaPool
from bridge.serving.ray.replica import replica_class
from bridge.wire.errors import BadRequestError, TooLargeError, UnknownGraphError, UnsupportedError
from bridge.wire.protocol import Limits

__all__ = ["CLOSE_SECONDS", "RayServing"]

log = logging.getLogger("bridge.serving.ray")

CLOSE_SECONDS = 10.0
"""How long stopping may wait for Ray to kill the replicas and shut a local instance down."""

_NO_GRAPHS = Registry(max_graphs=1)
"""An empty registry: a query's own errors (its shape) are raised with it before its graph is read."""


class RayServing:
    """Graphs and searches in a Ray cluster, behind this process's protocol.

    Args:
        limits: the server's limits (as the local sidecar's).
        options: the cluster, replicas, their memory budget and threads.
    """

    def __init__(self, limits: Limits, options: RayOptions) -> None:
        self.limits = limits
        self.options = options
        self.locks = GraphLocks()
        self.graphs_by_id: dict[str, GraphState] = {}
        self.pool = ReplicaPool([])
        self.pids: list[int] = []
        self._generation = 0
        self._started_ray = False
        self._tasks: set[asyncio.Task[Any]] = set()
        self._fields = GraphHolder(budget_bytes=1 << 62)  # the gateway's copies for flow fields
        self._warm: asyncio.Future[float] | None = None

    # -- life cycle ---------------------------------------------------------------------------

    async def start(self) -> None:
        """Start or join Ray (on this thread: it sets signal handlers), then the replicas; returns
        once each has loaded its first kernels."""
        ray = ray_module()
        self._started_ray = connect(self.options)
        self._warm = kernel_warm_up.start(asyncio.get_running_loop())  # flow fields run here
        self._fields.resolve = ray.get
        actor = replica_class()
        budget = self.options.memory_mb << 20
        actors = [
            actor.options(
                name=f"replica-{os.getpid()}-{i}",
                max_concurrency=self.options.threads + 2,  # + a write's progress stream
                num_cpus=1,
                scheduling_strategy="SPREAD",
            ).remote(self.limits, budget)
            for i in range(self.options.replicas)
        ]
        self.pool = ReplicaPool(actors)
        self.pids = list(await asyncio.gather(*[a.ready.remote() for a in actors]))
        log.info("ray: %d replicas ready (pids %s)", len(actors), self.pids)

    async def close(self) -> None:
        """Stop the replicas (and the private Ray instance, if this process started it), within
        :data:`CLOSE_SECONDS`: a cluster that is gone (its raylet killed) must not keep the gateway
        from exiting."""
        ray = ray_module()
        for task in list(self._tasks):
            task.cancel()
        actors, self.pool.actors = self.pool.actors, []

        def stop() -> None:
            for actor in actors:
                ray.kill(actor, no_restart=True)
            if self._started_ray:
                ray.shutdown()

        stopping = asyncio.get_running_loop().run_in_executor(None, stop)
        try:
            await asyncio.wait_for(stopping, CLOSE_SECONDS)
        except Exception as exc:  # gone, or hanging: the process exits anyway
            log.warning("ray: could not stop cleanly (%s); exiting anyway", type(exc).__name__)

    def kill_replica(self, index: int) -> int:
        """Test and bench hook: kill replica ``index``'s process (as a crash would; Ray restarts
        it, empty); returns the pid killed. Requests in flight on it are retried elsewhere."""
        pid = self.pids[index]
        os.kill(pid, signal.SIGKILL)
        self._watch(self._refresh_pid(index))
        return pid

    async def _refresh_pid(self, index: int) -> None:
        self.pids[index] = await self.pool.actors[index].ready.remote()

    def _watch(self, work: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- ordering -----------------------------------------------------------------------------

    def _read(self, graph_ids: list[str], work: Callable[[], Awaitable[Any]]) -> Awaitable[Any]:
        """Reserve read shares of ``graph_ids`` now (arrival order), run ``work`` once granted."""
        held = [(g, self.locks.get(g)) for g in sorted(set(graph_ids))]
        turns = [(g, lock, lock.reserve_read()) for g, lock in held]

        async def run() -> Any:
            granted: list[Any] = []
            try:
                for _, lock, turn in turns:
                    await lock.wait(turn, write=False)
                    granted.append(lock)
                return await work()
            finally:
                for lock in granted:
                    lock.release_read()
                for _, lock, turn in turns[len(granted) :]:
                    lock.give_up(turn, write=False)
                for graph_id, _ in held:
                    self._tidy(graph_id)

        return run()

    def _write(self, graph_id: str, work: Callable[[], Awaitable[dict[str, Any]]]) -> Outcome:
        """Reserve the graph alone now (arrival order); the write runs to its end even when its
        client leaves (shielded): what was sent is applied."""
        lock = self.locks.get(graph_id)
        turn = lock.reserve_write()

        async def run() -> dict[str, Any]:
            await lock.wait(turn, write=True)
            try:
                return await work()
            finally:
                lock.release_write()
                self._tidy(graph_id)

        task = asyncio.ensure_future(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return asyncio.shield(task)

    def _tidy(self, graph_id: str) -> None:
        if graph_id not in self.graphs_by_id:
            self.locks.forget_idle(graph_id)

    def _state(self, graph_id: str) -> GraphState:
        state = self.graphs_by_id.get(graph_id)
        if state is None:
            raise UnknownGraphError(graph_id)
        return state

    # -- catalog ------------------------------------------------------------------------------

    def info(self, graph_id: str) -> Outcome:
        """``graph.info``, after the writes asked before it."""
        return self._read([graph_id], lambda: _now(self._state(graph_id).info))

    def graphs(self) -> list[dict[str, Any]]:
        """``graph.info`` of every graph, in load order."""
        return [state.info for state in self.graphs_by_id.values()]

    # -- writes -------------------------------------------------------------------------------

    def load(self, request: LoadRequest, progress: Progress | None) -> Outcome:
        """Put the record in the object store, have the home replica build it, then replace."""
        self._check_room(request.graph_id)
        return self._write(request.graph_id, lambda: self._load(request, progress))

    def _check_room(self, graph_id: str) -> None:
        if graph_id not in self.graphs_by_id and len(self.graphs_by_id) >= self.limits.max_graphs:
            raise TooLargeError(
                f"at most {self.limits.max_graphs} graphs may be loaded at once",
                {"limit": self.limits.max_graphs},
            )

    async def _load(self, request: LoadRequest, progress: Progress | None) -> dict[str, Any]:
        ray = ray_module()
        self._check_room(request.graph_id)
        snapshot = await asyncio.get_running_loop().run_in_executor(None, ray.put, request.record)
        self._generation += 1
        ref = GraphRef(request.graph_id, self._generation, request.kind.name, snapshot, request.hierarchy)
        order = self.pool.route(request.graph_id)
        built: dict[str, Any] = await self.pool.call(
            order, [], lambda actor, _: actor.load.options(num_returns="streaming").remote(ref), progress
        )
        others = sum(s.nbytes for g, s in self.graphs_by_id.items() if g != request.graph_id)
        total, budget = others + int(built["bytes"]), self.limits.max_graph_bytes
        if total > budget:
            raise TooLargeError(
                f"graph.load_{request.kind.name}: the loaded graphs would take about {total >> 20} MiB, "
                f"past the limit of {budget >> 20} MiB",
                {"limit": budget, "bytes": total},
            )
        self.pool.forget_graph(request.graph_id)
        self._fields.drop(request.graph_id)
        state = GraphState(ref, built["info"], int(built["bytes"]))
        self.graphs_by_id[request.graph_id] = state  # a reload keeps its place in the load order
        self.pool.note(order[0], state.target(0))  # after a retry elsewhere, "behind" corrects it
        answer: dict[str, Any] = built["answer"]
        return answer

    def build_hierarchy(self, graph_id: str, spec: HierarchySpec, progress: Progress | None) -> Outcome:
        """Build a grid's hierarchy on its home replica, logged as a change (others build it when
        they are asked for that revision)."""
        return self._write(graph_id, lambda: self._change(graph_id, (BUILD, spec), progress))

    def update(self, graph_id: str, fields: Params) -> Outcome:
        """Apply a ``graph.update`` on the home replica; logged once it succeeded."""
        return self._write(graph_id, lambda: self._change(graph_id, (UPDATE, fields.values), None))

    async def _change(self, graph_id: str, item: LogItem, progress: Progress | None) -> dict[str, Any]:
        ray = ray_module()
        state = self._state(graph_id)
        if item[0] == BUILD and not KINDS[state.ref.kind].hierarchy:
            raise UnsupportedError(
                f"graph.build_hierarchy: a {state.ref.kind} graph has no hierarchy; only grids do",
                {"graph": graph_id},
            )
        item_ref = await asyncio.get_running_loop().run_in_executor(None, ray.put, item)

        def send(actor: Any, targets: dict[str, Target]) -> Any:
            return actor.apply.options(num_returns="streaming").remote(targets[graph_id], item_ref)

        changed: dict[str, Any] = await self.pool.call(self.pool.route(graph_id), [state], send, progress)
        state.log.append(item_ref)
        state.info, state.nbytes = changed["info"], int(changed["bytes"])
        for index in self.pool.route(graph_id)[:1]:
            if self.pool.base(index, graph_id, state.ref.generation, state.revision) == state.revision - 1:
                self.pool.note(index, state.target(state.revision))
        answer: dict[str, Any] = changed["answer"]
        return answer

    def drop(self, graph_id: str) -> Outcome:
        """Unload once the requests before the drop are answered; the replicas forget it."""

        async def dropped() -> dict[str, Any]:
            self._state(graph_id)
            del self.graphs_by_id[graph_id]
            self.pool.forget_graph(graph_id)
            self._fields.drop(graph_id)
            for actor in self.pool.actors:
                actor.drop.remote(graph_id)  # the snapshot and log go with their last refs
            return {"id": graph_id}

        return self._write(graph_id, dropped)

    def exclusive(
        self,
        graph_id: str,
        work: Callable[[GraphEntry], dict[str, Any]],
        *,
        executor: Executor | None = None,
    ) -> Outcome:
        """Run ``work`` (flow fields) on the gateway's own copy of the graph, held alone in arrival
        order; the copy is brought to the current revision first (off the loop when it must be)."""

        async def run() -> dict[str, Any]:
            if self._warm is not None and not self._warm.done():
                await asyncio.shield(self._warm)
            state = self._state(graph_id)
            target = state.target(0)
            loop = asyncio.get_running_loop()
            current = self._fields.held().get(graph_id) == (state.ref.generation, state.revision)
            if executor is None and current:
                return work(self._entry(target))
            if executor is None:
                entry = await loop.run_in_executor(None, self._entry, target)
                return work(entry)
            return await loop.run_in_executor(executor, lambda: work(self._entry(target)))

        return self._write(graph_id, run)

    def _entry(self, target: Target) -> GraphEntry:
        got = self._fields.entry(target)
        assert not isinstance(got, int)  # the whole log is given
        return got

    # -- queries ------------------------------------------------------------------------------

    def find(self, client: Hashable, raw: Any) -> Outcome:
        """One query on its graph's home replica."""
        return self._query(raw, reachable=False)

    def reachable(self, client: Hashable, raw: Any) -> Outcome:
        """Reachability, on the graph's home replica."""
        return self._query(raw, reachable=True)

    def _query(self, raw: Any, *, reachable: bool) -> Outcome:
        graph_id = raw.get("graph") if isinstance(raw, dict) else None
        if not isinstance(graph_id, str):
            if reachable:
                parse_reachable(raw, _NO_GRAPHS)
            else:
                parse_query(raw, _NO_GRAPHS, self.limits.max_expansions)
            raise BadRequestError("a query names its graph with a 'graph' string")

        async def run() -> dict[str, Any]:
            state = self._state(graph_id)

            def send(actor: Any, targets: dict[str, Target]) -> Any:
                return actor.find.remote(targets[graph_id], raw, reachable)

            answer: dict[str, Any] = await self.pool.call(self.pool.route(graph_id), [state], send)
            return answer

        return self._read([graph_id], run)

    def find_many(self, client: Hashable, items: list[Any]) -> BatchOutcome:
        """Many queries, split across the replicas (see :mod:`bridge.serving.ray.spread`)."""
        if len(items) > self.limits.max_batch:
            raise TooLargeError(
                f"path.find_many: {len(items)} queries exceed the limit of {self.limits.max_batch}",
                {"limit": self.limits.max_batch},
            )
        named = {item.get("graph") for item in items if isinstance(item, dict)}
        held = sorted(
            g for g in named if isinstance(g, str) and (g in self.graphs_by_id or self.locks.busy(g))
        )

        async def run() -> Any:
            graphs = [self.graphs_by_id[g] for g in held if g in self.graphs_by_id]
            return await spread.find_many(self.pool, self.limits, graphs, items)

        answer: BatchOutcome = self._read(held, run)
        return answer

    def find_packed(self, client: Hashable, raw: Any) -> BatchOutcome:
        """Many paths on one graph, split across the replicas."""
        batch = parse_packed(raw, self.limits.max_batch)
        if batch.graph_id not in self.graphs_by_id and not self.locks.busy(batch.graph_id):
            raise UnknownGraphError(batch.graph_id)

        async def run() -> Any:
            return await spread.find_packed(self.pool, self.limits, self._state(batch.graph_id), batch)

        answer: BatchOutcome = self._read([batch.graph_id], run)
        return answer

    def forget(self, client: Hashable) -> None:
        """A client left: its requests already sent to replicas finish (their answers dropped)."""

    def allow_inline_until(self, deadline: float, *, alone: bool = False) -> None:
        """Nothing runs inline here: every query goes to a replica."""


async def _now(value: dict[str, Any]) -> dict[str, Any]:
    return value
