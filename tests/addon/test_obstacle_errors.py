"""Bad input to ``AStarBridge.set_obstacle`` / ``remove_obstacle`` in a headless Godot (issue 40):
each says what is wrong with a push_error and returns its documented error, nothing is sent for it,
and a good obstacle of the same frame still reaches the sidecar (one graph.update) and paths go
around it; a waypoint graph and a 3D shape on a 2D grid are refused at the frame's end."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.addon.new_projects import assert_said, run_probe

pytestmark = [pytest.mark.godot]

# Each call prints "probe: <name> <error code>"; then the good obstacle's effect.
PROBE = """extends SceneTree

var _started: bool = false


func _process(_delta: float) -> bool:
	if _started:
		return false
	_started = true
	_run.call_deferred()
	return false


func _run() -> void:
	var bridge: Node = root.get_node(^"AStarBridge")
	var grid := AStarGrid2D.new()
	grid.region = Rect2i(0, 0, 10, 5)
	grid.diagonal_mode = AStarGrid2D.DIAGONAL_MODE_ONLY_IF_NO_OBSTACLES
	grid.update()
	bridge.call("load_astar_grid_2d", "level", grid)
	var astar := AStar2D.new()
	astar.add_point(1, Vector2(0, 0))
	astar.add_point(2, Vector2(5, 0))
	astar.connect_points(1, 2)
	bridge.call("load_astar_2d", "roads", astar)
	var wall := PackedVector2Array([Vector2(4.2, -1), Vector2(4.8, -1), Vector2(4.8, 3.5), Vector2(4.2, 3.5)])
	var bow := PackedVector2Array([Vector2(0, 0), Vector2(2, 2), Vector2(2, 0), Vector2(0, 2)])
	var line := PackedVector2Array([Vector2(0, 0), Vector2(1, 1), Vector2(2, 2)])
	var two := PackedVector2Array([Vector2(0, 0), Vector2(1, 1)])
	var nan_point := PackedVector2Array([Vector2(0, 0), Vector2(NAN, 1), Vector2(2, 0)])
	await process_frame
	var sent: int = bridge.call("get_stats")["messages"]
	_show("two points", bridge.call("set_obstacle", "level", 1, two))
	_show("negative id", bridge.call("set_obstacle", "level", -3, wall))
	_show("no graph id", bridge.call("set_obstacle", "", 1, wall))
	_show("crossing sides", bridge.call("set_obstacle", "level", 1, bow))
	_show("no area", bridge.call("set_obstacle", "level", 1, line))
	_show("not finite", bridge.call("set_obstacle", "level", 1, nan_point))
	_show("zero radius", bridge.call("set_obstacle", "level", 1, Vector2(5, 5), 0.0))
	_show("bad height", bridge.call("set_obstacle", "level", 1, Vector3(5, 0, 5), 1.0, -2.0))
	_show("2D height", bridge.call("set_obstacle", "level", 1, Vector2(5, 5), 1.0, 2.0))
	_show("string shape", bridge.call("set_obstacle", "level", 1, "cart"))
	_show("unknown removal", bridge.call("remove_obstacle", "level", 99))
	_show("good wall", bridge.call("set_obstacle", "level", 1, wall))
	_show("waypoint graph", bridge.call("set_obstacle", "roads", 1, wall))
	_show("3D on 2D", bridge.call("set_obstacle", "level", 2, Vector3(1, 0, 1), 0.5))
	for _i: int in 3:
		await process_frame
	print("probe: messages %d" % (bridge.call("get_stats")["messages"] - sent))
	var info: Dictionary = bridge.call("call_method", "graph.info", {"id": "level"}).value
	print("probe: obstacles held %d" % info.get("obstacles", -1))
	var path: PackedVector2Array = bridge.call("find_path", "level", Vector2i(0, 2), Vector2i(9, 2))
	var through: bool = false
	for point: Vector2 in path:
		through = through or (point.x > 4.2 and point.x < 4.8 and point.y < 3.5)
	print("probe: path through the wall %s, found %s" % [through, path.size() > 0])
	quit(0)


func _show(name: String, outcome: Variant) -> void:
	print("probe: %s %s" % [name, error_string(outcome)])
"""

EXPECTED = {
    "probe: two points Invalid parameter": "obstacle 1 needs 3 .. 4096 vertices, got 2",
    "probe: negative id Invalid parameter": "obstacle -3 needs an id >= 0",
    "probe: no graph id Invalid parameter": "obstacle 1 needs a graph id",
    "probe: crossing sides Invalid parameter": "obstacle 1 has sides that cross",
    "probe: no area Invalid parameter": "obstacle 1 has no area",
    "probe: not finite Invalid parameter": "obstacle 1 has a vertex that is not finite",
    "probe: zero radius Invalid parameter": "obstacle 1 needs a finite radius > 0, got 0",
    "probe: bad height Invalid parameter": "obstacle 1 needs a height > 0 (INF: no limit), got -2",
    "probe: 2D height Invalid parameter": "obstacle 1 is 2D: a height is for 3D shapes",
    "probe: string shape Invalid parameter": "obstacle 1 needs a PackedVector2Array or PackedVector3",
    "probe: unknown removal Does not exist": "graph level has no obstacle 99 to remove",
    "probe: good wall OK": None,
    "probe: waypoint graph OK": "graph roads is a waypoint graph: obstacles are for grids and navmeshes",
    "probe: 3D on 2D OK": "obstacle 2 is 3D but graph level is 2D: not placed",
    "probe: messages 1": None,
    "probe: obstacles held 1": None,
    "probe: path through the wall false, found true": None,
}


def test_bad_obstacle_calls_say_why_and_a_good_one_still_counts(godot: str, tmp_path: Path) -> None:
    output, errors = run_probe(godot, tmp_path, "obstacle errors", PROBE)
    assert_said(output, errors, EXPECTED)
    assert len(errors) == sum(error is not None for error in EXPECTED.values()), output
