"""Units of any size through a real sidecar: ``size`` and ``radius`` in every method that takes a
query (path.find, find_many, find_packed, hierarchical queries, path.reachable, field.request),
agents placed with a size, and bad values answered with error objects that leave the graph as it
was. One grid answers every size."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

from bridge.client import Client
from bridge.wire.errors import BridgeError, error_code
from python_core.flowfield import GOAL
from python_core.grid import GridGraph
from tests.core.flowfield.sized_oracle import footprint_clear, sized_goal_costs

# a wall across row 8 with a 1-cell gap at x = 4 and a 2-cell gap at x = 20, 21
WALK = np.ones((16, 24), dtype=bool)
WALK[8, :] = False
WALK[8, 4] = True
WALK[8, 20:22] = True
START, GOAL_CELL = (3, 2), (3, 12)
GRID = GridGraph(WALK, diagonal="only_if_no_obstacles")


def _anchors(answer: dict[str, Any]) -> list[tuple[int, int]]:
    nodes = np.frombuffer(answer["nodes"], dtype="<i8")
    return [(int(n) % WALK.shape[1], int(n) // WALK.shape[1]) for n in nodes]


def _assert_clear(answer: dict[str, Any], size: int) -> None:
    cells = _anchors(answer)
    assert cells, answer["status"]
    for a, b in itertools.pairwise(cells):
        assert footprint_clear(GRID, size, a, b), (a, b, size)


def _code(call: Any) -> tuple[str, dict[str, Any]]:
    with pytest.raises(BridgeError) as info:
        call()
    return error_code(info.value), info.value.data


@pytest.fixture(scope="module")
def gap(sidecar: Any) -> str:
    with sidecar.connect() as c:
        c.load_grid("sizes_gap", WALK, diagonal="only_if_no_obstacles", hierarchy={"cluster_size": 8})
    return "sizes_gap"


def test_the_gap_is_taken_by_size_one_and_refused_by_size_two(client: Client, gap: str) -> None:
    small = client.find(gap, START, GOAL_CELL)
    big = client.find(gap, START, GOAL_CELL, size=2)
    assert small["status"] == big["status"] == "found"
    assert (4, 8) in _anchors(small)
    assert all(y != 8 or x in (20,) for x, y in _anchors(big))  # through the 2-cell gap only
    assert big["cost"] > small["cost"] + 20
    _assert_clear(big, 2)
    # points are the footprint's centres: anchors + (k - 1) / 2 on a grid without a world frame
    points = np.frombuffer(big["points"], dtype="<f4").reshape(-1, 2)
    np.testing.assert_allclose(points, np.array(_anchors(big)) + 0.5)
    assert client.find(gap, START, GOAL_CELL, size=3)["status"] == "no_path"
    assert client.find(gap, START, GOAL_CELL, size=1) == small  # size 1 is no option at all


def test_every_batch_form_and_the_hierarchy_answer_per_size(client: Client, gap: str) -> None:
    exact = client.find(gap, START, GOAL_CELL, size=2)
    many = client.find_many(
        [client.query(gap, START, GOAL_CELL, size=2), client.query(gap, START, GOAL_CELL)]
    )
    assert many[0] == exact
    assert many[1]["cost"] < exact["cost"]
    packed = client.find_packed(gap, np.array([START, START]), np.array([GOAL_CELL, (23, 15)]), size=2)
    assert packed["status"].tolist() == [0, 2]  # (23, 15): a 2x2 footprint leaves the grid there
    assert packed["costs"][0] == pytest.approx(exact["cost"])
    hpa = client.find(gap, START, GOAL_CELL, size=2, hierarchical=True)
    assert hpa["status"] == "found"
    assert exact["cost"] * (1 - 1e-9) <= hpa["cost"] <= 1.1 * exact["cost"]
    _assert_clear(hpa, 2)
    assert client.find(gap, START, GOAL_CELL, size=3, hierarchical=True)["status"] == "no_path"
    packed_hpa = client.find_packed(gap, np.array([START]), np.array([GOAL_CELL]), size=2, hierarchical=True)
    assert packed_hpa["status"].tolist() == [0]
    assert packed_hpa["costs"][0] == pytest.approx(hpa["cost"])
    assert client.reachable(gap, START, GOAL_CELL, size=2)
    assert not client.reachable(gap, START, GOAL_CELL, size=3)


def test_a_radius_on_a_grid_placed_in_the_world_is_its_size(client: Client) -> None:
    client.load_grid(
        "sizes_world", WALK, diagonal="only_if_no_obstacles", cell_size=(2.0, 2.0), origin=(1, 1)
    )
    start, goal = (7.0, 5.0), (7.0, 25.0)  # footprint centres of size-2 anchors (2.5, 1.5), (2.5, 11.5)
    by_radius = client.find("sizes_world", start, goal, radius=1.5)  # 2 * 1.5 / 2 -> 2 cells
    by_size = client.find("sizes_world", start, goal, size=2)
    assert by_radius == by_size
    assert by_radius["status"] == "found"
    assert _anchors(by_radius)[0] == (3, 2)  # the footprint centre nearest (7, 5): 1 + (3 + 0.5) * 2
    points = np.frombuffer(by_radius["points"], dtype="<f4").reshape(-1, 2)
    np.testing.assert_allclose(points, 1.0 + (np.array(_anchors(by_radius)) + 0.5) * 2.0)
    assert client.find("sizes_world", start, goal, radius=0.9) == client.find("sizes_world", start, goal)
    cells = client.call(
        "path.find",
        {"graph": "sizes_world", "start": [3, 2], "goal": [3, 12], "cells": True, "options": {"radius": 1.5}},
    )
    assert cells == by_size
    # (8.2, 6.2) is nearest cell (4, 3)'s point but anchor (3, 2)'s footprint centre (8, 6)
    packed = client.find_packed("sizes_world", np.array([(8.2, 6.2)]), np.array([goal]), radius=1.5)
    assert packed["status"].tolist() == [0]
    np.testing.assert_array_equal(packed["nodes"], np.frombuffer(by_size["nodes"], dtype="<i8"))


def test_bad_sizes_and_radii_are_error_objects_and_nothing_is_lost(client: Client, gap: str) -> None:
    before = client.find(gap, START, GOAL_CELL, size=2)
    bad: list[dict[str, Any]] = [
        {"size": 0}, {"size": 256}, {"size": 1.5}, {"size": "2"}, {"size": True},
        {"radius": 0}, {"radius": -1.0}, {"radius": float("inf")}, {"radius": "x"},
        {"size": 2, "radius": 1.0},
    ]  # fmt: skip
    for options in bad:
        code, data = _code(lambda o=options: client.find(gap, START, GOAL_CELL, **o))
        assert code == "bad_request", options
        assert data.get("field") in ("size", "radius"), (options, data)
        code, _ = _code(
            lambda o=options: client.find_packed(gap, np.array([START]), np.array([GOAL_CELL]), **o)
        )
        assert code == "bad_request", options
        code, _ = _code(lambda o=options: client.request_field(gap, [GOAL_CELL], [START], **o))
        assert code == "bad_request", options
    many = client.find_many(
        [client.query(gap, START, GOAL_CELL, size=0), client.query(gap, START, GOAL_CELL)]
    )
    assert many[0]["status"] == "error"
    assert many[0]["error"]["code"] == "bad_request"
    assert many[1]["status"] == "found"
    assert _code(lambda: client.find(gap, (23, 0), GOAL_CELL, size=2))[0] == "blocked_endpoint"
    assert _code(lambda: client.reachable(gap, START, GOAL_CELL, size=300))[0] == "bad_request"
    assert client.find(gap, START, GOAL_CELL, size=2) == before


def test_waypoint_graphs_refuse_sizes_and_navmeshes_a_size(client: Client) -> None:
    client.load_waypoints("sizes_points", [0, 1], [(0.0, 0.0), (1.0, 0.0)], [(0, 1)])
    assert _code(lambda: client.find("sizes_points", 0, 1, size=2))[0] == "unsupported"
    assert _code(lambda: client.find("sizes_points", 0, 1, radius=0.5))[0] == "unsupported"
    assert client.find("sizes_points", 0, 1)["status"] == "found"
    client.load_navmesh("sizes_mesh", [(0, 0), (10, 0), (10, 10), (0, 10)], [[0, 1, 2, 3]])
    assert _code(lambda: client.find("sizes_mesh", (1, 1), (9, 9), size=2))[0] == "bad_request"
    assert client.find("sizes_mesh", (1, 1), (9, 9))["status"] == "found"


def test_agents_are_placed_with_a_size_and_block_by_footprint(client: Client) -> None:
    walk = np.ones((6, 12), dtype=bool)
    walk[2, :] = walk[5, :] = False  # a corridor two rows high, rows 3 and 4
    client.load_grid("sizes_agents", walk, diagonal="never")
    client.place_agent("sizes_agents", 1, (5, 3))
    assert client.find("sizes_agents", (0, 3), (11, 3))["status"] == "found"  # by row 4
    client.update("sizes_agents", agents=[{"op": "remove", "agent": 1}])
    client.place_agent("sizes_agents", 1, (5, 3), size=2)
    assert client.find("sizes_agents", (0, 3), (11, 3))["status"] == "no_path"
    assert client.find("sizes_agents", (0, 3), (11, 3), agent=1)["status"] == "found"
    client.update("sizes_agents", agents=[{"op": "move", "agent": 1, "cell": [9, 3]}])  # keeps size 2
    assert client.find("sizes_agents", (0, 3), (8, 4))["status"] == "found"
    assert client.find("sizes_agents", (0, 3), (10, 4))["status"] == "no_path"
    bad = [
        ({"op": "place", "agent": 2, "cell": [0, 3], "size": 0}, "bad_request"),
        ({"op": "place", "agent": 2, "cell": [0, 3], "size": "2"}, "bad_request"),
        ({"op": "move", "agent": 1, "cell": [0, 3], "size": 2}, "bad_request"),
        ({"op": "place", "agent": 2, "cell": [11, 4], "size": 2}, "out_of_bounds"),
    ]
    for change, want in bad:
        assert _code(lambda c=change: client.update("sizes_agents", agents=[c]))[0] == want, change
    assert client.info("sizes_agents")["agents"] == 1
    assert client.find("sizes_agents", (0, 3), (10, 4))["status"] == "no_path"  # agent 1 still there


def _start_cost(client: Client, field: dict[str, Any]) -> float:
    cs = field["tile_size"]
    tile = (START[1] // cs) * field["tiles_x"] + START[0] // cs
    costs = client.field_tiles(field["field"], [tile], costs=True)[tile][1]
    assert costs is not None
    return float(costs[START[1] % cs, START[0] % cs])


def test_a_field_per_size_exact_and_repaired(client: Client) -> None:
    graph = "sizes_field"
    client.load_grid(graph, WALK, diagonal="only_if_no_obstacles", hierarchy={"cluster_size": 8})
    one = client.request_field(graph, [GOAL_CELL], [START])
    two = client.request_field(graph, [GOAL_CELL], [START], size=2)
    assert one["field"] != two["field"]
    assert two["size"] == 2
    assert one["size"] == 1
    assert client.request_field(graph, [GOAL_CELL], [(5, 5)], size=2)["field"] == two["field"]
    expected = sized_goal_costs(GRID, [GOAL_CELL], 2)
    cs = two["tile_size"]
    for tile, (dirs, costs) in client.field_tiles(two["field"], two["tiles"], costs=True).items():
        assert costs is not None
        tx, ty = tile % two["tiles_x"], tile // two["tiles_x"]
        want = expected[ty * cs : ty * cs + cs, tx * cs : tx * cs + cs]
        np.testing.assert_allclose(
            costs[: want.shape[0], : want.shape[1]], want.astype(np.float32), rtol=1e-6
        )
        if tile == (GOAL_CELL[1] // cs) * two["tiles_x"] + GOAL_CELL[0] // cs:
            assert dirs[GOAL_CELL[1] % cs, GOAL_CELL[0] % cs] == GOAL
    assert _start_cost(client, two) == pytest.approx(expected[START[1], START[0]], rel=1e-6)
    # the 2-cell gap shuts: the size-2 field is repaired (no way left), the size-1 one keeps its gap
    client.notifications.clear()
    door = np.array([[20, 8]], dtype="<i4").tobytes()
    client.update(graph, cells=door, walkable=False)
    changed = {n[1]["field"] for n in client.notifications if n[0] == "field.changed"}
    assert two["field"] in changed
    assert _start_cost(client, two) == np.inf
    assert _start_cost(client, one) == pytest.approx(
        sized_goal_costs(GRID, [GOAL_CELL], 1)[START[1], START[0]]
    )
    client.update(graph, cells=door, walkable=True)
    assert _start_cost(client, two) == pytest.approx(expected[START[1], START[0]], rel=1e-6)
    by_radius = client.request_field(graph, [GOAL_CELL], [START], radius=0.75)  # 2 * 0.75 / 1 -> 2
    assert by_radius["field"] == two["field"]
