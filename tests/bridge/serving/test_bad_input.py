"""Bad input, with nothing lost: the offender gets an error or a clean disconnect, the sidecar keeps
answering other clients, and graphs loaded before are intact (``_assert_unharmed`` checks all three).
"""

from __future__ import annotations

import math
import socket
import struct
from collections.abc import Iterator
from typing import Any

import msgpack
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bridge.client import Client, ClosedError
from bridge.client.sidecar import Sidecar
from bridge.wire.errors import BadRequestError, BridgeError, GraphRejectedError, TooLargeError
from tests.bridge.conftest import SpawnSidecar, raw_connection, read_until_closed

WITNESS = "bad-witness"
KNOWN_CODES = {
    "bad_request",
    "unknown_method",
    "unauthorized",
    "too_many_requests",
    "invalid_graph",
    "unknown_graph",
    "out_of_bounds",
    "too_large",
    "unsupported",
    "blocked_endpoint",
}


@pytest.fixture(scope="module")
def witness(sidecar: Sidecar) -> Iterator[tuple[Client, dict[str, Any]]]:
    """A connection held open across the module, a graph it loaded, and that graph's answer."""
    with sidecar.connect() as client:
        walls = np.ones((6, 6), dtype=bool)
        walls[2, 1:5] = False
        client.load_grid(WITNESS, walls, diagonal="never")
        yield client, client.find(WITNESS, (0, 0), (5, 5))


def _assert_unharmed(sidecar: Sidecar, witness: tuple[Client, dict[str, Any]]) -> None:
    client, expected = witness
    assert client.find(WITNESS, (0, 0), (5, 5)) == expected  # the old connection, the old graph
    with sidecar.connect() as other:  # and a new client is served
        assert other.find(WITNESS, (0, 0), (5, 5)) == expected
        assert other.info(WITNESS)["version"] == 1


def _request(msgid: int, method: Any, params: Any) -> bytes:
    return msgpack.packb([0, msgid, method, params], use_bin_type=True)


def _hello(sidecar: Sidecar) -> bytes:
    return _request(1, "hello", [{"token": sidecar.token, "client": "bad", "protocol": 1}])


def _send_and_close(sidecar: Sidecar, data: bytes, *, hello: bool = True) -> list[Any]:
    """Send ``data`` (after a hello), half-close, return every answer until the server closes."""
    with raw_connection(sidecar) as sock:
        sock.sendall((_hello(sidecar) if hello else b"") + data)
        sock.shutdown(socket.SHUT_WR)
        messages = read_until_closed(sock)
    for message in messages:
        assert isinstance(message, list)
        assert message[0] == 1
        assert len(message) == 4
        if message[2] is not None:
            assert message[2]["code"] in KNOWN_CODES, message
    return messages


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(garbage=st.binary(max_size=300), authorised=st.booleans())
def test_garbage_bytes(
    sidecar: Sidecar, witness: tuple[Client, dict[str, Any]], garbage: bytes, authorised: bool
) -> None:
    _send_and_close(sidecar, garbage, hello=authorised)
    _assert_unharmed(sidecar, witness)


FIELDS = ["id", "width", "height", "cells", "diagonal", "graph", "start", "goal", "options", "dim", "ids"]
FIELDS += ["positions", "edges", "vertices", "indices", "sizes", "queries", "agents", "points", "weights"]
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.floats()
    | st.text(max_size=8)
    | st.binary(max_size=8)
)
PARAMS = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(FIELDS), inner, max_size=6),
    max_leaves=12,
)
METHOD_NAMES = ["graph.load_grid", "graph.load_waypoints", "graph.load_navmesh", "graph.update"]
METHOD_NAMES += ["path.find", "path.find_many", "graph.info", "graph.drop"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(params=PARAMS, method=st.sampled_from(METHOD_NAMES))
def test_random_well_formed_requests(
    sidecar: Sidecar, witness: tuple[Client, dict[str, Any]], method: str, params: Any
) -> None:
    if isinstance(params, dict) and params.get("id") == WITNESS:
        params["id"] = "not-the-witness"
    (_hello_answer, answer) = _send_and_close(sidecar, _request(2, method, [params]))
    assert answer[1] == 2
    assert (answer[2] is None) != (answer[3] is None)
    _assert_unharmed(sidecar, witness)


@pytest.mark.parametrize(
    ("message", "code"),
    [
        (
            _request(
                2,
                "graph.load_grid",
                [{"id": "b", "width": "3", "height": 1, "cells": b"\x01" * 3, "diagonal": "never"}],
            ),
            "invalid_graph",
        ),
        (
            _request(
                2,
                "graph.load_grid",
                [{"id": "b", "width": 3, "height": 1, "cells": "111", "diagonal": "never"}],
            ),
            "invalid_graph",
        ),
        (
            _request(2, "graph.load_grid", [{"id": "b", "width": 3, "height": 1, "diagonal": "never"}]),
            "invalid_graph",
        ),
        (
            _request(
                2,
                "graph.load_grid",
                [{"id": 5, "width": 3, "height": 1, "cells": b"\x01" * 3, "diagonal": "never"}],
            ),
            "bad_request",
        ),
        (
            _request(
                2,
                "graph.load_grid",
                [{"id": "b", "width": 3, "height": 1, "cells": b"\x01" * 3, "diagonal": "sometimes"}],
            ),
            "invalid_graph",
        ),
        (_request(2, "graph.load_grid", {"id": "b"}), "bad_request"),
        (_request(2, "graph.load_grid", [1, 2]), "bad_request"),
        (_request(2, 17, [{}]), "unknown_method"),
        (_request(2, "graph.explode", [{}]), "unknown_method"),
        (_request(2, "path.find", [{"graph": WITNESS, "start": [0, 0]}]), "bad_request"),
        (
            _request(2, "path.find", [{"graph": WITNESS, "start": [0, 0], "goal": [math.nan, 1]}]),
            "bad_request",
        ),
        (_request(2, "path.find", [{"graph": WITNESS, "start": [0, 0], "goal": [1.5, 1]}]), "bad_request"),
        (
            _request(
                2,
                "path.find",
                [{"graph": WITNESS, "start": [0, 0], "goal": [5, 5], "options": {"max_expansions": -1}}],
            ),
            "bad_request",
        ),
        (
            _request(
                2,
                "path.find",
                [{"graph": WITNESS, "start": [0, 0], "goal": [5, 5], "options": {"heuristic": "psychic"}}],
            ),
            "bad_request",
        ),
        (
            _request(
                2,
                "path.find",
                [{"graph": WITNESS, "start": [0, 0], "goal": [5, 5], "options": {"colour": "red"}}],
            ),
            "bad_request",
        ),
        (_request(2, "path.find", [{"graph": WITNESS, "start": [3, 2], "goal": [5, 5]}]), "blocked_endpoint"),
        (_request(2, "path.find", [{"graph": WITNESS, "start": [0, 0], "goal": [6, 0]}]), "out_of_bounds"),
        (_request(2, "path.find_many", [{"queries": "all of them"}]), "bad_request"),
        (
            _request(2, "graph.update", [{"id": WITNESS, "cells": b"\x01\x02\x03", "walkable": True}]),
            "bad_request",
        ),
        (_request(2, "graph.update", [{"id": WITNESS, "points": b"", "disabled": True}]), "bad_request"),
        (
            _request(2, "graph.update", [{"id": WITNESS, "agents": [{"op": "teleport", "agent": 1}]}]),
            "bad_request",
        ),
        (
            _request(2, "graph.update", [{"id": WITNESS, "weights": np.full(36, np.nan, "<f4").tobytes()}]),
            "invalid_graph",
        ),
    ],
)
def test_wrong_types_and_missing_fields_get_an_error(
    sidecar: Sidecar, witness: tuple[Client, dict[str, Any]], message: bytes, code: str
) -> None:
    answers = _send_and_close(sidecar, message)
    assert answers[-1][1] == 2
    assert answers[-1][2]["code"] == code, answers[-1]
    _assert_unharmed(sidecar, witness)


@pytest.mark.parametrize(
    "header",
    [
        b"\xc6\xff\xff\xff\xff",
        b"\xdb\xff\xff\xff\xff",
        b"\xdd\xff\xff\xff\xff",
        b"\xdf\xff\xff\xff\xff",
        b"\xc5\xff\xff" + b"x" * 10,
    ],
    ids=["bin32 4GB", "str32 4GB", "array32 4G items", "map32 4G entries", "bin16 truncated"],
)
def test_huge_declared_lengths_disconnect_cleanly(
    sidecar: Sidecar, witness: tuple[Client, dict[str, Any]], header: bytes
) -> None:
    prefix = b"\x94\x00\x02\xa9path.find\x91"  # [0, 2, "path.find", [<header...>
    assert _send_and_close(sidecar, prefix + header)[:1] == [[1, 1, None, _send_hello_result(sidecar)]]
    _assert_unharmed(sidecar, witness)


def _send_hello_result(sidecar: Sidecar) -> dict[str, Any]:
    with sidecar.connect(hello=False) as client:
        return client.hello(sidecar.token, "bad")


@pytest.mark.parametrize(
    "message",
    [msgpack.packb(42), msgpack.packb([0, "one", "hello", [{}]]), msgpack.packb([7, 1, 2, 3]), b"\xc1"],
)
def test_non_rpc_messages_disconnect(
    sidecar: Sidecar, witness: tuple[Client, dict[str, Any]], message: bytes
) -> None:
    answers = _send_and_close(sidecar, message + _request(5, "graph.info", [{"id": WITNESS}]))
    assert [m[1] for m in answers] == [1]  # the hello; nothing after the violation
    _assert_unharmed(sidecar, witness)


def _f32(values: Any) -> bytes:
    return np.asarray(values, dtype="<f4").tobytes()


def _i32(values: Any) -> bytes:
    return np.asarray(values, dtype="<i4").tobytes()


@pytest.mark.parametrize(
    ("method", "params"),
    [
        (
            "graph.load_navmesh",
            {
                "dim": 2,
                "vertices": _f32([[0, 0], [1, 0], [1, 1]]),
                "indices": _i32([0, 1, 7]),
                "sizes": _i32([3]),
            },
        ),
        (
            "graph.load_navmesh",
            {
                "dim": 2,
                "vertices": _f32([[0, 0], [1, 0], [1, 1]]),
                "indices": _i32([0, 1, 2]),
                "sizes": _i32([-3]),
            },
        ),
        (
            "graph.load_navmesh",
            {
                "dim": 2,
                "vertices": _f32([[0, 0], [math.nan, 0], [1, 1]]),
                "indices": _i32([0, 1, 2]),
                "sizes": _i32([3]),
            },
        ),
        (
            "graph.load_navmesh",
            {
                "dim": 3,
                "vertices": _f32([[0, 0, 0]] * 3),
                "indices": _i32([0, 1, 2]),
                "sizes": _i32([3]),
                "up_axis": "w",
            },
        ),
        (
            "graph.load_waypoints",
            {
                "dim": 2,
                "ids": _i32([1, 2]),
                "positions": _f32([[0, 0], [0, math.inf]]),
                "edges": _i32([1, 2]),
            },
        ),
        (
            "graph.load_waypoints",
            {"dim": 2, "ids": _i32([1, 2]), "positions": _f32([[0, 0], [0, 1]]), "edges": _i32([1, 3])},
        ),
        (
            "graph.load_waypoints",
            {"dim": 2, "ids": _i32([1, 1]), "positions": _f32([[0, 0], [0, 1]]), "edges": b""},
        ),
        (
            "graph.load_waypoints",
            {"dim": 4, "ids": _i32([1]), "positions": _f32([[0, 0, 0, 0]]), "edges": b""},
        ),
        (
            "graph.load_waypoints",
            {
                "dim": 2,
                "ids": _i32([1, 2]),
                "positions": _f32([[0, 0], [0, 1]]),
                "edges": _i32([1, 2]),
                "bidirectional": b"\x01\x01",
            },
        ),
        (
            "graph.load_grid",
            {
                "width": 2,
                "height": 2,
                "cells": b"\x01" * 4,
                "diagonal": "never",
                "weights": _f32([1, 1, math.nan, 1]),
            },
        ),
        (
            "graph.load_grid",
            {"width": 2, "height": 2, "cells": b"\x01" * 4, "diagonal": "never", "cell_size": [0, 1]},
        ),
        ("graph.load_grid", {"width": 0, "height": 2, "cells": b"", "diagonal": "never"}),
    ],
)
def test_invalid_graphs_are_refused_and_replace_nothing(
    sidecar: Sidecar, witness: tuple[Client, dict[str, Any]], method: str, params: dict[str, Any]
) -> None:
    with sidecar.connect() as client, pytest.raises(GraphRejectedError):
        client.call(method, {"id": WITNESS, **params})  # would replace the witness if valid
    _assert_unharmed(sidecar, witness)


def test_limits_answer_errors_and_keep_serving(spawn_sidecar: SpawnSidecar) -> None:
    small = spawn_sidecar(
        "--threads",
        "1",
        "--max-graph-nodes",
        "100",
        "--max-expansions",
        "10",
        "--max-batch",
        "5",
        "--max-message-bytes",
        "4096",
        "--max-graphs",
        "2",
    )
    with small.connect() as client:
        with pytest.raises(TooLargeError):
            client.load_grid("big", np.ones((11, 10)))
        client.load_grid("ok", np.ones((10, 10)))
        capped = client.find("ok", (0, 0), (9, 9), heuristic="zero", max_expansions=10**9)
        assert capped["status"] == "budget_exhausted"
        assert capped["expanded"] <= 10
        with pytest.raises(TooLargeError):
            client.find_many([Client.query("ok", (0, 0), (1, 1))] * 6)
        with pytest.raises(TooLargeError):
            client.find_packed("ok", [(0, 0)] * 6, [(1, 1)] * 6)
        client.load_grid("ok2", np.ones((2, 2)))
        with pytest.raises(TooLargeError):
            client.load_grid("ok3", np.ones((2, 2)))
        with pytest.raises(ClosedError):  # 8 KB cannot even be decoded: the connection closes
            client.call(
                "graph.load_grid",
                {"id": "x", "width": 8192, "height": 1, "cells": b"\x01" * 8192, "diagonal": "never"},
            )
    with small.connect() as other:
        assert other.find("ok", (0, 0), (1, 1))["status"] == "found"


def test_pending_limit_answers_too_many_requests(spawn_sidecar: SpawnSidecar) -> None:
    small = spawn_sidecar("--threads", "1", "--max-pending", "2")
    with small.connect() as client:
        client.load_grid("p", np.ones((150, 150)))
        ids = [
            client.send("path.find", Client.query("p", (0, 0), (149, 149), heuristic="zero"))
            for _ in range(6)
        ]
        outcomes = []
        for msgid in ids:
            try:
                outcomes.append(client.receive(msgid)["status"])
            except BridgeError as exc:
                outcomes.append(exc.to_wire()["code"])
    assert outcomes.count("found") >= 2
    assert "too_many_requests" in outcomes
    assert set(outcomes) <= {"found", "too_many_requests"}


def test_bad_request_error_names_the_field(client: Client) -> None:
    with pytest.raises(BadRequestError) as info:
        client.call("path.find", {"graph": 3})
    assert "'graph'" in info.value.message
    assert info.value.data == {"field": "graph"}


def test_an_options_map_validated_once_still_refuses_its_bad_twins(client: Client) -> None:
    """A batch's options are validated once per distinct map (bridge/methods/queries.py keeps them): a
    map that differs only in a value's type, or a grid without a hierarchy, is still refused."""
    client.load_grid("opts_h", np.ones((16, 16), dtype=bool), hierarchy={"cluster_size": 8})
    client.load_grid("opts_plain", np.ones((16, 16), dtype=bool))
    good = Client.query("opts_h", (0, 0), (15, 15), hierarchical=True, max_expansions=500)
    twins = [
        {**good, "options": {"hierarchical": 1, "max_expansions": 500}},  # 1 is not true
        {**good, "options": {"hierarchical": True, "max_expansions": 500.0}},
        {**good, "options": {"hierarchical": True, "max_expansions": -1}},
        {**good, "graph": "opts_plain"},  # no hierarchy there
    ]
    answers = client.find_many([good, *twins, good])
    assert [a["status"] for a in answers] == ["found", "error", "error", "error", "error", "found"]
    assert {a["error"]["code"] for a in answers[1:5]} == {"bad_request"}


def test_struct_of_bin32_header() -> None:  # the header above really declares 4 GB
    assert struct.unpack(">I", b"\xc6\xff\xff\xff\xff"[1:])[0] == 2**32 - 1
