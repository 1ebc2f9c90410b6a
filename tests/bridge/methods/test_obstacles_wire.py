"""graph.update's ``obstacles`` through a real sidecar (issue 40): set, move, remove and clear on a
grid (world coordinates), the next query seeing each change (also sent without waiting for the
update's answer), graph.info's count, a hierarchy and a flow field following them, all or nothing,
and each error with its code."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from bridge.client import Client
from bridge.wire.errors import BridgeError, error_code
from python_core.grid import GridGraph
from python_core.grid.layouts import TileGrid, TileLayout
from python_core.obstacles import ObstacleShape

WALK = np.ones((5, 12), dtype=bool)
CELL, ORIGIN = (2.0, 2.0), (1.0, 1.0)  # cell (x, y)'s square spans [2x, 2x + 2] x [2y, 2y + 2]
START, GOAL = [1.0, 1.0], [23.0, 1.0]  # world centres of cells (0, 0) and (11, 0)
BAR = [(10.2, -1.0), (11.8, -1.0), (11.8, 7.9), (10.2, 7.9)]  # column 5, rows 0-3 (row 4 stays open)


def _load(client: Client, graph_id: str, **extra: Any) -> GridGraph:
    client.load_grid(graph_id, WALK, diagonal="never", cell_size=CELL, origin=ORIGIN, **extra)
    return GridGraph(WALK, diagonal="never", cell_size=CELL, origin=ORIGIN)


def _cost(client: Client, graph_id: str, **options: Any) -> float:
    answer = client.find(graph_id, START, GOAL, **options)
    assert answer["status"] == "found"
    return float(answer["cost"])


def _core_cost(grid: GridGraph) -> float:
    return float(grid.find_path((0, 0), (11, 0)).cost)


def _code(client: Client, graph_id: str, items: Any, **fields: Any) -> str:
    with pytest.raises(BridgeError) as caught:
        client.update(graph_id, obstacles=items, **fields)
    return error_code(caught.value)


def test_set_move_remove_clear_each_seen_by_the_next_query(client: Client) -> None:
    core = _load(client, "ob_grid")
    straight = _cost(client, "ob_grid")
    assert straight == _core_cost(core) == 22.0
    client.update_obstacles("ob_grid", [{"op": "set", "id": 7, "polygon": np.array(BAR)}])
    core.update_obstacles({7: ObstacleShape.polygon(BAR)})
    around = _cost(client, "ob_grid")
    assert around == _core_cost(core) == 22.0 + 16.0  # down to row 4 and back
    assert client.info("ob_grid")["obstacles"] == 1
    # a move, sent without waiting: the query behind it sees it
    move = {"op": "set", "id": 7, "center": [9.0, 3.0], "radius": 0.9}  # cells (4, 1) only
    msgid = client.send("graph.update", {"id": "ob_grid", "obstacles": [move]})
    assert _cost(client, "ob_grid") == straight
    assert client.receive(msgid)["version"] >= 2
    client.update_obstacles("ob_grid", [{"op": "set", "id": 8, "polygon": np.array(BAR)}])
    assert client.info("ob_grid")["obstacles"] == 2
    client.update_obstacles("ob_grid", [{"op": "remove", "id": 8}])
    assert _cost(client, "ob_grid") == straight
    client.update_obstacles("ob_grid", [{"op": "set", "id": 9, "polygon": np.array(BAR)}])
    client.update_obstacles(
        "ob_grid", [{"op": "clear"}, {"op": "set", "id": 1, "center": [9.0, 3.0], "radius": 0.9}]
    )
    assert client.info("ob_grid")["obstacles"] == 1
    assert _cost(client, "ob_grid") == straight


def test_a_bad_message_changes_nothing(client: Client) -> None:
    _load(client, "ob_atomic")
    client.update_obstacles("ob_atomic", [{"op": "set", "id": 1, "polygon": np.array(BAR)}])
    around, version = _cost(client, "ob_atomic"), client.info("ob_atomic")["version"]
    door = np.array([[5, 4]], "<i4").tobytes()  # would close the way around the bar
    unknown = [{"op": "remove", "id": 1}, {"op": "remove", "id": 2}]
    assert _code(client, "ob_atomic", unknown, cells=door, walkable=False) == "invalid_graph"
    bow_tie = np.array([(0, 0), (4, 4), (4, 0), (0, 4)], "<f4").tobytes()
    assert _code(client, "ob_atomic", [{"op": "set", "id": 3, "polygon": bow_tie}]) == "invalid_graph"
    info = client.info("ob_atomic")
    assert info["obstacles"] == 1
    assert info["version"] == version
    assert _cost(client, "ob_atomic") == around


@pytest.mark.parametrize(
    "items",
    [
        [{"op": "set", "id": 1, "polygon": b"\x00" * 20}],  # not whole (x, y) float32 pairs
        [{"op": "set", "id": 1, "polygon": b"\x00" * 16}],  # two vertices
        [{"op": "set", "id": 1, "center": [1.0, 1.0]}],  # no radius
        [{"op": "set", "id": 1, "center": [1.0, 1.0], "radius": 0}],
        [{"op": "set", "id": 1, "center": [1.0, 1.0, 1.0], "radius": 1}],  # 3 numbers on a 2D grid
        [{"op": "set", "id": 1, "center": [1.0, 1.0], "radius": 1, "height": 2}],  # 3D only
        [{"op": "set", "id": 1, "center": [1.0, 1.0], "radius": 1, "polygon": b"\x00" * 24}],
        [{"op": "set", "id": -1, "center": [1.0, 1.0], "radius": 1}],
        [{"op": "set", "id": 1, "center": [1e12, 1.0], "radius": 1}],
        [{"op": "remove", "id": 1}, {"op": "set", "id": 1, "center": [1.0, 1.0], "radius": 1}],  # twice
        [{"op": "remove", "id": 1}, {"op": "clear"}],  # clear not first
        [{"op": "spin", "id": 1}],
        [{"op": "remove", "id": 1, "radius": 1}],
        ["clear"],
        {"op": "clear"},
    ],
)
def test_malformed_items_are_bad_requests(client: Client, items: Any) -> None:
    _load(client, "ob_bad")
    assert _code(client, "ob_bad", items) == "bad_request"


def test_waypoints_refuse(client: Client) -> None:
    client.load_waypoints("ob_wp", [0, 1], np.array([[0.0, 0.0], [1.0, 0.0]]), [(0, 1)])
    circle = [{"op": "set", "id": 1, "center": [0.5, 0.0], "radius": 0.2}]
    assert _code(client, "ob_wp", circle) == "unsupported"


def test_a_navmesh_is_cut_in_2d_and_by_elevation_in_3d(client: Client) -> None:
    square = np.array([[0, 0], [8, 0], [8, 8], [0, 8]], float)
    client.load_navmesh("ob_mesh", square, [[0, 1, 2, 3]])
    straight = client.find("ob_mesh", [1.0, 4.0], [7.0, 4.0])["cost"]
    assert straight == pytest.approx(6.0)
    client.update_obstacles("ob_mesh", [{"op": "set", "id": 1, "center": [4.0, 4.0], "radius": 1.0}])
    assert client.find("ob_mesh", [1.0, 4.0], [7.0, 4.0])["cost"] > 6.2  # around the circle
    assert client.info("ob_mesh")["obstacles"] == 1
    assert _code(client, "ob_mesh", [{"op": "remove", "id": 5}]) == "invalid_graph"
    client.update_obstacles("ob_mesh", [{"op": "clear"}])
    assert client.find("ob_mesh", [1.0, 4.0], [7.0, 4.0])["cost"] == pytest.approx(straight)
    floor = np.array([[0, 0, 0], [8, 0, 0], [8, 0, 8], [0, 0, 8]], float)  # y up: the plane is x, z
    client.load_navmesh("ob_mesh3", floor, [[0, 1, 2, 3]])
    high = {"op": "set", "id": 1, "center": [4.0, 5.0, 4.0], "radius": 1.0, "height": 2.0}  # base y = 5
    client.update_obstacles("ob_mesh3", [high])
    assert client.find("ob_mesh3", [1.0, 0.0, 4.0], [7.0, 0.0, 4.0])["cost"] == pytest.approx(6.0)
    pillar = {**high, "base": -1.0}  # from y = -1 to 1: it stands on the floor
    client.update_obstacles("ob_mesh3", [pillar])
    assert client.find("ob_mesh3", [1.0, 0.0, 4.0], [7.0, 0.0, 4.0])["cost"] > 6.2


def test_a_hierarchy_follows_the_obstacles(client: Client) -> None:
    _load(client, "ob_hpa", hierarchy={"cluster_size": 8})
    assert _cost(client, "ob_hpa", hierarchical=True) == 22.0
    client.update_obstacles("ob_hpa", [{"op": "set", "id": 1, "polygon": np.array(BAR)}])
    assert _cost(client, "ob_hpa", hierarchical=True) == 38.0
    wall = [
        {"op": "set", "id": 2, "polygon": np.array([(10.2, 7.9), (11.8, 7.9), (11.8, 10.0), (10.2, 10.0)])}
    ]
    client.update_obstacles("ob_hpa", wall)  # row 4 of column 5 too: no way through
    assert client.reachable("ob_hpa", START, GOAL) is False
    client.update_obstacles("ob_hpa", [{"op": "remove", "id": 1}])
    assert client.reachable("ob_hpa", START, GOAL) is True


def test_a_flow_field_is_repaired_after_obstacles(client: Client) -> None:
    walk = np.ones((32, 32), dtype=bool)
    client.load_grid("ob_field", walk, diagonal="only_if_no_obstacles")
    answer = client.request_field("ob_field", [(2, 2)], [(30, 30), (2, 30)])
    heard: list[dict[str, Any]] = []
    client.on_notification = lambda method, params: (
        heard.append(params) if method == "field.changed" else None
    )
    bar = [(-1.0, 9.6), (25.4, 9.6), (25.4, 10.4), (-1.0, 10.4)]  # row 10, columns 0-25
    client.update_obstacles("ob_field", [{"op": "set", "id": 4, "polygon": np.array(bar)}])
    assert len(heard) == 1
    assert heard[0]["field"] == answer["field"]
    grid = GridGraph(walk, diagonal="only_if_no_obstacles")
    grid.update_obstacles({4: ObstacleShape.polygon(bar)})
    fresh = client.field_tiles(answer["field"], heard[0]["tiles"], costs=True)
    for tile, (_, costs) in fresh.items():
        assert costs is not None
        tx, ty = tile % answer["tiles_x"], tile // answer["tiles_x"]
        cs = answer["tile_size"]
        for y, x in np.ndindex(cs, cs):
            cell = (tx * cs + x, ty * cs + y)
            if grid.walkable[cell[1], cell[0]]:
                want = grid.find_path(cell, (2, 2)).cost
                assert costs[y, x] == pytest.approx(want, rel=1e-6), cell


def test_a_hex_layer_blocks_the_tiles_under_an_obstacle(client: Client) -> None:
    layout = {"shape": "hexagon", "layout": 0, "offset_axis": 0, "map_origin": [0, 0]}
    params = {
        "id": "ob_hex", "width": 9, "height": 7, "cells": np.ones(63, np.uint8).tobytes(),
        "diagonal": "never", "cell_size": [2.0, 2.0], "origin": [0.0, 0.0], "layout": layout,
    }  # fmt: skip
    client.call("graph.load_grid", params)
    core = TileGrid(np.ones((7, 9), dtype=bool), layout=TileLayout.from_map(layout), cell_size=(2.0, 2.0))
    start, goal = core.cell_to_world((0, 3)), core.cell_to_world((8, 3))
    bar = [(7.2, -3.0), (8.8, -3.0), (8.8, 6.5), (7.2, 6.5)]  # a wall across the upper rows
    client.update_obstacles("ob_hex", [{"op": "set", "id": 1, "polygon": np.array(bar)}])
    core.update_obstacles({1: ObstacleShape.polygon(bar)})
    want = core.find_path((0, 3), (8, 3))
    answer = client.find("ob_hex", list(start), list(goal))
    assert answer["status"] == "found"
    assert answer["cost"] == pytest.approx(want.cost, rel=1e-6)
    assert want.cost > 16.0  # the wall forces a detour
    assert client.info("ob_hex")["obstacles"] == 1
