"""The addon's line-of-sight smoothing on a flow field agrees with python_core's.

``tests/gdscript/support/sight_dump.gd`` makes a field toward one goal on den312d (a real Moving
AI map, loaded as an AStarGrid2D in each diagonal mode) through a real sidecar, fetches every
tile, and dumps each cell's direction byte as the field holds it and the cell
``AStarBridgeFlowField.farthest_cell`` picks. Here ``python_core.flowfield.sight.farthest_visible``
walks the very same bytes on the map read by python_core, and must pick the same cell everywhere.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from python_core.flowfield.sight import farthest_visible
from python_core.flowfield.surface import FieldSurface
from python_core.formats.movingai import read_map
from python_core.grid import GridGraph
from tests.godot_env import REPO, run_godot

pytestmark = pytest.mark.godot

MODES = ("only_if_no_obstacles", "always", "at_least_one_walkable", "never")


class _HeldBytes:
    """What farthest_visible reads of a field, answered from the addon's dumped bytes."""

    def __init__(self, grid: GridGraph, codes: np.ndarray[Any, np.dtype[np.int64]]) -> None:
        self.grid = grid
        self.agents_block = False
        self.surface = FieldSurface(grid, 1)  # a unit of one cell: the grid's own walls
        self._codes = codes

    def direction_at(self, cell: tuple[int, int]) -> int | None:
        code = int(self._codes[cell[1], cell[0]])
        return None if code < 0 else code


@pytest.fixture(scope="module")
def dump(godot_test_project: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("sight") / "sight.json"
    project = Path(__file__).resolve().parents[1] / "godot_project"
    env = {
        "ASTAR_BRIDGE_PYTHON": os.environ.get("ASTAR_BRIDGE_PYTHON", sys.executable),
        "ASTAR_BRIDGE_REPO": str(REPO),
    }
    result = run_godot(
        godot_test_project,
        project,
        ["--script", "res://tests/support/sight_dump.gd", "--", str(out)],
        timeout=300,
        env=env,
    )
    assert result.returncode == 0, result.stdout
    problems = [line for line in result.stdout.splitlines() if "ERROR" in line or "WARNING" in line]
    assert not problems, result.stdout
    data: dict[str, Any] = json.loads(out.read_text())
    return data


@pytest.mark.parametrize("mode", MODES)
def test_farthest_cell_agrees_with_python_core(dump: dict[str, Any], mode: str) -> None:
    case = next(c for c in dump["cases"] if c["mode"] == mode)
    assert case["held"] == case["tiles"] > 0, "every tile was fetched"
    assert case["waypoints_agree"], "next_waypoint is farthest_cell's world position"
    walkable = read_map(REPO / "tests" / "data" / "movingai" / dump["map"])
    height, width = walkable.shape
    grid = GridGraph(walkable, diagonal=mode)
    codes = np.array(case["codes"], dtype=np.int64).reshape(height, width)
    assert ((codes == 10) == ~walkable).all(), "walls are the map's"
    assert codes[dump["goal"][1], dump["goal"][0]] == 8
    field = _HeldBytes(grid, codes)
    farthest = np.array(case["farthest"], dtype=np.int64).reshape(height, width, 2)
    compared = smoothed = 0
    for y in range(height):
        for x in range(width):
            if not walkable[y, x]:
                continue
            want = farthest_visible(field, (x, y), max_cells=32)  # type: ignore[arg-type]
            assert tuple(farthest[y, x]) == want, f"{mode}: from {(x, y)}"
            compared += 1
            smoothed += max(abs(want[0] - x), abs(want[1] - y)) > 1
    assert compared > 1000
    assert smoothed > compared // 4, "the smoothing reaches past the next cell"
