"""Until a connection says hello with the right token, every method answers ``unauthorized``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from bridge.client import Client
from bridge.client.sidecar import Sidecar
from bridge.wire.errors import BadRequestError, UnauthorizedError
from bridge.wire.protocol import METHODS


@pytest.mark.parametrize("method", [m for m in METHODS if m != "hello"] + ["no.such.method"])
def test_every_method_needs_hello_first(sidecar: Sidecar, method: str) -> None:
    with sidecar.connect(hello=False) as client, pytest.raises(UnauthorizedError):
        client.call(method, {"id": "auth-g"})


def test_wrong_token_is_answered_then_the_connection_is_closed(sidecar: Sidecar) -> None:
    with sidecar.connect(hello=False) as intruder:
        with pytest.raises(UnauthorizedError):
            intruder.hello("0" * len(sidecar.token))
        with pytest.raises(ConnectionError):  # one guess per connection: closed (or reset)
            intruder.load_grid("auth-intruder", np.ones((2, 2)))
    with sidecar.connect() as owner:
        assert "auth-intruder" not in [g["id"] for g in owner.call("graph.list")["graphs"]]


@pytest.mark.parametrize("hello", [{"client": "no token"}, {"token": 1234}], ids=["missing", "not-a-string"])
def test_a_hello_without_a_token_string_is_answered_then_closed(
    sidecar: Sidecar, hello: dict[str, Any]
) -> None:
    with sidecar.connect(hello=False) as client:
        with pytest.raises(UnauthorizedError):
            client.call("hello", hello)
        with pytest.raises(ConnectionError):  # ClosedError, or a reset
            client.call("graph.list")


def test_requests_before_hello_leave_the_connection_locked_until_a_good_one(sidecar: Sidecar) -> None:
    with sidecar.connect(hello=False) as client:
        with pytest.raises(UnauthorizedError):
            client.call("graph.list")
        client.hello(sidecar.token)
        assert "graphs" in client.call("graph.list")


def test_a_second_hello_is_refused_and_the_connection_stays_authorised(sidecar: Sidecar) -> None:
    with sidecar.connect() as client:
        with pytest.raises(BadRequestError, match="already"):
            client.hello("0" * len(sidecar.token))
        with pytest.raises(BadRequestError, match="already"):
            client.hello(sidecar.token)
        assert "graphs" in client.call("graph.list")


def test_unknown_hello_fields_are_refused(sidecar: Sidecar) -> None:
    with sidecar.connect(hello=False) as client:
        with pytest.raises(BadRequestError, match="tokn"):
            client.call("hello", {"token": sidecar.token, "tokn": "typo"})
        client.hello(sidecar.token)  # the refusal did not close the connection
        assert "graphs" in client.call("graph.list")


def test_wrong_protocol_version_is_refused(sidecar: Sidecar) -> None:
    with sidecar.connect(hello=False) as client:
        with pytest.raises(BadRequestError):
            client.call("hello", {"token": sidecar.token, "client": "old", "protocol": 999})
        with pytest.raises(UnauthorizedError):
            client.call("graph.list")


def test_authorisation_is_per_connection(sidecar: Sidecar) -> None:
    with sidecar.connect() as good:
        good.load_grid("auth-per-conn", np.ones((2, 2)))  # the first load may wait for the workers
        other = Client.connect(sidecar.host, sidecar.port)  # ... past a hello timeout
    with other, pytest.raises(UnauthorizedError):
        other.find("auth-per-conn", (0, 0), (1, 1))
