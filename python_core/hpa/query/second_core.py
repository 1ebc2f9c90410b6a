"""A second core for one HPA* query: two threads share one piece of its work.

Quick start::

    from python_core.hpa.query.second_core import race
    front, back = race(lambda: front_half(shared), lambda: back_half(shared))   # front None: never ran

A lone query on a large map spends most of its time in compiled kernels that release the GIL
(``nogil``), among them the refinement of its chain of transitions, whose links are independent
(its two endpoint insertions are too, but each takes about what the helper takes to wake). One
helper thread refines links from the chain's front while the caller refines them from its back,
each claiming its next link, until they meet (:mod:`~python_core.hpa.query.refine_ends`): the
caller never waits for the helper to wake, and neither for the other's slower half. While the
helper works for one query, another query does all of its work itself: the helper never queues
work, so a query never waits behind another one's.

On a machine whose cores are all busy the helper thread waits for a time slice. A caller that is
done before the helper has started cancels the helper's task, and then keeps its work to itself
for a while (:data:`BACKOFF_SECONDS`, doubling on each further miss up to :data:`BACKOFF_MAX`)
before it offers the helper work again: each offer costs the hand-off.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, wait
from typing import TypeVar

from python_core.compiled import JIT_ENABLED

__all__ = ["BACKOFF_MAX", "BACKOFF_SECONDS", "ENABLED", "race"]

T = TypeVar("T")
U = TypeVar("U")

ENABLED = JIT_ENABLED and (os.cpu_count() or 1) > 1 and os.environ.get("ASTAR_QUERY_HELPER") != "0"
"""Whether :func:`race` uses the helper thread: only compiled kernels release the GIL, and on one
core the halves would only take turns. ``ASTAR_QUERY_HELPER=0`` turns it off (a game that keeps
every core busy with queries of its own gains nothing from it)."""

BACKOFF_SECONDS = 0.005
"""How long :func:`race` keeps the work in the caller after the helper first missed its start.
On a 2-core VM the helper misses about one 4096 x 4096 query in five on a quiet machine (it
woke late): after 50 ms, the median query in process took 1.79-1.88 ms, after 5 ms 1.72-1.78,
never pausing 1.68-1.74, without the helper 1.91-2.01 (interleaved, 240 queries each); with four
spinning processes beside it, 5 ms was no slower than 50 (5.7 against 6.1 ms)."""
BACKOFF_MAX = 0.2
"""The longest such pause: under lasting load, one try every 0.2 s."""

_BUSY = threading.Lock()  # held while the helper works for some query
_MADE = threading.Lock()  # guards the helper's creation
_helper: ThreadPoolExecutor | None = None
_resume_at = 0.0  # time.perf_counter() before which race() keeps the work (after a miss)
_backoff = BACKOFF_SECONDS  # the next pause; written only while _BUSY is held


def _executor() -> ThreadPoolExecutor:
    global _helper  # noqa: PLW0603 (one helper per process, made on first use)
    with _MADE:
        if _helper is None:
            _helper = ThreadPoolExecutor(1, thread_name_prefix="hpa-second-core")
        return _helper


def race(first: Callable[[], T], second: Callable[[], U]) -> tuple[T | None, U]:
    """``(first(), second())``, ``first`` on the helper thread while this one runs ``second``;
    ``first``'s result is None when it never ran: the helper was busy with another query or
    :data:`ENABLED` is false, or it had not started by the time ``second`` ended (it is then
    cancelled). So the halves share one piece of work, each claiming its next part, and ``second``
    alone does all of it when the helper is late: a helper that wakes late costs nothing. An
    exception of either propagates once both have ended.

    Example:
        >>> _, second = race(lambda: 1, lambda: "two")
        >>> second
        'two'
    """
    if not ENABLED or time.perf_counter() < _resume_at or not _BUSY.acquire(blocking=False):
        return None, second()
    try:
        pending = _executor().submit(first)
        try:
            second_result = second()
        except BaseException:
            if not pending.cancel():
                wait((pending,))  # the helper is idle again before the exception goes on
            raise
        missed = pending.cancel()  # not started yet: the helper is waiting for a core
        _pause(missed)
        return (None if missed else pending.result()), second_result
    finally:
        _BUSY.release()


def _pause(missed: bool) -> None:
    """After a pair whose first half the helper ``missed``: pause the helper (doubling the pause
    each time in a row), or reset the pause. Called while ``_BUSY`` is held."""
    global _resume_at, _backoff  # noqa: PLW0603 (one helper per process: its state is the module's)
    if missed:
        _resume_at = time.perf_counter() + _backoff
        _backoff = min(2.0 * _backoff, BACKOFF_MAX)
    else:
        _backoff = BACKOFF_SECONDS
