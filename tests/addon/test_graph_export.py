"""The level designers' workflow: Godot exports a scene's navigation data as graph files
(addons/astar_bridge/export/scene_graph_exporter.gd, also behind the editor's Tools menu), and a
plain pytest suite loads them with python_core and asserts on reachability, no engine needed."""

from __future__ import annotations

from pathlib import Path

import pytest

from python_core import GridGraph, NavMesh, PathStatus
from python_core.formats.graph_file import load_graph
from tests.godot_env import TEST_PROJECT, run_godot

pytestmark = pytest.mark.godot


@pytest.fixture(scope="module")
def exported(godot_test_project: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("graphs")
    script = ["--script", "res://tests/support/export_scene.gd", "--", str(folder)]
    result = run_godot(godot_test_project, TEST_PROJECT, script, timeout=120)
    assert result.returncode == 0, result.stdout
    assert "ERROR" not in result.stdout, result.stdout
    assert "WARNING" not in result.stdout, result.stdout
    return {path.stem: path for path in folder.glob("*.graph")}


def test_one_file_per_navigation_node(exported: dict[str, Path]) -> None:
    assert set(exported) == {"Level_Floor", "Level_Yard"}


def test_grid_reachability_can_be_asserted_without_the_engine(exported: dict[str, Path]) -> None:
    grid = load_graph(exported["Level_Floor"])
    assert isinstance(grid, GridGraph)
    assert (grid.width, grid.height) == (12, 8)
    start = grid.world_to_cell((8.0, 8.0))  # cell (0, 0): the exporter keeps the layer's frame
    assert start == (0, 0)
    assert grid.find_path(start, (11, 7)).status is PathStatus.FOUND
    # Cell (9, 6) is inside the walled room.
    assert grid.find_path(start, (9, 6)).status is PathStatus.NO_PATH


def test_navmesh_path_goes_round_the_corner(exported: dict[str, Path]) -> None:
    mesh = load_graph(exported["Level_Yard"])
    assert isinstance(mesh, NavMesh)
    # The region sits at x = 300: the exporter applies its transform.
    result = mesh.find_path((305.0, 5.0), (350.0, 75.0))
    assert result.status is PathStatus.FOUND
    assert result.cost > ((350 - 305) ** 2 + (75 - 5) ** 2) ** 0.5  # bent at the inner corner
    assert result.nodes.tolist() == [0, 1, 2]
