"""Units larger than one cell on a hexagonal layer, through a real sidecar (issues 39 and 38):
``size`` and ``radius`` on path.find, sized agents in graph.update, a field per size, and the
answers equal the core's TileGrid (centre cells, the cell and size - 1 rings of neighbours)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from bridge.client import Client
from bridge.wire.errors import BridgeError, error_code
from python_core.flowfield import LatticeField
from python_core.grid.layouts import TileGrid, TileLayout
from python_core.result import QueryOptions

WALK = np.ones((9, 13), dtype=bool)
WALK[:, 6] = False
WALK[2, 6] = True  # a one-cell gap: only one-cell units pass it
WALK[5:8, 6] = True  # a three-cell opening: size 2 (the cell and its ring) fits
HEX = {"shape": "hexagon", "layout": 0, "offset_axis": 0, "map_origin": [0, 0]}
TILE = (32.0, 28.0)


def _find(client: Client, graph_id: str, start: list[int], goal: list[int], **options: Any) -> dict[str, Any]:
    """path.find between cells (the grid is placed in the world, so ``cells: true``)."""
    return dict(client.call("path.find", {**client.query(graph_id, start, goal, **options), "cells": True}))


def _load(client: Client, graph_id: str) -> TileGrid:
    params: dict[str, Any] = {
        "id": graph_id, "width": 13, "height": 9, "cells": WALK.astype(np.uint8).tobytes(),
        "cell_size": list(TILE), "origin": [16.0, 14.0], "layout": HEX, "diagonal": "always",
    }  # fmt: skip
    client.call("graph.load_grid", params)
    return TileGrid(WALK, layout=TileLayout.from_map(HEX), cell_size=TILE, origin=(16.0, 14.0))


def test_a_size_two_unit_takes_the_wide_opening(client: Client) -> None:
    grid = _load(client, "hex_sizes")
    small = _find(client, "hex_sizes", [2, 2], [10, 2])
    big = _find(client, "hex_sizes", [2, 2], [10, 2], size=2)
    want = grid.find_path((2, 2), (10, 2), options=QueryOptions(size=2))
    assert small["status"] == big["status"] == "found"
    assert big["cost"] == pytest.approx(want.cost, rel=1e-6)
    assert big["cost"] > small["cost"]
    nodes = np.frombuffer(big["nodes"], "<i8")
    assert 2 * 13 + 6 not in nodes.tolist()  # not through the one-cell gap
    np.testing.assert_allclose(np.frombuffer(big["points"], "<f4").reshape(-1, 2), want.points, rtol=1e-6)
    by_radius = _find(client, "hex_sizes", [2, 2], [10, 2], radius=20.0)
    assert by_radius["cost"] == pytest.approx(
        grid.find_path((2, 2), (10, 2), options=QueryOptions(radius=20.0)).cost, rel=1e-6
    )
    with pytest.raises(BridgeError) as caught:
        _find(client, "hex_sizes", [0, 0], [10, 2], size=2)
    assert error_code(caught.value) == "blocked_endpoint"


def test_sized_agents_and_fields(client: Client) -> None:
    grid = _load(client, "hex_agents")
    free = grid.find_path((2, 2), (10, 2), options=QueryOptions(size=2))
    client.place_agent("hex_agents", 1, (8, 4))  # beside the way out of the opening
    client.place_agent("hex_agents", 2, (3, 1), size=2)
    grid.place_agent(1, (8, 4))
    grid.place_agent(2, (3, 1), 2)
    answer = _find(client, "hex_agents", [2, 2], [10, 2], size=2)
    want = grid.find_path((2, 2), (10, 2), options=QueryOptions(size=2))
    assert answer["status"] == want.status.value == "found"
    assert answer["cost"] == pytest.approx(want.cost, rel=1e-6)
    assert want.cost > free.cost  # around both agents: footprints may not meet
    client.place_agent("hex_agents", 3, (0, 4), size=2)  # at the edge: its ring is cut there
    grid.place_agent(3, (0, 4), 2)
    again = _find(client, "hex_agents", [2, 2], [10, 2], size=2)
    assert again["cost"] == pytest.approx(grid.find_path((2, 2), (10, 2), options=QueryOptions(size=2)).cost)
    field = client.request_field("hex_agents", [[10, 2]], [[2, 6]], size=2, fetch=True, costs=True)
    core = LatticeField(grid, [(10, 2)], tile_size=int(field["tile_size"]), size=2)
    core.extend([(2, 6)])
    cost = client.field_tiles(field["field"], [core.tile_of((2, 6))], costs=True)
    cs = int(field["tile_size"])
    tile_costs = next(iter(cost.values()))[1]
    assert tile_costs is not None
    expected = core.cost_at((2, 6))
    assert expected is not None
    assert float(tile_costs[6 % cs, 2 % cs]) == pytest.approx(expected, rel=1e-5)
