"""Run the same queries from several threads at once and compare them with one thread's answers.

    from tests.core.threads import assert_same_in_threads
    assert_same_in_threads([lambda a=a, b=b: grid.find_path(a, b) for a, b in pairs])

Every thread runs every query in every round, each from its own offset in the list (so different
queries overlap), the rounds started together by a :class:`threading.Barrier` whose action (run
while no query runs: the writer's slot of a readers-writer lock) may change the graph in a way
that keeps the answers, so the first queries of a round also race on whatever a change makes them
rebuild. The GIL is handed over every few microseconds meanwhile, so the Python between kernels
interleaves too. An answer is a :class:`PathResult`'s status, points, nodes, cost and expansions,
any other value as it is, or the error raised (its class and message).
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from python_core.result import PathResult

__all__ = ["answer", "assert_same_in_threads", "plain", "run_in_threads"]

THREADS = 4
ROUNDS = 3
SWITCH_SECONDS = 5e-6
JOIN_SECONDS = float(os.environ.get("THREADS_TEST_JOIN_SECONDS", "300"))
"""How long a thread may take before the test calls it a hang (the old shared workspace hung)."""


def answer(call: Callable[[], Any]) -> Any:
    """What a call gives, in a form ``==`` compares exactly."""
    try:
        value = call()
    except Exception as exc:  # an error is an answer too: the same error, or a difference
        return ("raised", type(exc).__name__, str(exc))
    return plain(value)


def plain(value: Any) -> Any:
    """``value`` with every :class:`PathResult` and array in it made comparable by ``==``."""
    if isinstance(value, PathResult):
        points = np.asarray(value.points, dtype=np.float64)
        return (
            value.status.value,
            points.shape,
            points.tobytes(),
            value.nodes.tolist(),
            value.cost,
            value.expanded,
        )
    if isinstance(value, np.ndarray):
        return ("array", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, tuple | list):
        return type(value)(plain(v) for v in value)
    return value


def run_in_threads(
    calls: Sequence[Callable[[], Any]],
    *,
    threads: int = THREADS,
    rounds: int = ROUNDS,
    between_rounds: Callable[[], None] | None = None,
) -> list[list[Any]]:
    """Each thread's answers, ``rounds * len(calls)`` of them in call order per round.

    Raises:
        AssertionError: a thread did not finish within ``JOIN_SECONDS`` (a hang).
    """
    barrier = threading.Barrier(threads, action=between_rounds)
    out: list[list[Any]] = [[None] * (rounds * len(calls)) for _ in range(threads)]
    failures: list[BaseException] = []

    def work(i: int) -> None:
        try:
            for r in range(rounds):
                barrier.wait()
                first = (i * len(calls)) // threads + r
                for j in range(len(calls)):
                    k = (first + j) % len(calls)
                    out[i][r * len(calls) + k] = answer(calls[k])
        except BaseException as exc:
            failures.append(exc)
            barrier.abort()

    old = sys.getswitchinterval()
    sys.setswitchinterval(SWITCH_SECONDS)
    try:
        workers = [threading.Thread(target=work, args=(i,), daemon=True) for i in range(threads)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(JOIN_SECONDS)
    finally:
        sys.setswitchinterval(old)
    assert not any(w.is_alive() for w in workers), f"a thread still runs after {JOIN_SECONDS} s"
    if failures:
        raise failures[0]
    return out


def assert_same_in_threads(
    calls: Sequence[Callable[[], Any]],
    *,
    threads: int = THREADS,
    rounds: int = ROUNDS,
    between_rounds: Callable[[], None] | None = None,
) -> list[Any]:
    """Run ``calls`` once in order, then from ``threads`` threads at once; every threaded answer
    must equal the sequential one. Returns the sequential answers (for checks of their own)."""
    expected = [answer(call) for call in calls]
    got = run_in_threads(calls, threads=threads, rounds=rounds, between_rounds=between_rounds)
    n = len(calls)
    wrong = [
        (i, k) for i, answers in enumerate(got) for k, value in enumerate(answers) if value != expected[k % n]
    ]
    if wrong:
        i, k = wrong[0]
        raise AssertionError(
            f"{len(wrong)} of {threads * rounds * n} threaded answers differ from the sequential ones; "
            f"first: thread {i}, round {k // n}, query {k % n}: {_short(got[i][k])} instead of "
            f"{_short(expected[k % n])}"
        )
    return expected


def _short(value: Any) -> str:
    if isinstance(value, tuple) and len(value) == 6:  # a path: leave out the bytes of its points
        return repr((value[0], f"{len(value[3])} nodes", value[4], value[5]))
    return repr(value)[:200]
