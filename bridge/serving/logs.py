"""The sidecar's logging: records go through a bounded queue to one writer thread, so a stderr pipe
that nobody reads can cost log lines, never a stalled event loop.

    listener = start_logging(logging.INFO)
    logging.getLogger("bridge").info("never blocks")
    listener.stop()                    # waits at most a second for a blocked writer

When the queue is full a record is dropped and counted; the next line the writer manages to write
is preceded by one saying how many were lost.
"""

from __future__ import annotations

import contextlib
import logging
import logging.handlers
import queue
import sys
import threading
from typing import IO

__all__ = ["QUEUE_RECORDS", "DroppingQueueHandler", "LogListener", "start_logging"]

QUEUE_RECORDS = 1000
"""Records waiting for the writer thread at most; past it new ones are dropped (and counted)."""

FORMAT = "%(asctime)s %(name)s %(levelname)s %(message)s"


class DroppingQueueHandler(logging.handlers.QueueHandler):
    """A QueueHandler whose ``enqueue`` never blocks: a full queue drops the record and counts it."""

    def __init__(self, records: queue.Queue[logging.LogRecord]) -> None:
        super().__init__(records)
        self._lock = threading.Lock()
        self._dropped = 0

    def enqueue(self, record: logging.LogRecord) -> None:
        try:
            self.queue.put_nowait(record)
        except queue.Full:
            with self._lock:
                self._dropped += 1

    def take_dropped(self) -> int:
        """Records dropped since the last call."""
        with self._lock:
            dropped, self._dropped = self._dropped, 0
        return dropped


class _WriterHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Runs on the writer thread: writes each record, first reporting any dropped ones."""

    def __init__(self, stream: IO[str], source: DroppingQueueHandler) -> None:
        super().__init__(stream)
        self.source = source

    def emit(self, record: logging.LogRecord) -> None:
        dropped = self.source.take_dropped()
        if dropped:
            note = logging.LogRecord(
                "bridge.serving.logs", logging.WARNING, __file__, 0,
                "%d log lines were dropped: stderr was not read fast enough", (dropped,), None,
            )  # fmt: skip
            super().emit(note)
        super().emit(record)


class LogListener(logging.handlers.QueueListener):
    """QueueListener whose ``stop`` cannot hang on a writer blocked by a full pipe."""

    def stop(self, timeout: float = 1.0) -> None:
        """Ask the writer thread to finish and wait for it at most ``timeout`` seconds."""
        thread = self._thread
        if thread is None:
            return
        with contextlib.suppress(queue.Full):
            self.enqueue_sentinel()
        thread.join(timeout)
        self._thread = None


def start_logging(level: int, stream: IO[str] | None = None) -> LogListener:
    """Route the root logger through a bounded queue to a writer thread on ``stream`` (stderr).

    Args:
        level: the root level (e.g. ``logging.INFO``).
        stream: where lines go; default ``sys.stderr``.

    Returns:
        The started listener; ``stop()`` it at exit.
    """
    records: queue.Queue[logging.LogRecord] = queue.Queue(QUEUE_RECORDS)
    handler = DroppingQueueHandler(records)
    writer = _WriterHandler(stream if stream is not None else sys.stderr, handler)
    writer.setFormatter(logging.Formatter(FORMAT))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    listener = LogListener(records, writer)
    listener.start()
    return listener
