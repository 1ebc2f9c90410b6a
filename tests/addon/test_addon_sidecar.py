"""The GDScript addon against a sidecar started here: paths found through the addon (encode,
socket, decode in Godot) equal python_core's answers on the same grid, and a graph the addon
exports loads back in python_core. The GDScript side is ``tests/gdscript/rpc/test_rpc_external.gd``."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from python_core import GridGraph
from python_core.formats.graph_file import read_graph_record
from python_core.grid.search import dispatch
from tests.addon.conftest import sidecar_env
from tests.godot_env import TEST_PROJECT
from tests.tooling.gdscript_runner import assert_clean_run, run_gdscript_tests

pytestmark = pytest.mark.godot

EXTERNAL_TESTS = 4


def _rows(seed: int, width: int, height: int) -> list[str]:
    """A random grid (about 25 % walls) whose corner (0, 0) is open."""
    rng = np.random.default_rng(seed)
    walls = rng.random((height, width)) < 0.25
    walls[0, 0] = False
    return ["".join("#" if wall else "." for wall in row) for row in walls]


def _case(rows: list[str], diagonal: str) -> dict[str, Any]:
    """The grid and python_core's answer to each query (start (0, 0) to scattered goals)."""
    walkable = np.array([[cell != "#" for cell in row] for row in rows])
    graph = GridGraph(walkable, diagonal=diagonal)
    height, width = walkable.shape
    queries: list[dict[str, Any]] = []
    for gy in range(0, height, 3):
        for gx in range(width - 1, 0, -4):
            if not walkable[gy, gx]:
                continue
            result = dispatch.find_path(graph, (0, 0), (gx, gy))  # what the sidecar runs
            query: dict[str, Any] = {
                "start": [0, 0],
                "goal": [gx, gy],
                "status": result.status.value,
                "points": [[float(x), float(y)] for x, y in result.points],
            }
            if math.isfinite(result.cost):  # JSON has no infinity (the cost of no path)
                query["cost"] = float(result.cost)
            queries.append(query)
    return {"rows": rows, "diagonal": diagonal, "queries": queries}


@pytest.mark.parametrize("diagonal", ["only_if_no_obstacles", "never", "always"])
def test_addon_paths_equal_python_core(
    godot_test_project: str, sidecar: dict[str, Any], tmp_path: Path, diagonal: str
) -> None:
    case = _case(_rows(7, 24, 16), diagonal)
    assert any(q["status"] == "found" for q in case["queries"])
    case_file = tmp_path / "case.json"
    case_file.write_text(json.dumps(case))
    env = {**sidecar_env(sidecar), "ASTAR_BRIDGE_CASE": str(case_file)}
    outcome = run_gdscript_tests(godot_test_project, TEST_PROJECT, method_filter="test_external", env=env)
    print(outcome.output)
    assert_clean_run(outcome)
    assert outcome.passed == EXTERNAL_TESTS


def test_exported_graph_loads_in_python_core(
    godot_test_project: str, sidecar: dict[str, Any], tmp_path: Path
) -> None:
    rows = _rows(11, 10, 6)
    case_file = tmp_path / "case.json"
    case_file.write_text(json.dumps(_case(rows, "never")))
    target = tmp_path / "level.graph"
    env = {
        **sidecar_env(sidecar),
        "ASTAR_BRIDGE_CASE": str(case_file),
        "ASTAR_BRIDGE_EXPORT": str(target),
    }
    outcome = run_gdscript_tests(
        godot_test_project, TEST_PROJECT, method_filter="test_external_export", env=env
    )
    assert_clean_run(outcome)
    kind, record = read_graph_record(target)
    assert kind == "grid"
    assert (record["width"], record["height"], record["diagonal"]) == (10, 6, "never")
    cells = np.frombuffer(record["cells"], dtype=np.uint8).reshape(6, 10)
    assert ["".join("." if c else "#" for c in row) for row in cells] == rows
