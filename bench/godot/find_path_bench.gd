## Benchmark of the addon as a game sees it, beside its peers in the same run: per query,
## synchronous find_path against the sidecar, the same call against a msgpack echo server (the
## floor: socket + codec, no search), Godot's AStarGrid2D.get_point_path on the same queries,
## where the GDScript side's time goes (encode, decode, dispatch), and 300 request_path sent in
## one frame at 60 fps (frames until all answered; main-thread CPU per path, idle frames of the
## same run subtracted). Then the README's configuration: an autoload with default settings that
## starts its own sidecar, an AStarGrid2D level (cell size 32) loaded with load_astar_grid_2d and
## one request_path per NPC with Vector2i cells, as the README shows (spec "readme": a Moving AI
## map and its scenario's queries). Prints one line "BENCH {json}" with raw per-query
## microseconds. Run by
## bench/addon_roundtrip.py:
## godot --headless --path tests/godot_project --script <repo>/bench/godot/find_path_bench.gd
##     -- <spec.json>
extends SceneTree

const AStarBridgeNode = preload("res://addons/astar_bridge/astar_bridge.gd")
const MsgpackEncoder = preload("res://addons/astar_bridge/msgpack/msgpack_encoder.gd")
const MsgpackDecoder = preload("res://addons/astar_bridge/msgpack/msgpack_decoder.gd")
const PathWire = preload("res://addons/astar_bridge/runtime/path_wire.gd")
const WARM_UP := 20
const FRAME_RUNS := 10
## Runs of the 300 requests before those measured (a fresh connection's first batch pays for
## caches and threads starting).
const FRAME_WARM_UP := 1
const GAME_FPS := 60


func _initialize() -> void:
	_run.call_deferred()


func _run() -> void:
	var args: PackedStringArray = OS.get_cmdline_user_args()
	var spec: Dictionary = JSON.parse_string(FileAccess.get_file_as_string(args[0]))
	var report: Dictionary = {"maps": []}
	var maps: Array = spec["maps"]
	if not maps.is_empty():  # empty: the README configuration alone
		var sidecar: AStarBridgeNode = _make_bridge("SIDECAR")
		var echo: AStarBridgeNode = _make_bridge("ECHO")
		for map: Dictionary in maps:
			var figures: Dictionary = _bench_map(sidecar, echo, map, int(spec["sync"]))
			var reported: Array = report["maps"]
			reported.append(figures)
		report["frame"] = await _bench_frame(sidecar, maps[0], int(spec["agents"]), false)
		report["frame_batched"] = await _bench_frame(sidecar, maps[0], int(spec["agents"]), true)
		for bridge: AStarBridgeNode in [sidecar, echo]:
			bridge.stop()
			bridge.free()
	if spec.has("readme"):
		report["readme"] = await _bench_readme(
			spec["readme"], int(spec["sync"]), int(spec["agents"])
		)
	print("BENCH %s" % JSON.stringify(report))
	quit(0)


# The README's configuration: default settings (the sidecar the autoload starts itself; only
# the Python it runs is named, as the README's step 2 does), the level as an AStarGrid2D of
# 32-pixel cells, cells in (Vector2i): synchronous find_path beside the same AStarGrid2D's
# get_point_path, then [param agents] individual request_path calls in one frame.
func _bench_readme(map: Dictionary, count: int, agents: int) -> Dictionary:
	var bridge: AStarBridgeNode = AStarBridgeNode.new()
	bridge.config.python_executable = str(map["python"])
	root.add_child(bridge)  # starts its sidecar (autostart)
	var waited: int = 0
	while not bridge.is_ready() and waited < 6000:
		await process_frame
		waited += 1
	var ready_unix: float = Time.get_unix_time_from_system()
	var id: String = map["name"]
	var cells: PackedByteArray = Marshalls.base64_to_raw(map["cells"])
	var level: AStarGrid2D = _oracle(cells, int(map["width"]), int(map["height"]), Vector2(32, 32))
	var loaded: AStarBridgeResult = bridge.load_astar_grid_2d(id, level)
	if not loaded.is_ok():
		printerr("bench: load of %s failed: %s" % [id, loaded.message])
	var ends: Array[Vector2i] = _ends(map)
	count = mini(count, ends.size() >> 1)
	for i: int in mini(WARM_UP, count):
		bridge.find_path(id, ends[2 * i], ends[2 * i + 1])
	var sync_us: Array[int] = []
	var godot_us: Array[int] = []
	var mismatches: int = 0
	for i: int in count:
		var started: int = Time.get_ticks_usec()
		var path: PackedVector2Array = bridge.find_path(id, ends[2 * i], ends[2 * i + 1])
		sync_us.append(Time.get_ticks_usec() - started)
		started = Time.get_ticks_usec()
		var expected: PackedVector2Array = level.get_point_path(ends[2 * i], ends[2 * i + 1])
		godot_us.append(Time.get_ticks_usec() - started)
		if absf(_length(path) - _length(expected)) > 1e-3:
			mismatches += 1
	var frame: Dictionary = await _bench_frame(bridge, map, agents, false, true)
	# what the sidecar logged (its start-up lines: when its kernels were in), to set beside the rounds
	var sidecar_log: PackedStringArray = bridge._link._sidecar.stderr_tail
	bridge.stop()
	bridge.free()
	return {
		"name": id,
		"size": [int(map["width"]), int(map["height"])],
		"sync_us": sync_us,
		"godot_us": godot_us,
		"mismatches": mismatches,
		"frame": frame,
		"ready_unix": ready_unix,
		"sidecar_log": Array(sidecar_log),
	}


func _make_bridge(which: String) -> AStarBridgeNode:
	var bridge: AStarBridgeNode = AStarBridgeNode.new()
	bridge.config.autostart = false
	bridge.config.host = "127.0.0.1"
	bridge.config.port = OS.get_environment("BENCH_%s_PORT" % which).to_int()
	bridge.config.token = OS.get_environment("BENCH_%s_TOKEN" % which)
	bridge.config.report_failures = false
	bridge.config.connect_timeout_ms = 30000
	bridge.config.request_timeout_ms = 30000
	bridge.config.heartbeat_ms = 0
	bridge.config.io_thread = OS.get_environment("BENCH_IO_THREAD") != "0"
	root.add_child(bridge)
	bridge.start()
	return bridge


func _bench_map(
	sidecar: AStarBridgeNode, echo: AStarBridgeNode, map: Dictionary, count: int
) -> Dictionary:
	var id: String = map["name"]
	var width: int = int(map["width"])
	var height: int = int(map["height"])
	var cells: PackedByteArray = Marshalls.base64_to_raw(map["cells"])
	for bridge: AStarBridgeNode in [sidecar, echo]:
		var loaded: AStarBridgeResult = bridge.load_grid(id, width, height, cells)
		if not loaded.is_ok():
			printerr("bench: load of %s failed: %s" % [id, loaded.message])
	var ends: Array[Vector2i] = _ends(map)
	count = mini(count, ends.size() >> 1)
	var oracle: AStarGrid2D = _oracle(cells, width, height)
	for i: int in mini(WARM_UP, count):
		sidecar.find_path(id, Vector2(ends[2 * i]), Vector2(ends[2 * i + 1]))
		echo.find_path(id, Vector2(ends[2 * i]), Vector2(ends[2 * i + 1]))
	var sync_us: Array[int] = []
	var echo_us: Array[int] = []
	var godot_us: Array[int] = []
	var mismatches: int = 0
	for i: int in count:
		var from: Vector2i = ends[2 * i]
		var to: Vector2i = ends[2 * i + 1]
		var started: int = Time.get_ticks_usec()
		var path: PackedVector2Array = sidecar.find_path(id, Vector2(from), Vector2(to))
		sync_us.append(Time.get_ticks_usec() - started)
		started = Time.get_ticks_usec()
		echo.find_path(id, Vector2(from), Vector2(to))
		echo_us.append(Time.get_ticks_usec() - started)
		started = Time.get_ticks_usec()
		var expected: PackedVector2Array = oracle.get_point_path(from, to)
		godot_us.append(Time.get_ticks_usec() - started)
		if absf(_length(path) - _length(expected)) > 1e-3:
			mismatches += 1
	var figures: Dictionary = {
		"name": id,
		"size": [width, height],
		"sync_us": sync_us,
		"echo_us": echo_us,
		"godot_us": godot_us,
		"mismatches": mismatches,
	}
	figures.merge(_breakdown(sidecar, id, ends, count))
	return figures


# The GDScript side of one request, piece by piece, on the real queries and real answers.
func _breakdown(
	sidecar: AStarBridgeNode, id: String, ends: Array[Vector2i], count: int
) -> Dictionary:
	var encoder: MsgpackEncoder = MsgpackEncoder.new()
	var decoder: MsgpackDecoder = MsgpackDecoder.new()
	var encode_us: Array[int] = []
	var decode_us: Array[int] = []
	var dispatch_us: Array[int] = []
	var response_bytes: Array[int] = []
	for i: int in count:
		var from: Vector2 = Vector2(ends[2 * i])
		var to: Vector2 = Vector2(ends[2 * i + 1])
		var answer: Dictionary = sidecar.find_path_result(id, from, to)
		var points: PackedVector2Array = answer["points"]
		var ids: PackedInt64Array = answer["ids"]
		var wire: Dictionary = {
			"status": answer["status"],
			"points": points.to_byte_array(),
			"nodes": ids.to_byte_array(),
			"cost": answer["cost"],
			"expanded": answer["expanded"],
		}
		var bytes: PackedByteArray = encoder.encode([1, i, null, wire])
		response_bytes.append(bytes.size())
		var started: int = Time.get_ticks_usec()
		var params: Dictionary = {
			"graph": id, "start": PathWire.endpoint(from), "goal": PathWire.endpoint(to)
		}
		encoder.encode_request(i, "path.find", params)
		encode_us.append(Time.get_ticks_usec() - started)
		started = Time.get_ticks_usec()
		decoder.feed(bytes)
		var message: Array = decoder.take_messages()[0]
		decode_us.append(Time.get_ticks_usec() - started)
		started = Time.get_ticks_usec()
		var request: AStarBridgePathRequest = AStarBridgePathRequest.new()
		request.finish(PathWire.path_result({"error": message[2], "result": message[3]}, 2))
		dispatch_us.append(Time.get_ticks_usec() - started)
	return {
		"encode_us": encode_us,
		"decode_us": decode_us,
		"dispatch_us": dispatch_us,
		"response_bytes": response_bytes,
	}


# 300 request_path in one frame of a game at 60 fps, FRAME_RUNS times. Each run's main-thread
# CPU goes from the first request_path until the game saw every request done (is_done, checked
# once a frame as a game would), and is followed by as many idle frames measured the same way
# (same awaits, same completion check over the same finished requests): the engine's own
# per-frame work at 60 fps is in both, so their difference is what the paths cost. [param batched]:
# the same paths asked in one request_paths (one grid, one options map: one path.find_packed).
# [param cells]: the endpoints as the Vector2i cells they are (else Vector2, as a plain grid takes).
func _bench_frame(
	sidecar: AStarBridgeNode, map: Dictionary, agents: int, batched: bool, cells: bool = false
) -> Dictionary:
	var id: String = map["name"]
	var ends: Array[Vector2i] = _ends(map)
	agents = mini(agents, ends.size() >> 1)
	var oracle: AStarGrid2D = _oracle(
		Marshalls.base64_to_raw(map["cells"]), int(map["width"]), int(map["height"])
	)
	var godot_cpu: int = _main_thread_cpu_ns()
	var godot_started: int = Time.get_ticks_usec()
	for i: int in agents:
		oracle.get_point_path(ends[2 * i], ends[2 * i + 1])
	var godot_ms: float = (Time.get_ticks_usec() - godot_started) / 1000.0
	var godot_cpu_ms: float = (_main_thread_cpu_ns() - godot_cpu) / 1e6
	var froms: Array[Vector2] = []
	var tos: Array[Vector2] = []
	var queries: Array[Dictionary] = []
	for i: int in agents:
		froms.append(Vector2(ends[2 * i]))
		tos.append(Vector2(ends[2 * i + 1]))
		queries.append({"graph": id, "from": froms[i], "to": tos[i]})
	Engine.max_fps = GAME_FPS
	var runs: Array[Dictionary] = []
	var warm_up_runs: Array[Dictionary] = []  # the same figures, not counted in the summaries
	var requests: Array[AStarBridgePathRequest] = []
	for run: int in FRAME_WARM_UP + FRAME_RUNS:
		await process_frame
		sidecar.reset_stats()
		var cpu: int = _main_thread_cpu_ns()
		var started_unix: float = Time.get_unix_time_from_system()
		var started: int = Time.get_ticks_usec()
		if batched:
			requests.append(sidecar.request_paths(queries))
		elif cells:
			for i: int in agents:
				requests.append(sidecar.request_path(id, ends[2 * i], ends[2 * i + 1]))
		else:
			for i: int in agents:
				requests.append(sidecar.request_path(id, froms[i], tos[i]))
		var send_cpu_ms: float = (_main_thread_cpu_ns() - cpu) / 1e6
		var frames: int = 0
		var frame_starts: Array[int] = []  # when each later frame's scripts began
		while _pending(requests) > 0:
			await process_frame
			frame_starts.append(Time.get_ticks_usec())
			frames += 1
		var cpu_ms: float = (_main_thread_cpu_ns() - cpu) / 1e6
		var ms: float = (Time.get_ticks_usec() - started) / 1000.0
		var stats: Dictionary = sidecar.get_stats()
		# The last completion: the longest latency (all of a frame's answers complete together,
		# the first asked has waited longest), and the frame it fell in (0: the one asked in).
		var answered_ms: float = stats["latency_ms_max"]
		var answered_frame: int = 0
		for at: int in frame_starts:
			if at - started < answered_ms * 1000.0:
				answered_frame += 1
		var idle: int = _main_thread_cpu_ns()
		_pending(requests)
		for frame: int in frames:
			await process_frame
			_pending(requests)
		var idle_cpu_ms: float = (_main_thread_cpu_ns() - idle) / 1e6
		requests.clear()  # freed here, outside both measurements
		(
			(warm_up_runs if run < FRAME_WARM_UP else runs)
			. append(
				{
					"frames": frames,
					"ms": ms,
					"main_thread_ms": stats["main_thread_ms"],
					"send_cpu_ms": send_cpu_ms,
					"main_thread_cpu_ms": cpu_ms,
					"idle_cpu_ms": idle_cpu_ms,
					"failures": stats["failures"],
					"messages": stats.get("messages", -1),
					"answered_ms": answered_ms,
					"answered_frame": answered_frame,
					"frame_wait_ms": stats.get("frame_wait_ms", 0.0),
					"at_unix": started_unix,
				}
			)
		)
	Engine.max_fps = 0
	return {
		"map": id,
		"agents": agents,
		"batched": batched,
		"fps": GAME_FPS,
		"warm_up": FRAME_WARM_UP,
		"godot_ms": godot_ms,
		"godot_cpu_ms": godot_cpu_ms,
		"runs": runs,
		"warm_up_runs": warm_up_runs,
	}


# CPU time the main thread has run, in nanoseconds (Linux schedstat; 0 elsewhere): unlike wall
# time, it does not count the time other processes of a busy machine took the core. The kernel
# brings that sum up to date only when the thread is descheduled or at a scheduler tick (so a
# bare read can miss milliseconds): a 1 us sleep first makes it exact, at the cost of the same
# few microseconds of CPU in every reading.
func _main_thread_cpu_ns() -> int:
	OS.delay_usec(1)
	var pid: int = OS.get_process_id()
	var file: FileAccess = FileAccess.open(
		"/proc/%d/task/%d/schedstat" % [pid, pid], FileAccess.READ
	)
	if file == null:
		return 0
	var fields: PackedStringArray = file.get_buffer(256).get_string_from_ascii().split(" ")
	return fields[0].to_int()


func _pending(requests: Array[AStarBridgePathRequest]) -> int:
	var count: int = 0
	for request: AStarBridgePathRequest in requests:
		if not request.is_done():
			count += 1
	return count


func _ends(map: Dictionary) -> Array[Vector2i]:
	var ends: Array[Vector2i] = []
	var queries: Array = map["queries"]
	for query: Array in queries:
		ends.append(Vector2i(int(query[0]), int(query[1])))
		ends.append(Vector2i(int(query[2]), int(query[3])))
	return ends


func _oracle(
	cells: PackedByteArray, width: int, height: int, cell_size: Vector2 = Vector2.ONE
) -> AStarGrid2D:
	var grid: AStarGrid2D = AStarGrid2D.new()
	grid.region = Rect2i(0, 0, width, height)
	grid.cell_size = cell_size
	grid.diagonal_mode = AStarGrid2D.DIAGONAL_MODE_ONLY_IF_NO_OBSTACLES
	grid.update()
	for i: int in cells.size():
		if cells[i] == 0:
			grid.set_point_solid(Vector2i(i % width, floori(i / float(width))))
	return grid


func _length(path: PackedVector2Array) -> float:
	var total: float = 0.0
	for i: int in range(1, path.size()):
		total += path[i - 1].distance_to(path[i])
	return total
