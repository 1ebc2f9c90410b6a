"""The documented GDScript examples, as written, in a brand-new Godot project.

The GDScript block after a marker (``<!-- quick-start -->`` in the README, ``<!-- crowd-start -->``
in docs/crowds.md) becomes the main scene's script of a project that has nothing but the addon copied in, the
autoload line and the Python setting the README asks for. After the import step the README names,
a headless run must do what the block prints, with no script error or warning: the quick start
finds its paths and quits; the crowd's 20 units walk down a flow field to the goal.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.addon.new_projects import new_project as addon_project
from tests.godot_env import REPO, engine_errors, import_project, run_godot

pytestmark = [pytest.mark.godot]

MARKER = "<!-- quick-start -->"
CROWD_MARKER = "<!-- crowd-start -->"
README = REPO / "README.md"
CROWDS = REPO / "docs" / "crowds.md"

SCENE = """[gd_scene load_steps=2 format=3]

[ext_resource type="Script" path="res://quick_start.gd" id="1"]

[node name="Main" type="{root}"]
script = ExtResource("1")
"""


def readme_block(marker: str = MARKER, page: Path = README) -> str:
    """The GDScript block that follows ``marker`` in ``page`` (README.md unless given)."""
    text = page.read_text()
    assert marker in text, f"{page.name} lost its {marker} marker"
    block = re.search(r"```gdscript\n(.*?)```", text[text.index(marker) :], re.S)
    assert block is not None, f"no GDScript block after {marker}"
    return block.group(1)


def _project(root: Path, script: str) -> Path:
    node = re.search(r"^extends (\w+)", script, re.M)
    scene = SCENE.format(root=node.group(1) if node else "Node")
    return addon_project(
        root, "quick start", {"main.tscn": scene, "quick_start.gd": script}, main_scene="res://main.tscn"
    )


@pytest.fixture
def new_project(tmp_path: Path) -> Path:
    return _project(tmp_path, readme_block())


def test_readme_quick_start_finds_paths_and_ends_by_itself(godot: str, new_project: Path) -> None:
    """No --quit-after: copied into a game and run headless, the quick start must end by itself
    (a run that never quits hangs a CI job)."""
    import_project(godot, new_project)
    try:
        result = run_godot(godot, new_project, [], timeout=120)
    except subprocess.TimeoutExpired as hung:
        pytest.fail(f"the quick start did not end by itself in 120 s:\n{hung.stdout!r}")
    output = result.stdout
    assert result.returncode == 0, output
    assert not engine_errors(output), output
    path = re.search(r"quick start: a path of (\d+) points", output)
    assert path is not None, output
    assert int(path.group(1)) > 2, output
    assert "quick start: door closed, status FOUND" in output, output
    assert "quick start: 20 of 20 NPCs have a path" in output, output


def test_readme_crowd_walks_every_unit_down_the_field(godot: str, tmp_path: Path) -> None:
    """The crowd example in a new project: all 20 units reach the goal cell, and it quits. With Godot's
    default diagonal mode the field cuts corners past the wall, where a unit is nearest a wall
    cell's point; before the flow field sampled the open cell beside it, none arrived."""
    project = _project(tmp_path, readme_block(CROWD_MARKER, CROWDS))
    import_project(godot, project)
    try:
        result = run_godot(godot, project, ["--fixed-fps", "60"], timeout=180)
    except subprocess.TimeoutExpired as hung:
        pytest.fail(f"the crowd example did not end by itself in 180 s:\n{hung.stdout!r}")
    output = result.stdout
    assert result.returncode == 0, output
    assert not engine_errors(output), output
    assert "crowd: 20 of 20 units at the goal" in output, output
