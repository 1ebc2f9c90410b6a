## Benchmark of the crowd level's run, beside its peers in the same Godot run (bench/crowd.py
## drives it and prints the table): the crowd level's units (2,000 by default) on its 512 x 512
## map, unit i heading for goal i % 4, the game at 60 fps, against the autoload's sidecar.
## (a) Flow fields: the four fields ordered, then every frame each unit samples its field
##     (direction_at, timed alone) and the crowd steps, until every unit arrived; sidecar CPU,
##     main-thread times per frame, frames from the order until the first unit moved. Frames
##     are a game's 1/60 s (headless Godot runs them back to back: the rest is slept).
## (b) One exact path per unit (request_path, all sent in one frame): main-thread time, frames
##     until all answered, sidecar CPU.
## (c) AStarGrid2D.get_point_path per unit on the same grid: main-thread time.
## (d) A door closed: per field, the tiles the sidecar recomputed and re-sent (field.changed), and
##     the tiles the fields fetched again; then the door opened, closed and opened again, once
##     waiting for each (set_cells_solid) and once not (request_cells_solid): the main thread's
##     time per door change, and the frames the game went on until the answer.
## Prints one line "BENCH {json}". No figure is checked here.
## godot --headless --path demo_project --script <repo>/bench/godot/crowd_bench.gd -- [units]
extends SceneTree

const Bridge = preload("res://addons/astar_bridge/astar_bridge.gd")
const CrowdLevel = preload("res://levels/crowd_level.gd")
const CrowdMap = preload("res://levels/crowd_map.gd")
const GAME_FPS := 60
const FRAME_USEC := 1_000_000 / GAME_FPS
const READY_TIMEOUT_MS := 60000
## Frames the crowd may take to arrive (the level's time limit at 60 fps).
const MAX_FRAMES := 3600

var _bridge: Bridge = null
var _changed: Array[Dictionary] = []


func _initialize() -> void:
	_run.call_deferred()


func _run() -> void:
	var args: PackedStringArray = OS.get_cmdline_user_args()
	var units: int = args[0].to_int() if not args.is_empty() else 2000
	var autoload: Node = root.get_node_or_null(^"AStarBridge")
	if not autoload is Bridge:
		printerr("crowd bench: the AStarBridge autoload is missing")
		quit(2)
		return
	_bridge = autoload
	var started: int = Time.get_ticks_msec()
	while not _bridge.is_ready() and Time.get_ticks_msec() - started < READY_TIMEOUT_MS:
		await process_frame
	if not _bridge.is_ready():
		printerr("crowd bench: the sidecar did not get ready: %s" % _bridge.get_last_error())
		quit(2)
		return
	await _warm_up()
	# Every field.changed the sidecar sends (the autoload keeps them to itself): the bench counts
	# the tiles recomputed, which the fields do not report.
	var link: Object = _bridge.get("_link")
	var rpc: Object = link.get("rpc")
	rpc.connect("notification_received", _on_notification)
	var level := CrowdLevel.new()
	level.unit_count = units
	level.process_mode = Node.PROCESS_MODE_DISABLED  # the bench steps the crowd itself
	root.add_child(level)
	if level.upload() != OK:
		quit(2)
		return
	var report: Dictionary = {
		"units": units, "size": CrowdMap.SIZE, "fps": GAME_FPS, "load_ms": level.load_ms
	}
	Engine.max_fps = GAME_FPS
	report["fields"] = await _bench_fields(level)
	report["door"] = await _bench_door(level)
	report["paths"] = await _bench_paths(level)
	Engine.max_fps = 0
	report["astar_grid"] = _bench_astar_grid(level)
	print("BENCH %s" % JSON.stringify(report))
	level.queue_free()
	quit(0)


# A small grid, a field and a path first: the sidecar's flow-field kernels load after its start.
func _warm_up() -> void:
	var cells := PackedByteArray()
	cells.resize(64 * 64)
	cells.fill(1)
	_bridge.load_grid("warm", 64, 64, cells)
	var field: AStarBridgeFlowField = _bridge.request_flow_field(
		"warm", [Vector2i(1, 1)], {"starts": [Vector2i(60, 60)]}
	)
	while not field.is_ready():
		await process_frame
	await _bridge.request_path("warm", Vector2i(0, 0), Vector2i(63, 63)).wait()
	_bridge.drop_graph("warm")


func _bench_fields(level: CrowdLevel) -> Dictionary:
	level.spawn()  # the units stand in the level a frame before the order, as in a game
	await process_frame
	_bridge.reset_stats()
	var cpu: float = _sidecar_cpu_ms()
	var main_cpu: int = _main_thread_cpu_ns()
	var ordered: int = Time.get_ticks_usec()
	level.order()
	var crowd: Node2D = level.crowd
	# When each field's first tiles arrived (the level orders the four together; each first
	# answer brings its tiles).
	var ready_ms: Array[float] = []
	var frames: int = 0
	var sample_us := PackedFloat64Array()
	var step_us := PackedFloat64Array()
	var first_move: int = -1
	var all_moving_frame: int = -1
	var all_covered_cpu: float = -1.0
	var delta: float = 1.0 / GAME_FPS
	var frame_started: int = Time.get_ticks_usec()
	while level.crowd.active > 0 and frames < MAX_FRAMES:
		# A game's frame: headless Godot does not hold frames to max_fps, so the rest of the
		# 1/60 s is slept here, at the frame's start (after the last one's requests went out).
		var idle: int = FRAME_USEC - (Time.get_ticks_usec() - frame_started)
		if frames > 0 and idle > 0:
			OS.delay_usec(idle)
		frame_started = Time.get_ticks_usec()
		var positions: PackedVector2Array = level.crowd.get_positions()
		var goals: PackedByteArray = level.crowd.get_goals()
		var fields: Array[AStarBridgeFlowField] = level.fields
		var unknown: int = 0
		var ready: Array[bool] = []
		for field: AStarBridgeFlowField in fields:
			ready.append(field != null and field.is_ready())
		if ready.count(true) > ready_ms.size():
			ready_ms.append((Time.get_ticks_usec() - ordered) / 1000.0)
		var started: int = Time.get_ticks_usec()
		for i: int in positions.size():
			# As the crowd does: a field not ready yet is not sampled (see crowd.gd).
			if not ready[goals[i]] or fields[goals[i]].direction_at(positions[i]) == Vector2.ZERO:
				unknown += 1
		sample_us.append(Time.get_ticks_usec() - started)
		started = Time.get_ticks_usec()
		var moved: int = level.crowd.step(delta)
		step_us.append(Time.get_ticks_usec() - started)
		if moved > 0 and first_move < 0:
			first_move = frames
		if unknown == 0 and all_moving_frame < 0:
			all_moving_frame = frames
			all_covered_cpu = _sidecar_cpu_ms() - cpu
		frames += 1
		await process_frame
	var stats: Dictionary = _bridge.get_stats()
	var requests: int = 0
	var fetches: int = 0
	var tiles: int = 0
	for field: AStarBridgeFlowField in level.fields:
		requests += field.requests_sent
		fetches += field.fetches_sent
		tiles += field.tiles_received
	crowd.visible = false
	return {
		"frames": frames,
		"arrived": level.crowd.arrived,
		"wall_ms": (Time.get_ticks_usec() - ordered) / 1000.0,
		"first_move_frame": first_move,
		"fields_ready_ms": ready_ms,
		"all_sampled_frame": all_moving_frame,
		"sidecar_cpu_ms": _sidecar_cpu_ms() - cpu,
		"sidecar_cpu_to_all_sampled_ms": all_covered_cpu,
		"main_thread_cpu_ms": (_main_thread_cpu_ns() - main_cpu) / 1e6,
		"addon_main_thread_ms": stats["main_thread_ms"],
		"sample_us": sample_us,
		"step_us": step_us,
		"field_requests": requests,
		"tile_fetches": fetches,
		"tiles_received": tiles,
	}


# One door of the level's schedule closed, after the run: every field holds the whole map then.
func _bench_door(level: CrowdLevel) -> Dictionary:
	var door: Array = level.map.doors[level.first_door()]
	var cells: Array[Vector2i] = []
	cells.assign(door)
	var received: int = 0
	for field: AStarBridgeFlowField in level.fields:
		received += field.tiles_received
	_changed.clear()
	var cpu: float = _sidecar_cpu_ms()
	var started: int = Time.get_ticks_usec()
	var result: AStarBridgeResult = _bridge.set_cells_solid(level.graph_id, cells, true)
	var update_ms: float = (Time.get_ticks_usec() - started) / 1000.0
	for _frame: int in 30:
		await process_frame
	var refetched: int = -received
	for field: AStarBridgeFlowField in level.fields:
		refetched += field.tiles_received
	var tiles_x: int = ceili(float(CrowdMap.SIZE) / level.fields[0].get_tile_size())
	var changed: Array[Dictionary] = _changed.duplicate()  # the close's alone
	var sidecar_cpu: float = _sidecar_cpu_ms() - cpu
	started = Time.get_ticks_usec()
	var reopened: AStarBridgeResult = _bridge.set_cells_solid(level.graph_id, cells, false)
	var sync_open_ms: float = (Time.get_ticks_usec() - started) / 1000.0
	for _frame: int in 30:
		await process_frame
	var close_async: Dictionary = await _door_async(level.graph_id, cells, true)
	var open_async: Dictionary = await _door_async(level.graph_id, cells, false)
	return {
		"sync_open_ms": sync_open_ms,
		"async_ok": reopened.is_ok() and close_async["ok"] and open_async["ok"],
		"async_close": close_async,
		"async_open": open_async,
		"ok": result.is_ok(),
		"cells": cells.map(func(cell: Vector2i) -> Array: return [cell.x, cell.y]),
		"update_ms": update_ms,
		"sidecar_cpu_ms": sidecar_cpu,
		"changed": changed,
		"tiles_per_field": tiles_x * tiles_x,
		"fields": level.fields.size(),
		"refetched": refetched,
	}


# The door's cells made solid (or open) without waiting: the main thread's time in the call, the
# frames the game went on until the answer, and the time until then.
func _door_async(graph_id: String, cells: Array[Vector2i], solid: bool) -> Dictionary:
	var started: int = Time.get_ticks_usec()
	var edit: AStarBridgeEditRequest = _bridge.request_cells_solid(graph_id, cells, solid)
	var call_ms: float = (Time.get_ticks_usec() - started) / 1000.0
	var frames: int = 0
	while not edit.is_done():
		await process_frame
		frames += 1
	var answer_ms: float = (Time.get_ticks_usec() - started) / 1000.0
	for _frame: int in 30:
		await process_frame
	return {"ok": edit.result.is_ok(), "call_ms": call_ms, "frames": frames, "answer_ms": answer_ms}


func _bench_paths(level: CrowdLevel) -> Dictionary:
	var ends: Array[Vector2] = []
	for i: int in level.start_cells.size():
		var goal: int = i % CrowdMap.GOAL_ROOMS.size()
		ends.append(level.map_to_world(level.start_cells[i]))
		ends.append(level.map_to_world(level.map.goal_centre(goal)))
	await process_frame
	_bridge.reset_stats()
	var cpu: float = _sidecar_cpu_ms()
	var main_cpu: int = _main_thread_cpu_ns()
	var started: int = Time.get_ticks_usec()
	var requests: Array[AStarBridgePathRequest] = []
	for i: int in level.start_cells.size():
		requests.append(_bridge.request_path(level.graph_id, ends[2 * i], ends[2 * i + 1]))
	var send_ms: float = (Time.get_ticks_usec() - started) / 1000.0
	var frames: int = 0
	while _pending(requests) > 0:
		await process_frame
		frames += 1
	var stats: Dictionary = _bridge.get_stats()
	var found: int = 0
	for request: AStarBridgePathRequest in requests:
		if request.result.get("status") == "found":
			found += 1
	return {
		"paths": requests.size(),
		"found": found,
		"frames": frames,
		"wall_ms": (Time.get_ticks_usec() - started) / 1000.0,
		"send_ms": send_ms,
		"addon_main_thread_ms": stats["main_thread_ms"],
		"main_thread_cpu_ms": (_main_thread_cpu_ns() - main_cpu) / 1e6,
		"sidecar_cpu_ms": _sidecar_cpu_ms() - cpu,
		"failures": stats["failures"],
	}


func _bench_astar_grid(level: CrowdLevel) -> Dictionary:
	var grid := AStarGrid2D.new()
	grid.region = Rect2i(0, 0, CrowdMap.SIZE, CrowdMap.SIZE)
	grid.cell_size = Vector2(CrowdLevel.CELL_PX, CrowdLevel.CELL_PX)
	grid.offset = Vector2(CrowdLevel.CELL_PX / 2.0, CrowdLevel.CELL_PX / 2.0)
	grid.diagonal_mode = AStarGrid2D.DIAGONAL_MODE_ONLY_IF_NO_OBSTACLES
	grid.default_compute_heuristic = AStarGrid2D.HEURISTIC_OCTILE
	grid.default_estimate_heuristic = AStarGrid2D.HEURISTIC_OCTILE
	var started: int = Time.get_ticks_usec()
	grid.update()
	for y: int in CrowdMap.SIZE:
		for x: int in CrowdMap.SIZE:
			if level.map.cells[y * CrowdMap.SIZE + x] == 0:
				grid.set_point_solid(Vector2i(x, y))
	var build_ms: float = (Time.get_ticks_usec() - started) / 1000.0
	var main_cpu: int = _main_thread_cpu_ns()
	started = Time.get_ticks_usec()
	var found: int = 0
	for i: int in level.start_cells.size():
		var goal: Vector2i = level.map.goal_centre(i % CrowdMap.GOAL_ROOMS.size())
		if not grid.get_point_path(level.start_cells[i], goal).is_empty():
			found += 1
	return {
		"paths": level.start_cells.size(),
		"found": found,
		"build_ms": build_ms,
		"wall_ms": (Time.get_ticks_usec() - started) / 1000.0,
		"main_thread_cpu_ms": (_main_thread_cpu_ns() - main_cpu) / 1e6,
	}


func _on_notification(method: String, params: Array) -> void:
	if method == "field.changed" and not params.is_empty() and params[0] is Dictionary:
		_changed.append(params[0])


func _pending(requests: Array[AStarBridgePathRequest]) -> int:
	var count: int = 0
	for request: AStarBridgePathRequest in requests:
		if not request.is_done():
			count += 1
	return count


# CPU time (user + system) of the sidecar and every process under it (its workers), in ms.
func _sidecar_cpu_ms() -> float:
	var total: float = 0.0
	var todo: PackedInt32Array = [_bridge.get_sidecar_pid()]
	while not todo.is_empty():
		var pid: int = todo[todo.size() - 1]
		todo.remove_at(todo.size() - 1)
		var stat: String = _proc_text("/proc/%d/stat" % pid)
		if stat.is_empty():
			continue
		var fields: PackedStringArray = stat.get_slice(")", stat.count(")")).split(" ", false)
		# After "pid (comm)": state is field 0, utime field 11, stime field 12 (clock ticks).
		total += (fields[11].to_int() + fields[12].to_int()) * 10.0
		for task: String in DirAccess.get_directories_at("/proc/%d/task" % pid):
			var children: String = _proc_text("/proc/%d/task/%s/children" % [pid, task])
			for child: String in children.split(" ", false):
				todo.append(child.to_int())
	return total


# A /proc file's text (they report a size of 0, so read a buffer).
func _proc_text(path: String) -> String:
	var file: FileAccess = FileAccess.open(path, FileAccess.READ)
	if file == null:
		return ""
	return file.get_buffer(65536).get_string_from_ascii()


# CPU time the main thread has run, in nanoseconds (Linux schedstat; 0 elsewhere).
func _main_thread_cpu_ns() -> int:
	var pid: int = OS.get_process_id()
	var file: FileAccess = FileAccess.open(
		"/proc/%d/task/%d/schedstat" % [pid, pid], FileAccess.READ
	)
	if file == null:
		return 0
	var fields: PackedStringArray = file.get_buffer(256).get_string_from_ascii().split(" ")
	return fields[0].to_int()
