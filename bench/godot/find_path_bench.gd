## Benchmark of the addon as a game sees it: one synchronous find_path round trip (encode,
## socket, sidecar, decode), 500 agents asking at once (500 request_path in one frame, and one
## request_paths batch), beside Godot's own AStarGrid2D.get_point_path on the same grid and
## queries. Prints one line "BENCH {json}". Run by bench/addon_roundtrip.py:
## godot --headless --path tests/godot_project --script <repo>/bench/godot/find_path_bench.gd
##     -- [size] [sync_queries] [agents]
extends SceneTree

const AStarBridgeNode = preload("res://addons/astar_bridge/astar_bridge.gd")
const WALL_FRACTION := 0.2

var _size: int = 128
var _sync_queries: int = 300
var _agents: int = 500


func _initialize() -> void:
	var args: PackedStringArray = OS.get_cmdline_user_args()
	if args.size() > 0:
		_size = args[0].to_int()
	if args.size() > 1:
		_sync_queries = args[1].to_int()
	if args.size() > 2:
		_agents = args[2].to_int()
	_run.call_deferred()


func _run() -> void:
	var bridge: AStarBridgeNode = _make_bridge()
	var cells: PackedByteArray = _grid()
	var loaded: AStarBridgeResult = bridge.load_grid("bench", _size, _size, cells)
	if not loaded.is_ok():
		printerr("bench: load failed: %s" % loaded.message)
		quit(1)
		return
	var oracle: AStarGrid2D = _oracle(cells)
	var queries: Array[Vector2i] = _queries(cells, maxi(_sync_queries, _agents))
	for i: int in 5:  # warm-up: first queries may compile kernels in the sidecar
		bridge.find_path("bench", Vector2(queries[2 * i]), Vector2(queries[2 * i + 1]))
	var report: Dictionary = {"grid": _size, "wall_fraction": WALL_FRACTION}
	report.merge(_bench_sync(bridge, oracle, queries))
	report.merge(await _bench_many(bridge, queries))
	report.merge(await _bench_batch(bridge, queries))
	report.merge(_bench_godot(oracle, queries))
	print("BENCH %s" % JSON.stringify(report))
	bridge.stop()
	bridge.free()
	quit(0)


func _make_bridge() -> AStarBridgeNode:
	var bridge: AStarBridgeNode = AStarBridgeNode.new()
	var port: String = OS.get_environment("ASTAR_BRIDGE_PORT")
	if not port.is_empty():
		bridge.autostart = false
		bridge.host = OS.get_environment("ASTAR_BRIDGE_HOST")
		bridge.port = port.to_int()
		bridge.token = OS.get_environment("ASTAR_BRIDGE_TOKEN")
	bridge.report_failures = false
	bridge.connect_timeout_ms = 30000
	bridge.request_timeout_ms = 30000
	root.add_child(bridge)
	bridge.start()
	return bridge


# Random walls (fixed seed); every query pair is walkable (a no_path answer still counts).
func _grid() -> PackedByteArray:
	var rng: RandomNumberGenerator = RandomNumberGenerator.new()
	rng.seed = 20240601
	var cells: PackedByteArray = PackedByteArray()
	cells.resize(_size * _size)
	for i: int in cells.size():
		cells[i] = 0 if rng.randf() < WALL_FRACTION else 1
	return cells


func _queries(cells: PackedByteArray, count: int) -> Array[Vector2i]:
	var rng: RandomNumberGenerator = RandomNumberGenerator.new()
	rng.seed = 7
	var ends: Array[Vector2i] = []
	while ends.size() < count * 2:
		var cell: Vector2i = Vector2i(rng.randi_range(0, _size - 1), rng.randi_range(0, _size - 1))
		if cells[cell.y * _size + cell.x] == 1:
			ends.append(cell)
	return ends


func _oracle(cells: PackedByteArray) -> AStarGrid2D:
	var grid: AStarGrid2D = AStarGrid2D.new()
	grid.region = Rect2i(0, 0, _size, _size)
	grid.diagonal_mode = AStarGrid2D.DIAGONAL_MODE_ONLY_IF_NO_OBSTACLES
	grid.update()
	for i: int in cells.size():
		if cells[i] == 0:
			grid.set_point_solid(Vector2i(i % _size, floori(i / float(_size))))
	return grid


func _bench_sync(
	bridge: AStarBridgeNode, oracle: AStarGrid2D, queries: Array[Vector2i]
) -> Dictionary:
	var started: int = Time.get_ticks_usec()
	var mismatches: int = 0
	for i: int in _sync_queries:
		var path: PackedVector2Array = bridge.find_path(
			"bench", Vector2(queries[2 * i]), Vector2(queries[2 * i + 1])
		)
		var expected: PackedVector2Array = oracle.get_point_path(queries[2 * i], queries[2 * i + 1])
		if absf(_length(path) - _length(expected)) > 1e-3:
			mismatches += 1
	var total: float = (Time.get_ticks_usec() - started) / 1000.0
	# Start = goal: no search to speak of, so this is encode + socket + sidecar hop + decode.
	var trivial_started: int = Time.get_ticks_usec()
	for i: int in _sync_queries:
		bridge.find_path("bench", Vector2(queries[2 * i]), Vector2(queries[2 * i]))
	var trivial: float = (Time.get_ticks_usec() - trivial_started) / 1000.0
	# The oracle's own time is measured apart and subtracted.
	var oracle_ms: float = _time_godot(oracle, queries, _sync_queries)
	return {
		"sync_queries": _sync_queries,
		"sync_round_trip_ms_mean": (total - oracle_ms) / _sync_queries,
		"sync_trivial_round_trip_ms_mean": trivial / _sync_queries,
		"cost_mismatches_vs_astargrid2d": mismatches,
	}


func _bench_many(bridge: AStarBridgeNode, queries: Array[Vector2i]) -> Dictionary:
	var started: int = Time.get_ticks_usec()
	var requests: Array[AStarBridgePathRequest] = []
	for i: int in _agents:
		requests.append(
			bridge.request_path("bench", Vector2(queries[2 * i]), Vector2(queries[2 * i + 1]))
		)
	var failed: int = await _wait(requests)
	var seconds: float = (Time.get_ticks_usec() - started) / 1e6
	return {
		"agents": _agents,
		"request_path_all_ms": seconds * 1000.0,
		"request_path_paths_per_second": _agents / seconds,
		"request_path_failed": failed,
	}


func _bench_batch(bridge: AStarBridgeNode, queries: Array[Vector2i]) -> Dictionary:
	var batch: Array[Dictionary] = []
	for i: int in _agents:
		batch.append({"graph": "bench", "from": queries[2 * i], "to": queries[2 * i + 1]})
	var started: int = Time.get_ticks_usec()
	var request: AStarBridgePathRequest = bridge.request_paths(batch)
	var failed: int = await _wait([request])
	var seconds: float = (Time.get_ticks_usec() - started) / 1e6
	return {
		"request_paths_batch_ms": seconds * 1000.0,
		"request_paths_paths_per_second": _agents / seconds,
		"request_paths_failed": failed,
	}


func _bench_godot(oracle: AStarGrid2D, queries: Array[Vector2i]) -> Dictionary:
	var ms: float = _time_godot(oracle, queries, _agents)
	return {
		"astargrid2d_ms_mean": ms / _agents,
		"astargrid2d_paths_per_second": _agents / (ms / 1000.0),
	}


func _time_godot(oracle: AStarGrid2D, queries: Array[Vector2i], count: int) -> float:
	var started: int = Time.get_ticks_usec()
	for i: int in count:
		oracle.get_point_path(queries[2 * i], queries[2 * i + 1])
	return (Time.get_ticks_usec() - started) / 1000.0


func _wait(requests: Array[AStarBridgePathRequest]) -> int:
	var pending: bool = true
	while pending:
		pending = false
		for request: AStarBridgePathRequest in requests:
			pending = pending or not request.is_done()
		if pending:
			await process_frame
	var failed: int = 0
	for request: AStarBridgePathRequest in requests:
		if str(request.result.get("status", "")) == "error":
			failed += 1
	return failed


func _length(path: PackedVector2Array) -> float:
	var total: float = 0.0
	for i: int in range(1, path.size()):
		total += path[i - 1].distance_to(path[i])
	return total
