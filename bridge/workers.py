"""A pool of worker processes, each holding a replica of every graph, fed through one pipe each.

Invariants that make the pool correct:
- Each worker has one command pipe, written by one writer thread from a FIFO queue, read by the
  worker in order. Loads, updates and drops are broadcast to every queue in the order the event
  loop issues them, so a query issued after an update (on any worker) sees the update.
- A query batch goes to the worker with the fewest queries outstanding; a long search keeps only
  its own worker busy, and short ones from other clients go to the others.
- Futures live on the event loop; reader threads resolve them through ``call_soon_threadsafe``,
  so only the loop thread touches the pending tables.
- A hierarchy build is broadcast like a load, but one worker (the reporter) also gets a job id:
  it sends ``("progress", job_id, done, total)`` while building and answers the job when done.

    pool = WorkerPool(2); await pool.start()
    pool.broadcast(("load", "g", "grid", record, None, None))
    results = await pool.submit_many(queries)
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import multiprocessing
import pickle
import queue
import threading
from collections.abc import Awaitable, Callable
from typing import Any

from bridge.errors import InternalError
from bridge.queries import Query
from bridge.worker_main import worker_main

__all__ = ["WorkerPool"]

log = logging.getLogger("bridge.workers")

_STOP = pickle.dumps(("stop",))
_CHUNKS_PER_WORKER = 16
"""A find_many batch is cut into this many chunks per worker (small enough to balance the load,
large enough that the per-chunk pipe round trip stays negligible)."""

ProgressCallback = Callable[[int, int], None]


class _Worker:
    """One worker process with its command queue, writer thread and reader thread."""

    def __init__(self, index: int, pool: WorkerPool, log_level: int) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.index = index
        self.pool = pool
        self.conn, child = ctx.Pipe(duplex=True)
        self.process = ctx.Process(
            target=worker_main, args=(child, log_level), name=f"astar-worker-{index}", daemon=True
        )
        self.process.start()
        child.close()
        self.commands: queue.Queue[bytes] = queue.Queue()
        self.pending: dict[int, tuple[asyncio.Future[list[dict[str, Any]]], int]] = {}
        self.progress: dict[int, ProgressCallback] = {}
        self.load = 0
        self.alive = True
        self._writer = threading.Thread(target=self._write_loop, name=f"{self.process.name}-w", daemon=True)
        self._reader = threading.Thread(target=self._read_loop, name=f"{self.process.name}-r", daemon=True)
        self._writer.start()
        self._reader.start()

    def _write_loop(self) -> None:
        while True:
            data = self.commands.get()
            try:
                self.conn.send_bytes(data)
            except OSError:
                return
            if data is _STOP:
                return

    def _read_loop(self) -> None:
        loop = self.pool.loop
        while True:
            try:
                message = self.conn.recv()
            except (EOFError, OSError):
                loop.call_soon_threadsafe(self._on_exit)
                return
            if message[0] == "progress":
                loop.call_soon_threadsafe(self._report, *message[1:])
            else:
                loop.call_soon_threadsafe(self._resolve, *message)

    def _report(self, job_id: int, done: int, total: int) -> None:
        callback = self.progress.get(job_id)
        if callback is not None:
            try:
                callback(done, total)
            except Exception:  # a gone connection must not stop the reader
                log.exception("progress callback of job %d failed", job_id)

    def _resolve(self, job_id: int, results: list[dict[str, Any]]) -> None:
        self.progress.pop(job_id, None)
        future, weight = self.pending.pop(job_id)
        self.load -= weight
        if not future.done():
            future.set_result(results)

    def _on_exit(self) -> None:
        self.alive = False
        if self.pending and not self.pool.closing:
            log.error("worker %d exited with %d batches pending", self.index, len(self.pending))
        for future, _ in self.pending.values():
            if not future.done():
                future.set_exception(InternalError("a worker process exited during the search"))
        self.pending.clear()
        self.progress.clear()
        self.load = 0

    def submit(self, job_id: int, queries: list[Query]) -> asyncio.Future[list[dict[str, Any]]]:
        future: asyncio.Future[list[dict[str, Any]]] = self.pool.loop.create_future()
        self.pending[job_id] = (future, len(queries))
        self.load += len(queries)
        self.commands.put(pickle.dumps(("find", job_id, queries)))
        return future

    def stop(self, timeout: float) -> None:
        self.commands.put(_STOP)
        self.process.join(timeout)
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(timeout)
        self.conn.close()


class WorkerPool:
    """``count`` worker processes sharing the searches, each with a replica of every graph.

    Args:
        count: number of worker processes (at least 1).
        log_level: logging level inside the workers.
    """

    def __init__(self, count: int, *, log_level: int = logging.WARNING) -> None:
        if count < 1:
            raise ValueError(f"a pool needs at least one worker, got {count}")
        self.count = count
        self.log_level = log_level
        self.closing = False
        self._workers: list[_Worker] = []
        self._jobs = itertools.count(1)
        self.loop: asyncio.AbstractEventLoop

    async def start(self) -> None:
        """Spawn the workers (off the loop: spawning imports numpy in each child)."""
        self.loop = asyncio.get_running_loop()
        self._workers = await asyncio.to_thread(
            lambda: [_Worker(i, self, self.log_level) for i in range(self.count)]
        )

    def broadcast(self, command: tuple[Any, ...]) -> None:
        """Queue a load/update/drop for every worker, after everything already queued."""
        data = pickle.dumps(command, protocol=pickle.HIGHEST_PROTOCOL)
        for worker in self._workers:
            if worker.alive:
                worker.commands.put(data)

    def broadcast_acked(self, command: Callable[[int], tuple[Any, ...]]) -> Awaitable[list[Any]]:
        """Queue ``command(job_id)`` for every live worker, each with a job id of its own, after
        everything already queued; the awaitable completes once every one of them has answered."""
        futures: list[asyncio.Future[list[dict[str, Any]]]] = []
        for worker in self._workers:
            if worker.alive:
                job_id = next(self._jobs)
                future: asyncio.Future[list[dict[str, Any]]] = self.loop.create_future()
                worker.pending[job_id] = (future, 0)
                worker.commands.put(pickle.dumps(command(job_id), protocol=pickle.HIGHEST_PROTOCOL))
                futures.append(future)
        return asyncio.gather(*futures)

    def broadcast_build(
        self, command: Callable[[int | None], tuple[Any, ...]], progress: ProgressCallback | None = None
    ) -> asyncio.Future[list[dict[str, Any]]]:
        """Broadcast ``command(job_id)`` to the least busy worker (the reporter), ``command(None)``
        to the others; the future gives the reporter's answer, ``progress`` gets its reports."""
        reporter = self._least_busy()
        job_id = next(self._jobs)
        future: asyncio.Future[list[dict[str, Any]]] = self.loop.create_future()
        reporter.pending[job_id] = (future, 0)
        if progress is not None:
            reporter.progress[job_id] = progress
        tracked = pickle.dumps(command(job_id), protocol=pickle.HIGHEST_PROTOCOL)
        silent = pickle.dumps(command(None), protocol=pickle.HIGHEST_PROTOCOL)
        for worker in self._workers:
            if worker.alive:
                worker.commands.put(tracked if worker is reporter else silent)
        return future

    def _least_busy(self) -> _Worker:
        alive = [w for w in self._workers if w.alive]
        if not alive:
            raise InternalError("no worker process is running")
        return min(alive, key=lambda w: w.load)

    def submit(self, queries: list[Query]) -> asyncio.Future[list[dict[str, Any]]]:
        """Send one batch to the least busy worker; the future gives one result map per query."""
        return self._least_busy().submit(next(self._jobs), queries)

    async def submit_many(self, queries: list[Query]) -> list[dict[str, Any]]:
        """Spread a batch over the workers; results come back in query order.

        The batch is cut into small chunks fed as workers finish (two in flight per worker), so a
        worker that drew slow queries does not leave the others idle at the end.
        """
        if not queries:
            return []
        size = -(-len(queries) // (_CHUNKS_PER_WORKER * self.count))  # ceil, >= 1
        starts = iter(range(0, len(queries), size))
        parts: dict[int, list[dict[str, Any]]] = {}
        running: dict[asyncio.Future[list[dict[str, Any]]], int] = {}

        def feed() -> None:
            begin = next(starts, None)
            if begin is not None:
                running[self.submit(queries[begin : begin + size])] = begin

        for _ in range(2 * self.count):
            feed()
        while running:
            done, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
            for future in done:
                parts[running.pop(future)] = future.result()  # a worker's death raises here
                feed()
        return [result for begin in sorted(parts) for result in parts[begin]]

    def outstanding(self) -> list[int]:
        """Queries outstanding per worker (for logs and tests)."""
        return [w.load for w in self._workers]

    async def close(self, timeout: float = 5.0) -> None:
        """Stop every worker (a stuck one is terminated after ``timeout`` seconds)."""
        self.closing = True
        await asyncio.gather(*(asyncio.to_thread(w.stop, timeout) for w in self._workers))
