"""Flow fields through a real sidecar: request, fetch tiles as bin, field.changed after a wall."""

from __future__ import annotations

import socket
from typing import Any

import numpy as np
import pytest

from bridge.client import Client
from bridge.client.sidecar import Sidecar
from bridge.wire.errors import BridgeError, error_code
from python_core.flowfield import GOAL, WALL
from python_core.flowfield.moves import DX, DY
from python_core.grid import GridGraph
from tests.core.flowfield.oracle import goal_costs

WALK = np.ones((64, 64), dtype=bool)
WALK[32, 4:60] = False


def _load(client: Client, graph_id: str) -> None:
    client.load_grid(graph_id, WALK, diagonal="only_if_no_obstacles", hierarchy={"cluster_size": 8})


def test_a_field_round_trip_matches_the_exact_costs(client: Client) -> None:
    _load(client, "ff_round")
    goals = [(2, 2), (60, 3)]
    answer = client.request_field("ff_round", goals, [(10, 60), (50, 50)])
    assert answer["tile_size"] == 8
    assert answer["tiles"]
    assert answer["computed"] == len(answer["tiles"])
    tiles = client.field_tiles(answer["field"], answer["tiles"], costs=True)
    expected = goal_costs(GridGraph(WALK, diagonal="only_if_no_obstacles"), goals)
    for tile, (dirs, costs) in tiles.items():
        assert costs is not None
        tx, ty = tile % answer["tiles_x"], tile // answer["tiles_x"]
        want = expected[ty * 8 : ty * 8 + 8, tx * 8 : tx * 8 + 8]
        np.testing.assert_allclose(costs, want.astype(np.float32), rtol=1e-6)
        assert ((dirs == WALL) == ~WALK[ty * 8 : ty * 8 + 8, tx * 8 : tx * 8 + 8]).all()
    assert tiles[0][0][2, 2] == GOAL
    again = client.request_field("ff_round", goals[::-1], [(10, 60)])
    assert again["field"] == answer["field"]
    assert again["tiles"] == []


def test_a_first_request_can_carry_its_starts_tiles(client: Client) -> None:
    """``fetch``: the starts' tiles come in the request's answer, the bytes ``field.tiles`` sends."""
    _load(client, "ff_fetch")
    goals, starts = [(2, 2)], [(10, 60), (11, 61), (50, 50)]  # two starts share a tile
    answer = client.request_field("ff_fetch", goals, starts, fetch=True, costs=True)
    assert answer["fetched"] == [7 * 8 + 1, 6 * 8 + 6]
    cs = answer["tile_size"]
    dirs = np.frombuffer(answer["directions"], dtype=np.uint8).reshape(-1, cs, cs)
    costs = np.frombuffer(answer["costs"], dtype="<f4").reshape(-1, cs, cs)
    fetched = client.field_tiles(answer["field"], answer["fetched"], costs=True)
    for i, tile in enumerate(answer["fetched"]):
        np.testing.assert_array_equal(dirs[i], fetched[tile][0])
        np.testing.assert_array_equal(costs[i], fetched[tile][1])
    plain = client.request_field("ff_fetch", goals, [(60, 60)])
    assert "fetched" not in plain
    assert "directions" not in plain


def _walk(tiles: dict[int, Any], tiles_x: int, cell: tuple[int, int], steps: int) -> tuple[int, int]:
    """Follow fetched direction bytes ``steps`` moves from ``cell``."""
    x, y = cell
    for _ in range(steps):
        code = int(tiles[(y // 8) * tiles_x + x // 8][0][y % 8, x % 8])
        if code >= GOAL:
            break
        x, y = x + int(DX[code]), y + int(DY[code])
    return x, y


def test_a_wall_change_recomputes_and_announces_only_the_tiles_it_affects(client: Client) -> None:
    _load(client, "ff_wall")
    answer = client.request_field("ff_wall", [(2, 2)], [(62, 62), (2, 62), (62, 2)])
    tiles = client.field_tiles(answer["field"], answer["tiles"])
    wall = _walk(tiles, answer["tiles_x"], (2, 62), 12)  # on the chain from (2, 62)
    heard: list[dict[str, Any]] = []
    client.on_notification = lambda method, params: (
        heard.append(params) if method == "field.changed" else None
    )
    client.update("ff_wall", cells=np.array([wall], dtype="<i4").tobytes(), walkable=False)
    assert len(heard) == 1  # before the update's answer
    assert heard[0]["field"] == answer["field"]
    changed = heard[0]["tiles"]
    assert 0 < len(changed) <= heard[0]["recomputed"] < answer["computed"]
    fresh = client.field_tiles(answer["field"], changed, costs=True)
    grid = GridGraph(WALK, diagonal="only_if_no_obstacles")
    grid.set_walkable([wall], False)
    expected = goal_costs(grid, [(2, 2)])
    for tile, (_, costs) in fresh.items():
        assert costs is not None
        tx, ty = tile % answer["tiles_x"], tile // answer["tiles_x"]
        want = expected[ty * 8 : ty * 8 + 8, tx * 8 : tx * 8 + 8].astype(np.float32)
        np.testing.assert_allclose(costs, want, rtol=1e-6)


def test_a_field_request_right_behind_an_update_comes_after_the_repair(client: Client) -> None:
    """A client that does not wait for an update's answer (the addon's request_cells_solid) sends
    its next field request right behind it: the fields' repair still runs first, in arrival order,
    so field.changed names the tiles the update changed, as when the client waited. (The grid is
    big enough for the update to wait for its turn rather than run at once.)"""
    walk = np.ones((256, 320), dtype=bool)
    walk[128, 4:316] = False
    client.load_grid("ff_pipe", walk, diagonal="only_if_no_obstacles", hierarchy={"cluster_size": 8})
    answer = client.request_field("ff_pipe", [(2, 2)], [(20, 30)])
    tiles = client.field_tiles(answer["field"], answer["tiles"])
    wall = _walk(tiles, answer["tiles_x"], (20, 30), 6)  # on the chain of a held tile
    wall_tile = (wall[1] // 8) * answer["tiles_x"] + wall[0] // 8
    heard: list[dict[str, Any]] = []
    client.on_notification = lambda method, params: (
        heard.append(params) if method == "field.changed" else None
    )
    cells = np.array([wall], dtype="<i4").tobytes()
    update = client.send("graph.update", {"id": "ff_pipe", "cells": cells, "walkable": False})
    starts = np.array([[200, 250], [100, 200]], dtype="<i4").tobytes()  # most of the grid
    goals = np.array([[2, 2]], dtype="<i4").tobytes()
    more = client.send("field.request", {"graph": "ff_pipe", "goals": goals, "starts": starts})
    client.receive(update)
    client.receive(more)
    assert len(heard) == 1
    fresh = client.field_tiles(answer["field"], answer["tiles"])
    differ = {tile for tile, (dirs, _) in fresh.items() if not np.array_equal(dirs, tiles[tile][0])}
    assert wall_tile in differ
    assert differ <= set(heard[0]["tiles"]), "every held tile that changed is announced"


@pytest.mark.parametrize(
    ("method", "params", "code"),
    [
        ("field.request", {"graph": "nope", "goals": [[0, 0]], "starts": [[1, 1]]}, "unknown_graph"),
        ("field.request", {"graph": "ff_bad", "goals": b"\x00\x00", "starts": []}, "bad_request"),
        ("field.request", {"graph": "ff_bad", "goals": [], "starts": [[1, 1]]}, "bad_request"),
        ("field.request", {"graph": "ff_bad", "goals": [[99, 0]], "starts": [[1, 1]]}, "out_of_bounds"),
        ("field.request", {"graph": "ff_bad", "goals": [[0, 0]], "starts": [[1, 1]], "x": 1}, "bad_request"),
        ("field.request", {"graph": "ff_bad", "goals": [[0, 0]], "starts": [], "fetch": 1}, "bad_request"),
        ("field.tiles", {"field": "f999", "tiles": [0]}, "unknown_point"),
        ("field.tiles", {"field": "f1", "tiles": ["a"]}, "bad_request"),
    ],
)
def test_bad_field_requests_are_error_objects(
    client: Client, method: str, params: dict[str, Any], code: str
) -> None:
    client.load_grid("ff_bad", np.ones((8, 8), dtype=bool))
    with pytest.raises(BridgeError) as caught:
        client.call(method, params)
    assert error_code(caught.value) == code
    assert client.request_field("ff_bad", [(0, 0)], [(7, 7)])["computed"] > 0


def test_a_field_being_built_holds_up_no_other_client(sidecar: Sidecar) -> None:
    """A whole-map field on a 2048 x 2048 grid takes the field thread a second or more; another
    client's path on another grid is answered meanwhile (before the field), and the field is
    still answered when it is done."""
    big = np.ones((2048, 2048), dtype=bool)
    big[1024, 1:2047] = False
    with sidecar.connect(timeout=600) as builder, sidecar.connect(timeout=600) as player:
        builder.load_grid("ff_big", big, diagonal="only_if_no_obstacles")
        player.load_grid("ff_small", WALK, diagonal="only_if_no_obstacles")
        corners = [(0, 0), (2047, 0), (0, 2047), (2047, 2047)]
        msgid = builder.send(
            "field.request",
            {"graph": "ff_big", "goals": [[1, 1]], "starts": [list(c) for c in corners]},
        )
        path = player.find("ff_small", (0, 0), (63, 63))
        assert path["status"] == "found"
        builder.sock.setblocking(False)
        try:  # the field's answer has not come yet: the path did not wait for it
            assert not builder.sock.recv(1 << 16, socket.MSG_PEEK)
        except BlockingIOError:
            pass
        finally:
            builder.sock.setblocking(True)
        answer = builder.receive(msgid)
        assert answer["computed"] >= 4  # the corners' tiles at least
