## A frame's request_path calls on a 2D navmesh leave as one path.find_packed (issue 40),
## against a real sidecar: each request gets exactly the synchronous find_path's answer (points,
## polygons, cost, status: ends off the mesh, the optimal flag, a layer mask with no polygon),
## its polygons (ids) only with config.navmesh_ids (off by default: ids empty, the rest the
## same); an id loaded again as a grid is asked as a grid.
extends "res://runner/gd_test.gd"

const AStarBridgeNode = preload("res://addons/astar_bridge/astar_bridge.gd")
const FrameBatches = preload("res://addons/astar_bridge/runtime/frame_batches.gd")
const PathRequest = preload("res://addons/astar_bridge/api/path_request.gd")
const TestBridge = preload("res://tests/support/test_bridge.gd")
const CROWD := 60

var _bridge: AStarBridgeNode = null
var _region: NavigationRegion2D = null


func before_each() -> void:
	_bridge = TestBridge.made(PackedStringArray(["--threads", "1", "--log-level", "ERROR"]))
	_bridge.config.report_failures = false
	_bridge.config.request_timeout_ms = 120000  # a cold sidecar may load its navmesh kernels first
	_tree().root.add_child(_bridge)
	_region = NavigationRegion2D.new()
	_region.navigation_polygon = _ring()
	_tree().root.add_child(_region)
	var regions: Array[Node] = [_region]
	assert_true(_bridge.load_navigation_region("ring", regions).is_ok())


func after_each() -> void:
	_bridge.stop()
	_bridge.free()
	_region.free()


func test_a_frames_navmesh_requests_are_one_message_with_find_paths_answers() -> void:
	var rng: RandomNumberGenerator = RandomNumberGenerator.new()
	rng.seed = 40
	var ends: Array[Vector2] = []
	for i: int in 2 * CROWD:  # some ends off the ring (the hole, outside): snapped onto it
		ends.append(Vector2(rng.randf_range(-5, 35), rng.randf_range(-5, 35)))
	var asks: Array[Array] = []  # [options, navmesh_ids]
	for options: Dictionary in [{}, {"optimal": true}, {"navigation_layers": 0}]:
		asks.append([options, true])
		asks.append([options, false])
	assert_false(_bridge.config.navmesh_ids, "off by default")
	for ask: Array in asks:
		var options: Dictionary = ask[0]
		_bridge.config.navmesh_ids = ask[1]
		await _tree().process_frame
		var sent: int = _bridge.get_stats()["messages"]
		var requests: Array[PathRequest] = []
		for i: int in CROWD:
			requests.append(_bridge.request_path("ring", ends[2 * i], ends[2 * i + 1], options))
		# held as a packed group (path.find_packed), none as a path.find_many query
		var held: FrameBatches = _bridge._queue._held
		assert_eq(held._others.size(), 0, "navmesh requests held for path.find_many")
		assert_eq(held._groups.size(), 1, "one packed group for %s" % options)
		await _settled(requests)
		assert_eq(_bridge.get_stats()["messages"] - sent, 1, "one message for %s" % options)
		var wrong: PackedStringArray = PackedStringArray()
		var found: int = 0
		for i: int in CROWD:
			var own: Dictionary = _bridge.find_path_result(
				"ring", ends[2 * i], ends[2 * i + 1], options
			)
			if not _bridge.config.navmesh_ids:
				var ids: PackedInt64Array = own["ids"]
				var found_own: bool = str(own["status"]) == "found"
				assert_true(not found_own or not ids.is_empty(), "find_path has ids")
				own["ids"] = PackedInt64Array()  # left out of the batch's answers
			if requests[i].result != own:
				wrong.append(
					"%s -> %s: %s vs %s" % [ends[2 * i], ends[2 * i + 1], requests[i].result, own]
				)
			found += 1 if own["status"] == "found" else 0
		assert_eq(wrong.size(), 0, "answers unlike find_path's: %s" % "; ".join(wrong))
		assert_eq(found, 0 if options.has("navigation_layers") else CROWD)


# The autoload remembers per graph id that its requests go as a flat navmesh's: an id loaded
# again as a grid (here within one frame) is asked as the grid it now is, and back.
func test_an_id_loaded_again_as_a_grid_is_asked_as_one() -> void:
	var ends: Array[Vector2] = [Vector2(1, 1), Vector2(28, 2), Vector2(2, 28), Vector2(29, 29)]
	for turn: int in 2:
		await _tree().process_frame
		var requests: Array[PathRequest] = []
		for i: int in 2:
			requests.append(_bridge.request_path("ring", ends[2 * i], ends[2 * i + 1]))
		var held: FrameBatches = _bridge._queue._held
		var group: FrameBatches.Group = held._groups.values()[0]
		assert_false(group.cells, "round %d: navmesh positions" % turn)
		_bridge.drop_graph("ring")  # sends the held requests first
		var cells: PackedByteArray = PackedByteArray()
		cells.resize(32 * 32)
		cells.fill(1)
		assert_true(_bridge.load_grid("ring", 32, 32, cells).is_ok())
		requests.append(_bridge.request_path("ring", ends[0], ends[1]))
		requests.append(_bridge.request_path("ring", ends[2], ends[3]))
		group = held._groups.values()[0]
		assert_true(group.cells, "round %d: the grid's cells" % turn)
		await _settled(requests)
		for i: int in 2:
			assert_eq(requests[i].result["status"], "found", "round %d, navmesh %d" % [turn, i])
			var own: Dictionary = _bridge.find_path_result("ring", ends[2 * i], ends[2 * i + 1])
			assert_eq(requests[2 + i].result, own, "round %d: the grid's answer" % turn)
		var regions: Array[Node] = [_region]
		assert_true(_bridge.load_navigation_region("ring", regions).is_ok())


# A ring of eight 10 x 10 squares around a hole (0..30 each way).
func _ring() -> NavigationPolygon:
	var nav: NavigationPolygon = NavigationPolygon.new()
	var vertices: PackedVector2Array = PackedVector2Array()
	for y: int in 4:
		for x: int in 4:
			vertices.append(Vector2(x * 10, y * 10))
	nav.vertices = vertices
	for y: int in 3:
		for x: int in 3:
			if x == 1 and y == 1:
				continue
			var a: int = y * 4 + x
			nav.add_polygon(PackedInt32Array([a, a + 1, a + 5, a + 4]))
	return nav


func _settled(requests: Array[PathRequest]) -> void:
	var until: int = Time.get_ticks_msec() + 120000
	while Time.get_ticks_msec() < until:
		var waiting: int = 0
		for request: PathRequest in requests:
			waiting += 0 if request.is_done() else 1
		if waiting == 0:
			return
		await _tree().process_frame
	fail("requests still waiting after 120 s")


func _tree() -> SceneTree:
	return Engine.get_main_loop() as SceneTree
