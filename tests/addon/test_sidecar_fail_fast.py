"""A game whose sidecar cannot start says why once, then every call fails at once.

The project's python does not exist (as on a player's machine without Python and without the
bundled sidecar): the first call finds out, the autoload pushes one error naming the command, and
every later synchronous call returns its documented failure value in well under the connect
timeout instead of waiting for it again.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.godot_env import REPO, import_project, run_godot

pytestmark = [pytest.mark.godot]

PROJECT = """config_version=5

[application]
config/name="no sidecar"

[astar_bridge]
sidecar/python_executable="/nonexistent/python3"
timeouts/connect_ms=3000

[autoload]
AStarBridge="*res://addons/astar_bridge/astar_bridge.gd"
"""

PROBE = """extends SceneTree


func _process(_delta: float) -> bool:
	var bridge: Node = root.get_node_or_null(^"AStarBridge")
	var cells := PackedByteArray()
	cells.resize(16)
	cells.fill(1)
	var began: int = Time.get_ticks_msec()
	var first: RefCounted = bridge.call("load_grid", "g", 4, 4, cells)
	print("probe: first load %s in %d ms" % [first.get("code"), Time.get_ticks_msec() - began])
	began = Time.get_ticks_msec()
	var empty: int = 0
	for i: int in 20:
		var path: PackedVector2Array = bridge.call("find_path", "g", Vector2(0, 0), Vector2(3, 3))
		empty += 1 if path.is_empty() else 0
	var result: Dictionary = bridge.call("find_path_result", "g", Vector2(0, 0), Vector2(3, 3))
	var again: RefCounted = bridge.call("load_grid", "g", 4, 4, cells)
	var error: Dictionary = result["error"]
	print("probe: 20 find_path empty=%d, result %s %s, load %s, in %d ms" % [
		empty, result["status"], error.get("code"), again.get("code"), Time.get_ticks_msec() - began
	])
	print("probe: phase failed=%s" % (bridge.call("get_phase") == 7))
	quit(0)
	return true
"""

LINE = re.compile(
    r"probe: 20 find_path empty=20, result error not_connected, load not_connected, in (\d+) ms"
)


def test_calls_fail_at_once_after_a_failed_start(godot: str, tmp_path: Path) -> None:
    project = tmp_path / "game"
    shutil.copytree(REPO / "addons" / "astar_bridge", project / "addons" / "astar_bridge")
    (project / "project.godot").write_text(PROJECT)
    (project / "probe.gd").write_text(PROBE)
    import_project(godot, project)
    result = run_godot(godot, project, ["--script", "res://probe.gd"], timeout=120)
    out = result.stdout
    assert result.returncode == 0, out
    assert out.count("cannot start the sidecar") == 1, out
    assert '"/nonexistent/python3" could not be started (no such file)' in out, out
    # Where a self-contained sidecar was looked for: beside the executable and in the addon.
    in_addon = project / "addons" / "astar_bridge" / "sidecar" / "linux-x86_64" / "astar-bridge-sidecar"
    assert "No self-contained sidecar at " in out, out
    assert f"{in_addon}/astar-bridge-sidecar" in out, out
    assert "probe: first load not_connected in" in out, out
    found = LINE.search(out)
    assert found, out
    assert int(found.group(1)) < 500, out
    assert "probe: phase failed=true" in out, out
    # path_calls.gd's per-call warning ("the path on g from ... failed (not_connected): ...")
    # is kept quiet after the one start error.
    assert "failed (not_connected)" not in out, "per-call warnings after the one start error:\n" + out
    assert out.count("WARNING:") == 0, out
