## The autoload with autostart off, connecting to a sidecar someone else runs. Under pytest
## (tests/addon/test_addon_sidecar.py) the sidecar, its host/port/token (ASTAR_BRIDGE_HOST,
## ASTAR_BRIDGE_PORT, ASTAR_BRIDGE_TOKEN) and a case file of python_core's answers
## (ASTAR_BRIDGE_CASE) come from the environment, and the paths must match python_core exactly;
## alone, the test launches its own sidecar by hand and checks costs against AStarGrid2D.
extends "res://runner/gd_test.gd"

const AStarBridgeNode = preload("res://addons/astar_bridge/astar_bridge.gd")
const SidecarProcess = preload("res://addons/astar_bridge/rpc/sidecar_process.gd")

var _bridge: AStarBridgeNode = null
var _own_sidecar: SidecarProcess = null
var _endpoint: Dictionary = {}


func before_each() -> void:
	_endpoint = _external_endpoint()
	if _endpoint.is_empty():
		_endpoint = _launch_own_sidecar()
	_bridge = _make_bridge(str(_endpoint.get("token", "")))


func after_each() -> void:
	_bridge.stop()
	_bridge.free()
	if _own_sidecar != null:
		_own_sidecar.stop()


func test_external_connects_with_the_token_and_loads() -> void:
	assert_false(_endpoint.is_empty(), "a sidecar to talk to")
	var case: Dictionary = _case()
	var result: AStarBridgeResult = _load(case)
	assert_true(result.is_ok(), str(result))
	assert_true(_bridge.is_ready())
	assert_eq(_bridge.get_sidecar_pid(), -1, "autostart off: no process of its own")


func test_external_wrong_token_is_refused() -> void:
	var intruder: AStarBridgeNode = _make_bridge("not the token")
	intruder.config.report_failures = false
	intruder.config.auto_restart = false
	var result: AStarBridgeResult = intruder.call_method("graph.list", {})
	assert_eq(result.code, "not_connected")
	assert_true(intruder.get_last_error().contains("hello refused"), intruder.get_last_error())
	intruder.stop()
	intruder.free()


func test_external_paths_match_the_expectations() -> void:
	var case: Dictionary = _case()
	assert_true(_load(case).is_ok())
	_bridge.config.report_failures = false  # some goals are walled off: no_path is expected there
	var queries: Array = case["queries"]
	assert_true(queries.size() > 0)
	for item: Variant in queries:
		var query: Dictionary = item
		var start: Vector2 = _vector(query["start"])
		var goal: Vector2 = _vector(query["goal"])
		var result: Dictionary = _bridge.find_path_result("level", start, goal)
		var label: String = "%s -> %s" % [start, goal]
		assert_eq(result["status"], query["status"], label)
		if query.has("cost"):
			var cost: float = result["cost"]
			var expected_cost: float = query["cost"]
			assert_almost(cost, expected_cost, 1e-4, label)
		if query.has("points"):
			var expected: PackedVector2Array = PackedVector2Array()
			for point: Variant in query["points"]:
				expected.append(_vector(point))
			assert_eq(result["points"], expected, label)


func test_external_export_writes_the_graph_file() -> void:
	var target: String = OS.get_environment("ASTAR_BRIDGE_EXPORT")
	if target.is_empty():
		target = OS.get_cache_dir().path_join("astar_bridge_external_export.graph")
	assert_true(_load(_case()).is_ok())
	assert_eq(_bridge.export_graph("level", target), OK)
	assert_true(FileAccess.file_exists(target))
	if OS.get_environment("ASTAR_BRIDGE_EXPORT").is_empty():
		DirAccess.remove_absolute(target)


func _make_bridge(token: String) -> AStarBridgeNode:
	var bridge: AStarBridgeNode = AStarBridgeNode.new()
	bridge.config.autostart = false
	bridge.config.host = str(_endpoint.get("host", "127.0.0.1"))
	var port: float = _endpoint.get("port", 0.0)
	bridge.config.port = int(port)
	bridge.config.token = token
	bridge.config.connect_timeout_ms = 20000
	bridge.config.request_timeout_ms = 10000
	(Engine.get_main_loop() as SceneTree).root.add_child(bridge)
	bridge.start()
	return bridge


func _external_endpoint() -> Dictionary:
	var port: String = OS.get_environment("ASTAR_BRIDGE_PORT")
	if port.is_empty():
		return {}
	return {
		"host": OS.get_environment("ASTAR_BRIDGE_HOST"),
		"port": float(port.to_int()),
		"token": OS.get_environment("ASTAR_BRIDGE_TOKEN"),
	}


func _launch_own_sidecar() -> Dictionary:
	var python: String = OS.get_environment("ASTAR_BRIDGE_PYTHON")
	if python.is_empty():
		python = ProjectSettings.globalize_path("res://").path_join("../../.venv/bin/python")
	_own_sidecar = SidecarProcess.new()
	var args: PackedStringArray = PackedStringArray(
		["-m", "bridge", "serve", "--threads", "1", "--log-level", "ERROR"]
	)
	if _own_sidecar.launch(python.simplify_path(), args) != OK:
		return {}
	var deadline: int = Time.get_ticks_msec() + 20000
	while Time.get_ticks_msec() < deadline:
		var announcement: Dictionary = _own_sidecar.poll()
		if not announcement.is_empty() or not _own_sidecar.error.is_empty():
			var found: Dictionary = announcement.duplicate()
			var port: int = found.get("port", 0)
			found["port"] = float(port)
			return found
		OS.delay_msec(5)
	return {}


# The case of pytest (ASTAR_BRIDGE_CASE) or a built-in one checked against AStarGrid2D costs.
func _case() -> Dictionary:
	var path: String = OS.get_environment("ASTAR_BRIDGE_CASE")
	if not path.is_empty():
		var parsed: Variant = JSON.parse_string(FileAccess.get_file_as_string(path))
		var loaded: Dictionary = parsed if parsed is Dictionary else {}
		return loaded
	var rows: PackedStringArray = PackedStringArray(
		["........", ".####...", "....#...", "..#.#.#.", "..#...#."]
	)
	var oracle: AStarGrid2D = AStarGrid2D.new()
	oracle.region = Rect2i(0, 0, rows[0].length(), rows.size())
	oracle.diagonal_mode = AStarGrid2D.DIAGONAL_MODE_ONLY_IF_NO_OBSTACLES
	oracle.update()
	for y: int in rows.size():
		for x: int in rows[y].length():
			oracle.set_point_solid(Vector2i(x, y), rows[y][x] == "#")
	var queries: Array = []
	for goal: Vector2i in [Vector2i(7, 4), Vector2i(3, 4), Vector2i(5, 2)]:
		var points: PackedVector2Array = oracle.get_point_path(Vector2i(0, 0), goal)
		var cost: float = 0.0
		for i: int in range(1, points.size()):
			cost += points[i - 1].distance_to(points[i])
		queries.append({"start": [0, 0], "goal": [goal.x, goal.y], "status": "found", "cost": cost})
	return {"rows": Array(rows), "diagonal": "only_if_no_obstacles", "queries": queries}


func _load(case: Dictionary) -> AStarBridgeResult:
	var rows: Array = case["rows"]
	var first: String = rows[0]
	var cells: PackedByteArray = PackedByteArray()
	for row: Variant in rows:
		var text: String = row
		for x: int in text.length():
			cells.append(0 if text[x] == "#" else 1)
	# The case's diagonal is the wire's name: the wire load, as a power user would send it.
	var params: Dictionary = {
		"id": "level",
		"width": first.length(),
		"height": rows.size(),
		"cells": cells,
		"diagonal": case["diagonal"],
	}
	return _bridge.load_graph("graph.load_grid", params)


func _vector(value: Variant) -> Vector2:
	var pair: Array = value
	var x: float = pair[0]
	var y: float = pair[1]
	return Vector2(x, y)
