"""A readers-writer lock per graph id that grants in arrival order, on the event loop.

Queries read a graph, loads, updates, drops and table refills write it. Access is granted strictly
in the order it was asked for (a query asked after an update waits for it and sees it; an update
waits for the queries asked before it), readers next to each other in the queue share the graph.
Asking is synchronous (``try_read`` / ``reserve_*`` never await), so the order is the order in which
the session saw the requests, whatever the tasks do later.

    locks = GraphLocks()
    lock = locks.get("level")
    if not lock.try_read():            # free: read at once, no task, no future
        await lock.reserve_read()
    ...; lock.release_read()
"""

from __future__ import annotations

import asyncio
from collections import deque
from dataclasses import dataclass

__all__ = ["GraphLock", "GraphLocks"]


@dataclass(slots=True)
class _Waiter:
    write: bool
    future: asyncio.Future[None]


class GraphLock:
    """FIFO readers-writer lock; only the event-loop thread touches it."""

    def __init__(self) -> None:
        self.readers = 0
        self.writing = False
        self._queue: deque[_Waiter] = deque()

    @property
    def idle(self) -> bool:
        """Nobody holds or waits for it."""
        return not self.readers and not self.writing and not self._queue

    @property
    def waiting(self) -> int:
        """Requests queued behind the holders."""
        return len(self._queue)

    def try_read(self) -> bool:
        """Take a read share now if that keeps arrival order (no writer holds or waits)."""
        if self.writing or self._queue:
            return False
        self.readers += 1
        return True

    def try_write(self) -> bool:
        """Take the graph alone now if nobody holds or waits for it."""
        if not self.idle:
            return False
        self.writing = True
        return True

    def reserve_read(self) -> asyncio.Future[None]:
        """A future done when this reader's turn comes (already done when it is now)."""
        return self._reserve(write=False)

    def reserve_write(self) -> asyncio.Future[None]:
        """A future done when this writer holds the graph alone (already done when it is now)."""
        return self._reserve(write=True)

    def _reserve(self, *, write: bool) -> asyncio.Future[None]:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        free = not self._queue and not self.writing and (not write or not self.readers)
        if free:
            self._hold(write)
            future.set_result(None)
        else:
            self._queue.append(_Waiter(write, future))
        return future

    def _hold(self, write: bool) -> None:
        if write:
            self.writing = True
        else:
            self.readers += 1

    def release_read(self) -> None:
        """Give back one read share."""
        if self.readers < 1:
            raise RuntimeError("release_read without a read share")
        self.readers -= 1
        self._grant()

    def release_write(self) -> None:
        """Give back the write hold."""
        if not self.writing:
            raise RuntimeError("release_write without the write hold")
        self.writing = False
        self._grant()

    async def wait(self, turn: asyncio.Future[None], *, write: bool) -> None:
        """Await a reservation; when the waiting task is cancelled (its client went away), give
        the turn back, whether it had come already or not, so nobody behind it waits forever."""
        try:
            await turn
        except asyncio.CancelledError:
            self.give_up(turn, write=write)
            raise

    def give_up(self, turn: asyncio.Future[None], *, write: bool) -> None:
        """Return a reservation nobody will use: released when granted, else left in the queue
        cancelled (skipped when its turn comes) and the queue moved on."""
        if turn.done() and not turn.cancelled():
            if write:
                self.release_write()
            else:
                self.release_read()
        else:
            turn.cancel()
            self._grant()

    def _grant(self) -> None:
        """Wake the queue's head: one writer when the graph is free, or every reader up to the
        next writer when no writer holds it. Cancelled waiters (gone clients) are skipped."""
        queue = self._queue
        while queue and not self.writing:
            head = queue[0]
            if head.future.cancelled():
                queue.popleft()
                continue
            if head.write and self.readers:
                return
            queue.popleft()
            self._hold(head.write)
            head.future.set_result(None)
            if head.write:
                return


class GraphLocks:
    """One :class:`GraphLock` per graph id, made on first use and forgotten when idle."""

    def __init__(self) -> None:
        self._locks: dict[str, GraphLock] = {}

    def get(self, graph_id: str) -> GraphLock:
        """The lock of ``graph_id`` (new and free when nobody used it lately)."""
        lock = self._locks.get(graph_id)
        if lock is None:
            lock = self._locks[graph_id] = GraphLock()
        return lock

    def forget_idle(self, graph_id: str) -> None:
        """Drop the lock of ``graph_id`` when nobody holds or waits for it (ids probed by clients
        must not pile up)."""
        lock = self._locks.get(graph_id)
        if lock is not None and lock.idle:
            del self._locks[graph_id]

    def busy(self, graph_id: str) -> bool:
        """Someone holds or waits for ``graph_id`` (a load of a new id may be under way)."""
        lock = self._locks.get(graph_id)
        return lock is not None and not lock.idle

    def __len__(self) -> int:
        return len(self._locks)
