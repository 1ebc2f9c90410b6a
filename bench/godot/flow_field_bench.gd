## Benchmark of the flow-field resource's per-frame cost on the main thread, beside peers in the
## same run: [code]units[/code] units on a grid heading to 4 goals (one shared field per goal),
## per frame every unit's direction_at(), every unit's next_waypoint() (the crowd agents' call;
## answered from the field's per-cell cache while units stay in their cells, and with the cache
## off, as if every unit had entered a new cell),
## a GDScript loop that only reads each unit's position (the floor of any per-unit loop), and
## AStarGrid2D.get_point_path for [code]godot_paths[/code] of the same units (what asking a path
## per unit costs the frame). Also the frames and milliseconds from request_flow_field() until a
## first unit gets a direction. Prints one line "BENCH {json}" with raw per-frame microseconds.
## Run by bench/flowfield_addon.py:
## godot --headless --path tests/godot_project --script <repo>/bench/godot/flow_field_bench.gd
##     -- <spec.json>
extends SceneTree

const AStarBridgeNode = preload("res://addons/astar_bridge/astar_bridge.gd")
const FlowField = preload("res://addons/astar_bridge/api/flow_field.gd")


func _initialize() -> void:
	_run.call_deferred()


func _run() -> void:
	var spec: Dictionary = JSON.parse_string(
		FileAccess.get_file_as_string(OS.get_cmdline_user_args()[0])
	)
	var bridge: AStarBridgeNode = AStarBridgeNode.new()
	bridge.config.connect_timeout_ms = 60000
	bridge.config.request_timeout_ms = 60000
	bridge.config.load_timeout_ms = 120000
	bridge.config.report_failures = false
	root.add_child(bridge)
	var width: int = spec["width"]
	var height: int = spec["height"]
	var cells: PackedByteArray = Marshalls.base64_to_raw(spec["cells"])
	var extra: Dictionary = {}
	if int(spec["cluster_size"]) > 0:
		extra["hierarchy"] = {"cluster_size": int(spec["cluster_size"])}
	var mode := AStarGrid2D.DIAGONAL_MODE_ONLY_IF_NO_OBSTACLES
	var loaded: bool = bridge.load_grid("crowd", width, height, cells, mode, extra).is_ok()
	var goals: Array[Vector2i] = _cells(spec["goals"])
	var units: Array[Vector2i] = _cells(spec["units"])
	var positions := PackedVector2Array()
	for unit: Vector2i in units:
		positions.append(Vector2(unit))  # a grid without cell_size: positions are cells
	var report: Dictionary = {"loaded": loaded, "units": units.size(), "size": [width, height]}
	# The order: 4 fields, every unit sampling its own each frame until one has a direction.
	var fields: Array[FlowField] = []
	var ordered: int = Time.get_ticks_usec()
	for goal: Vector2i in goals:
		fields.append(bridge.request_flow_field("crowd", [goal]))
	var frames: int = 0
	var first_ms: float = -1.0
	while first_ms < 0.0 and frames < 600:
		for i: int in positions.size():
			if fields[i % fields.size()].direction_at(positions[i]) != Vector2.ZERO:
				first_ms = (Time.get_ticks_usec() - ordered) / 1000.0
				break
		if first_ms < 0.0:
			await process_frame
			frames += 1
	report["first_direction_frames"] = frames
	report["first_direction_ms"] = first_ms
	# Every unit's tile fetched (they ask as they sample).
	var settle: int = 0
	while _unknown(fields, positions) > 0 and settle < 3000:
		await process_frame
		settle += 1
	report["settle_frames"] = settle
	report["unknown_after_settle"] = _unknown(fields, positions)
	var requests: int = 0
	var fetches: int = 0
	var tiles: int = 0
	for field: FlowField in fields:
		requests += field.requests_sent
		fetches += field.fetches_sent
		tiles += field.tiles_received
	report["field_requests"] = requests
	report["field_fetches"] = fetches
	report["tiles_held"] = tiles
	var frame_count: int = spec["frames"]
	report["direction_at_us"] = await _frames(
		frame_count, _sample_directions.bind(fields, positions)
	)
	var warm: Callable = _sample_waypoints.bind(fields, positions)
	report["next_waypoint_us"] = await _frames(frame_count, warm)
	for field: FlowField in fields:
		field.cache_waypoints = false  # every call walks its chain: units all in new cells
	var cold: Callable = _sample_waypoints.bind(fields, positions)
	report["next_waypoint_budget_us"] = await _frames(mini(frame_count, 20), cold)
	for field: FlowField in fields:
		field.waypoint_budget_usec = 0  # and no budget: the raw cost of every walk
	report["next_waypoint_cold_us"] = await _frames(mini(frame_count, 20), cold)
	report["floor_us"] = await _frames(frame_count, _floor.bind(positions))
	report["godot_paths"] = _godot_paths(
		width, height, cells, goals, units, int(spec["godot_paths"])
	)
	print("BENCH %s" % JSON.stringify(report))
	bridge.stop()
	bridge.free()
	quit(0)


# Runs [param work] once in each of [param count] frames; its microseconds per frame.
func _frames(count: int, work: Callable) -> Array:
	var times: Array = []
	for _i: int in count:
		await process_frame
		var started: int = Time.get_ticks_usec()
		work.call()
		times.append(Time.get_ticks_usec() - started)
	return times


func _sample_directions(fields: Array[FlowField], positions: PackedVector2Array) -> void:
	var total := Vector2.ZERO
	var count: int = fields.size()
	for i: int in positions.size():
		total += fields[i % count].direction_at(positions[i])


func _sample_waypoints(fields: Array[FlowField], positions: PackedVector2Array) -> void:
	var total := Vector2.ZERO
	var count: int = fields.size()
	for i: int in positions.size():
		total += fields[i % count].next_waypoint(positions[i], 16)


func _floor(positions: PackedVector2Array) -> void:
	var total := Vector2.ZERO
	for i: int in positions.size():
		total += positions[i]


func _unknown(fields: Array[FlowField], positions: PackedVector2Array) -> int:
	var unknown: int = 0
	for i: int in positions.size():
		var field: FlowField = fields[i % fields.size()]
		if field.state_at(field.world_to_cell(positions[i])) == FlowField.State.UNKNOWN:
			field.direction_at(positions[i])
			unknown += 1
	return unknown


# AStarGrid2D.get_point_path for the first [param count] units to their goals: total and per path.
func _godot_paths(
	width: int,
	height: int,
	cells: PackedByteArray,
	goals: Array[Vector2i],
	units: Array[Vector2i],
	count: int
) -> Dictionary:
	var grid := AStarGrid2D.new()
	grid.region = Rect2i(0, 0, width, height)
	grid.diagonal_mode = AStarGrid2D.DIAGONAL_MODE_ONLY_IF_NO_OBSTACLES
	grid.update()
	for y: int in height:
		for x: int in width:
			if cells[y * width + x] == 0:
				grid.set_point_solid(Vector2i(x, y))
	var started: int = Time.get_ticks_usec()
	var found: int = 0
	for i: int in mini(count, units.size()):
		if not grid.get_point_path(units[i], goals[i % goals.size()]).is_empty():
			found += 1
	return {
		"paths": mini(count, units.size()), "found": found, "us": Time.get_ticks_usec() - started
	}


func _cells(pairs: Array) -> Array[Vector2i]:
	var out: Array[Vector2i] = []
	for pair: Array in pairs:
		out.append(Vector2i(int(pair[0]), int(pair[1])))
	return out
