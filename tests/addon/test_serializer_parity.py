"""Serializer parity: each engine graph source (AStarGrid2D in all four diagonal modes, a
TileMapLayer with custom data, AStar2D with one-way edges and a disabled point, AStar3D,
NavigationPolygon, NavigationMesh) is serialised in Godot, uploaded to a real sidecar and queried
there (``tests/gdscript/support/parity_dump.gd``). Here python_core answers the same queries on
the very parameters Godot sent, and Godot's own AStarGrid2D / AStar2D / AStar3D path costs (the
oracle that is not our code) must agree too."""

from __future__ import annotations

import base64
import json
import math
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from python_core.formats.records import from_record
from python_core.grid.search import dispatch
from tests.godot_env import run_godot

pytestmark = pytest.mark.godot

KINDS = {"graph.load_grid": "grid", "graph.load_waypoints": "waypoints", "graph.load_navmesh": "navmesh"}
EXPECTED_CASES = {
    "astar_grid_no_corner_cutting",
    "astar_grid_always",
    "astar_grid_never",
    "astar_grid_one_walkable",
    "tile_map",
    "astar_2d",
    "astar_3d",
    "navpoly",
    "navmesh",
}


def _decode(value: Any) -> Any:
    if isinstance(value, dict) and set(value) == {"$bin"}:
        return base64.b64decode(value["$bin"])
    return value


@pytest.fixture(scope="module")
def dump(godot_test_project: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("parity") / "parity.json"
    project = Path(__file__).resolve().parents[1] / "godot_project"
    env = {"ASTAR_BRIDGE_PYTHON": os.environ.get("ASTAR_BRIDGE_PYTHON", sys.executable)}
    result = run_godot(
        godot_test_project,
        project,
        ["--script", "res://tests/support/parity_dump.gd", "--", str(out)],
        timeout=180,
        env=env,
    )
    assert result.returncode == 0, result.stdout
    problems = [line for line in result.stdout.splitlines() if "ERROR" in line or "WARNING" in line]
    assert not problems, result.stdout
    data: dict[str, Any] = json.loads(out.read_text())
    return {case["name"]: case for case in data["cases"]}


def test_every_graph_source_was_dumped(dump: dict[str, Any]) -> None:
    assert set(dump) == EXPECTED_CASES


def _graph(case: dict[str, Any]) -> tuple[str, Any]:
    kind = KINDS[case["method"]]
    record = {key: _decode(value) for key, value in case["params"].items() if key != "id"}
    return kind, from_record(kind, record)


def _endpoint(kind: str, graph: Any, value: Any) -> Any:
    if kind == "grid":
        return graph.world_to_cell(value)
    if kind == "waypoints":
        return int(value)
    return np.asarray(value, dtype=np.float64)


@pytest.mark.parametrize("name", sorted(EXPECTED_CASES))
def test_sidecar_answers_match_python_core(dump: dict[str, Any], name: str) -> None:
    case = dump[name]
    kind, graph = _graph(case)
    assert case["queries"], "no queries"
    for query in case["queries"]:
        start = _endpoint(kind, graph, query["from"])
        goal = _endpoint(kind, graph, query["to"])
        expected = dispatch.find_path(graph, start, goal) if kind == "grid" else graph.find_path(start, goal)
        where = f"{name} {query['from']} -> {query['to']}"
        assert query["error"] == {}, where
        assert query["status"] == expected.status.value, where
        assert query["cost"] == pytest.approx(expected.cost, rel=1e-5), where
        points = np.asarray(expected.points, dtype=np.float64).reshape(len(query["points"]), -1)
        np.testing.assert_allclose(np.asarray(query["points"]), points, rtol=1e-5, atol=1e-3, err_msg=where)


@pytest.mark.parametrize("name", sorted(n for n in EXPECTED_CASES if n.startswith("astar")))
def test_costs_match_godots_own_astar(dump: dict[str, Any], name: str) -> None:
    case = dump[name]
    # Grid costs are in world units; Godot's AStarGrid2D counts cells (square cells here).
    scale = float(case["params"]["cell_size"][0]) if "cell_size" in case["params"] else 1.0
    for query in case["queries"]:
        oracle = query["oracle_cost"]
        where = f"{name} {query['from']} -> {query['to']}"
        if oracle < 0:
            assert query["status"] == "no_path", where
        else:
            assert query["status"] == "found", where
            assert math.isclose(query["cost"], oracle * scale, rel_tol=1e-5), where


def test_tile_map_weights_and_walls_arrived(dump: dict[str, Any]) -> None:
    params = {key: _decode(value) for key, value in dump["tile_map"]["params"].items()}
    cells = np.frombuffer(params["cells"], dtype=np.uint8).reshape(params["height"], params["width"])
    weights = np.frombuffer(params["weights"], dtype="<f4").reshape(cells.shape)
    assert cells[1, 1] == 0
    assert cells[0, 0] == 1
    assert weights[2, 7] == 3.0
    assert weights[0, 0] == 1.0
    assert params["origin"] == [8.0, 8.0]
    assert params["cell_size"] == [16.0, 16.0]
