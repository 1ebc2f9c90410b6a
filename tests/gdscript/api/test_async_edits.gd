## Graph edits without waiting (request_cells_solid, request_cells_weight, request_point_disabled,
## request_update) against a real sidecar: the path goes around once the edit completed; within one
## frame, edits and path requests take effect in the order they were made; graph_updated and
## graph_update_applied come as with the synchronous edits, before the request completes (an agent
## hears it and goes around); the edit is kept for a restart; an edit the sidecar refuses changes
## nothing.
extends "res://runner/gd_test.gd"

const AStarBridgeNode = preload("res://addons/astar_bridge/astar_bridge.gd")
const BridgeResult = preload("res://addons/astar_bridge/api/bridge_result.gd")
const EditRequest = preload("res://addons/astar_bridge/api/edit_request.gd")
const PathRequest = preload("res://addons/astar_bridge/api/path_request.gd")
const PathResult = preload("res://addons/astar_bridge/api/path_result.gd")
const TestBridge = preload("res://tests/support/test_bridge.gd")

# The wall at x = 8 of the test grid has two openings: NEAR on the straight line from FROM to TO,
# FAR below it.
const NEAR := Vector2i(8, 5)
const FAR := Vector2i(8, 10)
const FROM := Vector2i(4, 5)
const TO := Vector2i(12, 5)

var _bridge: AStarBridgeNode = null


func before_each() -> void:
	_bridge = TestBridge.made(PackedStringArray(["--threads", "1", "--log-level", "ERROR"]))
	_tree().root.add_child(_bridge)


func after_each() -> void:
	_bridge.stop()
	_bridge.free()


func test_a_requested_wall_makes_the_path_go_around_once_it_completed() -> void:
	_load_grid()
	var straight: PackedVector2Array = _bridge.find_path("level", FROM, TO)
	assert_true(_passes(straight, NEAR), "through the near opening at first")
	var edit: EditRequest = _bridge.request_cells_solid("level", [NEAR], true)
	assert_false(edit.is_done(), "the call does not wait for the sidecar")
	var result: BridgeResult = await edit.wait()
	assert_true(result.is_ok(), str(result))
	var around: PackedVector2Array = _bridge.find_path("level", FROM, TO)
	assert_true(_passes(around, FAR), "around, through the far opening")
	assert_false(_passes(around, NEAR))
	var weighted: EditRequest = _bridge.request_cells_weight("level", [FAR], 50.0)
	assert_true((await weighted.wait()).is_ok())
	var open: EditRequest = _bridge.request_cells_solid("level", [NEAR], false)
	assert_true((await open.wait()).is_ok())
	assert_true(_passes(_bridge.find_path("level", FROM, TO), NEAR), "open again")


func test_edits_and_path_requests_of_one_frame_take_effect_in_order() -> void:
	_load_grid()
	var before: PathRequest = _bridge.request_path("level", FROM, TO)
	var wall: EditRequest = _bridge.request_cells_solid("level", [NEAR], true)
	var after: PathRequest = _bridge.request_path("level", FROM, TO)
	var opened: EditRequest = _bridge.request_cells_solid("level", [NEAR], false)
	var last: PathRequest = _bridge.request_path("level", FROM, TO)
	var first: PathResult = await before.wait()
	assert_true(_passes(first.path, NEAR), "asked before the wall: straight through")
	assert_true((await wall.wait()).is_ok())
	var second: PathResult = await after.wait()
	assert_eq(second.status, PathResult.Status.FOUND)
	assert_true(_passes(second.path, FAR), "asked after the wall: around it")
	assert_false(_passes(second.path, NEAR))
	assert_true((await opened.wait()).is_ok())
	var third: PathResult = await last.wait()
	assert_true(_passes(third.path, NEAR), "asked after the opening: straight again")


func test_graph_updated_and_applied_come_before_the_request_completes() -> void:
	var grid: AStarGrid2D = _load_grid()
	var events: Array = []
	_bridge.graph_updated.connect(
		func(id: String, cells: Array[Vector2i]) -> void: events.append(["updated", id, cells])
	)
	_bridge.graph_update_applied.connect(
		func(id: String, update: Dictionary) -> void:
			events.append(["applied", id, update.has("cells")])
	)
	var edit: EditRequest = _bridge.request_cells_solid("level", [NEAR], true)
	edit.completed.connect(func(_result: RefCounted) -> void: events.append(["completed"]))
	assert_eq(events.size(), 0, "nothing before the answer")
	await edit.wait()
	var local: Array[Vector2i] = [NEAR - grid.region.position]
	assert_eq(events, [["updated", "level", local], ["applied", "level", true], ["completed"]])
	var agents: Array = [{"op": "place", "agent": 1, "cell": [1, 1]}]
	var moved: EditRequest = _bridge.request_update("level", {"agents": agents})
	assert_true((await moved.wait()).is_ok())
	assert_eq(events.size(), 3, "agents alone do not change the ground")


func test_a_completed_edit_survives_a_restart_and_a_refused_one_changes_nothing() -> void:
	_load_grid()
	var size_before: int = _bridge.get_graph_state_size("level")
	_bridge.config.report_failures = false  # the refused edit is expected
	var bad: PackedInt32Array = PackedInt32Array([999, 999])
	var refused: EditRequest = _bridge.request_update(
		"level", {"cells": bad.to_byte_array(), "walkable": false}
	)
	var failure: BridgeResult = await refused.wait()
	assert_true(failure.is_error(), "a cell outside the grid is refused")
	assert_eq(_bridge.get_graph_state_size("level"), size_before, "nothing kept of it")
	_bridge.config.report_failures = true
	var edit: EditRequest = _bridge.request_cells_solid("level", [NEAR], true)
	assert_true((await edit.wait()).is_ok())
	assert_true(_bridge.get_graph_state_size("level") > size_before, "the edit is kept")
	OS.execute("kill", PackedStringArray(["-9", str(_bridge.get_sidecar_pid())]))
	var deadline: int = Time.get_ticks_msec() + 30000
	while _bridge.get_stats()["restarts"] == 0 and Time.get_ticks_msec() < deadline:
		await _tree().process_frame
	while not _bridge.is_ready() and Time.get_ticks_msec() < deadline:
		await _tree().process_frame
	assert_true(_bridge.is_ready(), "ready again")
	var around: PackedVector2Array = _bridge.find_path("level", FROM, TO)
	assert_true(_passes(around, FAR), "the wall is still there after the restart")


func test_a_requested_disabled_point_is_avoided() -> void:
	var astar := AStar2D.new()
	astar.add_point(1, Vector2(0, 0))
	astar.add_point(2, Vector2(10, 0))
	astar.add_point(3, Vector2(5, 5))
	astar.add_point(4, Vector2(20, 0))
	astar.connect_points(1, 2)
	astar.connect_points(2, 4)
	astar.connect_points(1, 3)
	astar.connect_points(3, 4)
	assert_true(_bridge.load_astar_2d("roads", astar).is_ok())
	var edit: EditRequest = _bridge.request_point_disabled("roads", 2)
	var path: PathRequest = _bridge.request_path("roads", 1, 4)
	assert_true((await edit.wait()).is_ok())
	var result: PathResult = await path.wait()
	assert_eq(result.ids, PackedInt64Array([1, 3, 4]), "around the point disabled just before")


func test_an_agent_repaths_around_a_requested_wall() -> void:
	_load_grid()
	var holder := Node2D.new()
	holder.position = Vector2(FROM * 16)
	var agent := AStarBridgeAgent2D.new()
	agent.graph_id = "level"
	agent.bridge = _bridge
	holder.add_child(agent)
	_tree().root.add_child(holder)
	agent.target_position = Vector2(TO * 16)
	await _settle(agent)
	assert_true(_passes(agent.get_current_navigation_path(), NEAR), "straight through at first")
	var edit: EditRequest = _bridge.request_cells_solid("level", [NEAR], true)
	assert_true((await edit.wait()).is_ok())
	await _settle(agent)
	var path: PackedVector2Array = agent.get_current_navigation_path()
	assert_true(_passes(path, FAR), "the agent heard graph_updated and went around: %s" % path)
	assert_false(_passes(path, NEAR))
	holder.free()


# Physics frames until the agent holds a path and asks for none.
func _settle(agent: AStarBridgeAgent2D) -> void:
	var deadline: int = Time.get_ticks_msec() + 20000
	await _tree().physics_frame
	while Time.get_ticks_msec() < deadline:
		await _tree().physics_frame
		if not agent.is_path_pending() and not agent.get_current_navigation_path().is_empty():
			return


# A 16 x 12 AStarGrid2D whose region starts at (2, 1), cells 16 px, with a wall at x = 8 open at
# NEAR and FAR.
func _load_grid() -> AStarGrid2D:
	var grid := AStarGrid2D.new()
	grid.region = Rect2i(2, 1, 16, 12)
	grid.cell_size = Vector2(16, 16)
	grid.diagonal_mode = AStarGrid2D.DIAGONAL_MODE_ONLY_IF_NO_OBSTACLES
	grid.update()
	for y: int in range(1, 13):
		if y != NEAR.y and y != FAR.y:
			grid.set_point_solid(Vector2i(8, y))
	assert_true(_bridge.load_astar_grid_2d("level", grid).is_ok())
	return grid


# True when [param path] (world positions of 16 px cells) passes through engine cell [param cell].
static func _passes(path: PackedVector2Array, cell: Vector2i) -> bool:
	for point: Vector2 in path:
		if Vector2i((point / 16.0).floor()) == cell:
			return true
	return false


func _tree() -> SceneTree:
	return Engine.get_main_loop() as SceneTree
