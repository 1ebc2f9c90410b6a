"""Memory amplification: bytes that never finish a message, or finish one of millions of tiny
values, must cost the sidecar about their own size, before and after hello (RSS from /proc)."""

from __future__ import annotations

import time

import pytest

from bridge.client.sidecar import Sidecar
from tests.bridge.conftest import SpawnSidecar
from tests.bridge.faults import closed_within, connect, hello, read_answers, rss_bytes, send_quietly

MIB = 1024 * 1024
GROWTH_LIMIT = 64 * MIB
EMPTY_ARRAYS = b"\x90" * (16 * MIB)  # each would be a Python list of some 56 bytes + a pointer


def _amplify(sidecar: Sidecar, prefix: bytes, body: bytes) -> int:
    """Send ``prefix`` then ``body`` in 1 MiB pieces without finishing; RSS growth of the sidecar
    while the connection is still open (or just closed by the server)."""
    rss = rss_bytes(sidecar.process.pid)
    with connect(sidecar) as sock:
        send_quietly(sock, prefix)
        for i in range(0, len(body), MIB):
            if not send_quietly(sock, body[i : i + MIB]):
                break
        return _peak_rss(sidecar) - rss


def _ready(sidecar: Sidecar) -> Sidecar:
    """The sidecar once its compiled kernels are loaded (a path answered): they load in the
    background after start-up, and their memory is not the attack's."""
    with sidecar.connect() as client:
        client.load_grid("warm", [[1, 1], [1, 1]])
        assert client.find("warm", (0, 0), (1, 1))["status"] == "found"
        client.drop("warm")
    return sidecar


def _peak_rss(sidecar: Sidecar, seconds: float = 2.0) -> int:
    """The highest RSS seen over ``seconds`` (the sidecar may still be reading what was sent)."""
    peak = 0
    for _ in range(int(seconds / 0.1)):
        peak = max(peak, rss_bytes(sidecar.process.pid))
        time.sleep(0.1)
    return peak


@pytest.mark.parametrize(
    "header",
    [b"\xdd\x04\x00\x00\x00", b"\x94\x00\x01\xa5hello\xdd\x04\x00\x00\x00"],
    ids=["array-of-64Mi", "inside-a-hello"],
)
def test_unauthenticated_empty_arrays_do_not_grow_the_sidecar(
    spawn_sidecar: SpawnSidecar, header: bytes
) -> None:
    sidecar = _ready(spawn_sidecar("--threads", "1"))
    assert _amplify(sidecar, header, EMPTY_ARRAYS) < GROWTH_LIMIT
    with sidecar.connect() as client:
        assert "graphs" in client.call("graph.list")


def test_unauthenticated_deep_nesting_closes_the_connection(spawn_sidecar: SpawnSidecar) -> None:
    sidecar = spawn_sidecar("--threads", "1")
    with connect(sidecar) as sock:
        send_quietly(sock, b"\x91" * 3000)  # [[[[... 3000 deep, never finished
        closed_within(sock, 20)


def test_authenticated_incomplete_message_costs_only_its_bytes(spawn_sidecar: SpawnSidecar) -> None:
    sidecar = _ready(spawn_sidecar("--threads", "1"))
    rss = rss_bytes(sidecar.process.pid)
    with connect(sidecar) as sock:
        sock.sendall(hello(sidecar))
        assert read_answers(sock, 1)[0][0][2] is None
        # an array of 4 Mi - 16 values (within the item limit), then 3 Mi empty arrays: unfinished
        assert send_quietly(sock, b"\x94\x00\x01\xa5hello\xdd\x00\x3f\xff\xf0")
        for _ in range(3):
            assert send_quietly(sock, EMPTY_ARRAYS[:MIB])
        assert _peak_rss(sidecar) - rss < GROWTH_LIMIT


def test_authenticated_headers_past_the_item_limit_close_at_once(spawn_sidecar: SpawnSidecar) -> None:
    sidecar = spawn_sidecar("--threads", "1")
    with connect(sidecar) as sock:
        sock.sendall(hello(sidecar))
        assert read_answers(sock, 1)[0][0][2] is None
        send_quietly(sock, b"\x94\x00\x01\xa5hello\xdd\x04\x00\x00\x00")  # 64 Mi values declared
        closed_within(sock, 20)
