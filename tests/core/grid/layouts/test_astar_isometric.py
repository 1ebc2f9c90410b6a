"""AStarGrid2D's isometric cell shapes: square neighbours and id-space costs, points where the engine
puts them. Our costs equal those of Godot's own get_id_path on 100 queries per grid (the dump)."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import pytest

from python_core.grid.layouts import TileGrid, TileLayout
from tests.core.grid.layouts.godot_dump import dump

SHAPES = {1: "astar_isometric_right", 2: "astar_isometric_down"}
MODES = {0: "always", 3: "only_if_no_obstacles"}


def _grid(spec: dict[str, Any]) -> TileGrid:
    x0, y0, w, h = spec["region"]
    walkable = np.array(spec["solid"]).reshape(h, w) == 0
    weights = np.array(spec["weights"], dtype=np.float64).reshape(h, w)
    return TileGrid(
        walkable, layout=TileLayout(SHAPES[spec["cell_shape"]], map_origin=(x0, y0)), weights=weights,
        diagonal=MODES[spec["diagonal_mode"]], cell_size=spec["cell_size"], origin=spec["positions"][0],
    )  # fmt: skip


def _godot_cost(spec: dict[str, Any], path: list[list[int]]) -> float:
    x0, y0, w, _ = spec["region"]
    cost = 0.0
    for (ax, ay), (bx, by) in itertools.pairwise(path):
        cost += math.hypot(bx - ax, by - ay) * spec["weights"][(by - y0) * w + (bx - x0)]
    return cost


@pytest.mark.parametrize(
    "spec", dump()["astar_grids"], ids=lambda s: f"{SHAPES[s['cell_shape']]}-{s['diagonal_mode']}"
)
def test_costs_equal_get_id_path_and_points_get_point_position(spec: dict[str, Any]) -> None:
    grid = _grid(spec)
    np.testing.assert_allclose(grid.cell_points(np.arange(grid.node_count)), np.array(spec["positions"]))
    x0, y0, _, _ = spec["region"]
    found = 0
    for sx, sy, gx, gy, path in spec["queries"]:
        result = grid.find_path((sx - x0, sy - y0), (gx - x0, gy - y0))
        assert result.found == bool(path), (sx, sy, gx, gy)
        if path:
            found += 1
            assert result.cost == pytest.approx(_godot_cost(spec, path), rel=1e-5)
            np.testing.assert_allclose(
                result.points[[0, -1]], np.array(spec["positions"])[result.nodes[[0, -1]]]
            )
    assert found >= 50
    # a position maps to the cell whose diamond holds it
    for node in (0, 17, grid.node_count - 1):
        x, y = node % grid.width, node // grid.width
        px, py = spec["positions"][node]
        assert grid.world_to_cell(
            (px + 0.2 * spec["cell_size"][0], py + 0.2 * spec["cell_size"][1] * 0.9)
        ) in {
            (x, y),
            (x + 1, y),
            (x, y + 1),
            (x + 1, y - 1),
            (x - 1, y + 1),
        }
        assert grid.world_to_cell((px, py)) == (x, y)
