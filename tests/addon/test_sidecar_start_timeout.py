"""A sidecar slow to announce itself (as a release zip's on its first start, which copies and
unpacks itself into the user's cache) gets the start timeout, not the connect timeout: with
connect_ms at 1 s, a sidecar that takes 4 s to announce itself still serves the game's first
synchronous call; past start_ms the start fails, once, naming the setting.

The slow sidecar is the project's Python behind a script that sleeps before it runs."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.addon.new_projects import new_project
from tests.godot_env import import_project, run_godot

pytestmark = [pytest.mark.godot]

PROBE = """extends SceneTree


func _process(_delta: float) -> bool:
	var bridge: Node = root.get_node(^"AStarBridge")
	var cells := PackedByteArray()
	cells.resize(16)
	cells.fill(1)
	var began: int = Time.get_ticks_msec()
	var loaded: RefCounted = bridge.call("load_grid", "g", 4, 4, cells)
	var code: String = loaded.get("code")
	var took: int = Time.get_ticks_msec() - began
	print("probe: load %s after %d ms" % ["ok" if code.is_empty() else code, took])
	quit(0)
	return true
"""
SLOW = '#!/bin/sh\nsleep 4\nexec {python} "$@"\n'


@pytest.fixture(scope="module")
def project(godot: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new project whose Python takes 4 s to start, imported once."""
    made = new_project(tmp_path_factory.mktemp("slow start"), "slow start", {"probe.gd": PROBE})
    slow = made / "slow_python"
    slow.write_text(SLOW.format(python=sys.executable))
    slow.chmod(0o755)
    settings = made / "project.godot"
    settings.write_text(settings.read_text().replace(sys.executable, str(slow)))
    import_project(godot, made)
    return made


def run_probe(godot: str, project: Path, timeouts: str) -> str:
    settings = project / "project.godot"
    lines = [line for line in settings.read_text().splitlines() if not line.startswith("timeouts/")]
    at = lines.index("[astar_bridge]") + 1
    lines[at:at] = timeouts.split()
    settings.write_text("\n".join(lines) + "\n")
    result = run_godot(
        godot, project, ["--script", "res://probe.gd"], timeout=180, env={"ASTAR_BRIDGE_PYTHON": ""}
    )
    assert result.returncode == 0, result.stdout
    return result.stdout


def test_a_slow_first_start_is_waited_for(godot: str, project: Path) -> None:
    out = run_probe(godot, project, "timeouts/connect_ms=1000")
    assert "probe: load ok after" in out, out
    assert "ERROR:" not in out, out


def test_a_start_past_start_ms_fails_once_and_names_the_setting(godot: str, project: Path) -> None:
    out = run_probe(godot, project, "timeouts/connect_ms=1000 timeouts/start_ms=1500")
    assert "probe: load not_connected after" in out, out
    errors = [line for line in out.splitlines() if line.startswith("ERROR:")]
    assert len(errors) == 1, out
    assert "did not announce itself within 1500 ms (astar_bridge/timeouts/start_ms)" in errors[0], out
