"""How the gateway reads a replica's reply (bridge/serving/ray/pool.py), without a cluster: a
write's stream is read to its end, and a reply that takes long is reported while awaited."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest

from bridge.serving.ray import pool


async def _ready(value: Any) -> Any:
    return value


class _Stream:
    """A write's stream as Ray hands it over: object refs (here awaitables) of progress items, then
    the reply; remembers whether it was read to its end."""

    def __init__(self, items: list[Any]) -> None:
        self.items = items
        self.ended = False

    def __aiter__(self) -> AsyncIterator[Any]:
        return self._refs()

    async def _refs(self) -> AsyncIterator[Any]:
        for item in self.items:
            yield _ready(item)
        self.ended = True


def test_a_writes_stream_is_read_to_its_end_and_gives_its_progress_and_reply() -> None:
    stream = _Stream([("progress", 1, 2), ("progress", 2, 2), ("ok", {"id": "g"})])
    seen: list[tuple[int, int]] = []
    reply = asyncio.run(pool._reply(stream, lambda done, total: seen.append((done, total))))
    assert reply == ("ok", {"id": "g"})
    assert seen == [(1, 2), (2, 2)]
    assert stream.ended


def test_a_slow_reply_is_logged_while_awaited_and_still_returned(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(pool, "SLOW_REPLY_SECONDS", 0.05)

    async def slow() -> tuple[str, Any]:
        await asyncio.sleep(0.18)
        return ("ok", 7)

    with caplog.at_level(logging.WARNING, logger="bridge.serving.ray"):
        assert asyncio.run(pool._watched(slow(), 1)) == ("ok", 7)
    warnings = [r.getMessage() for r in caplog.records if "has not answered" in r.getMessage()]
    assert warnings
    assert all(w.startswith("replica 1 has not answered") for w in warnings)


def test_a_cancelled_wait_cancels_the_reply_it_awaits() -> None:
    started = asyncio.Event()
    cancelled: list[bool] = []

    async def never() -> tuple[str, Any]:
        started.set()
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            cancelled.append(True)
            raise
        return ("ok", None)

    async def run() -> None:
        waiter = asyncio.ensure_future(pool._watched(never(), 0))
        await started.wait()
        waiter.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiter

    asyncio.run(run())
    assert cancelled == [True]
