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
from bridge.serving.server import Server, ServerConfig
from python_core.navmesh import shrink


@pytest.fixture
def served() -> Iterator[tuple[Client, threading.Thread]]:
    """A client of a server running on a thread of this process, and that thread (its loop's)."""
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
    assert ready.wait(120), "the server did not announce itself"
    client = Client.connect(str(announced["host"]), int(str(announced["port"])), timeout=300)
    try:
        client.hello(str(announced["token"]))
        yield client, thread
    finally:
        client.close()
        loops[0].call_soon_threadsafe(server.stop)
        thread.join(30)


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
