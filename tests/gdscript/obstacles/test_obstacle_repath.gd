## AStarBridgeObstacle2D on a grid, against a real sidecar (issue 40): an agent whose path an
## obstacle dropped on it crosses re-paths around it, an agent whose path it does not cross keeps
## its path (no new request); many obstacles moved in one frame leave as one message; an obstacle
## placed before its graph's load goes with the load, and one leaving the tree is removed.
## Beside it, Godot's own NavigationAgent2D with a NavigationObstacle2D on its path: printed.
extends "res://runner/gd_test.gd"

const Bridge = preload("res://addons/astar_bridge/astar_bridge.gd")
const AgentOccupancy = preload("res://addons/astar_bridge/runtime/agent_occupancy.gd")
const TestBridge = preload("res://tests/support/test_bridge.gd")
const GRID := "field"
const CELL := 10.0
# 30 x 11 open cells of 10 px; cell (x, y) spans [10x, 10x + 10] x [10y, 10y + 10].
const WIDTH := 30
const HEIGHT := 11
# A wall across rows 2 .. 8 at x 140 .. 160 (cells 14 and 15).
const WALL: PackedVector2Array = [
	Vector2(-10, -35), Vector2(10, -35), Vector2(10, 35), Vector2(-10, 35)
]

var _tree: SceneTree = Engine.get_main_loop() as SceneTree
var _bridge: Bridge = null
var _root: Node2D = null


func before_each() -> void:
	_bridge = TestBridge.made(PackedStringArray(["--threads", "1", "--log-level", "ERROR"]))
	_bridge.name = "AStarBridge"  # the nodes find it at /root/AStarBridge
	_bridge.config.load_timeout_ms = 120000  # a sidecar whose kernel cache is cold compiles first
	_tree.root.add_child(_bridge)
	_root = Node2D.new()
	_tree.root.add_child(_root)


func after_each() -> void:
	_root.free()
	AgentOccupancy.forget_grid(GRID)
	_bridge.stop()
	_bridge.free()


func test_an_agent_repaths_around_a_dropped_obstacle_and_another_keeps_its_path() -> void:
	_load_grid()
	var crossed: AStarBridgeAgent2D = _agent(Vector2(25, 55), Vector2(275, 55))
	var clear: AStarBridgeAgent2D = _agent(Vector2(25, 5), Vector2(275, 5))
	await _until(func() -> bool: return _has_path(crossed) and _has_path(clear))
	var before: PackedVector2Array = crossed.get_current_navigation_path()
	var kept: PackedVector2Array = clear.get_current_navigation_path()
	assert_true(
		_crosses(before, _wall_at(Vector2(150, 55))), "the first path runs where the wall goes"
	)
	var changes: Array[int] = [0, 0]
	crossed.path_changed.connect(func() -> void: changes[0] += 1)
	clear.path_changed.connect(func() -> void: changes[1] += 1)
	var wall: AStarBridgeObstacle2D = _obstacle(Vector2(150, 55))
	await _until(func() -> bool: return changes[0] > 0 and not crossed.is_path_pending())
	for _i: int in 10:
		await _tree.physics_frame
	var after: PackedVector2Array = crossed.get_current_navigation_path()
	assert_false(_crosses(after, wall.get_global_outline()), "the new path avoids it: %s" % after)
	assert_true(crossed.is_target_reachable(), "around the wall (rows 0, 1, 9, 10 are open)")
	assert_eq(changes[1], 0, "the agent whose path it does not cross asked nothing")
	assert_eq(clear.get_current_navigation_path(), kept)
	assert_eq(_obstacle_count(), 1)
	# Godot's own agent beside it: its obstacles only steer avoidance, the path goes through.
	var godot_path: PackedVector2Array = await _godot_agent_path()
	print(
		(
			"shown, not asserted: Godot's NavigationAgent2D path %s crosses its NavigationObstacle2D: %s"
			% [godot_path, _crosses(godot_path, _wall_at(Vector2(150, 55)))]
		)
	)


func test_many_obstacles_moved_in_a_frame_are_one_message() -> void:
	_load_grid()
	var walls: Array[AStarBridgeObstacle2D] = []
	for i: int in 40:
		walls.append(_obstacle(Vector2(5 + 7 * i, 5 + (i % 9) * 10), 0.0, 3.0))
	await _tree.process_frame
	await _tree.process_frame
	assert_eq(_obstacle_count(), 40, "the first frame placed them all")
	for frame: int in 5:
		var sent: int = _bridge.get_stats()["messages"]
		for wall: AStarBridgeObstacle2D in walls:
			wall.position += Vector2(0.5, 0.25)
			wall.rotation += 0.1
		await _tree.process_frame  # the frame's end sent them
		await _until(func() -> bool: return _bridge.get_stats()["pending"] == 0)
		assert_eq(_bridge.get_stats()["messages"] - sent, 1, "frame %d: one graph.update" % frame)
	# Moved every frame: at most one message a frame (fewer while an update is unanswered).
	var before: int = _bridge.get_stats()["messages"]
	for frame: int in 10:
		for wall: AStarBridgeObstacle2D in walls:
			wall.position.y += 0.5
		await _tree.process_frame
	for _i: int in 3:  # the last changes may wait for the answer before them
		await _until(func() -> bool: return _bridge.get_stats()["pending"] == 0)
		await _tree.process_frame
	var moved: int = _bridge.get_stats()["messages"] - before
	assert_true(moved >= 1 and moved <= 10, "%d messages for 10 frames of moves" % moved)
	var probe: AStarBridgeObstacle2D = walls[20]
	var row: float = probe.global_position.y
	var path: PackedVector2Array = _bridge.find_path(
		GRID, Vector2(probe.global_position.x - 20, row), Vector2(probe.global_position.x + 20, row)
	)
	assert_false(_crosses(path, probe.get_global_outline()), "its last position counts: %s" % path)
	await _tree.process_frame
	var quiet: int = _bridge.get_stats()["messages"]
	await _tree.process_frame
	assert_eq(_bridge.get_stats()["messages"], quiet, "a frame nothing moved in sends nothing")
	walls[0].queue_free()
	walls[1].queue_free()
	await _tree.process_frame
	await _tree.process_frame
	assert_eq(_obstacle_count(), 38, "two left the tree: removed")


func test_an_obstacle_placed_before_the_load_goes_with_it() -> void:
	var wall: AStarBridgeObstacle2D = _obstacle(Vector2(150, 55))
	await _tree.process_frame
	_load_grid()
	await _tree.process_frame
	await _tree.process_frame
	assert_eq(_obstacle_count(), 1)
	var path: PackedVector2Array = _bridge.find_path(GRID, Vector2(25, 55), Vector2(275, 55))
	assert_true(path.size() > 2, "a path around it: %s" % path)
	assert_false(_crosses(path, wall.get_global_outline()))
	_load_grid()  # a fresh load starts without obstacles: the wanted one is sent again
	await _tree.process_frame
	await _tree.process_frame
	assert_eq(_obstacle_count(), 1)


func test_kept_obstacles_stay_bounded_and_come_back_after_a_restart() -> void:
	_bridge.config.report_failures = false  # updates in flight at the kill fail: expected
	_load_grid()
	var walls: Array[AStarBridgeObstacle2D] = []
	for i: int in 20:
		walls.append(_obstacle(Vector2(20 + 12 * i, 20), 0.0, 3.0))
	var wall: AStarBridgeObstacle2D = _obstacle(Vector2(150, 55))
	for frame: int in 30:
		for moved: AStarBridgeObstacle2D in walls:
			moved.position.y = 20 + frame % 5
		await _tree.process_frame
	await _tree.process_frame
	await _tree.process_frame
	assert_eq(_bridge.get_graph_state_size(GRID), 21, "one entry per obstacle, not per update")
	OS.execute("kill", PackedStringArray(["-9", str(_bridge.get_sidecar_pid())]))
	await _until(func() -> bool: return _bridge.get_stats()["restarts"] > 0 and _bridge.is_ready())
	assert_eq(_obstacle_count(), 21, "every obstacle is back")
	var path: PackedVector2Array = _bridge.find_path(GRID, Vector2(25, 55), Vector2(275, 55))
	assert_false(_crosses(path, wall.get_global_outline()), "around the wall again: %s" % path)


func _load_grid() -> void:
	var cells: PackedByteArray = PackedByteArray()
	cells.resize(WIDTH * HEIGHT)
	cells.fill(1)
	var extra: Dictionary = {"cell_size": [CELL, CELL], "origin": [CELL / 2, CELL / 2]}
	var loaded: AStarBridgeResult = _bridge.load_grid(
		GRID, WIDTH, HEIGHT, cells, AStarGrid2D.DIAGONAL_MODE_ONLY_IF_NO_OBSTACLES, extra
	)
	assert_true(loaded.is_ok(), "grid loaded: %s" % loaded.message)


func _agent(from: Vector2, to: Vector2) -> AStarBridgeAgent2D:
	var body := Node2D.new()
	body.position = from
	_root.add_child(body)
	var agent := AStarBridgeAgent2D.new()
	agent.graph_id = GRID
	body.add_child(agent)
	agent.target_position = to
	return agent


func _obstacle(at: Vector2, turn: float = 0.0, half: float = 0.0) -> AStarBridgeObstacle2D:
	var wall := AStarBridgeObstacle2D.new()
	wall.graph_id = GRID
	if half > 0.0:
		wall.radius = half
	else:
		wall.vertices = WALL
	wall.position = at
	wall.rotation = turn
	_root.add_child(wall)
	return wall


func _wall_at(at: Vector2) -> PackedVector2Array:
	return Transform2D(0.0, at) * WALL


func _obstacle_count() -> int:
	var info: AStarBridgeResult = _bridge.call_method("graph.info", {"id": GRID})
	assert_true(info.is_ok(), "graph.info: %s" % info.message)
	var value: Dictionary = info.value if info.value is Dictionary else {}
	return value.get("obstacles", -1)


static func _has_path(agent: AStarBridgeAgent2D) -> bool:
	return not agent.get_current_navigation_path().is_empty() and not agent.is_path_pending()


# True when the polyline runs inside the polygon (its boundary shrunk by a hair: touching is
# allowed, as the sidecar's cells are).
static func _crosses(line: PackedVector2Array, polygon: PackedVector2Array) -> bool:
	var inner: Array[PackedVector2Array] = Geometry2D.offset_polygon(polygon, -0.01)
	for piece: PackedVector2Array in inner:
		if not Geometry2D.intersect_polyline_with_polygon(line, piece).is_empty():
			return true
	return false


func _until(condition: Callable, frames: int = 1200) -> void:
	for _i: int in frames:
		if condition.call():
			return
		await _tree.physics_frame
	fail("condition not met after %d frames" % frames)


# Godot's NavigationAgent2D on the same open field with a NavigationObstacle2D where the wall is.
func _godot_agent_path() -> PackedVector2Array:
	var polygon := NavigationPolygon.new()
	polygon.vertices = PackedVector2Array(
		[Vector2(0, 0), Vector2(300, 0), Vector2(300, 110), Vector2(0, 110)]
	)
	polygon.add_polygon(PackedInt32Array([0, 1, 2, 3]))
	var region := NavigationRegion2D.new()
	region.navigation_polygon = polygon
	_root.add_child(region)
	var obstacle := NavigationObstacle2D.new()
	obstacle.position = Vector2(150, 55)
	obstacle.vertices = WALL
	obstacle.avoidance_enabled = true
	_root.add_child(obstacle)
	var body := Node2D.new()
	body.position = Vector2(25, 55)
	_root.add_child(body)
	var agent := NavigationAgent2D.new()
	body.add_child(agent)
	for _i: int in 3:
		await _tree.physics_frame  # the map syncs its region
	agent.target_position = Vector2(275, 55)
	agent.get_next_path_position()
	return agent.get_current_navigation_path()
