"""The event loop's short poll after a wake-up (bridge/serving/polling.py): what the selector is
asked, that events are never lost and timers still fire, and a real event loop serving through it."""

from __future__ import annotations

import asyncio
import selectors
import socket
import threading
from typing import Any

from bridge.serving.polling import PollingSelector, poll_after_wake_ups
from bridge.serving.scheduler import FairScheduler


class RecordingSelector(selectors.SelectSelector):
    """A real selector that records the timeout of every select."""

    def __init__(self) -> None:
        super().__init__()
        self.timeouts: list[float | None] = []

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        self.timeouts.append(timeout)
        return super().select(timeout)


def _pair(selector: selectors.BaseSelector) -> tuple[socket.socket, socket.socket]:
    reader, writer = socket.socketpair()
    reader.setblocking(False)
    selector.register(reader, selectors.EVENT_READ, "data")
    return reader, writer


def test_it_sleeps_until_the_first_events_then_polls_while_idle() -> None:
    inner = RecordingSelector()
    polling = PollingSelector(inner, window=0.002, idle=lambda: True)
    reader, writer = _pair(polling)
    try:
        writer.send(b"x")
        assert [key.data for key, _ in polling.select(None)] == ["data"]
        assert inner.timeouts == [None]  # nothing had come yet: an ordinary wait
        reader.recv(16)
        inner.timeouts.clear()
        assert polling.select(0.05) == []  # nothing comes: polls through the window, then waits
        assert inner.timeouts[0] == 0
        left = inner.timeouts[-1]  # what was left of the timeout
        assert left is not None
        assert 0 < left < 0.05
        assert set(inner.timeouts[:-1]) == {0}
    finally:
        reader.close()
        writer.close()
        polling.close()


def test_events_that_come_while_polling_are_returned() -> None:
    polling = PollingSelector(RecordingSelector(), window=60.0, idle=lambda: True)
    reader, writer = _pair(polling)
    try:
        writer.send(b"x")
        assert polling.select(None)  # the window opens
        reader.recv(16)
        writer.send(b"y")
        assert [key.data for key, _ in polling.select(None)] == ["data"]
    finally:
        reader.close()
        writer.close()
        polling.close()


def test_no_poll_while_busy_nor_for_a_select_that_must_not_wait() -> None:
    busy = [True]
    inner = RecordingSelector()
    polling = PollingSelector(inner, window=60.0, idle=lambda: not busy[0])
    reader, writer = _pair(polling)
    try:
        writer.send(b"x")
        assert polling.select(None)
        reader.recv(16)
        inner.timeouts.clear()
        assert polling.select(0.001) == []  # the search threads have work: an ordinary wait
        assert polling.select(0) == []  # the loop has callbacks ready: a look, no poll
        assert inner.timeouts == [0.001, 0]
        busy[0] = False
        inner.timeouts.clear()
        assert polling.select(0.001) == []  # the loop's timer comes before the window ends
        assert inner.timeouts[0] == 0
        left = inner.timeouts[-1]
        assert left is not None
        assert left <= 0.001
    finally:
        reader.close()
        writer.close()
        polling.close()


def test_register_modify_and_unregister_go_to_the_inner_selector() -> None:
    inner = RecordingSelector()
    polling = PollingSelector(inner, window=0.001, idle=lambda: True)
    reader, writer = socket.socketpair()
    try:
        polling.register(reader, selectors.EVENT_READ, "a")
        polling.modify(reader, selectors.EVENT_READ | selectors.EVENT_WRITE, "b")
        assert polling.get_key(reader).data == "b"
        assert inner.get_key(reader).data == "b"
        assert set(polling.get_map()) == set(inner.get_map())
        polling.unregister(reader)
        assert not inner.get_map()
    finally:
        reader.close()
        writer.close()
        polling.close()


def test_a_selector_loop_serves_through_the_poll() -> None:
    loop = asyncio.SelectorEventLoop()
    try:
        assert poll_after_wake_ups(loop, 0.0005, lambda: True)
        assert isinstance(loop._selector, PollingSelector)  # type: ignore[attr-defined]
        assert loop.run_until_complete(_echo_round_trips(50)) == [f"m{i}".encode() for i in range(50)]
    finally:
        loop.close()


async def _echo_round_trips(count: int) -> list[bytes]:
    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while line := await reader.readline():
            writer.write(line)
        writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    answers = []
    for i in range(count):
        writer.write(f"m{i}\n".encode())
        answers.append((await reader.readline()).strip())
        await asyncio.sleep(0.001 if i % 10 == 0 else 0)  # a timer now and then, past the window
    writer.close()
    server.close()
    await server.wait_closed()
    return answers


def test_nothing_changes_without_a_window_or_a_selector() -> None:
    loop = asyncio.SelectorEventLoop()
    try:
        assert not poll_after_wake_ups(loop, 0.0, lambda: True)
        assert not isinstance(loop._selector, PollingSelector)  # type: ignore[attr-defined]
    finally:
        loop.close()

    class NoSelector:
        pass

    assert not poll_after_wake_ups(NoSelector(), 0.0005, lambda: True)  # type: ignore[arg-type]


def test_the_scheduler_is_busy_while_a_job_runs() -> None:
    async def run() -> tuple[bool, bool, bool]:
        scheduler = FairScheduler(1, asyncio.get_running_loop())
        started, release = asyncio.Event(), threading.Event()
        loop = asyncio.get_running_loop()

        def job() -> Any:
            loop.call_soon_threadsafe(started.set)
            release.wait(10)

        before = scheduler.busy
        future = scheduler.submit("c", job)
        await started.wait()
        during = scheduler.busy
        release.set()
        await future
        await asyncio.sleep(0)
        after = scheduler.busy
        scheduler.close()
        return before, during, after

    assert asyncio.run(run()) == (False, True, False)
