"""bridge.client.rpc: answers read whole or in pieces, with notifications and other answers
between, errors raised, and the kernel's timeouts raising TimeoutError (no sidecar: the peer is
this test's end of a socket pair or a listener that never answers)."""

from __future__ import annotations

import socket
import sys
import threading
from collections.abc import Iterator

import msgpack
import pytest

from bridge.client import BridgeError, Client, ClosedError
from bridge.client.rpc import RpcConnection

ANSWER = {"status": "found", "points": b"\0" * 8, "nodes": b"\0" * 8, "cost": 1.0, "expanded": 2}


@pytest.fixture
def pair() -> Iterator[tuple[RpcConnection, socket.socket]]:
    ours, peer = socket.socketpair()
    peer.settimeout(10)
    connection = RpcConnection(ours)
    yield connection, peer
    connection.close()
    peer.close()


def _pack(message: object) -> bytes:
    return bytes(msgpack.packb(message, use_bin_type=True))


def test_an_answer_that_is_one_read_is_returned(pair: tuple[RpcConnection, socket.socket]) -> None:
    rpc, peer = pair
    peer.sendall(_pack([1, 1, None, ANSWER]))
    assert rpc.call("path.find", {"graph": "g"}) == ANSWER
    assert msgpack.unpackb(peer.recv(1 << 16))[2] == "path.find"


def test_an_answer_in_pieces_is_put_together(pair: tuple[RpcConnection, socket.socket]) -> None:
    rpc, peer = pair
    wire = _pack([1, 1, None, ANSWER])

    def answer() -> None:
        peer.recv(1 << 16)  # the request: the first piece goes out only once it is read
        peer.sendall(wire[:7])
        peer.sendall(wire[7:])

    writer = threading.Thread(target=answer)
    writer.start()
    assert rpc.call("path.find", {}) == ANSWER
    writer.join()


def test_notifications_and_other_answers_in_the_same_read_are_kept(
    pair: tuple[RpcConnection, socket.socket],
) -> None:
    rpc, peer = pair
    seen: list[str] = []
    rpc.on_notification = lambda method, params: seen.append(method)
    first, second = rpc.send("a", {}), rpc.send("b", {})
    progress = [2, "graph.progress", [{"id": "g", "done": 1, "total": 2}]]
    peer.sendall(_pack(progress) + _pack([1, second, None, {"n": 2}]) + _pack([1, first, None, {"n": 1}]))
    assert rpc.receive(first) == {"n": 1}
    assert rpc.receive(second) == {"n": 2}  # kept from the same read
    assert seen == ["graph.progress"]
    assert rpc.notifications == [("graph.progress", {"id": "g", "done": 1, "total": 2})]
    peer.sendall(_pack(progress))  # a notification alone, then the answer in a read of its own
    third = rpc.send("c", {})
    peer.sendall(_pack([1, third, None, {"n": 3}]))
    assert rpc.receive(third) == {"n": 3}


def test_an_error_answer_raises_and_a_closed_peer_says_so(pair: tuple[RpcConnection, socket.socket]) -> None:
    rpc, peer = pair
    peer.sendall(_pack([1, 1, {"code": "bad_request", "message": "no"}, None]))
    with pytest.raises(BridgeError, match="no"):
        rpc.call("path.find", {})
    peer.shutdown(socket.SHUT_WR)
    with pytest.raises(ClosedError):
        rpc.call("path.find", {})


def test_a_peer_that_never_answers_times_out() -> None:
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        with Client.connect("127.0.0.1", port, timeout=0.2) as client:
            if sys.platform != "win32":  # the kernel keeps the timeout: no poll before each call
                assert client.sock.gettimeout() is None
            with pytest.raises(TimeoutError):
                client.call("graph.list", {})
