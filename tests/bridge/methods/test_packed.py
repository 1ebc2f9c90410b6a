"""path.find_packed through a real sidecar: the answers of path.find_many as arrays, per-query
errors beside the others, world positions, and bad requests as error objects."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from bridge.client import Client
from bridge.serving.packed import balanced_pieces
from bridge.wire.errors import BridgeError, error_code

WALK = np.ones((48, 64), dtype=bool)
WALK[20, 2:60] = False
WALK[5:40, 30] = False
WALK[10, 10] = False  # a start on a wall


def _pairs(count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    open_cells = np.argwhere(WALK)[:, ::-1]
    return (
        open_cells[rng.choice(len(open_cells), count)].astype(np.int32),
        open_cells[rng.choice(len(open_cells), count)].astype(np.int32),
    )


def _same_as_find_many(packed: dict[str, Any], many: list[dict[str, Any]]) -> None:
    codes = {"found": 0, "partial": 1, "no_path": 2, "budget_exhausted": 3, "error": 255}
    errors = dict(packed["errors"])
    for i, answer in enumerate(many):
        assert packed["status"][i] == codes[answer["status"]], i
        if answer["status"] == "error":
            assert errors[i]["code"] == answer["error"]["code"]
            continue
        lo, hi = packed["offsets"][i], packed["offsets"][i + 1]
        assert packed["costs"][i] == pytest.approx(answer["cost"])
        assert packed["expanded"][i] == answer["expanded"]
        np.testing.assert_array_equal(packed["nodes"][lo:hi], np.frombuffer(answer["nodes"], "<i8"))
        np.testing.assert_array_equal(packed["points"][lo:hi].ravel(), np.frombuffer(answer["points"], "<f4"))


@pytest.mark.parametrize("options", [{}, {"hierarchical": True}, {"hierarchical": True, "corridor": True}])
def test_packed_answers_are_find_manys_as_arrays(client: Client, options: dict[str, Any]) -> None:
    client.load_grid("pk", WALK, diagonal="only_if_no_obstacles", hierarchy={"cluster_size": 8})
    starts, goals = _pairs(150, 1)  # more than one chunk
    starts[7] = (10, 10)  # on a wall: that query's error, the others answered
    packed = client.find_packed("pk", starts, goals, **options)
    many = client.find_many(
        [Client.query("pk", tuple(s), tuple(g), **options) for s, g in zip(starts, goals, strict=True)]
    )
    assert packed["status"][7] == 255
    assert (packed["status"] == 0).sum() > 100
    _same_as_find_many(packed, many)


def test_world_positions_snap_to_cells_as_in_path_find(client: Client) -> None:
    client.load_grid("pk_world", WALK, diagonal="never", cell_size=(2.0, 2.0), origin=(1.0, 1.0))
    starts, goals = _pairs(20, 2)
    world_s, world_g = starts * 2.0 + 1.2, goals * 2.0 + 0.8
    packed = client.find_packed("pk_world", world_s.astype(np.float32), world_g.astype(np.float32))
    many = client.find_many(
        [
            Client.query("pk_world", tuple(map(float, s)), tuple(map(float, g)))
            for s, g in zip(world_s, world_g, strict=True)
        ]
    )
    _same_as_find_many(packed, many)


@pytest.mark.parametrize(
    ("params", "code"),
    [
        ({"graph": "nope", "starts": b"", "goals": b""}, "unknown_graph"),
        ({"graph": "pk_bad", "starts": [[0, 0]], "goals": [[1, 1]]}, "bad_request"),
        ({"graph": "pk_bad", "starts": b"\x00" * 12, "goals": b"\x00" * 12}, "bad_request"),
        ({"graph": "pk_bad", "starts": b"\x00" * 8, "goals": b"\x00" * 16}, "bad_request"),
        (
            {
                "graph": "pk_bad",
                "starts": b"\x00" * 8,
                "goals": b"\x00" * 8,
                "options": {"hierarchical": True},
            },
            "bad_request",
        ),
        (
            {"graph": "pk_bad", "starts": b"\x00" * 8, "goals": b"\x00" * 8, "options": {"heuristic": 3}},
            "bad_request",
        ),
        ({"graph": "pk_bad", "starts": b"\x00" * 8, "goals": b"\x00" * 8, "options": 5}, "bad_request"),
        ({"graph": "pk_bad", "starts": b"\x00" * 8, "goals": b"\x00" * 8, "x": 1}, "bad_request"),
        ({"graph": "pk_way", "starts": b"\x00" * 8, "goals": b"\x00" * 8}, "unsupported"),
        ({"graph": "pk_bad", "starts": b"\x00" * 8, "goals": b"\x00" * 8, "cells": False}, "bad_request"),
        (
            {
                "graph": "pk_bad",
                "starts": np.float32([np.nan, 0]).tobytes(),
                "goals": b"\x00" * 8,
                "cells": False,
            },
            "bad_request",
        ),
    ],
)
def test_bad_packed_requests_are_error_objects(client: Client, params: dict[str, Any], code: str) -> None:
    client.load_grid("pk_bad", np.ones((8, 8), dtype=bool))
    client.load_waypoints("pk_way", [0, 1], [(0.0, 0.0), (1.0, 0.0)], [(0, 1)])
    with pytest.raises(BridgeError) as caught:
        client.call("path.find_packed", params)
    assert error_code(caught.value) == code
    ok = client.find_packed("pk_bad", [(0, 0)], [(7, 7)])
    assert ok["status"].tolist() == [0]


def test_pieces_share_the_estimated_work_not_the_count() -> None:
    """A batch cut for two threads: consecutive ranges covering every query once; where the last
    queries are long (scenario files list short paths first) the long ones share fewer to a piece."""
    assert balanced_pieces(np.zeros(0), 4) == []
    even = balanced_pieces(np.full(100, 50.0), 2)
    assert even == [range(0, 50), range(50, 100)]
    skewed = balanced_pieces(np.concatenate((np.full(80, 10.0), np.full(20, 1000.0))), 2)
    assert [len(p) for p in skewed] == [75, 25]  # 75 x (10 + 384) is about half of all the work
    assert [q for p in skewed for q in p] == list(range(100))
    assert balanced_pieces(np.ones(3), 8) == [range(0, 1), range(1, 2), range(2, 3)]  # no empty piece
    # a lead for the last piece (the event loop's): 1.3 shares of 2.3, the same queries in order
    led = balanced_pieces(np.full(100, 50.0), 2, last_lead=0.3)
    assert led == [range(0, 43), range(43, 100)]
    assert [len(p) for p in balanced_pieces(np.full(86, 50.0), 4, last_lead=0.5)] == [19, 19, 19, 29]
