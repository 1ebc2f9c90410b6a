"""Search threads that take clients in turn: one client's big batch cannot starve another's query.

Each client has a FIFO of jobs; a free thread takes the next job of the next client that has one
(round robin), so with two threads and a client holding 1,000 queued chunks, another client's
single query waits at most for the chunks already running. The kernels release the GIL, so the
threads search in parallel on every core while the event loop keeps serving.

    scheduler = FairScheduler(2, loop)
    answer = await scheduler.submit("client-a", sum, [1, 2])
    scheduler.forget("client-a")       # the client left: its queued jobs are dropped
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections import OrderedDict, deque
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

__all__ = ["FairScheduler"]

log = logging.getLogger("bridge.scheduler")


@dataclass(slots=True)
class _Job:
    run: Callable[[], Any]
    future: asyncio.Future[Any]
    on_done: Callable[[], None] | None


class FairScheduler:
    """``threads`` daemon threads running jobs submitted from the event loop ``loop``.

    Args:
        threads: how many jobs run at once (at least 1; the CPU count is the natural choice).
        loop: the event loop whose futures the jobs resolve.
    """

    def __init__(self, threads: int, loop: asyncio.AbstractEventLoop) -> None:
        if threads < 1:
            raise ValueError(f"a scheduler needs at least one thread, got {threads}")
        self.loop = loop
        self._ready = threading.Condition()
        self._queues: OrderedDict[Hashable, deque[_Job]] = OrderedDict()
        self._closing = False
        self.running = 0
        self._threads = [
            threading.Thread(target=self._serve, name=f"astar-search-{i}", daemon=True)
            for i in range(threads)
        ]
        for thread in self._threads:
            thread.start()

    @property
    def threads(self) -> int:
        """How many jobs may run at once."""
        return len(self._threads)

    def queued(self) -> int:
        """Jobs waiting for a thread (for logs and tests)."""
        with self._ready:
            return sum(len(q) for q in self._queues.values())

    def submit(
        self,
        client: Hashable,
        run: Callable[[], Any],
        on_done: Callable[[], None] | None = None,
        *,
        wake: bool = True,
    ) -> asyncio.Future[Any]:
        """Queue ``run()`` behind ``client``'s earlier jobs; the future gives its value or error.
        Cancelling the future before a thread takes the job means it never runs. ``on_done`` is
        called once on the loop when the job has finished or will never run: what a job reads
        (a graph under a read share) must stay untouched until then, even if nobody awaits it.
        ``wake=False`` wakes no idle thread for it (a busy one takes it when free): for a job the
        caller means to :meth:`withdraw` at once, unless a thread has taken it meanwhile."""
        future: asyncio.Future[Any] = self.loop.create_future()
        with self._ready:
            if self._closing:
                raise RuntimeError("the scheduler is closed")
            queue = self._queues.get(client)
            if queue is None:
                queue = self._queues[client] = deque()
            queue.append(_Job(run, future, on_done))
            if wake:
                self._ready.notify()
        return future

    def withdraw(self, client: Hashable, future: asyncio.Future[Any]) -> Callable[[], Any] | None:
        """Take back ``client``'s queued job of ``future`` before a thread starts it: its function,
        for the caller to run and settle (its future and ``on_done`` are then the caller's), or
        None when a thread has taken it (or it was dropped). Looks at the queue's last job first."""
        with self._ready:
            queue = self._queues.get(client)
            if not queue:
                return None
            at = next((i for i in range(len(queue) - 1, -1, -1) if queue[i].future is future), None)
            if at is None:
                return None
            job = queue[at]
            del queue[at]
            if not queue:
                del self._queues[client]
            return job.run

    def forget(self, client: Hashable) -> int:
        """Drop ``client``'s queued jobs (running ones finish); returns how many were dropped.
        Call it on the event loop: the dropped futures are cancelled."""
        with self._ready:
            queue = self._queues.pop(client, None)
        for job in queue or ():
            _drop(job)
        return len(queue or ())

    def _take(self) -> _Job | None:
        """The next job, clients in turn; None when closing. Holds ``_ready``."""
        while True:
            while self._queues:
                client, queue = next(iter(self._queues.items()))
                job = queue.popleft()
                if queue:
                    self._queues.move_to_end(client)  # its next job waits for the others' turn
                else:
                    del self._queues[client]
                if not job.future.cancelled():  # read across threads: at worst a dropped job runs
                    return job
                if job.on_done is not None:
                    self.loop.call_soon_threadsafe(job.on_done)
            if self._closing:
                return None
            self._ready.wait()

    def _serve(self) -> None:
        while True:
            with self._ready:
                job = self._take()
                if job is None:
                    return
                self.running += 1
            try:
                value, error = job.run(), None
            except BaseException as exc:  # every failure goes back to the awaiting request
                value, error = None, exc
            finally:
                with self._ready:
                    self.running -= 1
            try:
                self.loop.call_soon_threadsafe(_settle, job, value, error)
            except RuntimeError:  # the loop is closed: nobody waits any more
                return

    def close(self, timeout: float = 5.0) -> None:
        """Stop taking jobs, cancel the queued ones, wait up to ``timeout`` s for running ones."""
        with self._ready:
            self._closing = True
            dropped = [job for queue in self._queues.values() for job in queue]
            self._queues.clear()
            self._ready.notify_all()
        for job in dropped:
            _drop(job)
        for thread in self._threads:
            thread.join(timeout)


def _settle(job: _Job, value: Any, error: BaseException | None) -> None:
    future = job.future
    if not future.done():  # else cancelled meanwhile: the client left
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(value)
    if job.on_done is not None:
        job.on_done()


def _drop(job: _Job) -> None:
    """A job that will never run: cancel it and tell its owner (on the loop)."""
    job.future.cancel()
    if job.on_done is not None:
        job.on_done()
