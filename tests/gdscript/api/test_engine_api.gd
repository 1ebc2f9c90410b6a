## The autoload in the engine's terms against a real sidecar: AStarGrid2D / AStar2D / navigation
## region sources, cell edits as Vector2i, typed queries and results, and request.wait() that is
## safe whether or not the request already finished. Paths are checked against Godot's own
## AStarGrid2D and AStar2D on the same data.
extends "res://runner/gd_test.gd"

const AStarBridgeNode = preload("res://addons/astar_bridge/astar_bridge.gd")
const PathQuery = preload("res://addons/astar_bridge/api/path_query.gd")
const PathResult = preload("res://addons/astar_bridge/api/path_result.gd")
const PathRequest = preload("res://addons/astar_bridge/api/path_request.gd")
const TestBridge = preload("res://tests/support/test_bridge.gd")

var _bridge: AStarBridgeNode = null


func before_each() -> void:
	_bridge = TestBridge.made(PackedStringArray(["--threads", "1", "--log-level", "ERROR"]))
	_tree().root.add_child(_bridge)


func after_each() -> void:
	_bridge.stop()
	_bridge.free()


func test_waiting_on_a_request_that_already_finished_returns_its_result() -> void:
	_load_grid()
	var request: PathRequest = _bridge.request_path("level", Vector2i(2, 3), Vector2i(9, 3))
	var deadline: int = Time.get_ticks_msec() + 20000
	while not request.is_done() and Time.get_ticks_msec() < deadline:
		await _tree().process_frame
	assert_true(request.is_done(), "the request finished before anyone waited")
	# `await request.completed` would wait forever here: the signal fired already.
	var result: PathResult = await request.wait()
	assert_eq(result.status, PathResult.Status.FOUND)
	assert_true(result.path.size() > 1)


func test_many_requests_then_wait_for_each_in_turn() -> void:
	_load_grid()
	var requests: Array[PathRequest] = []
	for i: int in 40:
		requests.append(_bridge.request_path("level", Vector2i(2, 3 + i % 6), Vector2i(13, 3)))
	# Some finish while we wait for the first ones: each wait() still returns.
	for request: PathRequest in requests:
		var result: PathResult = await request.wait()
		assert_eq(result.status, PathResult.Status.FOUND)


func test_astar_grid_cells_are_the_engines_and_paths_match_godot() -> void:
	var grid: AStarGrid2D = _load_grid()
	var from := Vector2i(2, 3)
	var to := Vector2i(13, 8)
	var path: PackedVector2Array = _bridge.find_path("level", from, to)
	var expected: PackedVector2Array = grid.get_point_path(from, to)
	assert_eq(path[0], grid.get_point_position(from), "a Vector2i names the grid's own cell")
	assert_eq(path[path.size() - 1], grid.get_point_position(to))
	assert_almost(_length(path), _length(expected), 1e-3, "cost as AStarGrid2D's")


func test_set_cells_solid_changes_the_path_and_says_which_cells() -> void:
	var grid: AStarGrid2D = _load_grid()
	var seen: Array = []
	_bridge.graph_updated.connect(
		func(id: String, cells: Array[Vector2i]) -> void: seen.append([id, cells])
	)
	var gap := Vector2i(8, 9)  # the one opening in the wall at x = 8
	var before: PackedVector2Array = _bridge.find_path("level", Vector2i(4, 5), Vector2i(12, 5))
	assert_true(before.size() > 0)
	assert_true(_bridge.set_cells_solid("level", [gap], true).is_ok())
	_bridge.config.report_failures = false  # no path is the expected answer now
	var query := PathQuery.new()
	query.graph = "level"
	query.from = Vector2i(4, 5)
	query.to = Vector2i(12, 5)
	var result := PathResult.new()
	_bridge.query_path(query, result)
	assert_eq(result.status, PathResult.Status.NO_PATH, "the wall is closed")
	assert_eq(seen.size(), 1)
	var changed: Array[Vector2i] = seen[0][1]
	assert_eq(changed, [gap - grid.region.position] as Array[Vector2i], "the grid's own cell")
	query.allow_partial = true
	_bridge.query_path(query, result)
	assert_eq(result.status, PathResult.Status.PARTIAL)
	assert_true(_bridge.set_cells_solid("level", [gap], false).is_ok())
	_bridge.query_path(query, result)
	assert_eq(result.status, PathResult.Status.FOUND, "open again")


func test_set_cells_weight_makes_the_path_go_around() -> void:
	_load_grid()
	var straight: PackedVector2Array = _bridge.find_path("level", Vector2i(2, 1), Vector2i(7, 1))
	var mud: Array[Vector2i] = [Vector2i(4, 1), Vector2i(5, 1)]
	assert_true(_bridge.set_cells_weight("level", mud, 20.0).is_ok())
	var around: PackedVector2Array = _bridge.find_path("level", Vector2i(2, 1), Vector2i(7, 1))
	assert_true(_length(around) > _length(straight), "the mud is avoided")


func test_astar_2d_and_set_point_disabled_match_godot() -> void:
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
	var result: Dictionary = _bridge.find_path_ids("roads", 1, 4)
	assert_eq(result["ids"], PackedInt64Array(astar.get_id_path(1, 4)))
	assert_true(_bridge.set_point_disabled("roads", 2).is_ok())
	astar.set_point_disabled(2)
	result = _bridge.find_path_ids("roads", 1, 4)
	assert_eq(result["ids"], PackedInt64Array(astar.get_id_path(1, 4)), "around the disabled point")


func test_two_navigation_regions_load_as_one_map() -> void:
	var left := _region(Rect2(0, 0, 10, 10))
	var right := _region(Rect2(10, 0, 10, 10))
	var regions: Array[Node] = [left, right]
	assert_true(_bridge.load_navigation_region("floor", regions).is_ok())
	var path: PackedVector2Array = _bridge.find_path("floor", Vector2(1, 5), Vector2(19, 5))
	assert_true(path.size() >= 2, "a path crosses from one region into the other")
	assert_almost(_length(path), 18.0, 1e-3)
	left.free()
	right.free()


func test_a_scene_of_regions_and_a_one_way_link_loads_as_one_map() -> void:
	var root := Node2D.new()
	root.add_child(_region(Rect2(0, 0, 10, 10)))
	root.add_child(_region(Rect2(30, 0, 10, 10)))  # apart: only the link joins them
	var link := NavigationLink2D.new()
	link.start_position = Vector2(8, 5)
	link.end_position = Vector2(32, 5)
	link.bidirectional = false
	root.add_child(link)
	assert_true(_bridge.load_navigation_scene("rooms", root).is_ok())
	var there: PackedVector2Array = _bridge.find_path("rooms", Vector2(1, 5), Vector2(39, 5))
	assert_true(there.size() >= 2, "over the link")
	assert_almost(there[there.size() - 1].x, 39.0, 1e-3)
	_bridge.config.report_failures = false  # no way back is the expected answer
	var back: Dictionary = _bridge.find_path_result("rooms", Vector2(39, 5), Vector2(1, 5))
	assert_eq(back["status"], "no_path", "the link is one-way")
	root.free()


# A 16 x 12 AStarGrid2D whose region starts at (2, 1), cells 16 px, with a wall at x = 8 that has
# one opening at y = 9.
func _load_grid() -> AStarGrid2D:
	var grid := AStarGrid2D.new()
	grid.region = Rect2i(2, 1, 16, 12)
	grid.cell_size = Vector2(16, 16)
	grid.diagonal_mode = AStarGrid2D.DIAGONAL_MODE_ONLY_IF_NO_OBSTACLES
	grid.update()
	for y: int in range(1, 13):
		if y != 9:
			grid.set_point_solid(Vector2i(8, y))
	assert_true(_bridge.load_astar_grid_2d("level", grid).is_ok())
	return grid


func _region(rect: Rect2) -> NavigationRegion2D:
	var polygon := NavigationPolygon.new()
	polygon.vertices = PackedVector2Array(
		[
			rect.position,
			rect.position + Vector2(rect.size.x, 0),
			rect.end,
			rect.position + Vector2(0, rect.size.y)
		]
	)
	polygon.add_polygon(PackedInt32Array([0, 1, 2, 3]))
	var region := NavigationRegion2D.new()
	region.navigation_polygon = polygon
	return region


func _length(path: PackedVector2Array) -> float:
	var total: float = 0.0
	for i: int in range(1, path.size()):
		total += path[i - 1].distance_to(path[i])
	return total


func _tree() -> SceneTree:
	return Engine.get_main_loop() as SceneTree
