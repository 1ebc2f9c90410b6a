"""Fixtures of the serving tests."""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from bridge.serving.server import Server, ServerConfig


@pytest.fixture
def server_thread() -> Iterator[tuple[Server, asyncio.AbstractEventLoop, dict[str, Any]]]:
    """A server with one search thread, serving on a thread of this process."""
    switch = sys.getswitchinterval()
    server = Server(ServerConfig(threads=1))
    announced: dict[str, Any] = {}
    ready = threading.Event()
    loops: list[asyncio.AbstractEventLoop] = []

    def announce(event: dict[str, object]) -> None:
        announced.update(event)
        ready.set()

    async def serve() -> None:
        loops.append(asyncio.get_running_loop())
        await server.run(announce)

    thread = threading.Thread(target=asyncio.run, args=(serve(),), daemon=True)
    thread.start()
    assert ready.wait(60), "the server did not announce itself"
    try:
        yield server, loops[0], announced
    finally:
        loops[0].call_soon_threadsafe(server.stop)
        thread.join(30)
        sys.setswitchinterval(switch)
