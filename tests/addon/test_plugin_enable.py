"""A brand-new project that only lists the plugin in project.godot gets, from one headless editor
run, the AStarBridge autoload, every project setting of the table, and the addon's class names.

Godot loads a plugin listed in ``[editor_plugins]`` without calling its ``_enable_plugin`` (only
the Plugins tab does), so the plugin installs what is missing from ``_enter_tree`` too. The probe
plugin (``tools/godot/editor_probe``) prints what the editor sees once it has settled.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.godot_env import REPO, run_godot

pytestmark = [pytest.mark.godot]

PROJECT = """config_version=5

[application]
config/name="fresh"

[editor_plugins]

enabled=PackedStringArray({plugins})
"""
ADDON = '"res://addons/astar_bridge/plugin.cfg"'
PROBE = '"res://addons/editor_probe/plugin.cfg"'


def _fresh(where: Path) -> Path:
    shutil.copytree(REPO / "addons" / "astar_bridge", where / "addons" / "astar_bridge")
    shutil.copytree(REPO / "tools" / "godot" / "editor_probe", where / "addons" / "editor_probe")
    (where / "project.godot").write_text(PROJECT.format(plugins=f"{ADDON}, {PROBE}"))
    return where


def _probe_lines(godot: str, project: Path) -> list[str]:
    result = run_godot(godot, project, ["--editor"], timeout=240)
    assert result.returncode == 0, result.stdout
    return [line for line in result.stdout.splitlines() if line.startswith("probe: ")]


def test_listed_plugin_installs_autoload_settings_and_class_names(godot: str, tmp_path: Path) -> None:
    project = _fresh(tmp_path / "game")
    lines = _probe_lines(godot, project)
    assert any(line.startswith("probe: autoload *") for line in lines), lines
    assert "probe: autoload <none>" not in lines
    assert any(line.endswith("missing []") and "settings" in line for line in lines), lines
    assert "probe: class AStarBridgeAgent2D resolved" in lines, lines
    # Saved, so a headless game run (no editor) starts the autoload too.
    saved = (project / "project.godot").read_text()
    assert "[autoload]" in saved
    assert "AStarBridge=" in saved


def test_probe_sees_a_project_without_the_plugin_as_such(godot: str, tmp_path: Path) -> None:
    # The probe alone: it must report the autoload and settings missing, or it proves nothing.
    project = tmp_path / "bare"
    shutil.copytree(REPO / "tools" / "godot" / "editor_probe", project / "addons" / "editor_probe")
    shutil.copytree(REPO / "addons" / "astar_bridge", project / "addons" / "astar_bridge")
    (project / "project.godot").write_text(PROJECT.format(plugins=PROBE))
    lines = _probe_lines(godot, project)
    assert "probe: autoload <none>" in lines, lines
    assert any("settings" in line and "astar_bridge/debug/enabled" in line for line in lines)
