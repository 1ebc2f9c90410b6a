## The AStarBridge autoload against a real sidecar it launches itself (python from
## ASTAR_BRIDGE_PYTHON, else the repository's .venv): upload, sync and async paths compared with
## Godot's own AStarGrid2D, errors as data, updates, export, and a killed sidecar: pending
## requests fail with status "error" at once, the sidecar restarts, graphs are re-uploaded.
extends "res://runner/gd_test.gd"

const AStarBridgeNode = preload("res://addons/astar_bridge/astar_bridge.gd")
const MsgpackDecoder = preload("res://addons/astar_bridge/msgpack/msgpack_decoder.gd")
const TestBridge = preload("res://tests/support/test_bridge.gd")
const WIDTH := 12
const HEIGHT := 9
# Connect/close cycles whose INFO log lines (about 140 bytes each) overfill a 64 KiB pipe.
const CHATTY_CYCLES := 800

var _bridge: AStarBridgeNode = null


func before_each() -> void:
	_bridge = TestBridge.made(PackedStringArray(["--threads", "1", "--log-level", "ERROR"]))
	_tree().root.add_child(_bridge)


func after_each() -> void:
	_bridge.stop()
	_bridge.free()


func test_starts_says_hello_and_is_ready() -> void:
	_load_level()
	assert_true(_bridge.is_ready())
	assert_true(_bridge.get_sidecar_pid() > 0)


func test_sync_find_path_matches_godot_astar_grid_cost() -> void:
	_load_level()
	var oracle: AStarGrid2D = _oracle()
	for goal: Vector2i in [Vector2i(11, 8), Vector2i(11, 0), Vector2i(0, 8), Vector2i(6, 7)]:
		var path: PackedVector2Array = _bridge.find_path("level", Vector2(0, 0), Vector2(goal))
		var expected: PackedVector2Array = oracle.get_point_path(Vector2i(0, 0), goal)
		assert_almost(_length(path), _length(expected), 1e-4, "cost to %s" % goal)
		assert_eq(path[0], Vector2(0, 0))
		assert_eq(path[path.size() - 1], Vector2(goal))
		_assert_walkable(path)


func test_result_map_has_status_cost_ids_and_expansions() -> void:
	_load_level()
	var result: Dictionary = _bridge.find_path_result("level", Vector2i(0, 0), Vector2i(3, 0))
	assert_eq(result["status"], "found")
	var cost: float = result["cost"]
	assert_almost(cost, 3.0)
	var ids: PackedInt64Array = result["ids"]
	assert_eq(ids, PackedInt64Array([0, 1, 2, 3]))
	var expanded: int = result["expanded"]
	assert_true(expanded > 0)
	assert_eq(result["error"], {})


func test_no_path_and_errors_are_data_not_exceptions() -> void:
	_bridge.config.report_failures = false
	_load_level()
	var walled: Dictionary = _bridge.find_path_result("level", Vector2i(0, 0), Vector2i(6, 0))
	assert_eq(walled["status"], "no_path", "(6, 0) is walled in")
	assert_eq(walled["points"], PackedVector2Array())
	var unknown: Dictionary = _bridge.find_path_result("nope", Vector2i(0, 0), Vector2i(1, 0))
	assert_eq(unknown["status"], "error")
	assert_eq(unknown["error"]["code"], "unknown_graph")
	var empty: PackedVector2Array = _bridge.find_path("nope", Vector2(0, 0), Vector2(1, 0))
	assert_eq(empty, PackedVector2Array())


func test_failed_load_keeps_the_previous_graph() -> void:
	_bridge.config.report_failures = false
	_load_level()
	var bad: AStarBridgeResult = _bridge.load_grid("level", 4, 4, PackedByteArray([1, 1]))
	assert_false(bad.is_ok())
	assert_ne(bad.code, "")
	var path: PackedVector2Array = _bridge.find_path("level", Vector2(0, 0), Vector2(11, 8))
	assert_true(path.size() > 0, "the 12x9 level still answers")


func test_request_path_many_in_one_frame() -> void:
	_load_level()
	var requests: Array[AStarBridgePathRequest] = []
	for i: int in 60:
		var goal: Vector2 = Vector2(11, i % HEIGHT)
		requests.append(_bridge.request_path("level", Vector2(0, 0), goal))
	var results: Array = await _await_all(requests)
	assert_eq(results.size(), 60)
	for i: int in results.size():
		var result: Dictionary = results[i]
		assert_eq(result["status"], "found", "request %d" % i)
		var points: PackedVector2Array = result["points"]
		assert_eq(points[points.size() - 1], Vector2(11, i % HEIGHT))
	var stats: Dictionary = _bridge.get_stats()
	var requests_done: int = stats["requests"]
	var p99: float = stats["latency_ms_p99"]
	var p50: float = stats["latency_ms_p50"]
	assert_true(requests_done >= 60)
	assert_eq(stats["failures"], 0)
	assert_true(p99 >= p50)


func test_more_requests_than_the_in_flight_window_all_complete() -> void:
	_load_level()
	_bridge.config.max_in_flight = 8
	var requests: Array[AStarBridgePathRequest] = []
	for i: int in 300:  # past the sidecar's 256 pending requests per connection
		requests.append(_bridge.request_path("level", Vector2(0, 0), Vector2(11, 8)))
	var results: Array = await _await_all(requests)
	for result: Dictionary in results:
		assert_eq(result["status"], "found")
	assert_eq(_bridge.get_stats()["failures"], 0)


func test_request_path_before_ready_waits_for_the_sidecar() -> void:
	# Nothing loaded yet and the sidecar still starting: the request is queued, then answered.
	var request: AStarBridgePathRequest = _bridge.request_path("nope", Vector2(0, 0), Vector2(1, 1))
	var result: Dictionary = await request.completed
	assert_eq(result["status"], "error")
	assert_eq(result["error"]["code"], "unknown_graph", "it reached the sidecar")


func test_request_paths_batch() -> void:
	_load_level()
	var queries: Array[Dictionary] = [
		{"graph": "level", "from": Vector2i(0, 0), "to": Vector2i(11, 8)},
		{"graph": "level", "from": Vector2i(0, 0), "to": Vector2i(6, 0)},
		{"graph": "nope", "from": Vector2i(0, 0), "to": Vector2i(1, 0)},
	]
	var request: AStarBridgePathRequest = _bridge.request_paths(queries)
	var batch: Dictionary = await request.completed
	assert_eq(batch["status"], "done")
	var results: Array = batch["results"]
	assert_eq(results.size(), 3)
	assert_eq(results[0]["status"], "found")
	assert_eq(results[1]["status"], "no_path")
	assert_eq(results[2]["status"], "error")


func test_request_paths_on_one_grid_go_packed_and_answer_as_find_path() -> void:
	_bridge.config.report_failures = false
	_load_level()
	# found, boxed in (no path), start == goal, a start on the wall, a long one
	var ends: Array = [
		[Vector2i(0, 0), Vector2i(11, 8)],
		[Vector2i(0, 0), Vector2i(6, 0)],
		[Vector2i(3, 3), Vector2i(3, 3)],
		[Vector2i(5, 0), Vector2i(1, 0)],
		[Vector2i(0, 8), Vector2i(11, 0)],
	]
	var queries: Array[Dictionary] = []
	for pair: Array in ends:
		queries.append({"graph": "level", "from": pair[0], "to": pair[1]})
	assert_false(_bridge._paths.packed_params(queries).is_empty(), "one grid: path.find_packed")
	var batch: Dictionary = await _bridge.request_paths(queries).completed
	assert_eq(batch["status"], "done")
	var results: Array = batch["results"]
	assert_eq(results.size(), ends.size())
	for i: int in ends.size():
		var pair: Array = ends[i]
		var alone: Dictionary = _bridge.find_path_result("level", pair[0], pair[1])
		var got: Dictionary = results[i]
		assert_eq(got["status"], alone["status"], "query %d" % i)
		assert_eq(got["points"], alone["points"], "query %d" % i)
		assert_eq(got["ids"], alone["ids"], "query %d" % i)
		assert_eq(str(got["cost"]), str(alone["cost"]), "query %d" % i)
		assert_eq(got["expanded"], alone["expanded"], "query %d" % i)
		var got_error: Dictionary = got["error"]
		var alone_error: Dictionary = alone["error"]
		assert_eq(got_error.get("code"), alone_error.get("code"), "query %d" % i)
	assert_eq(results[3]["status"], "error", "the start on the wall fails alone")
	# another options map, a fractional cell or a waypoint id: one path.find_many instead
	var other: Array[Dictionary] = queries.duplicate(true)
	other[1]["options"] = {"heuristic": "manhattan"}
	assert_true(_bridge._paths.packed_params(other).is_empty())
	other = queries.duplicate(true)
	other[0]["to"] = Vector2(2.5, 1)
	assert_true(_bridge._paths.packed_params(other).is_empty())
	other[0]["to"] = 7
	assert_true(_bridge._paths.packed_params(other).is_empty())


func test_request_paths_on_a_placed_grid_send_world_positions() -> void:
	var extra: Dictionary = {"cell_size": [16, 16], "origin": [8, 8]}
	var loaded: AStarBridgeResult = _bridge.load_grid(
		"placed", WIDTH, HEIGHT, _cells(), AStarGrid2D.DIAGONAL_MODE_ONLY_IF_NO_OBSTACLES, extra
	)
	assert_true(loaded.is_ok(), str(loaded))
	var queries: Array[Dictionary] = [
		{"graph": "placed", "from": Vector2i(0, 0), "to": Vector2i(11, 8)},
		{"graph": "placed", "from": Vector2(8, 8), "to": Vector2(190, 20)},
	]
	var params: Dictionary = _bridge._paths.packed_params(queries)
	assert_eq(params.get("cells"), false, "positions, as float32")
	var batch: Dictionary = await _bridge.request_paths(queries).completed
	var results: Array = batch["results"]
	for i: int in queries.size():
		var query: Dictionary = queries[i]
		var alone: Dictionary = _bridge.find_path_result("placed", query["from"], query["to"])
		var got: Dictionary = results[i]
		assert_eq(got["status"], "found")
		assert_eq(got["points"], alone["points"], "query %d" % i)
		assert_eq(got["ids"], alone["ids"], "query %d" % i)
	var points: PackedVector2Array = results[0]["points"]
	assert_eq(points[points.size() - 1], Vector2(11 * 16 + 8, 8 * 16 + 8), "world points")


func test_request_paths_of_cells_on_a_placed_grid_send_cells() -> void:
	_bridge.config.report_failures = false
	var extra: Dictionary = {"cell_size": [16, 16], "origin": [8, 8]}
	var loaded: AStarBridgeResult = _bridge.load_grid(
		"placed_cells",
		WIDTH,
		HEIGHT,
		_cells(),
		AStarGrid2D.DIAGONAL_MODE_ONLY_IF_NO_OBSTACLES,
		extra
	)
	assert_true(loaded.is_ok(), str(loaded))
	# found, a start on the wall, a goal outside the grid: each as find_path answers it
	var ends: Array = [
		[Vector2i(0, 0), Vector2i(11, 8)],
		[Vector2i(5, 0), Vector2i(1, 0)],
		[Vector2i(0, 0), Vector2i(WIDTH, 0)],
	]
	var queries: Array[Dictionary] = []
	for pair: Array in ends:
		queries.append({"graph": "placed_cells", "from": pair[0], "to": pair[1]})
	var params: Dictionary = _bridge._paths.packed_params(queries)
	assert_eq(params.get("cells"), true, "all Vector2i: the grid's cells, as int32")
	var batch: Dictionary = await _bridge.request_paths(queries).completed
	var results: Array = batch["results"]
	for i: int in ends.size():
		var pair: Array = ends[i]
		var alone: Dictionary = _bridge.find_path_result("placed_cells", pair[0], pair[1])
		var got: Dictionary = results[i]
		assert_eq(got["status"], alone["status"], "query %d" % i)
		assert_eq(got["points"], alone["points"], "query %d" % i)
		assert_eq(got["ids"], alone["ids"], "query %d" % i)
		var got_error: Dictionary = got["error"]
		var alone_error: Dictionary = alone["error"]
		assert_eq(got_error.get("code"), alone_error.get("code"), "query %d" % i)
	assert_eq(results[0]["status"], "found")
	var points: PackedVector2Array = results[0]["points"]
	assert_eq(points[points.size() - 1], Vector2(11 * 16 + 8, 8 * 16 + 8), "world points")
	var outside: Dictionary = results[2]["error"]
	assert_eq(outside.get("code"), "out_of_bounds", "a cell outside the grid fails alone")


func test_update_graph_opens_a_wall() -> void:
	_load_level()
	var cell: PackedInt32Array = PackedInt32Array([6, 1])
	var update: AStarBridgeResult = _bridge.update_graph(
		"level", {"cells": cell.to_byte_array(), "walkable": true}
	)
	assert_true(update.is_ok(), str(update))
	var path: PackedVector2Array = _bridge.find_path("level", Vector2(0, 0), Vector2(6, 0))
	assert_true(path.size() > 0, "the opened cell lets the path in")


func test_killed_sidecar_fails_pending_restarts_and_reuploads() -> void:
	_load_level()
	var cell: PackedInt32Array = PackedInt32Array([6, 1])
	_bridge.update_graph("level", {"cells": cell.to_byte_array(), "walkable": true})
	var lost: Array = []
	_bridge.sidecar_lost.connect(func(reason: String) -> void: lost.append(reason))
	var old_pid: int = _bridge.get_sidecar_pid()
	var requests: Array[AStarBridgePathRequest] = []
	for i: int in 20:
		requests.append(_bridge.request_path("level", Vector2(0, 0), Vector2(11, 8)))
	_bridge._queue._flush()
	# A crash, not OS.kill(): OS.kill() also reaps the child, which the addon then cannot see.
	OS.execute("kill", PackedStringArray(["-9", str(old_pid)]))
	var results: Array = await _await_all(requests)
	assert_eq(results.size(), 20, "every pending request completed (none waits forever)")
	var errors: int = 0
	for result: Dictionary in results:
		if result["status"] == "error":
			errors += 1
		else:
			assert_eq(result["status"], "found", "answered before the kill")
	# The sidecar may answer all 20 before the kill lands (a busy machine): then a later frame
	# notices the dead process or the closed socket.
	var deadline: int = Time.get_ticks_msec() + 20000
	while lost.is_empty() and Time.get_ticks_msec() < deadline:
		await _tree().process_frame
	assert_true(errors > 0 or lost.size() > 0, "the kill was noticed")
	await _await_ready()
	assert_eq(lost.size(), 1, "sidecar_lost emitted once")
	var new_pid: int = _bridge.get_sidecar_pid()
	assert_ne(new_pid, old_pid, "a new sidecar process")
	var path: PackedVector2Array = _bridge.find_path("level", Vector2(0, 0), Vector2(6, 0))
	assert_true(path.size() > 0, "re-uploaded, with its update replayed")
	assert_eq(_bridge.get_stats()["restarts"], 1)


func test_a_chatty_sidecar_never_blocks_on_its_own_log() -> void:
	# At INFO the sidecar logs every connection to stderr; unless this node reads the pipe for
	# the life of the process, it fills and the sidecar blocks on its next log line for good.
	_bridge.stop()
	_bridge.config.extra_arguments = PackedStringArray(["--threads", "1", "--log-level", "INFO"])
	_bridge.start()
	_load_level()
	var port: int = _bridge.get_sidecar_port()
	assert_true(port > 0, "the sidecar's port is known")
	# A blocked sidecar stops accepting once its listen backlog is full: stop at the first
	# connection that is never accepted instead of waiting out every later one.
	var refused_at: int = -1
	for cycle: int in CHATTY_CYCLES:
		var peer: StreamPeerTCP = StreamPeerTCP.new()
		peer.connect_to_host("127.0.0.1", port)
		var deadline: int = Time.get_ticks_msec() + 2000
		while (
			peer.get_status() == StreamPeerTCP.STATUS_CONNECTING
			and Time.get_ticks_msec() < deadline
		):
			peer.poll()
		var accepted: bool = peer.get_status() == StreamPeerTCP.STATUS_CONNECTED
		peer.disconnect_from_host()
		if not accepted:
			refused_at = cycle
			break
		if cycle % 50 == 0:
			await _tree().process_frame
	assert_eq(refused_at, -1, "every connection was accepted")
	for frame: int in 30:
		await _tree().process_frame
	var result: Dictionary = _bridge.find_path_result("level", Vector2i(0, 0), Vector2i(11, 8))
	assert_eq(result["status"], "found", "answered after %d connections" % CHATTY_CYCLES)


func test_a_custom_token_reaches_the_sidecar_on_stdin_not_its_command_line() -> void:
	_bridge.stop()
	_bridge.config.token = "custom-token-5e1d"
	_bridge.start()
	_load_level()
	# /proc files report a length of 0: read them by chunk, not as a whole file.
	var proc: FileAccess = FileAccess.open(
		"/proc/%d/cmdline" % _bridge.get_sidecar_pid(), FileAccess.READ
	)
	assert_true(proc != null, "the sidecar's /proc entry opens")
	if proc == null:
		return
	var cmdline: PackedByteArray = proc.get_buffer(65536)
	var arguments: String = cmdline.get_string_from_utf8()  # the first argument (NUL-separated)
	assert_true(cmdline.size() > 0, "the sidecar's command line is readable")
	assert_false(
		cmdline.hex_encode().contains("custom-token-5e1d".to_utf8_buffer().hex_encode()),
		"no token among the arguments: %s" % arguments
	)


func test_export_graph_writes_a_graph_file() -> void:
	_load_level()
	var path: String = OS.get_cache_dir().path_join("astar_bridge_export_test.graph")
	assert_eq(_bridge.export_graph("level", path), OK)
	var bytes: PackedByteArray = FileAccess.get_file_as_bytes(path)
	var decoded: Dictionary = MsgpackDecoder.unpack(bytes)
	var document: Dictionary = decoded["value"]
	assert_eq(document["format"], "astar-bridge-graph")
	assert_eq(document["kind"], "grid")
	var graph: Dictionary = document["graph"]
	assert_false(graph.has("id"))
	DirAccess.remove_absolute(path)


func _load_level() -> void:
	var cells: PackedByteArray = _cells()
	var result: AStarBridgeResult = _bridge.load_grid("level", WIDTH, HEIGHT, cells)
	assert_true(result.is_ok(), str(result))


# A 12x9 grid: a wall down column 5 (gap at the bottom row) and (6, 0) boxed in.
func _cells() -> PackedByteArray:
	var cells: PackedByteArray = PackedByteArray()
	cells.resize(WIDTH * HEIGHT)
	cells.fill(1)
	for y: int in HEIGHT - 1:
		cells[y * WIDTH + 5] = 0
	cells[0 * WIDTH + 7] = 0
	cells[1 * WIDTH + 6] = 0
	cells[1 * WIDTH + 7] = 0
	return cells


func _oracle() -> AStarGrid2D:
	var grid: AStarGrid2D = AStarGrid2D.new()
	grid.region = Rect2i(0, 0, WIDTH, HEIGHT)
	grid.cell_size = Vector2.ONE
	grid.diagonal_mode = AStarGrid2D.DIAGONAL_MODE_ONLY_IF_NO_OBSTACLES
	grid.update()
	var cells: PackedByteArray = _cells()
	for i: int in cells.size():
		if cells[i] == 0:
			grid.set_point_solid(Vector2i(i % WIDTH, floori(i / float(WIDTH))))
	return grid


func _assert_walkable(path: PackedVector2Array) -> void:
	var cells: PackedByteArray = _cells()
	for point: Vector2 in path:
		assert_eq(cells[int(point.y) * WIDTH + int(point.x)], 1, "%s is walkable" % point)


func _length(path: PackedVector2Array) -> float:
	var total: float = 0.0
	for i: int in range(1, path.size()):
		total += path[i - 1].distance_to(path[i])
	return total


func _await_all(requests: Array[AStarBridgePathRequest]) -> Array:
	var deadline: int = Time.get_ticks_msec() + 20000
	var pending: bool = true
	while pending and Time.get_ticks_msec() < deadline:
		pending = false
		for request: AStarBridgePathRequest in requests:
			pending = pending or not request.is_done()
		if pending:
			await _tree().process_frame
	var results: Array = []
	for request: AStarBridgePathRequest in requests:
		results.append(request.result)
	return results


func _await_ready() -> void:
	var deadline: int = Time.get_ticks_msec() + 20000
	while not _bridge.is_ready() and Time.get_ticks_msec() < deadline:
		await _tree().process_frame
	assert_true(_bridge.is_ready(), "ready again")


func _tree() -> SceneTree:
	return Engine.get_main_loop() as SceneTree
