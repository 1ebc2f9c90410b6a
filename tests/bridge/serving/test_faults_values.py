"""Bad values named in errors without recursing or leaking: unknown fields in every method, agent
ids and world coordinates out of range, huge and deeply nested values, and the ``internal`` error
that names only the exception type."""

from __future__ import annotations

import logging
from typing import Any

import numpy as np
import pytest

from bridge.client import Client
from bridge.wire.errors import (
    BadRequestError,
    GraphRejectedError,
    UnknownGraphError,
    from_exception,
    short_repr,
)
from bridge.wire.protocol import AGENT_ID_MAX


@pytest.fixture(scope="module")
def grid(sidecar: Any) -> str:
    with sidecar.connect() as client:
        client.load_grid("values-g", np.ones((8, 8)), diagonal="never")
    return "values-g"


@pytest.mark.parametrize(
    ("method", "params"),
    [
        ("graph.info", {"id": "values-g", "verbose": True}),
        ("graph.list", {"all": True}),
        ("graph.drop", {"id": "no-such-graph", "force": True}),
        ("path.find_many", {"queries": [], "parallel": True}),
    ],
)
def test_unknown_fields_are_refused_in_every_method(
    client: Client, grid: str, method: str, params: dict[str, Any]
) -> None:
    extra = next(key for key in params if key not in ("id", "queries"))
    with pytest.raises(BadRequestError, match=extra):
        client.call(method, params)
    assert client.info(grid)["version"] == 1  # nothing happened, graph.drop included


@pytest.mark.parametrize("agent", [-1, AGENT_ID_MAX + 1, 2**63 - 1, 2**64 - 1])
def test_agent_ids_outside_the_range_are_bad_requests(client: Client, grid: str, agent: int) -> None:
    with pytest.raises(BadRequestError, match="agent"):
        client.call("graph.update", {"id": grid, "agents": [{"op": "place", "agent": agent, "cell": [1, 1]}]})


def test_the_largest_agent_id_is_taken(client: Client, grid: str) -> None:
    place = {"op": "place", "agent": AGENT_ID_MAX, "cell": [1, 1]}
    remove = {"op": "remove", "agent": AGENT_ID_MAX}
    version = client.call("graph.update", {"id": grid, "agents": [place]})["version"]
    assert client.call("graph.update", {"id": grid, "agents": [remove]})["version"] == version + 1


@pytest.mark.parametrize("key", ["cell_size", "origin"])
@pytest.mark.parametrize("value", [[1e308, 1.0], [1.0, -1e10], [2**70, 1]])
def test_world_coordinates_outside_the_range_are_refused(client: Client, key: str, value: list[Any]) -> None:
    with pytest.raises(GraphRejectedError, match=key):
        client.load_grid("values-world", np.ones((2, 2)), **{key: value})


def test_world_coordinates_at_the_range_are_taken(client: Client) -> None:
    client.load_grid("values-world", np.ones((2, 2)), cell_size=[1e9, 1e9], origin=[-1e9, 1e9])
    assert client.find("values-world", (-1e9, 1e9), (0.0, 2e9))["status"] == "found"


def test_huge_and_deep_values_are_named_in_a_few_dozen_characters(client: Client, grid: str) -> None:
    with pytest.raises(UnknownGraphError) as unknown:
        client.find("x" * 1_000_000, (0, 0), (1, 1))
    deep: Any = ["z" * 1000] * 1000
    for _ in range(20):
        deep = [deep, 1]  # a megabyte, 21 levels down, if printed whole
    with pytest.raises(BadRequestError) as nested:
        client.call("graph.update", {"id": grid, "agents": [{"op": "place", "agent": 1, "cell": deep}]})
    with pytest.raises(BadRequestError) as fields:
        client.call("graph.info", {"id": grid, **{f"{i}" * 1000: i for i in range(100)}})
    for error in (unknown.value, nested.value, fields.value):
        assert len(error.message) < 400, error.message
        assert len(repr(error.data)) < 2000


def test_short_repr_is_bounded_for_any_value() -> None:
    deep: Any = []
    for _ in range(5000):
        deep = [deep]
    assert short_repr(deep) == "[[[...]]]"
    assert short_repr(b"\x00" * 10**7) == "bin(10000000 bytes)"
    assert len(short_repr({str(i): "y" * 10**5 for i in range(10**4)})) <= 60
    assert len(short_repr(2**100_000)) <= 60


def test_internal_errors_name_the_type_only_and_are_logged_once_a_minute(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def fail() -> None:
        raise KeyError("secret/server/path")

    errors = []
    with caplog.at_level(logging.ERROR, logger="bridge.errors"):
        for _ in range(5):  # the same failure site five times
            try:
                fail()
            except KeyError as exc:
                errors.append(from_exception(exc).to_wire())
    assert errors[0] == {"code": "internal", "message": "internal server error", "data": {"type": "KeyError"}}
    assert all(error == errors[0] for error in errors)
    logged = [r for r in caplog.records if r.name == "bridge.errors"]
    assert len(logged) == 1
    assert logged[0].exc_info is not None
