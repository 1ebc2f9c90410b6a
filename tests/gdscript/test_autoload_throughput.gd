## The autoload at loopback speed, against a real sidecar it launches, on a 64x64 level of 16x16
## rooms: synchronous find_path in a tight loop gives Godot's AStarGrid2D path length every time,
## bin fields come out as packed arrays, and 300 request_path of one frame all complete within
## 3 frames (frames counted, not time: the game runs at a fixed frame rate meanwhile).
extends "res://runner/gd_test.gd"

const AStarBridgeNode = preload("res://addons/astar_bridge/astar_bridge.gd")
const MsgpackEncoder = preload("res://addons/astar_bridge/msgpack/msgpack_encoder.gd")
const MsgpackDecoder = preload("res://addons/astar_bridge/msgpack/msgpack_decoder.gd")
const PathWire = preload("res://addons/astar_bridge/runtime/path_wire.gd")
const TestBridge = preload("res://tests/support/test_bridge.gd")
const SIZE := 64
const ROOM := 16
const SYNC_CALLS := 400
const AGENTS := 300
# A slow game frame rate, so that 3 frames leave the sidecar time for 300 searches on a busy
# machine; what is checked is the count of frames, which the old once-a-frame poll exceeds.
const TEST_FPS := 10

var _bridge: AStarBridgeNode = null
var _fps_before: int = 0


func before_each() -> void:
	_bridge = TestBridge.made(PackedStringArray(["--log-level", "ERROR"]))
	_tree().root.add_child(_bridge)
	_fps_before = Engine.max_fps


func after_each() -> void:
	Engine.max_fps = _fps_before
	_bridge.stop()
	_bridge.free()


func test_sync_find_path_in_a_tight_loop_matches_astar_grid() -> void:
	_load_rooms()
	var oracle: AStarGrid2D = _oracle()
	var ends: Array[Vector2i] = _queries(SYNC_CALLS)
	var mismatches: PackedStringArray = PackedStringArray()
	for i: int in SYNC_CALLS:
		var from: Vector2i = ends[2 * i]
		var to: Vector2i = ends[2 * i + 1]
		var path: PackedVector2Array = _bridge.find_path("rooms", Vector2(from), Vector2(to))
		var expected: PackedVector2Array = oracle.get_point_path(from, to)
		var same_ends: bool = (
			path.size() > 0 and path[0] == Vector2(from) and path[-1] == Vector2(to)
		)
		if not same_ends or absf(_length(path) - _length(expected)) > 1e-3:
			mismatches.append("%s -> %s" % [from, to])
	assert_eq(mismatches.size(), 0, "paths unlike AStarGrid2D's: %s" % ", ".join(mismatches))
	assert_eq(_bridge.get_stats()["failures"], 0)


func test_bin_fields_come_out_as_packed_arrays() -> void:
	var points: PackedVector2Array = PackedVector2Array([Vector2(1.5, 2), Vector2(-3, 4.25)])
	var ids: PackedInt64Array = PackedInt64Array([7, 1 << 40])
	var wire: Dictionary = {
		"status": "found",
		"points": points.to_byte_array(),
		"nodes": ids.to_byte_array(),
		"cost": 2.5,
		"expanded": 300,
	}
	# Through the codec, as it comes off the socket.
	var bytes: PackedByteArray = MsgpackEncoder.pack([1, 9, null, wire])
	var decoded: Array = MsgpackDecoder.unpack(bytes)["value"]
	var response: Dictionary = {"error": decoded[2], "result": decoded[3]}
	var result: Dictionary = PathWire.path_result(response, 2)
	assert_eq(result["points"], points)
	assert_eq(result["ids"], ids)
	assert_eq(result["cost"], 2.5)
	assert_eq(result["expanded"], 300)
	var triples: PackedVector3Array = PackedVector3Array([Vector3(1, 2, 3), Vector3(4, 5, 6.5)])
	wire["points"] = triples.to_byte_array()
	assert_eq(PathWire.decode_path(wire, 3)["points"], triples)
	wire["points"] = PackedByteArray()
	wire["status"] = "no_path"
	assert_eq(PathWire.decode_path(wire, 2)["points"], PackedVector2Array())


func test_sync_path_result_has_packed_points_and_ids() -> void:
	_load_rooms()
	var result: Dictionary = _bridge.find_path_result("rooms", Vector2i(1, 1), Vector2i(4, 1))
	assert_eq(
		result["points"],
		PackedVector2Array([Vector2(1, 1), Vector2(2, 1), Vector2(3, 1), Vector2(4, 1)])
	)
	assert_eq(result["ids"], PackedInt64Array([SIZE + 1, SIZE + 2, SIZE + 3, SIZE + 4]))


func test_300_requests_of_one_frame_complete_within_3_frames() -> void:
	_load_rooms()
	var ends: Array[Vector2i] = _queries(AGENTS)
	for i: int in 5:  # the first searches of a fresh sidecar may load its kernels
		_bridge.find_path("rooms", Vector2(ends[2 * i]), Vector2(ends[2 * i + 1]))
	Engine.max_fps = TEST_FPS
	await _tree().process_frame
	var requests: Array[AStarBridgePathRequest] = []
	for i: int in AGENTS:
		requests.append(
			_bridge.request_path("rooms", Vector2(ends[2 * i]), Vector2(ends[2 * i + 1]))
		)
	var frames: int = 0
	while _pending(requests) > 0 and frames < 100:
		await _tree().process_frame
		frames += 1
	assert_eq(_pending(requests), 0, "all answered")
	assert_true(frames <= 3, "all %d answered within 3 frames, took %d" % [AGENTS, frames])
	for request: AStarBridgePathRequest in requests:
		assert_eq(request.result.get("status"), "found")


func test_sync_calls_between_asynchronous_ones_on_the_io_thread() -> void:
	# The connection's thread reads the asynchronous answers; a synchronous call takes the
	# socket from it meanwhile, and every answer still reaches its own caller.
	_load_rooms()
	var oracle: AStarGrid2D = _oracle()
	var ends: Array[Vector2i] = _queries(200)
	var requests: Array[AStarBridgePathRequest] = []
	for i: int in 100:
		requests.append(
			_bridge.request_path("rooms", Vector2(ends[2 * i]), Vector2(ends[2 * i + 1]))
		)
		if i % 10 == 0:
			var j: int = 100 + i
			var path: PackedVector2Array = _bridge.find_path(
				"rooms", Vector2(ends[2 * j]), Vector2(ends[2 * j + 1])
			)
			var expected: PackedVector2Array = oracle.get_point_path(ends[2 * j], ends[2 * j + 1])
			assert_almost(_length(path), _length(expected), 1e-3, "sync %d" % j)
	var frames: int = 0
	while _pending(requests) > 0 and frames < 600:
		await _tree().process_frame
		frames += 1
	for i: int in requests.size():
		var points: PackedVector2Array = requests[i].result.get("points", PackedVector2Array())
		var expected: PackedVector2Array = oracle.get_point_path(ends[2 * i], ends[2 * i + 1])
		assert_almost(_length(points), _length(expected), 1e-3, "async %d" % i)


func test_requests_reach_the_sidecar_in_the_order_they_were_made() -> void:
	# An asynchronous request made before a synchronous update is answered on the graph before
	# that update, although the connection's thread writes it: the update's call writes what the
	# thread has not written yet first. Each request here is made while the only door is open,
	# then the door is closed and opened again.
	var cells: PackedByteArray = PackedByteArray()
	cells.resize(12 * 9)
	cells.fill(1)
	for y: int in 8:
		cells[y * 12 + 5] = 0  # a wall down column 5, its door at (5, 8)
	assert_true(_bridge.load_grid("door", 12, 9, cells).is_ok())
	var door: PackedByteArray = PackedInt32Array([5, 8]).to_byte_array()
	var requests: Array[AStarBridgePathRequest] = []
	for i: int in 60:
		requests.append(_bridge.request_path("door", Vector2(0, 0), Vector2(11, 0)))
		_bridge.update_graph("door", {"cells": door, "walkable": false})
		_bridge.update_graph("door", {"cells": door, "walkable": true})
	var frames: int = 0
	while _pending(requests) > 0 and frames < 600:
		await _tree().process_frame
		frames += 1
	var statuses: Dictionary = {}
	for request: AStarBridgePathRequest in requests:
		var status: String = str(request.result.get("status", "pending"))
		var count: int = statuses.get(status, 0)
		statuses[status] = count + 1
	assert_eq(statuses, {"found": 60}, "every path was asked while the door was open")


func test_asynchronous_results_are_the_same_without_the_io_thread() -> void:
	var ends: Array[Vector2i] = _queries(60)
	var results: Array[Array] = []
	for threaded: bool in [true, false]:
		_bridge.stop()
		_bridge.config.io_thread = threaded
		_bridge.start()
		_load_rooms()
		var requests: Array[AStarBridgePathRequest] = []
		for i: int in 60:
			requests.append(
				_bridge.request_path("rooms", Vector2(ends[2 * i]), Vector2(ends[2 * i + 1]))
			)
		var frames: int = 0
		while _pending(requests) > 0 and frames < 600:
			await _tree().process_frame
			frames += 1
		var outcomes: Array = []
		for request: AStarBridgePathRequest in requests:
			outcomes.append(request.result)
		results.append(outcomes)
	assert_eq(results[0].size(), 60)
	assert_eq(results[0], results[1], "the same result maps either way")


func test_requests_pending_when_the_bridge_is_stopped_and_freed_still_complete() -> void:
	# Their failures complete in a deferred call after the autoload (and its queue) is gone.
	_load_rooms()
	var ends: Array[Vector2i] = _queries(20)
	var requests: Array[AStarBridgePathRequest] = []
	for i: int in 20:
		requests.append(
			_bridge.request_path("rooms", Vector2(ends[2 * i]), Vector2(ends[2 * i + 1]))
		)
	_bridge.stop()
	_bridge.free()
	_bridge = AStarBridgeNode.new()  # for after_each
	_bridge.config.autostart = false
	_tree().root.add_child(_bridge)
	var frames: int = 0
	while _pending(requests) > 0 and frames < 5:
		await _tree().process_frame
		frames += 1
	assert_eq(_pending(requests), 0, "every request completed")
	for request: AStarBridgePathRequest in requests:
		assert_eq(request.result.get("status"), "error")
		var error: Dictionary = request.result.get("error", {})
		assert_eq(error.get("code"), "disconnected")


func _pending(requests: Array[AStarBridgePathRequest]) -> int:
	var count: int = 0
	for request: AStarBridgePathRequest in requests:
		if not request.is_done():
			count += 1
	return count


func _load_rooms() -> void:
	var result: AStarBridgeResult = _bridge.load_grid("rooms", SIZE, SIZE, _cells())
	assert_true(result.is_ok(), str(result))


# 16x16 rooms parted by 1-cell walls, each wall with one 3-cell door per room side (fixed).
func _cells() -> PackedByteArray:
	var cells: PackedByteArray = PackedByteArray()
	cells.resize(SIZE * SIZE)
	cells.fill(1)
	for y: int in SIZE:
		for x: int in SIZE:
			var wall: bool = x % ROOM == 0 or y % ROOM == 0
			var door: bool = (x % ROOM) in [6, 7, 8] or (y % ROOM) in [9, 10, 11]
			if wall and not door and x > 0 and y > 0:
				cells[y * SIZE + x] = 0
	return cells


func _queries(count: int) -> Array[Vector2i]:
	var rng: RandomNumberGenerator = RandomNumberGenerator.new()
	rng.seed = 23
	var cells: PackedByteArray = _cells()
	var ends: Array[Vector2i] = []
	while ends.size() < count * 2:
		var cell: Vector2i = Vector2i(rng.randi_range(0, SIZE - 1), rng.randi_range(0, SIZE - 1))
		if cells[cell.y * SIZE + cell.x] == 1:
			ends.append(cell)
	return ends


func _oracle() -> AStarGrid2D:
	var grid: AStarGrid2D = AStarGrid2D.new()
	grid.region = Rect2i(0, 0, SIZE, SIZE)
	grid.cell_size = Vector2.ONE
	grid.diagonal_mode = AStarGrid2D.DIAGONAL_MODE_ONLY_IF_NO_OBSTACLES
	grid.update()
	var cells: PackedByteArray = _cells()
	for i: int in cells.size():
		if cells[i] == 0:
			grid.set_point_solid(Vector2i(i % SIZE, floori(i / float(SIZE))))
	return grid


func _length(path: PackedVector2Array) -> float:
	var total: float = 0.0
	for i: int in range(1, path.size()):
		total += path[i - 1].distance_to(path[i])
	return total


func _tree() -> SceneTree:
	return Engine.get_main_loop() as SceneTree
