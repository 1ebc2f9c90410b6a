extends SceneTree
## Units of any size, Godot's way beside ours, in one run (bench helper of
## bench/unit_sizes_godot.py). Godot's way: one AStarGrid2D per unit size, its walls eroded by
## hand (a cell is solid for size k unless the k x k square it anchors is open and inside the
## map), each built and kept. Ours: one grid loaded into the sidecar, every size asked of it
## through the socket ("size" in the query's options).
##
## Usage: godot --headless --path tests/godot_project --script <this> -- <map> <queries> <sizes>
## Prints one line "BENCH {json}": the map, and per size Godot's build time (the grid made and its
## eroded walls filled; the clearance pass they are read from runs once beforehand, uncounted),
## the static memory its grid added (Performance.MEMORY_STATIC), the median time of
## get_id_path, ours (find_path_result, synchronous, through the socket) on the same queries, and
## how many answers had the same cost (both sides follow the same rule: the grid's diagonal mode
## on the eroded grid). Queries join random anchors where the largest size fits (seed 38).

const ErodedGrids = preload("eroded_grids.gd")
const AStarBridgeNode = preload("res://addons/astar_bridge/astar_bridge.gd")
const TestBridge = preload("res://tests/support/test_bridge.gd")
const OPEN_CHARS := [".", "G", "S"]
const COST_TOLERANCE := 1e-3
const SQRT2 := 1.4142135623730951


func _initialize() -> void:
	_run.call_deferred()


func _run() -> void:
	var args: PackedStringArray = OS.get_cmdline_user_args()
	if args.size() != 3:
		printerr("usage: -- <map file> <queries> <sizes, e.g. 1,2,3,4>")
		quit(2)
		return
	var map: Dictionary = _read_map(args[0])
	if map.is_empty():
		printerr("cannot read the map %s" % args[0])
		quit(1)
		return
	var sizes: PackedInt32Array = PackedInt32Array()
	for part: String in args[2].split(","):
		sizes.append(part.to_int())
	var width: int = map["width"]
	var height: int = map["height"]
	var cells: PackedByteArray = map["cells"]
	var clearance: PackedByteArray = ErodedGrids.clearance(cells, width, height)
	var largest: int = sizes[sizes.size() - 1]
	var ends: Array[Vector2i] = _queries(clearance, width, largest, args[1].to_int())
	var bridge: AStarBridgeNode = TestBridge.made(PackedStringArray(["--threads", "1"]))
	bridge.config.report_failures = false
	bridge.config.request_timeout_ms = 60000
	root.add_child(bridge)
	var deadline: int = Time.get_ticks_msec() + 60000
	while not bridge.is_ready() and Time.get_ticks_msec() < deadline:
		await process_frame
	var started: int = Time.get_ticks_usec()
	var loaded: AStarBridgeResult = bridge.load_grid(
		"map", width, height, cells, AStarGrid2D.DIAGONAL_MODE_ONLY_IF_NO_OBSTACLES
	)
	var load_ms: float = (Time.get_ticks_usec() - started) / 1000.0
	if not loaded.is_ok():
		printerr("load_grid failed: %s" % loaded.message)
		quit(1)
		return
	var report: Dictionary = {
		"map": args[0].get_file(),
		"width": width,
		"height": height,
		"queries": ends.size() >> 1,
		"ours_load_ms": load_ms,
		"sizes": [],
	}
	var kept: Array[AStarGrid2D] = []  # every size's grid stays alive, as in a game
	for size: int in sizes:
		var memory_before: float = Performance.get_monitor(Performance.MEMORY_STATIC)
		started = Time.get_ticks_usec()
		var grid: AStarGrid2D = ErodedGrids.eroded_grid(clearance, width, height, size)
		var build_ms: float = (Time.get_ticks_usec() - started) / 1000.0
		var memory: float = Performance.get_monitor(Performance.MEMORY_STATIC) - memory_before
		kept.append(grid)
		var row: Dictionary = _time_queries(grid, bridge, ends, size)
		row["size"] = size
		row["godot_build_ms"] = build_ms
		row["godot_bytes"] = memory
		var rows: Array = report["sizes"]
		rows.append(row)
	print("BENCH %s" % JSON.stringify(report))
	bridge.stop()
	bridge.free()
	quit(0)


# Median microseconds of Godot's get_id_path and of our find_path_result over the queries, and
# how many answers agree (same cost, or both none).
func _time_queries(
	grid: AStarGrid2D, bridge: AStarBridgeNode, ends: Array[Vector2i], size: int
) -> Dictionary:
	var godot_us := PackedFloat64Array()
	var ours_us := PackedFloat64Array()
	var agree: int = 0
	var found: int = 0
	var options: Dictionary = {"size": size} if size != 1 else {}
	for i: int in range(0, ends.size(), 2):
		var started: int = Time.get_ticks_usec()
		var ids: Array[Vector2i] = grid.get_id_path(ends[i], ends[i + 1])
		godot_us.append(Time.get_ticks_usec() - started)
		started = Time.get_ticks_usec()
		var result: Dictionary = bridge.find_path_result("map", ends[i], ends[i + 1], options)
		ours_us.append(Time.get_ticks_usec() - started)
		var godot_cost: float = _cost(ids)
		var status: String = str(result.get("status", "error"))
		var ours_cost: float = result.get("cost", -1.0) if status == "found" else -1.0
		found += 1 if status == "found" else 0
		agree += 1 if absf(godot_cost - ours_cost) <= COST_TOLERANCE else 0
	return {
		"godot_query_us": _median(godot_us),
		"ours_query_us": _median(ours_us),
		"found": found,
		"agree": agree,
	}


static func _queries(
	clearance: PackedByteArray, width: int, size: int, count: int
) -> Array[Vector2i]:
	var anchors: Array[Vector2i] = []
	for i: int in clearance.size():
		if clearance[i] >= size:
			anchors.append(Vector2i(i % width, floori(float(i) / width)))
	var rng := RandomNumberGenerator.new()
	rng.seed = 38
	var ends: Array[Vector2i] = []
	for q: int in count:
		ends.append(anchors[rng.randi_range(0, anchors.size() - 1)])
		ends.append(anchors[rng.randi_range(0, anchors.size() - 1)])
	return ends


static func _read_map(path: String) -> Dictionary:
	var text: String = FileAccess.get_file_as_string(path)
	if text.is_empty():
		return {}
	var lines: PackedStringArray = text.split("\n")
	var width: int = 0
	var height: int = 0
	var first: int = 0
	for i: int in lines.size():
		var line: String = lines[i].strip_edges()
		if line.begins_with("height"):
			height = line.get_slice(" ", 1).to_int()
		elif line.begins_with("width"):
			width = line.get_slice(" ", 1).to_int()
		elif line == "map":
			first = i + 1
			break
	var cells := PackedByteArray()
	cells.resize(width * height)
	for y: int in height:
		var row: String = lines[first + y].strip_edges()
		for x: int in width:
			cells[y * width + x] = 1 if row[x] in OPEN_CHARS else 0
	return {"width": width, "height": height, "cells": cells}


static func _cost(ids: Array[Vector2i]) -> float:
	if ids.is_empty():
		return -1.0
	var cost: float = 0.0
	for i: int in range(1, ids.size()):
		var step: Vector2i = (ids[i] - ids[i - 1]).abs()
		cost += SQRT2 if step.x + step.y == 2 else 1.0
	return cost


static func _median(values: PackedFloat64Array) -> float:
	if values.is_empty():
		return 0.0
	var sorted: Array = Array(values)
	sorted.sort()
	return sorted[sorted.size() >> 1]
