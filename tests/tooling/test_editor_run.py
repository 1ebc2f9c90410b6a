"""The editor's Run (F5) works with the Godot the tests use (issue 36): a headless editor on a copy
of the demo runs its main scene through the probe plugin (``EditorInterface.play_main_scene()``,
what the Run button calls), and the game it starts feeds the A* Bridge debugger tab.

The editor starts the game with ``OS.get_executable_path()``; with the old provisioned launcher that
named the dynamic loader, which refused the game's arguments, and the tab never heard from a game.
The copy's ``editor/run/main_run_args`` adds ``--headless`` to the game's command line, so no
display is needed.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from tests.godot_env import DEMO_PROJECT, REPO, import_project, run_godot

pytestmark = [pytest.mark.godot, pytest.mark.slow]

ADDON = 'enabled=PackedStringArray("res://addons/astar_bridge/plugin.cfg")'
WITH_PROBE = 'enabled=PackedStringArray("res://addons/astar_bridge/plugin.cfg", "res://addons/editor_probe/plugin.cfg")'


def _demo_copy(where: Path) -> Path:
    """The demo with the probe plugin enabled, its folders linked, as tools/screenshot_editor.sh."""
    (where / "addons").mkdir(parents=True)
    for entry in DEMO_PROJECT.iterdir():
        if entry.name not in ("addons", "project.godot", ".godot"):
            os.symlink(entry, where / entry.name)
    os.symlink(REPO / "addons" / "astar_bridge", where / "addons" / "astar_bridge")
    os.symlink(REPO / "tools" / "godot" / "editor_probe", where / "addons" / "editor_probe")
    text = (DEMO_PROJECT / "project.godot").read_text()
    assert ADDON in text
    text = text.replace(ADDON, WITH_PROBE) + '\n[editor]\n\nrun/main_run_args="--headless"\n'
    (where / "project.godot").write_text(text)
    return where


def test_the_editors_run_starts_the_game_and_its_debugger_tab_hears_it(godot: str, tmp_path: Path) -> None:
    project = _demo_copy(tmp_path / "demo")
    import_project(godot, project)
    env = {"ASTAR_BRIDGE_PYTHON": sys.executable}
    result = run_godot(
        godot, project, ["--editor", "--", "--probe-play", "--probe-wait-game"], timeout=400, env=env
    )
    lines = [line for line in result.stdout.splitlines() if line.startswith("probe: ")]
    assert "probe: run main scene, playing true" in lines, result.stdout[-4000:]
    state_line = next((line for line in lines if line.startswith("probe: state ")), "")
    assert state_line, result.stdout[-4000:]
    state = json.loads(state_line.removeprefix("probe: state "))
    assert state.get("phase") == "READY", (state, result.stdout[-4000:])
    assert [graph["id"] for graph in state["graphs"]] == ["level"], state
    assert state["stats"]["requests"] > 0, state
    assert state["stats"]["failures"] == 0, state
