"""msgpack-RPC spoken by hand (msgpack.packb + a plain socket), without bridge.Client."""

from __future__ import annotations

import time

import msgpack

from bridge.client.sidecar import Sidecar
from tests.bridge.conftest import raw_connection, read_messages


def _request(msgid: int, method: str, params: dict[str, object]) -> bytes:
    return msgpack.packb([0, msgid, method, [params]], use_bin_type=True)


def _hello(sidecar: Sidecar, msgid: int = 1) -> bytes:
    return _request(msgid, "hello", {"token": sidecar.token, "client": "raw", "protocol": 1})


def _grid(msgid: int, graph_id: str) -> bytes:
    params = {"id": graph_id, "width": 4, "height": 1, "cells": b"\x01\x01\x01\x01", "diagonal": "never"}
    return _request(msgid, "graph.load_grid", params)


def test_several_messages_in_one_write(sidecar: Sidecar) -> None:
    with raw_connection(sidecar) as sock:
        find = _request(3, "path.find", {"graph": "raw-one", "start": [0, 0], "goal": [3, 0]})
        sock.sendall(
            _hello(sidecar) + _grid(2, "raw-one") + find + _request(4, "graph.info", {"id": "raw-one"})
        )
        answers = {m[1]: m for m in read_messages(sock, 4)}  # type: ignore[index]
    assert set(answers) == {1, 2, 3, 4}
    assert all(m[0] == 1 and m[2] is None for m in answers.values())  # type: ignore[index]
    assert answers[3][3]["status"] == "found"
    assert answers[3][3]["cost"] == 3.0
    assert answers[4][3]["width"] == 4  # type: ignore[index]


def test_one_message_split_byte_by_byte(sidecar: Sidecar) -> None:
    with raw_connection(sidecar) as sock:
        data = (
            _hello(sidecar)
            + _grid(2, "raw-split")
            + _request(3, "path.find", {"graph": "raw-split", "start": [3, 0], "goal": [0, 0]})
        )
        for i in range(len(data)):
            sock.send(data[i : i + 1])
            if i % 16 == 0:
                time.sleep(0.0005)  # let the server see really separate reads
        messages = read_messages(sock, 3)
    last = next(m for m in messages if m[1] == 3)  # type: ignore[index]
    assert last[2] is None
    assert last[3]["status"] == "found"


def test_error_shape_and_msgids_are_echoed(sidecar: Sidecar) -> None:
    with raw_connection(sidecar) as sock:
        sock.sendall(_hello(sidecar, 4294967295) + _request(0, "no.such.method", {}))
        messages = {m[1]: m for m in read_messages(sock, 2)}  # type: ignore[index]
    assert messages[4294967295][2] is None
    error = messages[0][2]  # type: ignore[index]
    assert set(error) == {"code", "message", "data"}
    assert error["code"] == "unknown_method"
    assert messages[0][3] is None  # type: ignore[index]


def test_notifications_get_no_answer_and_do_not_break_the_stream(sidecar: Sidecar) -> None:
    with raw_connection(sidecar) as sock:
        notify = msgpack.packb([2, "graph.drop", [{"id": "x"}]], use_bin_type=True)
        sock.sendall(notify + _hello(sidecar, 9))
        (message,) = read_messages(sock, 1)
    assert message[:3] == [1, 9, None]  # type: ignore[index]
