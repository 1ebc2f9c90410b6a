"""Bad input to ``AStarBridge.request_flow_field`` and the field's own calls, in a headless Godot:
each says what is wrong with a push_error and returns its documented failure (null, or the cell
itself), and a good field of the same grid is still made and answers afterwards."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.addon.new_projects import assert_said, run_probe

pytestmark = [pytest.mark.godot]

# Each bad call prints "probe: <name> <null or made>"; then a good field answers.
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
	grid.region = Rect2i(2, 2, 8, 8)
	grid.update()
	bridge.call("load_astar_grid_2d", "level", grid)
	var astar := AStar2D.new()
	astar.add_point(1, Vector2(0, 0))
	astar.add_point(2, Vector2(5, 0))
	astar.connect_points(1, 2)
	bridge.call("load_astar_2d", "roads", astar)
	var polygon := NavigationPolygon.new()
	polygon.vertices = PackedVector2Array([Vector2(0, 0), Vector2(50, 0), Vector2(50, 50), Vector2(0, 50)])
	polygon.add_polygon(PackedInt32Array([0, 1, 2, 3]))
	var region := NavigationRegion2D.new()
	region.navigation_polygon = polygon
	root.add_child(region)
	var regions: Array[Node] = [region]
	bridge.call("load_navigation_region", "mesh", regions)
	_show("unknown graph", bridge.call("request_flow_field", "nowhere", [Vector2i(3, 3)]))
	_show("empty goals", bridge.call("request_flow_field", "level", []))
	_show("navmesh graph", bridge.call("request_flow_field", "mesh", [Vector2(10, 10)]))
	_show("waypoint graph", bridge.call("request_flow_field", "roads", [Vector2(0, 0)]))
	_show("goal outside", bridge.call("request_flow_field", "level", [Vector2i(0, 0)]))
	_show("string goal", bridge.call("request_flow_field", "level", ["3,3"]))
	_show("unknown option", bridge.call("request_flow_field", "level", [Vector2i(3, 3)], {"speed": 1}))
	_show("starts not array", bridge.call("request_flow_field", "level", [Vector2i(3, 3)], {"starts": 1}))
	var outside: Dictionary = {"starts": [Vector2i(40, 3)]}
	_show("start outside", bridge.call("request_flow_field", "level", [Vector2i(3, 3)], outside))
	var field: RefCounted = bridge.call("request_flow_field", "level", [Vector2i(3, 3)])
	_show("good field", field)
	var same: Vector2i = field.call("farthest_cell", Vector2i(9, 9), 0)
	print("probe: max_cells 0 gives %s" % same)
	for _i: int in 600:
		if field.call("is_ready"):
			break
		await process_frame
	print("probe: the field answers %s" % field.call("direction_at_cell", Vector2i(4, 3)))
	quit(0)


func _show(name: String, outcome: Variant) -> void:
	print("probe: %s %s" % [name, "null" if outcome == null else "made"])
"""

EXPECTED = {
    "probe: unknown graph null": "no graph nowhere was loaded",
    "probe: empty goals null": "goals is empty",
    "probe: navmesh graph null": "flow fields are for grids; mesh is not a grid",
    "probe: waypoint graph null": "flow fields are for grids; roads is not a grid",
    "probe: goal outside null": "goals (0, 0) is outside the grid (8 x 8)",
    "probe: string goal null": "give Vector2i cells or Vector2 positions",
    "probe: unknown option null": "unknown option speed",
    "probe: starts not array null": "options.starts must be an Array",
    "probe: start outside null": "options.starts (40, 3) is outside the grid",
    "probe: good field made": None,
    "probe: max_cells 0 gives (9, 9)": "max_cells must be >= 1, got 0",
    "probe: the field answers (-1, 0)": None,
}


def test_bad_field_calls_say_why_and_a_good_field_still_answers(godot: str, tmp_path: Path) -> None:
    output, errors = run_probe(godot, tmp_path, "field errors", PROBE)
    assert_said(output, errors, EXPECTED)
    assert len(errors) == sum(error is not None for error in EXPECTED.values()), output
