"""Bad input to the autoload's engine-terms API, in a headless Godot: every call says what is
wrong with a push_error (the line a developer sees in the editor's output), returns its documented
failure, and the graph loaded before keeps answering."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.addon.new_projects import assert_said, run_probe

pytestmark = [pytest.mark.godot]

# Each bad call prints "probe: <name> <ok or the error code>"; then the path still found.
PROBE = """extends SceneTree

var _done: bool = false


func _process(_delta: float) -> bool:
	if _done:
		return true
	_done = true
	var bridge: Node = root.get_node(^"AStarBridge")
	var grid := AStarGrid2D.new()
	grid.region = Rect2i(0, 0, 8, 8)
	grid.update()
	_show("good grid", bridge.call("load_astar_grid_2d", "level", grid))
	_show("null grid", bridge.call("load_astar_grid_2d", "level", null))
	var iso := AStarGrid2D.new()
	iso.cell_shape = AStarGrid2D.CELL_SHAPE_ISOMETRIC_RIGHT
	_show("empty isometric grid", bridge.call("load_astar_grid_2d", "level", iso))
	var none: Array[Node] = []
	_show("no regions", bridge.call("load_navigation_region", "level", none))
	var not_regions: Array[Node] = [Node.new()]
	_show("not a region", bridge.call("load_navigation_region", "level", not_regions))
	var unbaked := NavigationRegion2D.new()
	unbaked.name = "Unbaked"
	unbaked.navigation_polygon = NavigationPolygon.new()
	var unbaked_regions: Array[Node] = [unbaked]
	_show("unbaked region", bridge.call("load_navigation_region", "level", unbaked_regions))
	unbaked.free()
	_show("null tile layer", bridge.call("load_tile_map_layer", "level", null))
	var layer := TileMapLayer.new()
	layer.name = "Floor"
	layer.tile_set = TileSet.new()
	_show("tile set without walkable", bridge.call("load_tile_map_layer", "tiles", layer))
	var typo: Dictionary = {"walkable_layers": "walk"}
	_show("unknown tile option", bridge.call("load_tile_map_layer", "tiles", layer, typo))
	var nav: Dictionary = {"source": 1, "navigation_layer": 2}
	_show("missing navigation layer", bridge.call("load_tile_map_layer", "tiles", layer, nav))
	layer.free()
	var cells: Array[Vector2i] = [Vector2i(1, 1)]
	_show("negative weight", bridge.call("set_cells_weight", "level", cells, -1.0))
	_show("unknown graph", bridge.call("set_cells_solid", "nowhere", cells, true))
	var query: RefCounted = load("res://addons/astar_bridge/api/path_query.gd").new()
	var result: RefCounted = load("res://addons/astar_bridge/api/path_result.gd").new()
	bridge.call("query_path", query, result)
	print("probe: empty query %s" % result.get("error_code"))
	query.set("graph", "level")
	query.set("from", "a string")
	bridge.call("query_path", query, result)
	print("probe: string endpoint %s" % result.get("error_code"))
	var path: PackedVector2Array = bridge.call("find_path", "level", Vector2i(0, 0), Vector2i(7, 7))
	print("probe: the grid still answers with %d points" % path.size())
	for node: Node in not_regions:
		node.free()
	quit(0)
	return true


func _show(name: String, outcome: Object) -> void:
	var code: String = outcome.get("code")
	print("probe: %s %s" % [name, "ok" if code.is_empty() else code])
"""

EXPECTED = {
    "probe: good grid ok": None,
    "probe: null grid bad_request": "load_astar_grid_2d: the grid is null",
    "probe: empty isometric grid bad_request": "is empty: set grid.region first",
    "probe: no regions bad_request": "no regions given for level",
    "probe: not a region bad_request": "is not a navigation region (give NavigationRegion2D",
    "probe: unbaked region bad_request": "the region Unbaked has no polygons: bake it first",
    "probe: null tile layer bad_request": "load_tile_map_layer: the layer is null",
    # What to change, not "no custom data layer <null>".
    "probe: tile set without walkable bad_request": 'of Floor has no custom data layer "walkable". Add a',
    "probe: unknown tile option bad_request": 'unknown option "walkable_layers" (known: source,',
    "probe: missing navigation layer bad_request": 'has 0 navigation layers, and "source" NAVIGATION reads',
    "probe: negative weight bad_request": "weight must be a finite number > 0",
    "probe: unknown graph unknown_graph": "no graph nowhere was loaded through this node (load it first",
    "probe: empty query bad_request": "the query has no graph",
    "probe: string endpoint bad_request": "from and to must be",
    "probe: the grid still answers with 8 points": None,
}


def test_bad_calls_say_why_and_keep_the_loaded_graph(godot: str, tmp_path: Path) -> None:
    output, errors = run_probe(godot, tmp_path, "errors", PROBE)
    assert_said(output, errors, EXPECTED)
    assert len(errors) == sum(error is not None for error in EXPECTED.values()), output


# The edits without waiting: bad input fails the request (completed in the frame's deferred
# calls, so a handler connected after the call hears it) with the synchronous call's push_error.
ASYNC_PROBE = """extends SceneTree

var _frame: int = 0
var _bridge: Node = null
var _requests: Dictionary = {}
var _heard: Array[String] = []


func _process(_delta: float) -> bool:
	_frame += 1
	if _frame == 1:
		_bridge = root.get_node(^"AStarBridge")
		var grid := AStarGrid2D.new()
		grid.region = Rect2i(0, 0, 8, 8)
		grid.update()
		_bridge.call("load_astar_grid_2d", "level", grid)
		var cells: Array[Vector2i] = [Vector2i(1, 1)]
		_requests["negative weight"] = _bridge.call("request_cells_weight", "level", cells, -1.0)
		_requests["unknown graph"] = _bridge.call("request_cells_solid", "nowhere", cells, true)
		_requests["unknown waypoints"] = _bridge.call("request_point_disabled", "nowhere", 3, true)
		for name: String in _requests:
			var request: Object = _requests[name]
			print("probe: %s done at once %s" % [name, request.call("is_done")])
			request.connect("completed", func(_result: RefCounted) -> void: _heard.append(name))
		return false
	for name: String in _requests:
		var request: Object = _requests[name]
		if not request.call("is_done"):
			return _frame > 600
	for name: String in _requests:
		var result: Object = _requests[name].get("result")
		var code: String = result.get("code")
		print("probe: %s %s heard %s" % [name, "ok" if code.is_empty() else code, name in _heard])
	var path: PackedVector2Array = _bridge.call("find_path", "level", Vector2i(0, 0), Vector2i(7, 7))
	print("probe: the grid still answers with %d points" % path.size())
	quit(0)
	return true
"""

ASYNC_EXPECTED = {
    "probe: negative weight done at once false": None,
    "probe: unknown graph done at once false": None,
    "probe: negative weight bad_request heard true": "weight must be a finite number > 0",
    "probe: unknown graph unknown_graph heard true": "no graph nowhere was loaded",
    "probe: unknown waypoints unknown_graph heard true": "no graph nowhere was loaded",
    "probe: the grid still answers with 8 points": None,
}


def test_bad_edits_without_waiting_fail_their_request_and_keep_the_graph(godot: str, tmp_path: Path) -> None:
    output, errors = run_probe(godot, tmp_path, "errors", ASYNC_PROBE)
    assert_said(output, errors, ASYNC_EXPECTED)
    assert len(errors) == 3, output


# An unreachable goal is an ordinary answer: no warning (and no backtrace) unless the
# astar_bridge/debug/report_no_path setting asks for a line; a failure still warns.
NO_PATH_PROBE = """extends SceneTree

var _done: bool = false


func _process(_delta: float) -> bool:
	if _done:
		return true
	_done = true
	var bridge: Node = root.get_node(^"AStarBridge")
	var grid := AStarGrid2D.new()
	grid.region = Rect2i(0, 0, 8, 8)
	grid.update()
	for y: int in 8:
		grid.set_point_solid(Vector2i(4, y))
	bridge.call("load_astar_grid_2d", "walled", grid)
	var quiet: PackedVector2Array = bridge.call("find_path", "walled", Vector2i(0, 0), Vector2i(7, 7))
	print("probe: quiet no path %d points" % quiet.size())
	ProjectSettings.set_setting("astar_bridge/debug/report_no_path", true)
	var loud: PackedVector2Array = bridge.call("find_path", "walled", Vector2i(0, 0), Vector2i(7, 7))
	print("probe: reported no path %d points" % loud.size())
	var failed: PackedVector2Array = bridge.call("find_path", "nowhere", Vector2i(0, 0), Vector2i(1, 1))
	print("probe: unknown graph %d points" % failed.size())
	# The cost is in world units (docs/api.md): three straight steps of 16 px cells cost 48.
	var tiles := AStarGrid2D.new()
	tiles.region = Rect2i(0, 0, 8, 8)
	tiles.cell_size = Vector2(16, 16)
	tiles.update()
	bridge.call("load_astar_grid_2d", "tiles", tiles)
	var answer: Dictionary = bridge.call("find_path_result", "tiles", Vector2i(0, 0), Vector2i(3, 0))
	print("probe: cost of three 16 px steps %s" % answer["cost"])
	quit(0)
	return true
"""


def test_no_path_is_quiet_unless_the_setting_asks(godot: str, tmp_path: Path) -> None:
    output, errors = run_probe(godot, tmp_path, "no path", NO_PATH_PROBE)
    lines = output.splitlines()
    # Prints keep their order; a warning goes to stderr, which may arrive anywhere.
    quiet = lines.index("probe: quiet no path 0 points")
    loud = lines.index("probe: reported no path 0 points")
    assert not any("no_path" in line for line in lines[:quiet]), output
    assert "AStarBridge: no_path on walled from (0, 0) to (7, 7)" in lines[quiet + 1 : loud], output
    assert "probe: unknown graph 0 points" in lines, output
    assert "probe: cost of three 16 px steps 48.0" in lines, output
    warned = [line for line in lines if "WARNING" in line]
    assert len(warned) == 1, output  # the failure's, not a no_path's
    assert "the path on nowhere from (0, 0) to (1, 1) failed (unknown_graph)" in warned[0], output
    assert not errors, output
