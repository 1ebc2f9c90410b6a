"""A hierarchical ``path.find_packed`` on a small grid, too large to run on the event loop at once,
is cut into pieces for the search threads, and the loop takes back the pieces no thread has started
and runs them itself (:meth:`BatchRunner._help`): the same bytes, and an answer even while every
search thread is busy. :meth:`FairScheduler.withdraw` gives a queued job back."""

from __future__ import annotations

import asyncio
import functools
import threading
from typing import Any

import numpy as np
import pytest

from bridge.serving import batch_runner
from bridge.serving.scheduler import FairScheduler
from tests.bridge.serving.test_packed_inline import _answer, _raw, _serving


def test_withdraw_gives_back_a_queued_job_and_none_once_a_thread_has_it() -> None:
    async def scenario() -> None:
        scheduler = FairScheduler(1, asyncio.get_running_loop())
        gate, started = threading.Event(), threading.Event()

        def hold() -> str:
            started.set()
            gate.wait()
            return "held"

        first = scheduler.submit("a", hold)  # holds the only thread
        await asyncio.to_thread(started.wait)
        queued = [scheduler.submit("a", functools.partial(int, i)) for i in range(3)]
        other = scheduler.submit("b", lambda: "b")
        assert scheduler.withdraw("a", first) is None  # running
        last = scheduler.withdraw("a", queued[2])
        middle = scheduler.withdraw("a", queued[1])
        assert last is not None
        assert middle is not None
        assert (last(), middle()) == (2, 1)
        assert scheduler.withdraw("a", queued[2]) is None  # given back already
        assert scheduler.withdraw("c", other) is None  # not that client's
        assert scheduler.queued() == 2
        gate.set()
        assert list(await asyncio.gather(first, queued[0], other)) == ["held", 0, "b"]
        assert not queued[1].done()
        assert not queued[2].done()
        assert scheduler.withdraw("a", queued[0]) is None
        assert scheduler.queued() == 0
        scheduler.close()

    asyncio.run(scenario())


async def _hold_threads(scheduler: FairScheduler, gate: threading.Event) -> list[asyncio.Future[Any]]:
    """Every search thread running another client's job that waits for ``gate``."""
    started = threading.Semaphore(0)

    def hold() -> None:
        started.release()
        gate.wait()

    held = [scheduler.submit("other", hold) for _ in range(scheduler.threads)]
    for _ in held:
        await asyncio.to_thread(started.acquire)
    return held


@pytest.mark.parametrize("count", [batch_runner.PACKED_INLINE + 1, 3 * batch_runner.PACKED_CHUNK + 5])
def test_the_loop_answers_a_small_grid_hierarchical_batch_while_the_threads_are_busy(
    count: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With both search threads held by another client, the loop runs every piece itself (its
    time allowance made endless here); the bytes are those of the threads' answer."""
    monkeypatch.setattr(batch_runner, "LOOP_HELP_SECONDS", 3600.0)
    options = {"hierarchical": True}

    async def scenario() -> tuple[bytes, bytes]:
        serving = await _serving()
        gate = threading.Event()
        try:
            held = await _hold_threads(serving.scheduler, gate)
            here, now = await _answer(serving.find_packed("c", _raw(count, options)))
            assert not now  # cut into pieces, not answered at once
            assert not any(f.done() for f in held)  # answered while the threads were held
            gate.set()
            await asyncio.gather(*held)
            serving.allow_inline_until(0.0)  # the connection's slice is spent: the threads alone
            there, _ = await _answer(serving.find_packed("c", _raw(count, options)))
            return here, there
        finally:
            gate.set()
            await serving.close()

    here, there = asyncio.run(scenario())
    assert here == there


@pytest.mark.parametrize(
    ("options", "inline"), [({}, True), ({"hierarchical": True}, False)], ids=["exact", "slice spent"]
)
def test_the_loop_leaves_exact_batches_and_spent_slices_to_the_threads(
    options: dict[str, Any], inline: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An exact batch (its work has no bound known ahead), or one that comes when its connection's
    slice of loop time is spent, waits for a thread."""
    monkeypatch.setattr(batch_runner, "LOOP_HELP_SECONDS", 3600.0)

    async def scenario() -> bool:
        serving = await _serving()
        gate = threading.Event()
        try:
            held = await _hold_threads(serving.scheduler, gate)
            if not inline:
                serving.allow_inline_until(0.0)
            task = asyncio.ensure_future(_answer(serving.find_packed("c", _raw(20, options))))
            for _ in range(20):  # turns of the loop: the request is split and queued
                await asyncio.sleep(0)
            waited = not task.done()
            gate.set()
            await asyncio.gather(*held)
            answer, _ = await task
            assert len(np.frombuffer(answer, np.uint8)) > 0
            return waited
        finally:
            gate.set()
            await serving.close()

    assert asyncio.run(scenario())


def test_the_piece_the_loop_runs_gets_the_lead_and_the_threads_pieces_do_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """When the loop is to help, the last piece (the one it runs from the start) is cut with
    :data:`~bridge.serving.batch_runner.LOOP_LEAD` more work; when its slice is spent the pieces
    share the work evenly. The answers are the same bytes either way."""
    cuts: list[tuple[float, list[range]]] = []
    real = batch_runner.packed_pieces

    def spied(*args: Any, **kwargs: Any) -> list[range]:
        pieces = real(*args, **kwargs)
        cuts.append((args[3] if len(args) > 3 else kwargs.get("last_lead", 0.0), pieces))
        return pieces

    monkeypatch.setattr(batch_runner, "packed_pieces", spied)
    count = 2 * batch_runner.PACKED_CHUNK  # two pieces
    options = {"hierarchical": True}

    async def scenario() -> tuple[bytes, bytes]:
        serving = await _serving()
        try:
            helped, _ = await _answer(serving.find_packed("c", _raw(count, options)))
            serving.allow_inline_until(0.0)  # the connection's slice is spent: the threads alone
            alone, _ = await _answer(serving.find_packed("c", _raw(count, options)))
            return helped, alone
        finally:
            await serving.close()

    helped, alone = asyncio.run(scenario())
    assert helped == alone
    (lead, led), (even_lead, even) = cuts
    assert (lead, even_lead) == (batch_runner.LOOP_LEAD, 0.0)
    assert [q for p in led for q in p] == list(range(count)) == [q for p in even for q in p]
    assert len(led) == len(even) == 2
    assert len(led[-1]) > len(even[-1])  # the loop's piece holds more of the same queries
