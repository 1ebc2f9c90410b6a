"""Issue 37's one-step query under load: a small query is answered on the event loop, without
waiting. When the loop comes to it late (a busy machine held it past its connection's slice) while
every search thread runs someone else's long search, it used to be handed to the threads and wait
seconds behind those; and the first query on a big grid built the grid's padded copy of its walls
on the loop (1-3 s on 4096 x 4096), holding every client up."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import numpy as np
import pytest

from bridge.client import Client
from bridge.methods.interface import LoadRequest
from bridge.methods.kinds import KINDS
from bridge.serving import connection
from bridge.serving.local import LocalServing
from bridge.serving.server import Server
from bridge.wire.protocol import Limits
from python_core.formats.records import to_record
from python_core.grid import GridGraph
from python_core.grid.search import prepared


def test_the_first_request_of_a_late_slice_runs_inline_while_every_search_thread_is_busy(
    server_thread: tuple[Server, asyncio.AbstractEventLoop, dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    server, loop, announced = server_thread
    client = Client.connect(str(announced["host"]), int(str(announced["port"])), timeout=30)
    release = threading.Event()
    try:
        client.hello(str(announced["token"]))
        client.load_grid("g", [[1] * 4] * 4)
        # the only search thread is taken, as by another client's search of a huge map
        loop.call_soon_threadsafe(server.serving.scheduler.submit, "other", lambda: release.wait(120))
        while server.serving.scheduler.running == 0:
            time.sleep(0.01)
        # every slice is spent before its first request is read, as when the loop was held up
        monkeypatch.setattr(connection, "SLICE_SECONDS", -1.0)
        answer = client.find("g", (0, 0), (1, 0))  # on the thread it would wait for the release
        busy = server.serving.scheduler.running
    finally:
        release.set()
        client.close()
    assert answer["status"] == "found"
    assert answer["cost"] == 1.0
    assert busy == 1  # answered while the thread was still held: inline


def test_a_grid_s_padded_walls_are_built_by_its_load_not_by_the_first_query_on_the_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built_on: list[threading.Thread] = []
    padded = prepared._build

    def watched(grid: Any) -> Any:
        if grid.width == 64:  # not the warm-up's little grids
            built_on.append(threading.current_thread())
        return padded(grid)

    monkeypatch.setattr(prepared, "_build", watched)
    kind, record = to_record(GridGraph(np.ones((64, 64), dtype=bool)))

    async def scenario() -> dict[str, Any]:
        serving = LocalServing(Limits(), threads=1)
        await serving.start()
        try:
            await serving.load(LoadRequest("g", KINDS[kind], dict(record), None), None)
            answer = serving.find("c", {"graph": "g", "start": [0, 0], "goal": [63, 63]})
            assert isinstance(answer, dict)  # answered inline, on the loop
            return answer
        finally:
            await serving.close()

    answer = asyncio.run(scenario())
    assert answer["status"] == "found"
    assert len(built_on) == 1
    assert built_on[0] is not threading.main_thread()  # the loop's thread
