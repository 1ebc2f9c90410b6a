"""A navmesh query for a radius not shrunk yet never shrinks the mesh on the sidecar's event loop
(seconds on a big mesh, holding every client up): it goes to a search thread; once the radius is
cached, its queries are answered inline again."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from bridge.client import Client
from bridge.serving.server import Server
from python_core.navmesh import shrink


@pytest.fixture
def served(
    server_thread: tuple[Server, asyncio.AbstractEventLoop, dict[str, Any]],
) -> Iterator[tuple[Client, threading.Thread]]:
    """A client of the server of ``server_thread`` (conftest), and the thread its loop runs on."""
    _, loop, announced = server_thread
    loop_thread = asyncio.run_coroutine_threadsafe(_current_thread(), loop).result(30)
    client = Client.connect(str(announced["host"]), int(str(announced["port"])), timeout=300)
    try:
        client.hello(str(announced["token"]))
        yield client, loop_thread
    finally:
        client.close()


async def _current_thread() -> threading.Thread:
    return threading.current_thread()


def test_a_new_radius_is_shrunk_on_a_search_thread(
    served: tuple[Client, threading.Thread], monkeypatch: pytest.MonkeyPatch
) -> None:
    client, loop_thread = served
    shrunk_on: list[threading.Thread] = []
    real = shrink.shrink_mesh

    def recorded(mesh: Any, radius: float) -> shrink.ShrunkMesh:
        shrunk_on.append(threading.current_thread())
        return real(mesh, radius)

    monkeypatch.setattr(shrink, "shrink_mesh", recorded)
    client.load_navmesh("room", [[0, 0], [10, 0], [10, 10], [0, 10]], [[0, 1, 2, 3]])
    for _ in range(3):
        answer = client.find("room", (0, 0), (10, 10), radius=1.0)
        assert answer["status"] == "found"
    assert len(shrunk_on) == 1  # once, then cached
    assert shrunk_on[0] is not loop_thread
