## The path requests of one frame leave as one message per graph and options map (issue 41),
## against a real sidecar: 300 request_path calls of a frame are one message, and each request
## gets exactly its own answer, equal to the synchronous query's; requests on other graphs,
## with other options or other endpoint kinds go as their own messages; a bad query fails only
## its own request; a request cancelled (or let go) before the end of the frame does not hold
## the others up; an edit asked between requests of a frame sees them in the order made; with
## config.batch_requests off each request is its own message again.
extends "res://runner/gd_test.gd"

const AStarBridgeNode = preload("res://addons/astar_bridge/astar_bridge.gd")
const EditRequest = preload("res://addons/astar_bridge/api/edit_request.gd")
const PathRequest = preload("res://addons/astar_bridge/api/path_request.gd")
const RequestFrames = preload("res://tests/support/request_frames.gd")
const TestBridge = preload("res://tests/support/test_bridge.gd")
const SIZE := 64
const ROOM := 16
const CROWD := 300

var _bridge: AStarBridgeNode = null


func before_each() -> void:
	_bridge = TestBridge.made(PackedStringArray(["--threads", "1", "--log-level", "ERROR"]))
	_bridge.config.report_failures = false  # failed queries are expected here
	_tree().root.add_child(_bridge)
	assert_true(_bridge.load_grid("rooms", SIZE, SIZE, _rooms()).is_ok())


func after_each() -> void:
	_bridge.stop()
	_bridge.free()


func test_300_requests_of_a_frame_leave_as_one_message_each_with_its_own_answer() -> void:
	var ends: Array[Vector2i] = _ends(CROWD)
	await _tree().process_frame
	var sent: int = _messages()
	var requests: Array[PathRequest] = []
	for i: int in CROWD:
		requests.append(_bridge.request_path("rooms", ends[2 * i], ends[2 * i + 1]))
	assert_eq(_messages(), sent, "nothing leaves before the end of the frame")
	assert_eq(_bridge.get_stats()["pending"], CROWD, "held requests count as pending")
	await _settled(requests)
	assert_eq(_messages() - sent, 1, "one message for the frame's %d requests" % CROWD)
	var wrong: PackedStringArray = PackedStringArray()
	for i: int in CROWD:
		var own: Dictionary = _bridge.find_path_result("rooms", ends[2 * i], ends[2 * i + 1])
		if requests[i].result != own:
			wrong.append("%s -> %s" % [ends[2 * i], ends[2 * i + 1]])
	assert_eq(wrong.size(), 0, "answers unlike the query's own: %s" % ", ".join(wrong))
	var found: int = 0
	for request: PathRequest in requests:
		found += 1 if request.result["status"] == "found" else 0
	assert_eq(found, CROWD)
	# config.batch_requests off: each request is its own message again, with the same answers.
	_bridge.config.batch_requests = false
	await _tree().process_frame
	sent = _messages()
	var alone: Array[PathRequest] = []
	for i: int in 40:
		alone.append(_bridge.request_path("rooms", ends[2 * i], ends[2 * i + 1]))
	await _settled(alone)
	assert_eq(_messages() - sent, 40, "one message each with batch_requests off")
	for i: int in 40:
		assert_eq(alone[i].result, requests[i].result)


func test_other_graphs_options_and_endpoint_kinds_go_as_their_own_messages() -> void:
	var level: AStarGrid2D = AStarGrid2D.new()
	level.region = Rect2i(-4, 2, 20, 12)  # a placed grid whose first cell is not (0, 0)
	level.cell_size = Vector2(32, 32)
	level.update()
	for y: int in range(2, 12):
		level.set_point_solid(Vector2i(6, y))
	assert_true(_bridge.load_astar_grid_2d("level", level).is_ok())
	var points: AStar2D = AStar2D.new()
	for i: int in 6:
		points.add_point(i, Vector2(i * 10, (i % 2) * 10))
		if i > 0:
			points.connect_points(i - 1, i)
	assert_true(_bridge.load_astar_2d("points", points).is_ok())
	var partial: Dictionary = {"allow_partial": true}
	# [graph, from, to, options]: rooms by cells twice (two options maps), the placed grid by its
	# cells and by world positions (and one of each), the waypoint graph by ids and positions.
	var asks: Array[Array] = []
	var ends: Array[Vector2i] = _ends(8)
	for i: int in 4:
		asks.append(["rooms", ends[2 * i], ends[2 * i + 1], {}])
		asks.append(["rooms", ends[2 * i + 1], ends[2 * i], partial])
		asks.append(["level", Vector2i(-3 + i, 3), Vector2i(13, 11 - i), {}])
		asks.append(["level", level.get_point_position(Vector2i(i, 4)), Vector2(480, 320), {}])
		asks.append(["level", Vector2i(i, 12), Vector2(20 + i * 32, 100), {}])
		asks.append(["points", i, 5 - i, {}])
		asks.append(["points", Vector2(i * 10 + 1, 2), 5, {}])
	await _tree().process_frame
	var sent: int = _messages()
	var requests: Array[PathRequest] = []
	for ask: Array in asks:
		requests.append(_bridge.request_path(str(ask[0]), ask[1], ask[2], _options(ask[3])))
	await _settled(requests)
	# rooms x 2 options maps, level by cells, level by positions (the mixed pairs too), and one
	# path.find_many for the waypoint graph's queries
	assert_eq(_messages() - sent, 5, "one message per graph, options map and endpoint kind")
	for i: int in asks.size():
		var ask: Array = asks[i]
		var alone: Dictionary = _bridge.find_path_result(
			str(ask[0]), ask[1], ask[2], _options(ask[3])
		)
		assert_eq(requests[i].result, alone, "%s from %s to %s" % [ask[0], ask[1], ask[2]])
		assert_eq(alone["status"], "found", "%s from %s to %s" % [ask[0], ask[1], ask[2]])


func test_a_bad_query_fails_only_its_own_request() -> void:
	var ends: Array[Vector2i] = _ends(20)
	var wall: Vector2i = Vector2i(ROOM, 1)  # on the wall between the first two rooms
	# [from, to, graph, expected error code or "" for a path]
	var asks: Array[Array] = [
		[wall, ends[1], "rooms", "blocked_endpoint"],
		[ends[2], Vector2i(SIZE + 3, 2), "rooms", "out_of_bounds"],
		[Vector2(1.5, 2), ends[3], "rooms", "bad_request"],
		[ends[4], ends[5], "nowhere", "unknown_graph"],
		["a string", ends[5], "rooms", "bad_request"],
		[Vector2(INF, 1), ends[6], "rooms", "bad_request"],
	]
	await _tree().process_frame
	var requests: Array[PathRequest] = []
	var good: Array[PathRequest] = []
	for i: int in 20:
		good.append(_bridge.request_path("rooms", ends[2 * i], ends[2 * i + 1]))
		if i < asks.size():
			requests.append(_bridge.request_path(str(asks[i][2]), asks[i][0], asks[i][1]))
	var all: Array[PathRequest] = good.duplicate()
	all.append_array(requests)
	await _settled(all)
	for request: PathRequest in good:
		assert_eq(request.result["status"], "found")
	for i: int in asks.size():
		var ask: Array = asks[i]
		var alone: Dictionary = _bridge.find_path_result(str(ask[2]), ask[0], ask[1])
		var error: Dictionary = requests[i].result["error"]
		var alone_error: Dictionary = alone["error"]
		assert_eq(requests[i].result["status"], "error", str(ask))
		assert_eq(error.get("code"), ask[3], str(ask))
		assert_eq(error.get("code"), alone_error.get("code"), "as alone: %s" % str(ask))


func test_a_request_cancelled_or_let_go_before_the_end_of_the_frame() -> void:
	var ends: Array[Vector2i] = _ends(30)
	await _tree().process_frame
	var sent: int = _messages()
	var requests: Array[PathRequest] = []
	var heard: Array[Dictionary] = []
	for i: int in 30:
		var request: PathRequest = _bridge.request_path("rooms", ends[2 * i], ends[2 * i + 1])
		if i % 3 == 0:
			request.cancel()
		if i % 3 == 1:  # nothing keeps it but its signal's listener
			request.completed.connect(func(result: Dictionary) -> void: heard.append(result))
			continue
		requests.append(request)
	# A node that listened to a request and was freed before its answer.
	var gone: Node = Node.new()
	_bridge.request_path("rooms", ends[0], ends[1]).completed.connect(gone.queue_free.unbind(1))
	gone.free()
	await _settled(requests)
	var frames: int = 0
	while heard.size() < 10 and frames < 100:
		await _tree().process_frame
		frames += 1
	assert_eq(heard.size(), 10, "a request nobody holds still completes for its listener")
	for i: int in requests.size():
		var result: Dictionary = requests[i].result
		if i % 2 == 0:  # every other kept request was cancelled: 0, 3, 6... of the asks
			assert_eq(result["status"], "error")
			assert_eq(result["error"]["code"], "cancelled")
		else:
			assert_eq(result["status"], "found")
	for result: Dictionary in heard:
		assert_eq(result["status"], "found")
	assert_eq(_messages() - sent, 1, "the frame's uncancelled requests in one message")
	# Every request of a frame cancelled: nothing is sent.
	await _tree().process_frame
	sent = _messages()
	var dropped: PathRequest = _bridge.request_path("rooms", ends[0], ends[1])
	dropped.cancel()
	await _tree().process_frame
	await _tree().process_frame
	assert_eq(_messages(), sent, "a cancelled request is not sent")
	assert_eq(_bridge.get_stats()["pending"], 0)


func test_batches_keep_their_place_among_the_frames_edits() -> void:
	# The door between the first two rooms; shut, the way round is longer.
	var door: Array[Vector2i] = [Vector2i(ROOM, 9), Vector2i(ROOM, 10), Vector2i(ROOM, 11)]
	var from: Vector2i = Vector2i(8, 10)
	var to: Vector2i = Vector2i(ROOM + 8, 10)
	var open_cost: float = _bridge.find_path_result("rooms", from, to)["cost"]
	await _tree().process_frame
	var before: Array[PathRequest] = _asked(from, to, 5)
	var shut: EditRequest = _bridge.request_cells_solid("rooms", door, true)
	var after: Array[PathRequest] = _asked(from, to, 5)
	assert_true(_bridge.set_cells_solid("rooms", door, false).is_ok())  # synchronous: reopened
	var reopened: Array[PathRequest] = _asked(from, to, 5)
	var all: Array[PathRequest] = before.duplicate()
	all.append_array(after)
	all.append_array(reopened)
	await _settled(all)
	var shut_result: AStarBridgeResult = await shut.wait()
	assert_true(shut_result.is_ok())
	for request: PathRequest in before + reopened:
		var cost: float = request.result["cost"]
		assert_almost(cost, open_cost, 1e-6, "asked while the door was open")
	for request: PathRequest in after:
		var cost: float = request.result["cost"]
		assert_true(cost > open_cost + 1.0, "asked while the door was shut")


func _asked(from: Vector2i, to: Vector2i, count: int) -> Array[PathRequest]:
	var made: Array[PathRequest] = []
	for i: int in count:
		made.append(_bridge.request_path("rooms", from, to))
	return made


static func _options(value: Variant) -> Dictionary:
	return value if value is Dictionary else {}


func _messages() -> int:
	return _bridge.get_stats()["messages"]


func _settled(requests: Array[PathRequest]) -> void:
	if not await RequestFrames.settled(requests, 600):
		fail("requests still waiting after 600 frames")


# 16x16 rooms parted by 1-cell walls with 3-cell doors (as test_autoload_throughput.gd's level).
func _rooms() -> PackedByteArray:
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


func _ends(count: int) -> Array[Vector2i]:
	var rng: RandomNumberGenerator = RandomNumberGenerator.new()
	rng.seed = 41
	var cells: PackedByteArray = _rooms()
	var ends: Array[Vector2i] = []
	while ends.size() < count * 2:
		var cell: Vector2i = Vector2i(rng.randi_range(0, SIZE - 1), rng.randi_range(0, SIZE - 1))
		if cells[cell.y * SIZE + cell.x] == 1:
			ends.append(cell)
	return ends


func _tree() -> SceneTree:
	return Engine.get_main_loop() as SceneTree
