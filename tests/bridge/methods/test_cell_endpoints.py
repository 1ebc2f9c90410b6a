"""path.find's and path.find_packed's ``"cells": true`` through a real sidecar: on a grid placed in
the world the endpoints are its cells (no position round trip), the answer's points stay world
positions."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from bridge.client import Client
from bridge.wire.errors import BridgeError, error_code
from python_core.grid.graph import GridGraph
from python_core.navigation.grid import GridNavigator

WALK = np.ones((6, 9), dtype=bool)
WALK[1:5, 4] = False


def _load(client: Client) -> None:
    client.load_grid("cw", WALK, diagonal="never", cell_size=(2.0, 0.5), origin=(10.0, -1.0))


def _code(client: Client, params: dict[str, Any]) -> str:
    with pytest.raises(BridgeError) as caught:
        client.call("path.find", params)
    return error_code(caught.value)


def test_cells_give_the_path_of_their_world_positions(client: Client) -> None:
    _load(client)
    by_position = client.call("path.find", {"graph": "cw", "start": [10.0, -1.0], "goal": [26.0, 1.5]})
    by_cell = client.call("path.find", {"graph": "cw", "start": [0, 0], "goal": [8, 5], "cells": True})
    assert by_cell["status"] == "found"
    assert by_cell == by_position
    assert np.frombuffer(by_cell["points"], "<f4").reshape(-1, 2)[-1].tolist() == [26.0, 1.5]
    # In a batch too, beside a query by position.
    many = client.find_many([
        {"graph": "cw", "start": [0, 0], "goal": [8, 5], "cells": True},
        {"graph": "cw", "start": [10.0, -1.0], "goal": [26.0, 1.5]},
    ])  # fmt: skip
    assert many[0] == many[1] == by_position


def test_cells_false_keeps_positions(client: Client) -> None:
    _load(client)
    # [8, 5] as a position is near cell (-1, 11): outside the grid.
    params = {"graph": "cw", "start": [10.0, -1.0], "goal": [8, 5], "cells": False}
    assert _code(client, params) == "out_of_bounds"


@pytest.mark.parametrize(
    ("params", "code"),
    [
        ({"start": [0.5, 0], "goal": [8, 5]}, "bad_request"),
        ({"start": [0, 0], "goal": [8, 5, 0]}, "bad_request"),
        ({"start": [0, 0], "goal": [9, 0]}, "out_of_bounds"),
        ({"start": [-1, 0], "goal": [8, 5]}, "out_of_bounds"),
        ({"start": [0, 0], "goal": [8, 5], "cells": 1}, "bad_request"),
    ],
)
def test_bad_cells_are_refused(client: Client, params: dict[str, Any], code: str) -> None:
    _load(client)
    assert _code(client, {"graph": "cw", "cells": True, **params}) == code


def test_cells_on_a_waypoint_graph_are_refused(client: Client) -> None:
    client.load_waypoints("cw_wp", [1, 2], [[0, 0, 0], [1, 0, 0]], [[1, 2]])
    with pytest.raises(BridgeError) as caught:
        client.call("path.find", {"graph": "cw_wp", "start": 1, "goal": 2, "cells": True})
    assert error_code(caught.value) == "unsupported"
    assert "'cells' is for grids only" in str(caught.value)


def _packed_equal(a: dict[str, Any], b: dict[str, Any]) -> None:
    for key in ("status", "costs", "expanded", "offsets", "points", "nodes"):
        assert a[key].tolist() == b[key].tolist(), key
    assert a["errors"] == b["errors"]


def test_packed_cells_give_the_paths_of_their_world_positions(client: Client) -> None:
    """path.find_packed with int32 cells (cells: true) on a grid placed in the world: the same
    answers as the same queries given as its cells' world positions (cells: false)."""
    _load(client)
    starts = np.int32([[0, 0], [8, 5], [0, 5], [2, 3], [1, 1]])
    goals = np.int32([[8, 5], [0, 0], [8, 0], [2, 3], [4, 1]])  # the last goal is a wall: no path

    def placed(cells: np.ndarray) -> np.ndarray:
        return (cells * np.float32([2.0, 0.5]) + np.float32([10.0, -1.0])).astype(np.float32)

    by_cell = client.find_packed("cw", starts, goals)
    _packed_equal(by_cell, client.find_packed("cw", placed(starts), placed(goals)))
    assert by_cell["status"].tolist() == [0, 0, 0, 0, 2]
    assert by_cell["points"][by_cell["offsets"][1] - 1].tolist() == [26.0, 1.5]  # world points
    # A cell outside the grid is its own query's out_of_bounds; the others answer as before.
    outside = starts.copy()
    outside[1] = (9, 0)
    answer = client.find_packed("cw", outside, goals)
    assert answer["status"].tolist() == [0, 255, 0, 0, 2]
    assert [index for index, _ in answer["errors"]] == [1]
    assert answer["errors"][0][1]["code"] == "out_of_bounds"
    assert answer["costs"][[0, 2, 3, 4]].tolist() == by_cell["costs"][[0, 2, 3, 4]].tolist()


def test_packed_work_estimates_read_cells_on_a_placed_grid() -> None:
    """The estimates that share a batch out between threads read cells as cells on a placed grid."""
    grid = GridGraph(WALK.astype(np.uint8), diagonal="never", cell_size=(2.0, 0.5), origin=(10.0, -1.0))
    placed, plain = GridNavigator(grid, world=True), GridNavigator(grid)
    starts, goals = np.int64([[0, 0], [1, 1]]), np.int64([[8, 5], [1, 3]])
    expected = plain.work_estimates(starts, goals, hierarchical=False)
    assert expected.tolist() == [8.0, 2.0]
    got = placed.work_estimates(starts, goals, hierarchical=False, cells=True)
    assert got.tolist() == expected.tolist()
