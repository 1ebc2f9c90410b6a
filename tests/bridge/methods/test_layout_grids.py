"""graph.load_grid's "layout" through a real sidecar (issue 39): a hexagonal or isometric layer
answers path.find (cells and world positions), path.find_packed and graph.update as the core's
TileGrid does; graph.info reports the layout; HPA* answers as the core's LatticeHierarchy; bad
layouts and hierarchies are refused with their codes (a hierarchy the core refuses is
invalid_graph, as on square grids)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from bridge.client import Client
from bridge.wire.errors import BridgeError, error_code
from python_core.grid.layouts import TileGrid, TileLayout
from python_core.hpa.lattice import LatticeHierarchy

WALK = np.ones((7, 9), dtype=bool)
WALK[1:6, 4] = False
HEX = {"shape": "hexagon", "layout": 1, "offset_axis": 0, "map_origin": [-3, 5]}
TILE, ORIGIN = (36.0, 40.0), (100.0, -20.0)


def _load(
    client: Client, graph_id: str = "hex", layout: dict[str, Any] | None = None, **extra: Any
) -> TileGrid:
    spec = HEX if layout is None else layout
    params = {
        "id": graph_id, "width": 9, "height": 7, "cells": (WALK.astype(np.uint8)).tobytes(),
        "diagonal": "only_if_no_obstacles", "cell_size": list(TILE), "origin": list(ORIGIN), "layout": spec,
        **extra,
    }  # fmt: skip
    client.call("graph.load_grid", params)
    return TileGrid(
        WALK, layout=TileLayout.from_map(spec), diagonal="only_if_no_obstacles", cell_size=TILE, origin=ORIGIN
    )


def _code(client: Client, method: str, params: dict[str, Any]) -> str:
    with pytest.raises(BridgeError) as caught:
        client.call(method, params)
    return error_code(caught.value)


@pytest.mark.parametrize(
    "layout",
    [
        HEX,
        {"shape": "isometric", "layout": 4},
        {"shape": "half_offset_square"},
        {"shape": "astar_isometric_down"},
    ],
)
def test_a_layer_answers_as_the_core_does(client: Client, layout: dict[str, Any]) -> None:
    grid = _load(client, layout=layout)
    want = grid.find_path((0, 3), (8, 3))
    assert want.found
    by_cell = client.call("path.find", {"graph": "hex", "start": [0, 3], "goal": [8, 3], "cells": True})
    assert by_cell["status"] == "found"
    assert by_cell["cost"] == pytest.approx(want.cost, rel=1e-6)
    points = np.frombuffer(by_cell["points"], "<f4").reshape(-1, 2)
    np.testing.assert_allclose(points, want.points, rtol=1e-6)
    # world positions go through local_to_map: a point inside the start and goal tiles
    a, b = grid.cell_to_world((0, 3)), grid.cell_to_world((8, 3))
    near = client.find("hex", [a[0] + 3.0, a[1] - 2.0], [b[0] - 2.0, b[1] + 3.0])
    assert near["cost"] == by_cell["cost"]
    packed = client.find_packed("hex", np.array([[0, 3], [8, 3]]), np.array([[8, 3], [0, 3]]))
    assert packed["costs"].tolist() == pytest.approx([want.cost, want.cost], rel=1e-6)
    info = client.info("hex")
    assert info["layout"]["shape"] == layout["shape"]


def test_updates_change_the_next_answer(client: Client) -> None:
    grid = _load(client)
    before = client.find("hex", grid.cell_to_world((0, 0)), grid.cell_to_world((8, 0)))
    wall = np.array([[4, 0], [4, 6]], "<i4").tobytes()  # column 4 closed from top to bottom
    client.update("hex", cells=wall, walkable=False)
    assert client.find("hex", grid.cell_to_world((0, 0)), grid.cell_to_world((8, 0)))["status"] == "no_path"
    client.update("hex", cells=wall, walkable=True)
    client.place_agent("hex", 3, (4, 6))
    client.place_agent("hex", 1, (4, 0))
    blocked = client.find("hex", grid.cell_to_world((0, 0)), grid.cell_to_world((8, 0)))
    assert blocked["status"] == "no_path"
    assert client.find("hex", grid.cell_to_world((0, 0)), grid.cell_to_world((8, 0)), agent=1) == before
    client.place_agent("hex", 2, (0, 0), size=2)  # sizes on layouts: a footprint past the edge is cut


def _cells(graph_id: str, start: list[int], goal: list[int], **options: Any) -> dict[str, Any]:
    """A path.find map with cell endpoints (the layer is placed in the world)."""
    return {"graph": graph_id, "start": start, "goal": goal, "cells": True, "options": options}


def test_a_hex_layer_takes_a_hierarchy(client: Client) -> None:
    """HPA* on a layout (python_core.hpa.lattice): loaded with one or built later, its hierarchical
    answers are the core's; updates repair it; path.reachable, find_many and find_packed answer."""
    grid = _load(client, "hex_hpa", hierarchy={"cluster_size": 8})
    core = LatticeHierarchy(grid, cluster_size=8).build()
    start, goal = [0, 3], [8, 3]
    for options in ({}, {"corridor": True}):
        answer = client.call("path.find", _cells("hex_hpa", start, goal, hierarchical=True, **options))
        want = core.find_path(start, goal, corridor=bool(options))
        assert answer["status"] == "found"
        assert answer["cost"] == pytest.approx(want.cost, rel=1e-6)
        assert np.frombuffer(answer["nodes"], "<i8").tolist() == want.nodes.tolist()
    assert client.info("hex_hpa")["hierarchy"]["cluster_size"] == 8
    ends = grid.cell_to_world(start), grid.cell_to_world(goal)  # path.reachable takes world positions here
    assert client.reachable("hex_hpa", *ends)
    wall = np.array([[4, 0], [4, 6]], "<i4").tobytes()  # column 4 closed from top to bottom
    client.update("hex_hpa", cells=wall, walkable=False)
    assert not client.reachable("hex_hpa", *ends)
    closed = client.call("path.find", _cells("hex_hpa", start, goal, hierarchical=True))
    assert closed["status"] == "no_path"
    client.update("hex_hpa", cells=wall, walkable=True)
    want = core.find_path(start, goal)
    many = client.find_many([_cells("hex_hpa", start, goal, hierarchical=True)] * 2)
    assert [r["cost"] for r in many] == pytest.approx([want.cost] * 2, rel=1e-6)
    packed = client.find_packed("hex_hpa", np.array([start]), np.array([goal]), hierarchical=True)
    assert packed["costs"].tolist() == pytest.approx([want.cost], rel=1e-6)
    _load(client, "later")  # built after the load
    built = client.build_hierarchy("later", cluster_size=8, exact_check=0)
    assert built["hierarchy"]["cluster_size"] == 8
    assert client.call("path.find", _cells("later", start, goal, hierarchical=True))["status"] == "found"


def test_bad_hierarchies_and_layouts_are_refused(client: Client) -> None:
    _load(client)
    query = {
        "graph": "hex",
        "start": [0, 0],
        "goal": [8, 0],
        "cells": True,
        "options": {"hierarchical": True},
    }
    assert _code(client, "path.find", query) == "bad_request"  # no hierarchy was built: as on any grid
    with pytest.raises(BridgeError) as caught:  # the core refuses the hierarchy: invalid_graph
        client.call("graph.build_hierarchy", {"id": "hex", "cluster_size": 8, "levels": 2})
    assert error_code(caught.value) == "invalid_graph"
    assert "has one level" in str(caught.value)
    with pytest.raises(BridgeError) as caught:  # AStarGrid2D's isometric shapes: no hierarchy
        _load(client, "iso_hpa", layout={"shape": "astar_isometric_down"}, hierarchy={"cluster_size": 8})
    assert error_code(caught.value) == "invalid_graph"
    assert "HPA* is not supported on an AStarGrid2D" in str(caught.value)
    bad = {"id": "bad", "width": 1, "height": 1, "cells": b"\x01", "diagonal": "never"}
    assert (
        _code(client, "graph.load_grid", {**bad, "layout": {"shape": "hexagon", "layout": 9}})
        == "invalid_graph"
    )
    assert _code(client, "graph.load_grid", {**bad, "layout": "hexagon"}) == "invalid_graph"
    field = client.request_field("hex", [(8, 0)], [(0, 0)])  # the layout's own moves (test_layout_fields.py)
    assert len(field["layout_moves"]["moves"][0]) == 6
