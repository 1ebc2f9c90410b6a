"""A brand-new Godot project with nothing but the addon copied in, the autoload line and the
Python setting the README asks for; and the probes run in one (a script that prints one line per
bad call, whose push_errors are checked against what each call must say)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from tests.godot_env import REPO, import_project, run_godot

PROJECT = """config_version=5

[application]
config/name="{name}"
{main_scene}
[astar_bridge]
sidecar/python_executable="{python}"

[autoload]
AStarBridge="*res://addons/astar_bridge/astar_bridge.gd"
"""

# A Linux export preset that keeps the pack beside the binary (the sidecar goes beside it too).
LINUX_EXPORT_PRESET = """[preset.0]

name="Linux"
platform="Linux"
runnable=true
export_filter="all_resources"
include_filter=""
exclude_filter=""
export_path=""

[preset.0.options]

binary_format/embed_pck=false
binary_format/architecture="x86_64"
"""


def new_project(root: Path, name: str, files: dict[str, str], main_scene: str = "") -> Path:
    """``root/game``: the addon, ``project.godot`` (``main_scene``, a res:// path, if given) and
    ``files`` (res-relative path -> text)."""
    project = root / "game"
    shutil.copytree(REPO / "addons" / "astar_bridge", project / "addons" / "astar_bridge")
    scene = f'run/main_scene="{main_scene}"\n' if main_scene else ""
    (project / "project.godot").write_text(PROJECT.format(name=name, main_scene=scene, python=sys.executable))
    for path, text in files.items():
        (project / path).write_text(text)
    return project


def run_probe(godot: str, root: Path, name: str, probe: str) -> tuple[str, list[str]]:
    """Run ``probe`` (an ``extends SceneTree`` script) in a new, imported project; its output and
    its ``ERROR:`` lines (a push_error each). It must exit 0."""
    project = new_project(root, name, {"probe.gd": probe})
    import_project(godot, project)
    result = run_godot(godot, project, ["--script", "res://probe.gd"], timeout=120)
    output = result.stdout
    assert result.returncode == 0, output
    return output, [line for line in output.splitlines() if line.startswith("ERROR:")]


def assert_said(output: str, errors: list[str], expected: dict[str, str | None]) -> None:
    """Every line of ``expected`` was printed, and each with a reason pushed an error saying it."""
    for line, error in expected.items():
        assert line in output, output
        if error is not None:
            assert any(error in message for message in errors), f"no push_error saying {error!r}:\n{output}"
