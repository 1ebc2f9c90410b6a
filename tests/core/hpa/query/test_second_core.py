"""python_core.hpa.query.second_core: ``race`` runs its first half on the helper thread while the
caller runs the second, runs only the second while the helper works for another query, cancels
the first when the helper has not started it by the time the second is done (and then keeps the
work for a while), and passes on an exception once the helper is idle again."""

from __future__ import annotations

import threading

import pytest

from python_core.hpa.query import second_core
from python_core.hpa.query.second_core import race

pytestmark = pytest.mark.skipif(not second_core.ENABLED, reason="the helper thread is off here")


@pytest.fixture(autouse=True)
def helper_not_paused() -> None:
    second_core._resume_at = 0.0
    second_core._backoff = second_core.BACKOFF_SECONDS


def test_first_half_runs_on_the_helper() -> None:
    here, started = threading.get_ident(), threading.Event()

    def first() -> int:
        started.set()
        return threading.get_ident()

    def second() -> int:
        assert started.wait(10)  # the helper starts the first half before this one ends
        return threading.get_ident()

    first_id, second_id = race(first, second)
    assert second_id == here
    assert first_id != here


def test_a_helper_that_has_not_started_is_not_waited_for() -> None:
    """The helper thread is busy elsewhere (as when no core is free): the first half is cancelled
    once the second is done, and for a while the helper is not offered work again."""
    here, release = threading.get_ident(), threading.Event()
    blocker = second_core._executor().submit(release.wait, 10)
    try:
        assert race(threading.get_ident, threading.get_ident) == (None, here)
        assert second_core._resume_at > 0.0
        assert second_core._backoff == 2 * second_core.BACKOFF_SECONDS
    finally:
        release.set()
        blocker.result()
    assert race(threading.get_ident, threading.get_ident) == (None, here)  # still paused


def test_busy_helper_means_the_second_half_alone() -> None:
    """Another query holds the helper: this one does not queue behind it."""
    here = threading.get_ident()
    with second_core._BUSY:
        assert race(threading.get_ident, threading.get_ident) == (None, here)


def test_exceptions_wait_for_the_helper() -> None:
    started, ended = threading.Event(), threading.Event()

    def slow() -> int:
        started.set()
        ended.wait(0.2)
        ended.set()
        return 1

    def fails() -> int:
        assert started.wait(10)
        raise ValueError("second half")

    with pytest.raises(ValueError, match="second half"):
        race(slow, fails)
    assert ended.is_set()
    assert not second_core._BUSY.locked()

    ran = threading.Event()

    def first_fails() -> int:
        ran.set()
        raise KeyError("first half")

    with pytest.raises(KeyError, match="first half"):
        race(first_fails, lambda: ran.wait(10))
    assert race(lambda: 1, lambda: 2)[1] == 2
