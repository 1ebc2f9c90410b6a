"""A brand-new Godot project with the addon copied in, run headless before Godot ever scanned it.

Godot registers ``class_name`` types only when it scans a project (the editor, or ``--import``); a
fresh clone or a new user's project has no class cache. The autoload must still parse and find
paths there (it names its own scripts by path), and say what to run; after ``--import`` the hint
is gone and nothing reports an error.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from tests.godot_env import REPO, engine_errors, import_project, run_godot

pytestmark = [pytest.mark.godot]

HINT = "Godot has not scanned this project yet"

PROJECT = """config_version=5

[application]
config/name="fresh"

[astar_bridge]
sidecar/python_executable="{python}"

[autoload]
AStarBridge="*res://addons/astar_bridge/astar_bridge.gd"
"""

# Loads an 8 x 8 open grid once the sidecar is up, asks one path, prints it and quits.
PROBE = """extends SceneTree

var _frames: int = 0


func _process(_delta: float) -> bool:
	_frames += 1
	var bridge: Node = root.get_node_or_null(^"AStarBridge")
	if bridge == null:
		print("probe: no autoload")
		quit(3)
		return true
	if bridge.call("is_ready"):
		var cells := PackedByteArray()
		cells.resize(64)
		cells.fill(1)
		bridge.call("load_grid", "g", 8, 8, cells)
		var path: PackedVector2Array = bridge.call("find_path", "g", Vector2(0, 0), Vector2(5, 3))
		print("probe: path of %d points ending at %s" % [path.size(), path[path.size() - 1]])
		quit(0)
		return true
	if _frames > 1200:
		print("probe: the sidecar never got ready")
		quit(4)
	return false
"""


@pytest.fixture
def fresh_project(tmp_path: Path) -> Path:
    project = tmp_path / "game"
    shutil.copytree(REPO / "addons" / "astar_bridge", project / "addons" / "astar_bridge")
    (project / "project.godot").write_text(PROJECT.format(python=sys.executable))
    (project / "probe.gd").write_text(PROBE)
    return project


def _probe(godot: str, project: Path) -> list[str]:
    result = run_godot(godot, project, ["--script", "res://probe.gd"], timeout=120)
    assert result.returncode == 0, result.stdout
    assert "probe: path of 6 points ending at (5.0, 3.0)" in result.stdout, result.stdout
    return result.stdout.splitlines()


def test_unscanned_project_finds_paths_and_says_what_to_run(godot: str, fresh_project: Path) -> None:
    assert not (fresh_project / ".godot").exists()
    lines = _probe(godot, fresh_project)
    errors = engine_errors("\n".join(lines))
    assert errors, "expected the addon's hint about the missing scan"
    assert all(HINT in line or line.lstrip().startswith("at:") for line in errors), "\n".join(errors)
    assert any("--import" in line for line in lines if HINT in line)


def test_after_import_nothing_is_reported(godot: str, fresh_project: Path) -> None:
    import_project(godot, fresh_project)
    lines = _probe(godot, fresh_project)
    assert not engine_errors("\n".join(lines)), "\n".join(lines)
