"""Until a connection says hello with the right token, every method answers ``unauthorized``."""

from __future__ import annotations

import numpy as np
import pytest

from bridge.client import Client
from bridge.errors import BadRequestError, UnauthorizedError
from bridge.protocol import METHODS
from bridge.sidecar import Sidecar


@pytest.mark.parametrize("method", [m for m in METHODS if m != "hello"] + ["no.such.method"])
def test_every_method_needs_hello_first(sidecar: Sidecar, method: str) -> None:
    with sidecar.connect(hello=False) as client, pytest.raises(UnauthorizedError):
        client.call(method, {"id": "auth-g"})


def test_wrong_token_is_refused_and_no_graph_operation_happens(sidecar: Sidecar) -> None:
    with sidecar.connect(hello=False) as intruder:
        with pytest.raises(UnauthorizedError):
            intruder.hello("0" * len(sidecar.token))
        with pytest.raises(UnauthorizedError):
            intruder.load_grid("auth-intruder", np.ones((2, 2)))
        with pytest.raises(UnauthorizedError):
            intruder.call("hello", {"client": "no token"})  # missing token: a bad hello, still locked
    with sidecar.connect() as owner:
        assert "auth-intruder" not in [g["id"] for g in owner.call("graph.list")["graphs"]]


def test_a_failed_hello_leaves_the_connection_locked_until_a_good_one(sidecar: Sidecar) -> None:
    with sidecar.connect(hello=False) as client:
        with pytest.raises(UnauthorizedError):
            client.call("hello", {"token": 1234})
        with pytest.raises(UnauthorizedError):
            client.call("graph.list")
        client.hello(sidecar.token)
        assert "graphs" in client.call("graph.list")


def test_wrong_protocol_version_is_refused(sidecar: Sidecar) -> None:
    with sidecar.connect(hello=False) as client:
        with pytest.raises(BadRequestError):
            client.call("hello", {"token": sidecar.token, "client": "old", "protocol": 999})
        with pytest.raises(UnauthorizedError):
            client.call("graph.list")


def test_authorisation_is_per_connection(sidecar: Sidecar) -> None:
    with sidecar.connect() as good, Client.connect(sidecar.host, sidecar.port) as other:
        good.load_grid("auth-per-conn", np.ones((2, 2)))
        with pytest.raises(UnauthorizedError):
            other.find("auth-per-conn", (0, 0), (1, 1))
