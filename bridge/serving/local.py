"""This process's :class:`~bridge.methods.interface.Serving`: graphs in memory, searches on threads.

One copy of every graph, shared by the event loop and the search threads (the kernels release the
GIL; python_core's read paths are safe on several threads at once). Order and isolation come from
one :class:`~bridge.serving.graph_lock.GraphLock` per graph id: queries read, loads, updates, drops
and table refills write, granted in arrival order.

- A query whose graph is free runs at once on the event loop with a small expansion budget
  (:mod:`bridge.serving.inline`), while its connection's slice of loop time lasts
  (:meth:`allow_inline_until`): most game paths end there, with no thread hop and no task. One that
  needs more, is guessed to, or comes once the slice is spent, runs on the :class:`FairScheduler`'s threads.
- Batches are cut into chunks on the scheduler (:mod:`bridge.serving.batch_runner`), clients
  taking turns; a client that leaves has its queued chunks dropped.
- Loads build the new graph (and its hierarchy) off the loop and only then replace the old one;
  updates, builds and the freeing of a dropped graph run off the loop too, whatever their size.
  Writes finish even when their client leaves.
- Every answer is counted against ``max_answer_bytes`` while it is built (``too_large`` past it,
  the pieces built so far dropped); a large one is joined and encoded on a thread.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import logging
import math
import os
import time
from collections.abc import Awaitable, Callable, Hashable
from concurrent.futures import Executor
from typing import Any

from bridge.methods.hierarchy_params import HierarchySpec, HierarchyState, validate_hierarchy
from bridge.methods.interface import BatchOutcome, LoadRequest, Outcome, Progress
from bridge.methods.params import Params
from bridge.methods.queries import Query, answer_bytes, parse_query, parse_reachable, run_query
from bridge.methods.registry import GraphEntry, Registry
from bridge.serving import entries, kernel_warm_up
from bridge.serving.batch_runner import BatchRunner
from bridge.serving.graph_lock import GraphLock, GraphLocks
from bridge.serving.inline import INLINE_EXPANSIONS, InlineGuess, run_timed
from bridge.serving.scheduler import FairScheduler
from bridge.wire.answers import AnswerBudget
from bridge.wire.errors import (
    BadRequestError,
    TooLargeError,
    UnsupportedError,
)
from bridge.wire.protocol import Limits

__all__ = ["INLINE_EXPANSIONS", "LocalServing"]

log = logging.getLogger("bridge.serving")

REFILL_SLICE = 0.005
"""Seconds of all-pairs table refilling per turn (a query arriving meanwhile waits at most this)."""
REFILL_PAUSE = 0.002
"""Seconds between two looks at whether a graph with stale table rows is idle."""


class LocalServing:
    """Graphs and searches in this process.

    Args:
        limits: the server's limits (expansion cap, batch size, graphs, nodes).
        threads: search threads (the CPU count by default).
    """

    def __init__(self, limits: Limits, threads: int | None = None) -> None:
        self.limits = limits
        self.threads = max(1, threads if threads is not None else os.cpu_count() or 1)
        self.registry = Registry(max_graphs=limits.max_graphs)
        self.locks = GraphLocks()
        self._scheduler: FairScheduler | None = None
        self._warm: asyncio.Future[float] | None = None
        self._refills: dict[str, asyncio.Task[None]] = {}
        self._writers = entries.Writers()  # a graph's changes on its own thread (see Writers)
        self._background: set[asyncio.Task[Any]] = set()
        self._inline_until, self._alone = math.inf, False  # see allow_inline_until (no connection: always)
        self.inline = InlineGuess()  # which queries skip the inline attempt
        self._cap, self._default = limits.max_expansions, limits.default_expansions
        self._parse_reachable = functools.partial(parse_reachable, registry=self.registry)
        self.batches = BatchRunner(
            limits,
            self.registry,
            self.locks,
            threads=self.threads,
            scheduler=lambda: self.scheduler,
            ready=self._wait_kernels,
            release=self._release_read,
        )

    # -- life cycle ---------------------------------------------------------------------------

    async def start(self) -> None:
        """Start the search threads and load the compiled kernels on a thread: queries and loads
        wait for every kernel once (the sidecar announces itself at once), or only for the grid and
        waypoint ones when numba's cache lacks a kernel and the rest must compile
        (:mod:`bridge.serving.kernel_warm_up`)."""
        loop = asyncio.get_running_loop()
        self._scheduler = FairScheduler(self.threads, loop)
        self._warm = kernel_warm_up.start(loop)

    async def close(self) -> None:
        """Drop queued searches, stop the refills, let running work finish."""
        for task in [*self._refills.values(), *self._background]:
            task.cancel()
        if self._scheduler is not None:
            await asyncio.to_thread(self._scheduler.close)
        self._writers.close()

    @property
    def scheduler(self) -> FairScheduler:
        if self._scheduler is None:
            raise RuntimeError("LocalServing.start() was not awaited")
        return self._scheduler

    async def _wait_kernels(self) -> None:
        if self._warm is not None and not self._warm.done():
            await asyncio.shield(self._warm)

    # -- catalog ------------------------------------------------------------------------------

    def info(self, graph_id: str) -> Outcome:
        """``graph.info`` of one graph (``unknown_graph`` when absent), after the writes asked
        before it (a load sent just before is described, not refused)."""
        lock = self.locks.get(graph_id)
        if lock.try_read():
            try:
                return entries.describe(self.registry.get(graph_id))
            finally:
                self._release_read(graph_id, lock)
        return self._described_later(graph_id, lock, lock.reserve_read())

    def exclusive(
        self,
        graph_id: str,
        work: Callable[[GraphEntry], dict[str, Any]],
        *,
        executor: Executor | None = None,
    ) -> Outcome:
        """Run ``work`` with the graph held alone, in arrival order with its other requests (flow
        fields: they read the grid and write their own cache): on the loop, or on ``executor``'s
        thread when given (work that may take long must not hold every other client up)."""
        lock = self.locks.get(graph_id)
        if executor is not None:
            return self._write(graph_id, lambda: self._off_loop(graph_id, work, executor))
        if lock.try_write():
            try:
                return work(self.registry.get(graph_id))
            finally:
                lock.release_write()
                self._tidy(graph_id)
        return self._exclusive_later(graph_id, lock, lock.reserve_write(), work)

    async def _off_loop(
        self, graph_id: str, work: Callable[[GraphEntry], dict[str, Any]], executor: Executor
    ) -> dict[str, Any]:
        entry = self.registry.get(graph_id)
        return await asyncio.get_running_loop().run_in_executor(executor, work, entry)

    async def _exclusive_later(
        self,
        graph_id: str,
        lock: GraphLock,
        turn: asyncio.Future[None],
        work: Callable[[GraphEntry], dict[str, Any]],
    ) -> dict[str, Any]:
        await lock.wait(turn, write=True)
        try:
            return work(self.registry.get(graph_id))
        finally:
            lock.release_write()
            self._tidy(graph_id)

    async def _described_later(
        self, graph_id: str, lock: GraphLock, turn: asyncio.Future[None]
    ) -> dict[str, Any]:
        await lock.wait(turn, write=False)
        try:
            return entries.describe(self.registry.get(graph_id))
        finally:
            self._release_read(graph_id, lock)

    def graphs(self) -> list[dict[str, Any]]:
        """``graph.info`` of every graph, in load order (writes under way are not waited for)."""
        return [entries.describe(self.registry.get(i)) for i in self.registry.ids()]

    # -- writes -------------------------------------------------------------------------------

    def load(self, request: LoadRequest, progress: Progress | None) -> Outcome:
        """Build off the loop, validate, build the hierarchy, then replace the old graph."""
        self.registry.check_room(request.graph_id)
        return self._write(request.graph_id, lambda: self._load(request, progress))

    def build_hierarchy(self, graph_id: str, spec: HierarchySpec, progress: Progress | None) -> Outcome:
        """Rebuild a grid's hierarchy (off the loop) once the queries before it are answered."""
        return self._write(graph_id, lambda: self._rebuild(graph_id, spec, progress))

    def update(self, graph_id: str, fields: Params) -> Outcome:
        """Apply an update on a thread once the requests before it are answered (a navmesh region
        change rebuilds a mesh: seconds on a big map, which must not hold every other client up)."""
        return self._write(graph_id, lambda: self._update(graph_id, fields))

    def drop(self, graph_id: str) -> Outcome:
        """Unload once the requests before the drop are answered."""
        return self._write(graph_id, lambda: self._drop(graph_id))

    def _write(self, graph_id: str, work: Callable[[], Awaitable[dict[str, Any]]]) -> Outcome:
        """Reserve the graph alone now (arrival order), run ``work`` when it is ours. The write
        runs to its end even when its client leaves (shielded): what was sent is applied."""
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
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return asyncio.shield(task)

    async def _load(self, request: LoadRequest, progress: Progress | None) -> dict[str, Any]:
        await self._wait_kernels()
        self.registry.check_room(request.graph_id)  # other ids may have come meanwhile
        loop = asyncio.get_running_loop()
        report = entries.threadsafe(loop, progress)
        writer = self._writers.of(request.graph_id)  # its first change then reuses what the load freed
        entry = await loop.run_in_executor(writer, entries.build_entry, request, report)
        self._check_memory(entry)
        self.registry.put(entry)
        answer: dict[str, Any] = {"id": entry.graph_id, "nodes": entry.graph.node_count}
        if entry.hierarchy is not None:
            answer["hierarchy"] = entry.hierarchy.describe()
        return answer

    def _check_memory(self, entry: GraphEntry) -> None:
        """``too_large`` when ``entry`` would take the loaded graphs past ``max_graph_bytes`` (the
        graph it replaces no longer counts); nothing is replaced then."""
        others = sum(
            entries.footprint(self.registry.get(i)) for i in self.registry.ids() if i != entry.graph_id
        )
        total, budget = others + entries.footprint(entry), self.limits.max_graph_bytes
        if total > budget:
            raise TooLargeError(
                f"graph.load_{entry.kind.name}: the loaded graphs would take about {total >> 20} MiB, "
                f"past the limit of {budget >> 20} MiB",
                {"limit": budget, "bytes": total},
            )

    async def _rebuild(self, graph_id: str, spec: HierarchySpec, progress: Progress | None) -> dict[str, Any]:
        entry = self.registry.get(graph_id)
        if not entry.kind.hierarchy:
            raise UnsupportedError(
                f"graph.build_hierarchy: a {entry.kind.name} graph has no hierarchy; only grids do",
                {"graph": graph_id},
            )
        validate_hierarchy(entry.graph, spec, "graph.build_hierarchy", graph_id)
        await self._wait_kernels()
        loop = asyncio.get_running_loop()
        state = HierarchyState(spec)
        self.registry.put(dataclasses.replace(entry, hierarchy=state))
        await loop.run_in_executor(
            None, entries.build_hierarchy, entry, state, entries.threadsafe(loop, progress)
        )
        return {"id": graph_id, "hierarchy": state.describe()}

    async def _update(self, graph_id: str, fields: Params) -> dict[str, Any]:
        entry = self.registry.get(graph_id)

        def apply() -> None:  # parsed on the thread too: a region's arrays are checked there
            entry.graph.apply(entry.kind.parse_update(fields, entry.graph))

        # only the change runs on a thread: the registry and the refill task are the loop's
        await asyncio.get_running_loop().run_in_executor(self._writers.of(graph_id), apply)
        return self._updated(entry)

    def _updated(self, entry: GraphEntry) -> dict[str, Any]:
        new = dataclasses.replace(entry, version=entry.version + 1)
        self.registry.put(new)
        if new.hierarchy is not None:
            self._start_refill(new.graph_id)
        return {"id": new.graph_id, "version": new.version}

    async def _drop(self, graph_id: str) -> dict[str, Any]:
        held = [self.registry.drop(graph_id)]
        self._writers.release(graph_id)
        # the last reference goes on a thread: freeing a big graph's objects takes a while
        await asyncio.get_running_loop().run_in_executor(None, held.clear)
        return {"id": graph_id}

    # -- table refills (time-boxed hierarchy updates) -----------------------------------------

    def _start_refill(self, graph_id: str) -> None:
        if graph_id not in self._refills:
            task = asyncio.ensure_future(self._refill(graph_id))
            self._refills[graph_id] = task
            task.add_done_callback(lambda _: self._refills.pop(graph_id, None))

    async def _refill(self, graph_id: str) -> None:
        """Refill, a slice at a time while nobody else wants the graph, the all-pairs table rows
        that a time-boxed update left stale; stops when none are left or the graph is gone."""
        loop = asyncio.get_running_loop()
        while True:
            lock = self.locks.get(graph_id)
            if not lock.try_write():
                await asyncio.sleep(REFILL_PAUSE)
                continue
            try:
                entry = self.registry.find(graph_id)
                if entry is None:
                    return
                more = await loop.run_in_executor(None, entry.graph.repair_pending, REFILL_SLICE)
            finally:
                lock.release_write()
                self._tidy(graph_id)
            if not more:
                return
            await asyncio.sleep(0)

    # -- queries ------------------------------------------------------------------------------

    def find(self, client: Hashable, raw: Any) -> Outcome:
        """One query: inline when its graph is free and it is small, else on a search thread."""
        return self._query(client, raw, self._parse_find)

    def _parse_find(self, raw: Any) -> Query:
        """:func:`parse_query` with this server's budgets (by position: a partial's keywords cost
        0.2 us a request more)."""
        return parse_query(raw, self.registry, self._cap, "path.find", default=self._default)

    def reachable(self, client: Hashable, raw: Any) -> Outcome:
        """Reachability from the hierarchy's components (no search: inline, unless a unit size's layer
        must be built first: then on a search thread)."""
        return self._query(client, raw, self._parse_reachable)

    def _query(self, client: Hashable, raw: Any, parse: Callable[[Any], Query]) -> Outcome:
        graph_id = raw.get("graph") if type(raw) is dict else None
        if type(graph_id) is not str:
            parse(raw)  # raises the request's error
            raise BadRequestError("a query names its graph with a 'graph' string")
        lock, warm = self.locks.get(graph_id), self._warm
        if warm is None or not warm.done() or not lock.try_read():
            return self._queued_query(client, graph_id, lock, lock.reserve_read(), raw, parse)
        return self._with_share(client, graph_id, lock, raw, parse)

    async def _queued_query(  # noqa: PLR0917 (the share's and the query's parts)
        self,
        client: Hashable,
        graph_id: str,
        lock: GraphLock,
        turn: asyncio.Future[None],
        raw: Any,
        parse: Callable[[Any], Query],
    ) -> dict[str, Any]:
        await lock.wait(turn, write=False)
        try:
            await self._wait_kernels()
        except BaseException:
            self._release_read(graph_id, lock)
            raise
        outcome = self._with_share(client, graph_id, lock, raw, parse)
        return await outcome if isinstance(outcome, Awaitable) else outcome

    def _with_share(
        self, client: Hashable, graph_id: str, lock: GraphLock, raw: Any, parse: Callable[[Any], Query]
    ) -> Outcome:
        """Holding a read share of the graph: parse, try inline, else hand the query to a search
        thread (which gives the share back when it is done)."""
        try:
            query = parse(raw)
            result = self._run_inline(query)
        except BaseException:
            self._release_read(graph_id, lock)
            raise
        if result is not None:
            lock.release_read()  # no _tidy: the query was just parsed, so its graph is loaded
            return result
        return self._pooled_one(client, query, lambda: self._release_read(graph_id, lock))

    def _run_inline(self, query: Query) -> dict[str, Any] | None:
        """The query's answer within its inline budget (:mod:`bridge.serving.inline`), or None when it
        needs more (or is guessed to) or its connection's slice of loop time is spent."""
        graph = self.registry.get(query.graph_id).graph
        if query.reachable:  # a size's first reachable builds its hierarchy layer: on a thread
            return run_query(graph, query) if graph.ready_for(query.options) else None
        if time.perf_counter() >= self._inline_until or not graph.ready_for(query.options):
            return None  # its slice is spent, or it would first build something map-sized
        result = self.inline.run(graph, query, self._alone)
        return None if result is None else self._capped(result)

    def _capped(self, answer: dict[str, Any]) -> dict[str, Any]:
        """``answer``, or ``too_large`` past ``max_answer_bytes`` (a path across a huge graph)."""
        nbytes = answer_bytes(answer)
        if nbytes > self.limits.max_answer_bytes:  # the budget only to raise its error
            AnswerBudget(self.limits.max_answer_bytes, "path.find").add(nbytes)
        return answer

    async def _pooled_one(
        self, client: Hashable, query: Query, release: Callable[[], None]
    ) -> dict[str, Any]:
        graph = self.registry.get(query.graph_id).graph
        answer, seconds = await self.scheduler.submit(
            client, functools.partial(run_timed, graph, query), on_done=release
        )
        return self._capped(self.inline.learned(graph, query, answer, seconds))

    def allow_inline_until(self, deadline: float, *, alone: bool = False) -> None:
        """Queries handled from now until ``deadline`` (``time.perf_counter()``) may run inline;
        ``alone``: with a hierarchical query's longer bound (:data:`bridge.serving.inline.ALONE_SECONDS`)."""
        self._inline_until, self._alone = deadline, alone

    def find_many(self, client: Hashable, items: list[Any]) -> BatchOutcome:
        """Many queries, in chunks on the search threads (see :class:`BatchRunner`)."""
        return self.batches.find_many(client, items)

    def find_packed(self, client: Hashable, raw: Any) -> BatchOutcome:
        """Many paths on one grid, in chunks on the search threads, a small hierarchical batch
        inline while its connection's slice lasts (see :class:`BatchRunner`)."""
        return self.batches.find_packed(client, raw, inline=self._inline_now)

    def _inline_now(self) -> bool:
        warm = self._warm
        return warm is not None and warm.done() and time.perf_counter() < self._inline_until

    def _release_read(self, graph_id: str, lock: GraphLock) -> None:
        lock.release_read()
        self._tidy(graph_id)

    def _tidy(self, graph_id: str) -> None:
        """Forget the idle lock of an id with no graph (ids probed by clients must not pile up);
        the lock of a loaded graph stays, one per graph."""
        if self.registry.find(graph_id) is None:
            self.locks.forget_idle(graph_id)
            self._writers.release(graph_id)  # a failed load's thread
            self.inline.forget(graph_id)

    def forget(self, client: Hashable) -> None:
        """Drop the queued chunks and queries of a client that went away."""
        if self._scheduler is not None:
            dropped = self._scheduler.forget(client)
            if dropped:
                log.info("dropped %d queued jobs of a client that left", dropped)
