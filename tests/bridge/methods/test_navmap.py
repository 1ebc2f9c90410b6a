"""Navigation maps over the wire: regions and links loaded as one map, updated in place, queried
with navigation layers; bad regions, links and updates answered with errors that change nothing."""

from __future__ import annotations

import pytest

from bridge.client import BridgeError, Client, decode_points

SQUARE = [[0, 0], [10, 0], [10, 10], [0, 10]]


def _load(client: Client, graph: str) -> None:
    regions = [
        Client.region(1, SQUARE, [[0, 1, 2, 3]]),
        Client.region(2, SQUARE, [[0, 1, 2, 3]], transform=[1, 0, 0, 1, 10.5, 0], layers=2),
        Client.region(3, SQUARE, [[0, 1, 2, 3]], transform=[1, 0, 0, 1, 40, 0]),
    ]
    links = [Client.link(9, (18, 5), (42, 5), bidirectional=False)]
    assert client.load_navmap(graph, regions, links, edge_margin=1.0)["nodes"] == 3


def test_regions_joined_within_the_margin_and_a_one_way_link(client: Client) -> None:
    _load(client, "map-a")
    there = client.find("map-a", (5, 5), (45, 5))
    assert there["status"] == "found"
    assert decode_points(there["points"]).tolist() == [[5, 5], [18, 5], [42, 5], [45, 5]]
    assert client.find("map-a", (45, 5), (5, 5))["status"] == "no_path"
    info = client.info("map-a")
    assert (info["regions"], info["links"]) == (3, 1)


def test_layers_of_the_query_and_of_regions_change_paths(client: Client) -> None:
    _load(client, "map-b")
    assert client.find("map-b", (5, 5), (45, 5), navigation_layers=1)["status"] == "no_path"
    assert client.find("map-b", (5, 5), (45, 5), navigation_layers=3)["status"] == "found"
    client.update("map-b", regions=[{"op": "layers", "id": 2, "layers": 1}])
    assert client.find("map-b", (5, 5), (45, 5), navigation_layers=1)["status"] == "found"
    client.update("map-b", links=[{"op": "disable", "id": 9}])
    assert client.find("map-b", (5, 5), (45, 5))["status"] == "no_path"
    client.update("map-b", regions=[{"op": "move", "id": 3, "transform": [1, 0, 0, 1, 20.5, 0]}])
    moved = client.find("map-b", (5, 5), (25, 5))
    assert moved["status"] == "found"
    assert moved["cost"] == pytest.approx(20.0)
    client.update("map-b", regions=[{"op": "remove", "id": 2}])
    assert client.find("map-b", (5, 5), (25, 5))["status"] == "no_path"


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"regions": [{"op": "remove", "id": 77}]}, "invalid_graph"),
        ({"regions": [{"op": "layers", "id": 1, "layers": -3}]}, "invalid_graph"),
        ({"regions": [{"op": "spin", "id": 1}]}, "bad_request"),
        ({"links": [{"op": "set", "id": 4, "start": [0, 0], "end": [1]}]}, "invalid_graph"),
        ({"cells": b"\x00\x00\x00\x00"}, "bad_request"),
    ],
)
def test_bad_updates_are_refused_and_change_nothing(client: Client, fields: dict, code: str) -> None:
    _load(client, "map-c")
    with pytest.raises(BridgeError) as caught:
        client.update("map-c", **fields)
    assert caught.value.code == code
    assert client.find("map-c", (5, 5), (45, 5))["status"] == "found"


def test_bad_loads_and_layers_are_errors(client: Client) -> None:
    with pytest.raises(BridgeError) as caught:
        client.load_navmap("map-d", [Client.region(1, SQUARE, [[0, 1, 2, 9]])])
    assert caught.value.code == "invalid_graph"
    with pytest.raises(BridgeError) as caught:
        client.load_navmap("map-d", [Client.region(1, SQUARE, [[0, 1, 2, 3]])] * 2)
    assert caught.value.code == "invalid_graph"
    _load(client, "map-d")
    with pytest.raises(BridgeError) as caught:
        client.find("map-d", (5, 5), (15, 5), navigation_layers=-1)
    assert caught.value.code == "bad_request"
