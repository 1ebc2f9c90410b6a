"""The README's quick start, as written, in a brand-new Godot project.

The GDScript block after the README's ``<!-- quick-start -->`` marker becomes the main scene's
script of a project that has nothing but the addon copied in, the autoload line and the Python
setting the README asks for. After the import step the README names, a headless run must find
the paths the block prints, with no script error or warning.
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import pytest

from tests.godot_env import REPO, engine_errors, import_project, run_godot

pytestmark = [pytest.mark.godot]

MARKER = "<!-- quick-start -->"

PROJECT = """config_version=5

[application]
config/name="quick start"
run/main_scene="res://main.tscn"

[astar_bridge]
sidecar/python_executable="{python}"

[autoload]
AStarBridge="*res://addons/astar_bridge/astar_bridge.gd"
"""

SCENE = """[gd_scene load_steps=2 format=3]

[ext_resource type="Script" path="res://quick_start.gd" id="1"]

[node name="Main" type="Node"]
script = ExtResource("1")
"""


def readme_quick_start() -> str:
    """The GDScript block that follows the marker in README.md."""
    text = (REPO / "README.md").read_text()
    assert MARKER in text, "the README lost its quick-start marker"
    block = re.search(r"```gdscript\n(.*?)```", text[text.index(MARKER) :], re.S)
    assert block is not None, "no GDScript block after the quick-start marker"
    return block.group(1)


@pytest.fixture
def new_project(tmp_path: Path) -> Path:
    project = tmp_path / "game"
    shutil.copytree(REPO / "addons" / "astar_bridge", project / "addons" / "astar_bridge")
    (project / "project.godot").write_text(PROJECT.format(python=sys.executable))
    (project / "main.tscn").write_text(SCENE)
    (project / "quick_start.gd").write_text(readme_quick_start())
    return project


def test_readme_quick_start_finds_paths(godot: str, new_project: Path) -> None:
    import_project(godot, new_project)
    result = run_godot(godot, new_project, ["--quit-after", "3000"], timeout=180)
    output = result.stdout
    assert result.returncode == 0, output
    assert not engine_errors(output), output
    path = re.search(r"quick start: a path of (\d+) points", output)
    assert path is not None, output
    assert int(path.group(1)) > 2, output
    assert "quick start: door closed, status FOUND" in output, output
    assert "quick start: 20 of 20 NPCs have a path" in output, output
