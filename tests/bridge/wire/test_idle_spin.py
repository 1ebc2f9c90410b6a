"""The busy watch of a socket before a blocking wait (:mod:`bridge.wire.idle_spin`): the sidecar's
after an answer to a lone client ends as soon as the next request is readable and never makes
another client wait; the Python client's before a read loses no answer that comes after it."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import msgpack
import numpy as np
import pytest

from bridge.client import Client
from bridge.client.rpc import RpcConnection
from bridge.client.sidecar import Sidecar, start_sidecar
from bridge.wire.idle_spin import IdleSpin

LONG_SPIN_US = 3_000_000
"""A watch far longer than any answer here: a request that waited for it to run out would show."""


def test_a_watch_ends_when_the_socket_is_readable_or_its_time_is_up() -> None:
    here, there = socket.socketpair()
    with here, there:
        assert IdleSpin(here.fileno(), 0.0).watch() is False  # off: no watch at all
        began = time.perf_counter()
        assert IdleSpin(here.fileno(), 0.05).watch() is False  # nothing came
        assert time.perf_counter() - began >= 0.05
        there.sendall(b"x")
        began = time.perf_counter()
        assert IdleSpin(here.fileno(), 30.0).watch() is True
        assert time.perf_counter() - began < 15.0  # at once, not after its 30 s
        there.close()
        assert IdleSpin(here.fileno(), 30.0).watch() is True  # data, then the hang-up: readable


@pytest.fixture
def sidecar() -> Iterator[Sidecar]:
    with start_sidecar("--spin-us", str(LONG_SPIN_US), "--threads", "1", timeout=120) as running:
        yield running


def _tiny(client: Client) -> dict[str, object]:
    client.load_grid("tiny", np.ones((8, 8), dtype=bool))
    query = Client.query("tiny", (0, 0), (1, 0))
    assert client.call("path.find", query)["status"] == "found"  # answered inline: a watch follows
    return query


def test_a_lone_client_s_next_request_ends_the_watch(sidecar: Sidecar) -> None:
    """With a 3 s watch, calls in a row are answered as they come, not one per watch."""
    with sidecar.connect(timeout=60) as client:
        query = _tiny(client)
        began = time.perf_counter()
        for _ in range(5):
            assert client.call("path.find", query)["status"] == "found"
        assert time.perf_counter() - began < LONG_SPIN_US / 1e6  # five watches would take 15 s


def test_no_watch_while_another_client_is_connected(sidecar: Sidecar) -> None:
    """A watch only looks at its own client's socket: with two connected, none is made, so the
    second client's request right after the first one's answer does not wait for it."""
    with sidecar.connect(timeout=60) as first, sidecar.connect(timeout=60) as second:
        query = _tiny(first)
        assert first.call("path.find", query)["status"] == "found"
        began = time.perf_counter()
        assert second.call("path.find", query)["status"] == "found"
        assert time.perf_counter() - began < LONG_SPIN_US / 1e6 / 2


@pytest.mark.parametrize("spin", [0.0, 0.001, 0.5])
def test_a_client_s_watch_loses_no_answer_that_comes_after_it(spin: float) -> None:
    """The answer comes 50 ms after the request: after a short watch (the read then blocks), during
    a long one, or with none."""
    here, there = socket.socketpair()
    with here, there:
        client = RpcConnection(here, spin=spin)

        def answer() -> None:
            request = msgpack.Unpacker(raw=False)
            request.feed(there.recv(4096))
            msgid = next(request)[1]
            time.sleep(0.05)
            there.sendall(msgpack.packb([1, msgid, None, {"ok": msgid}]))

        server = threading.Thread(target=answer)
        server.start()
        try:
            assert client.call("graph.list") == {"ok": 1}
        finally:
            server.join(30)
