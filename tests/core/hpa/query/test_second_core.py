"""python_core.hpa.query.second_core: ``both`` runs its first half on the helper thread while the
caller runs the second, runs both in the caller while the helper works for another query, and
passes on an exception once both halves have ended (the helper idle again)."""

from __future__ import annotations

import threading

import pytest

from python_core.hpa.query import second_core
from python_core.hpa.query.second_core import both

pytestmark = pytest.mark.skipif(not second_core.ENABLED, reason="the helper thread is off here")


def test_first_half_runs_on_the_helper() -> None:
    here = threading.get_ident()
    first, second = both(threading.get_ident, threading.get_ident)
    assert second == here
    assert first != here


def test_busy_helper_means_both_halves_here() -> None:
    """Another query holds the helper: this one does not queue behind it."""
    here = threading.get_ident()
    with second_core._BUSY:
        assert both(threading.get_ident, threading.get_ident) == (here, here)


def test_exceptions_wait_for_both_halves() -> None:
    ended = threading.Event()

    def slow() -> int:
        ended.wait(0.2)
        ended.set()
        return 1

    def fails() -> int:
        raise ValueError("second half")

    with pytest.raises(ValueError, match="second half"):
        both(slow, fails)
    assert ended.is_set()
    assert not second_core._BUSY.locked()

    def first_fails() -> int:
        raise KeyError("first half")

    with pytest.raises(KeyError, match="first half"):
        both(first_fails, lambda: 2)
    assert both(lambda: 1, lambda: 2) == (1, 2)
