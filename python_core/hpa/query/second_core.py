"""A second core for one HPA* query: two independent halves of its work run at the same time.

Quick start::

    from python_core.hpa.query.second_core import both
    head, tail = both(lambda: insert(start), lambda: insert(goal))   # the first on the helper thread

A lone query on a large map spends most of its time in compiled kernels that release the GIL
(``nogil``): its two endpoint insertions, and the refinement of its chain of transitions, whose
halves are independent. One helper thread takes the first half while the caller does the
second. While the helper works for one query, another query runs both halves itself: the helper
never queues work, so a query never waits behind another one's.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from python_core.compiled import JIT_ENABLED

__all__ = ["ENABLED", "both"]

T = TypeVar("T")
U = TypeVar("U")

ENABLED = JIT_ENABLED and (os.cpu_count() or 1) > 1 and os.environ.get("ASTAR_QUERY_HELPER") != "0"
"""Whether :func:`both` uses the helper thread: only compiled kernels release the GIL, and on one
core the halves would only take turns. ``ASTAR_QUERY_HELPER=0`` turns it off (a game that keeps
every core busy with queries of its own gains nothing from it)."""

_BUSY = threading.Lock()  # held while the helper works for some query
_MADE = threading.Lock()  # guards the helper's creation
_helper: ThreadPoolExecutor | None = None


def _executor() -> ThreadPoolExecutor:
    global _helper  # noqa: PLW0603 (one helper per process, made on first use)
    with _MADE:
        if _helper is None:
            _helper = ThreadPoolExecutor(1, thread_name_prefix="hpa-second-core")
        return _helper


def both(first: Callable[[], T], second: Callable[[], U]) -> tuple[T, U]:
    """``(first(), second())``, ``first`` on the helper thread while this one runs ``second``
    (both here when the helper is busy or :data:`ENABLED` is false). An exception of either
    propagates once both have ended.

    Example:
        >>> both(lambda: 1, lambda: "two")
        (1, 'two')
    """
    if not ENABLED or not _BUSY.acquire(blocking=False):
        return first(), second()
    try:
        pending = _executor().submit(first)
        try:
            second_result = second()
        finally:
            first_result = pending.result()  # waited for even when second raised: the helper is then idle
        return first_result, second_result
    finally:
        _BUSY.release()
