"""Batches on the search threads: ``path.find_many`` and ``path.find_packed`` cut into pieces that
clients' turns interleave on the :class:`~bridge.serving.scheduler.FairScheduler`, holding their
graphs' read shares until the last piece is done.

    runner = BatchRunner(limits, registry, locks, threads=2, scheduler=lambda: scheduler,
                         ready=wait_kernels, release=release_read)
    answer = await runner.find_many(client, [{"graph": "g", "start": [0, 0], "goal": [3, 2]}])

Each answer is counted against ``max_answer_bytes`` while its pieces are built (``too_large`` past
it, the pieces not started yet skipped); a large one is joined and encoded on a thread.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import time
from collections.abc import Awaitable, Callable, Hashable
from typing import Any

from bridge.methods.interface import BatchOutcome
from bridge.methods.registry import Registry
from bridge.serving.batches import run_chunk
from bridge.serving.graph_lock import GraphLock, GraphLocks
from bridge.serving.inline import TIMED_CELLS
from bridge.serving.packed import (
    PackedBatch,
    check_packed,
    join_packed,
    packed_message,
    packed_pieces,
    parse_packed,
    run_packed_chunk,
)
from bridge.serving.scheduler import FairScheduler
from bridge.wire.answers import PACK_OFF_LOOP_BYTES, AnswerBudget, Encoded, InFlight
from bridge.wire.errors import TooLargeError, UnknownGraphError
from bridge.wire.protocol import Limits
from bridge.wire.stream import pack
from python_core import QueryOptions
from python_core.navigation.grid import GridNavigator
from python_core.navigation.navmesh import NavMeshNavigator

__all__ = ["CHUNK_QUERIES", "LOOP_LEAD", "PACKED_CHUNK", "PACKED_INLINE", "SUBMIT_AT_ONCE", "BatchRunner"]

CHUNK_QUERIES = 32
"""Queries per scheduler job of a ``path.find_many``, at most: small enough that another client's
query waits little for a free thread, large enough that the hop per chunk is negligible."""

PACKED_CHUNK = 64
"""Queries per scheduler job of a ``path.find_packed``: its per-query cost is mostly the search, so
chunks may be larger than ``path.find_many``'s and still short."""

PACKED_INLINE = 16
"""Queries a hierarchical ``path.find_packed`` may hold to run on the event loop (its grid free and
of :data:`~bridge.serving.inline.TIMED_CELLS` cells or fewer, its connection's slice of loop time
not spent): as many as fit one :data:`~bridge.serving.connection.SLICE_SECONDS` slice at the
slowest single hierarchical query's time, 30-250 us each on a 512 x 512 map. Cut into pieces,
such a batch paid twice the batch search's set-up (about 100 us a piece) and a hop: 9-16 queries
on brc202d took 660-810 us through the socket, 290-420 us here."""

LOOP_HELP_SECONDS = 0.002
"""How long the event loop may run pieces of a small-grid hierarchical ``path.find_packed`` itself
(it starts one more while under it) rather than wait for the search threads to take them."""

LOOP_LEAD = 0.3
"""How much more work than each other piece the last piece of a packed batch gets when the event
loop runs it (:meth:`BatchRunner._help`), as a share of one piece: the loop starts on it at once,
while a thread woken for the first starts 0.1-0.3 ms later on this project's 2-core VM, and when
the thread finishes last the loop must be woken for it too (another 0.1-0.2 ms before the
answer leaves). On brc202d's 100 scenario queries (two pieces) the packed HPA* request fell from
about 2.3 to 2.1 ms (bench/bridge_speed.py, interleaved runs)."""

SUBMIT_AT_ONCE = 256
"""Pieces of one batch queued for the search threads per turn of the event loop."""


class BatchRunner:
    """The batch methods of :class:`~bridge.serving.local.LocalServing`, over its graphs and threads.

    Args:
        limits: the server's limits (batch size, expansion cap, answer bytes).
        registry: the loaded graphs.
        locks: one readers-writer lock per graph id.
        threads: search threads (a packed batch is cut into a multiple of them).
        scheduler: the search threads' scheduler (made when the serving layer starts).
        ready: waits until the compiled kernels are loaded.
        release: gives a read share of a graph back.
    """

    def __init__(
        self,
        limits: Limits,
        registry: Registry,
        locks: GraphLocks,
        *,
        threads: int,
        scheduler: Callable[[], FairScheduler],
        ready: Callable[[], Awaitable[None]],
        release: Callable[[str, GraphLock], None],
    ) -> None:
        self.limits, self.registry, self.locks, self.threads = limits, registry, locks, threads
        self._scheduler, self._ready, self._release = scheduler, ready, release
        self._building = InFlight(limits.max_answer_bytes)  # every batch answer being built, together

    def find_many(self, client: Hashable, items: list[Any]) -> BatchOutcome:
        """Reserve a read share of every graph the batch names (now, in arrival order), then
        validate each query and run them in chunks on the search threads."""
        if len(items) > self.limits.max_batch:
            raise TooLargeError(
                f"path.find_many: {len(items)} queries exceed the limit of {self.limits.max_batch}",
                {"limit": self.limits.max_batch},
            )
        named: set[str] = set()
        for item in items:
            graph_id = item.get("graph") if isinstance(item, dict) else None
            if isinstance(graph_id, str):
                named.add(graph_id)
        held = sorted(g for g in named if self.registry.find(g) is not None or self.locks.busy(g))
        reservations = [(g, lock, lock.reserve_read()) for g, lock in ((g, self.locks.get(g)) for g in held)]
        # Each chunk is validated and run on a search thread: a batch of 100,000 queries does not
        # hold the event loop for its parsing either. The registry only changes under a write,
        # which waits for these read shares.
        budget = AnswerBudget(self.limits.max_answer_bytes, "path.find_many", self._building)
        chunk = functools.partial(
            run_chunk,
            items,
            registry=self.registry,
            shared=set(held),  # graphs loaded later are not ours to read
            cap=self.limits.max_expansions,
            default=self.limits.default_expansions,
            budget=budget,
        )
        # at most CHUNK_QUERIES each, as many as a multiple of the search threads, of equal counts:
        # 100 queries are 4 x 25, not 32 + 32 + 32 + 4 (which left one thread 64 and the other 36)
        count = -(-len(items) // CHUNK_QUERIES)
        count = -(-count // self.threads) * self.threads
        cuts = [len(items) * k // count for k in range(count + 1)]
        pieces = [range(lo, hi) for lo, hi in itertools.pairwise(cuts) if hi > lo]
        return self._chunked(client, lambda: pieces, chunk, _joined_results, reservations, budget=budget)

    def find_packed(
        self, client: Hashable, raw: Any, *, inline: Callable[[], bool] = lambda: False
    ) -> BatchOutcome:
        """Reserve a read share of the batch's grid (now, in arrival order), then run it in chunks
        on the search threads (``PACKED_CHUNK`` queries each); or, when ``inline()`` allows it and
        the grid is free, a small hierarchical batch at once on the event loop (:meth:`_inline`).
        A larger hierarchical batch on a grid of :data:`~bridge.serving.inline.TIMED_CELLS` cells
        or fewer that ``inline()`` allows has the loop run the pieces no thread has started yet
        (:meth:`_help`): a thread woken on a busy machine may start a time slice later."""
        batch = parse_packed(raw, self.limits.max_batch)
        graph_id = batch.graph_id
        if self.registry.find(graph_id) is None and not self.locks.busy(graph_id):
            raise UnknownGraphError(graph_id)
        cap, default = self.limits.max_expansions, self.limits.default_expansions
        if batch.hierarchical and len(batch) <= PACKED_INLINE and inline():
            lock = self.locks.get(graph_id)
            if lock.try_read():
                try:
                    answer = self._inline(batch, cap, default)
                finally:
                    self._release(graph_id, lock)
                if answer is not None:
                    return answer
        held = [graph_id]
        reservations = [(g, lock, lock.reserve_read()) for g, lock in ((g, self.locks.get(g)) for g in held)]
        budget = AnswerBudget(self.limits.max_answer_bytes, "path.find_packed", self._building)
        chunk = functools.partial(
            run_packed_chunk,
            batch,
            registry=self.registry,
            shared=set(held),
            budget=budget,
            cap=cap,
            default=default,
        )
        # as few pieces as PACKED_CHUNK allows, a multiple of the search threads, of about equal work
        # (a piece that finishes late leaves a thread idle: scenario files list short paths first)
        most = PACKED_CHUNK if batch.hierarchical else CHUNK_QUERIES  # exact queries run longer
        count = -(-len(batch) // most)
        count = -(-count // self.threads) * self.threads

        helps = [batch.hierarchical and inline()]  # decided in the request's slice of the loop

        def split() -> list[range]:  # under the read share: the graph and options are the request's
            nav, options, hierarchical, _ = check_packed(batch, self.registry, cap=cap, default=default)
            helps[0] = helps[0] and _loop_may_search(nav, options, hierarchical)
            # the loop runs the last piece itself, from now; a thread starts its own later
            return packed_pieces(batch, count, self.registry, LOOP_LEAD if helps[0] else 0.0)

        return self._chunked(
            client, split, chunk, join_packed, reservations, budget=budget, helps=lambda: helps[0],
            written=_packed_written,
        )  # fmt: skip

    def _inline(self, batch: PackedBatch, cap: int, default: int | None) -> Encoded | None:
        """The answer of a small hierarchical batch, searched here (holding a read share of its
        grid), when the grid has :data:`~bridge.serving.inline.TIMED_CELLS` cells or fewer and
        its structures are built for the options (None: it goes to the search threads). Its
        hop to a search thread and back cost more than its search: two wake-ups, each a
        scheduler's time slice on a busy machine."""
        nav, options, hierarchical, _ = check_packed(batch, self.registry, cap=cap, default=default)
        if not _loop_may_search(nav, options, hierarchical):
            return None
        budget = AnswerBudget(self.limits.max_answer_bytes, "path.find_packed", self._building)
        try:
            part = run_packed_chunk(
                batch, range(len(batch)), registry=self.registry, shared={batch.graph_id},
                budget=budget, cap=cap, default=default,
            )  # fmt: skip
            return _packed_written([part])
        finally:
            budget.release()

    async def _chunked(
        self,
        client: Hashable,
        split: Callable[[], list[range]],
        chunk: Callable[[range], Any],
        join: Callable[[list[Any]], dict[str, Any]],
        reservations: list[tuple[str, GraphLock, asyncio.Future[None]]],
        *,
        budget: AnswerBudget,
        helps: Callable[[], bool] = lambda: False,
        written: Callable[[list[Any]], Encoded] | None = None,
    ) -> dict[str, Any] | Encoded:
        """Run ``chunk`` over each of the consecutive ranges ``split()`` gives (called once the read
        shares are granted, so it may read the graphs) on the search threads (with ``helps()``, the
        loop runs some: :meth:`_pieces`), holding the shares until the last piece is done; ``join``
        their answers in order. The chunks count their answers in ``budget``: past it the request
        is ``too_large`` (the pieces not started yet skip their work), and a large answer is joined
        and encoded on a thread. ``written``, when given, makes the answer of the parts as the bytes
        it is written as, here (a packed batch's arrays: nothing to join or encode)."""
        granted: list[tuple[str, GraphLock]] = []
        try:
            for graph_id, lock, turn in reservations:
                await lock.wait(turn, write=False)
                granted.append((graph_id, lock))
            await self._ready()
            pieces = split()
        except BaseException:
            for graph_id, lock in granted:
                self._release(graph_id, lock)
            for _, lock, turn in reservations[len(granted) :]:
                lock.give_up(turn, write=False)
            raise
        if not pieces:
            for graph_id, lock in granted:
                self._release(graph_id, lock)
            return join([])
        left = [len(pieces)]

        def piece_done() -> None:
            left[0] -= 1
            if left[0] == 0:
                for graph_id, lock in granted:
                    self._release(graph_id, lock)

        def run(piece: range) -> Any:
            # Another piece passed a cap: this one's answer would be dropped. Skipped, not raised:
            # thousands of raised pieces left as many tracebacks, frames and futures in reference
            # cycles, and the collector walking them held the GIL (and the loop) for 0.3-1.2 s.
            return None if budget.exceeded else chunk(piece)

        try:
            parts = await self._pieces(
                client, [functools.partial(run, piece) for piece in pieces], piece_done,
                helps=len(pieces) > 1 and helps(),
            )  # fmt: skip
            budget.check()  # a cap passed: the skipped pieces gave None
            if written is not None:
                return written(parts)
            if budget.total <= PACK_OFF_LOOP_BYTES:
                return join(parts)
            return await asyncio.get_running_loop().run_in_executor(None, _encoded, join, parts)
        finally:  # sent (once the caller writes it) or refused: no longer under construction
            budget.release()

    def _help(self, client: Hashable, futures: list[asyncio.Future[Any]], done: Callable[[], None]) -> None:
        """Run queued jobs of ``futures`` here, the last first (the threads take the first), while
        the loop has spent less than :data:`LOOP_HELP_SECONDS` on them: the loop is awake, and a
        thread woken on a busy machine may start a time slice later. A job a thread has taken is
        left to it; each one run here settles its future and calls ``done``."""
        scheduler = self._scheduler()
        until = time.perf_counter() + LOOP_HELP_SECONDS
        for future in reversed(futures):  # the last always: no thread was woken for it
            job = scheduler.withdraw(client, future)
            if job is None:
                continue
            try:
                future.set_result(job())
            except Exception as exc:  # the batch's error, raised by _pieces as a thread's would be
                future.set_exception(exc)
                return
            finally:
                done()
            if time.perf_counter() >= until:
                return

    async def _pieces(
        self,
        client: Hashable,
        jobs: list[Callable[[], Any]],
        done: Callable[[], None],
        *,
        helps: bool = False,
    ) -> list[Any]:
        """Queue ``jobs`` (``SUBMIT_AT_ONCE`` per turn of the loop) and give their values in order,
        or raise the first failure with the rest dropped; ``done`` is called once for each job.
        With ``helps``, the loop then takes back queued jobs, last first, and runs them itself
        while it has spent less than :data:`LOOP_HELP_SECONDS` on them (:meth:`_help`).

        Waited for with ``asyncio.wait``, not ``gather``: gather's callbacks and futures form one
        reference cycle per batch, thousands of objects left for the collector."""
        futures: list[asyncio.Future[Any]] = []
        finished: list[tuple[Any] | None] = [None] * len(jobs)  # a job's value once it has returned
        try:
            for i, job in enumerate(jobs):  # with helps the loop takes the last back at once
                wake = not (helps and i == len(jobs) - 1)
                futures.append(self._scheduler().submit(client, _noting(job, finished, i), done, wake=wake))
                if len(futures) % SUBMIT_AT_ONCE == 0:  # 3,000 pieces held the loop 40-60 ms
                    await asyncio.sleep(0)
            if helps:
                self._help(client, futures, done)
            # a job a thread has finished is not waited for: its future is settled a turn or
            # two of the loop later (the loop wakes, settles it, wakes this task), 30-90 us of
            # a 100-query HPA* batch whose other piece the loop searched meanwhile
            waiting = [f for f, got in zip(futures, finished, strict=True) if got is None and not f.done()]
            if waiting:
                await asyncio.wait(waiting, return_when=asyncio.FIRST_EXCEPTION)
            failed = [f for f in futures if f.done() and not f.cancelled() and f.exception() is not None]
            if not failed:
                return [
                    value[0] if value is not None else future.result()
                    for future, value in zip(futures, finished, strict=True)
                ]
            error = failed[0].exception()
        except BaseException:
            _drop_jobs(futures, len(jobs), done)
            raise
        _drop_jobs(futures, len(jobs), done)
        failed.clear()  # the error's traceback holds this frame: it must not hold the futures (a cycle)
        try:
            raise error  # type: ignore[misc]  # not None: its future failed
        finally:
            del error


def _loop_may_search(
    nav: GridNavigator | NavMeshNavigator, options: QueryOptions, hierarchical: bool
) -> bool:
    """Whether the event loop may search a packed batch itself (all of a small one, or the pieces
    no thread has started of a larger one): hierarchical, on a grid of
    :data:`~bridge.serving.inline.TIMED_CELLS` cells or fewer whose structures are built for the
    options (else the loop could meet a map-sized build)."""
    small = isinstance(nav, GridNavigator) and nav.node_count <= TIMED_CELLS
    return hierarchical and small and nav.ready_for(options)


def _noting(job: Callable[[], Any], finished: list[tuple[Any] | None], at: int) -> Callable[[], Any]:
    """``job``, noting its value in ``finished[at]`` as it returns (on whichever thread runs it)."""

    def run() -> Any:
        value = job()
        finished[at] = (value,)
        return value

    return run


def _drop_jobs(futures: list[asyncio.Future[Any]], count: int, done: Callable[[], None]) -> None:
    """The jobs of a failed batch: those still queued never run, and ``done`` is called for those
    never queued (``count`` in all); the list is emptied."""
    for future in futures:
        future.cancel()
    for _ in range(count - len(futures)):
        done()
    futures.clear()


def _encoded(join: Callable[[list[Any]], dict[str, Any]], parts: list[Any]) -> Encoded:
    """The answer ``join`` makes of ``parts``, encoded, on a thread; the parts go as soon as it is."""
    data = pack(join(parts))
    parts.clear()
    return Encoded(data)


def _packed_written(parts: list[dict[str, Any]]) -> Encoded:
    """A ``path.find_packed`` answer as the pieces it is written as: the parts' arrays themselves."""
    return Encoded(packed_message(parts))


def _joined_results(parts: list[list[dict[str, Any]]]) -> dict[str, Any]:
    """The ``path.find_many`` answer of its chunks' answers, in order."""
    return {"results": [result for part in parts for result in part]}
