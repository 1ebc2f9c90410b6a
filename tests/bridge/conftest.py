"""Real sidecar subprocesses for the bridge tests, always torn down.

``sidecar`` is shared by a whole test session (start-up loads the compiled kernels); tests that need
their own limits or flags use ``spawn_sidecar``, which stops whatever it started.
"""

from __future__ import annotations

import socket
import subprocess
from collections.abc import Callable, Iterator

import msgpack
import pytest

from bridge.client import Client
from bridge.client.sidecar import Sidecar, start_sidecar

SpawnSidecar = Callable[..., Sidecar]


def _stop_all(started: list[Sidecar]) -> None:
    for sidecar in started:
        sidecar.stop()
        assert sidecar.process.poll() is not None


@pytest.fixture(scope="session")
def sidecar() -> Iterator[Sidecar]:
    """One sidecar with two search threads, for every test that does not need special limits."""
    started = [start_sidecar("--threads", "2", "--log-level", "WARNING", stderr=subprocess.DEVNULL)]
    try:
        yield started[0]
    finally:
        _stop_all(started)


@pytest.fixture
def spawn_sidecar() -> Iterator[SpawnSidecar]:
    """Start sidecars with extra ``serve`` options; all are stopped after the test."""
    started: list[Sidecar] = []

    def spawn(*args: str) -> Sidecar:
        started.append(start_sidecar("--log-level", "WARNING", *args, stderr=subprocess.DEVNULL))
        return started[-1]

    try:
        yield spawn
    finally:
        _stop_all(started)


@pytest.fixture
def client(sidecar: Sidecar) -> Iterator[Client]:
    """A connection to the shared sidecar that has said hello."""
    with sidecar.connect() as connection:
        yield connection


def raw_connection(sidecar: Sidecar) -> socket.socket:
    """A plain TCP socket to the sidecar, with a timeout so a test can never hang."""
    sock = socket.create_connection((sidecar.host, sidecar.port), timeout=20)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def read_until_closed(sock: socket.socket) -> list[object]:
    """Every message the server sends until it closes the connection."""
    unpacker = msgpack.Unpacker(raw=False)
    while data := sock.recv(65536):
        unpacker.feed(data)
    return list(unpacker)


def read_messages(sock: socket.socket, count: int) -> list[object]:
    """Exactly ``count`` messages (fails on EOF first)."""
    unpacker = msgpack.Unpacker(raw=False)
    messages: list[object] = []
    while len(messages) < count:
        data = sock.recv(65536)
        assert data, f"connection closed after {len(messages)} of {count} messages"
        unpacker.feed(data)
        messages.extend(unpacker)
    return messages
