extends SceneTree
## Hexagonal TileMapLayers, Godot's usual workaround beside ours, in one run (issue 39).
## Godot's way: AStarGrid2D is square only, so a game builds an AStar2D by hand, one point per
## open cell at map_to_local and one connection per get_surrounding_cells neighbour. Ours:
## AStarBridge.load_tile_map_layer on the same layer (it reads the tile shape), queried through
## the socket; and the same cells on a square layer, for the hex/square query ratio.
##
## Usage: godot --headless --path tests/godot_project --script bench/godot/hex_bench.gd
##        -- [sides, default 64,128,256] [queries, default 200]
## Each side makes a side x side map (a fifth of the cells walls, seed 39) on a pointy-top hex
## layer (stacked rows, 32 x 37 tiles) and on a square one (32 x 32), and prints a table: build
## or load time, median query time (Godot: get_id_path + get_point_path; ours: find_path_result,
## synchronous, through the socket; and per query when all go in one request_paths, as a
## frame's NPCs ask), paths found, and how many costs agree (AStar2D's cost is the distance
## between the points, as ours is on an unweighted layer).

const AStarBridgeNode = preload("res://addons/astar_bridge/astar_bridge.gd")
const TestBridge = preload("res://tests/support/test_bridge.gd")
const TileFixtures = preload("res://tests/support/tile_fixtures.gd")
const COST_TOLERANCE := 1e-3


func _initialize() -> void:
	_run.call_deferred()


func _run() -> void:
	var args: PackedStringArray = OS.get_cmdline_user_args()
	var sides: PackedInt32Array = PackedInt32Array([64, 128, 256])
	if args.size() > 0:
		sides = PackedInt32Array()
		for part: String in args[0].split(","):
			sides.append(part.to_int())
	var queries: int = args[1].to_int() if args.size() > 1 else 200
	var bridge: AStarBridgeNode = TestBridge.made(PackedStringArray(["--threads", "1"]))
	bridge.config.report_failures = false
	bridge.config.request_timeout_ms = 60000
	root.add_child(bridge)
	var deadline: int = Time.get_ticks_msec() + 60000
	while not bridge.is_ready() and Time.get_ticks_msec() < deadline:
		await process_frame
	if not bridge.is_ready():
		printerr("hex_bench: the sidecar did not start: %s" % bridge.get_last_error())
		quit(1)
		return
	# A fresh sidecar loads its kernels with its first layer and query: not part of the table.
	var warm: TileMapLayer = TileFixtures.layer_from_rows(PackedStringArray(["....", "...."]))
	warm.tile_set.tile_shape = TileSet.TILE_SHAPE_HEXAGON
	bridge.load_tile_map_layer("warm", warm)
	bridge.find_path_result("warm", Vector2i(0, 0), Vector2i(3, 1))
	bridge.drop_graph("warm")
	warm.free()
	print("Godot %s; %d queries per map" % [Engine.get_version_info()["string"], queries])
	print(
		(
			"side | Godot AStar2D build ms | ours hex load ms | Godot query us | ours hex query us"
			+ " | ours batched us | ours square query us | hex/square | found | same cost"
		)
	)
	var ok: bool = true
	for side: int in sides:
		ok = ok and await _bench_side(bridge, side, queries)
	bridge.stop()
	bridge.free()
	quit(0 if ok else 1)


func _bench_side(bridge: AStarBridgeNode, side: int, queries: int) -> bool:
	var rng := RandomNumberGenerator.new()
	rng.seed = 39
	var hex: TileMapLayer = TileFixtures.layer_from_rows(PackedStringArray())
	hex.tile_set.tile_shape = TileSet.TILE_SHAPE_HEXAGON
	hex.tile_set.tile_size = Vector2i(32, 37)
	var square: TileMapLayer = TileFixtures.layer_from_rows(PackedStringArray())
	square.tile_set.tile_size = Vector2i(32, 32)
	var open: Array[Vector2i] = []
	for y: int in side:
		for x: int in side:
			var wall: bool = rng.randf() < 0.2
			hex.set_cell(Vector2i(x, y), 0, Vector2i(1 if wall else 0, 0))
			square.set_cell(Vector2i(x, y), 0, Vector2i(1 if wall else 0, 0))
			if not wall:
				open.append(Vector2i(x, y))
	var started: int = Time.get_ticks_usec()
	var by_hand: AStar2D = _by_hand(hex, open)
	var build_ms: float = (Time.get_ticks_usec() - started) / 1000.0
	started = Time.get_ticks_usec()
	var loaded: AStarBridgeResult = bridge.load_tile_map_layer("hex", hex)
	var load_ms: float = (Time.get_ticks_usec() - started) / 1000.0
	var square_loaded: AStarBridgeResult = bridge.load_tile_map_layer("square", square)
	if not loaded.is_ok() or not square_loaded.is_ok():
		printerr("hex_bench: a load failed: %s %s" % [loaded.message, square_loaded.message])
		hex.free()
		square.free()
		return false
	var godot_us := PackedFloat64Array()
	var hex_us := PackedFloat64Array()
	var square_us := PackedFloat64Array()
	var found: int = 0
	var agree: int = 0
	var batch: Array[Dictionary] = []
	for q: int in queries:
		var from: Vector2i = open[rng.randi_range(0, open.size() - 1)]
		var to: Vector2i = open[rng.randi_range(0, open.size() - 1)]
		batch.append({"graph": "hex", "from": from, "to": to})
		var a: int = from.y * side + from.x
		var b: int = to.y * side + to.x
		started = Time.get_ticks_usec()
		by_hand.get_id_path(a, b)
		var points: PackedVector2Array = by_hand.get_point_path(a, b)
		godot_us.append(Time.get_ticks_usec() - started)
		started = Time.get_ticks_usec()
		var ours: Dictionary = bridge.find_path_result("hex", from, to)
		hex_us.append(Time.get_ticks_usec() - started)
		started = Time.get_ticks_usec()
		bridge.find_path_result("square", from, to)
		square_us.append(Time.get_ticks_usec() - started)
		var godot_cost: float = _length(points) if not points.is_empty() else -1.0
		var ours_cost: float = ours["cost"] if ours["status"] == "found" else -1.0
		found += 1 if ours["status"] == "found" else 0
		if absf(godot_cost - ours_cost) <= COST_TOLERANCE * maxf(1.0, godot_cost):
			agree += 1
		else:
			print(
				(
					"differs: %s -> %s: Godot %s, ours %s (%s)"
					% [from, to, godot_cost, ours_cost, ours["status"]]
				)
			)
	# The frame's way: every query in one message (request_paths), per query.
	started = Time.get_ticks_usec()
	var answers: Array = await bridge.request_paths(batch).wait_all()
	var batch_us: float = (Time.get_ticks_usec() - started) / float(maxi(answers.size(), 1))
	var hex_query: float = _median(hex_us)
	var square_query: float = _median(square_us)
	print(
		(
			"%4d | %22.1f | %16.1f | %14.0f | %17.0f | %15.0f | %20.0f | %10.2f | %5d | %d/%d"
			% [
				side,
				build_ms,
				load_ms,
				_median(godot_us),
				hex_query,
				batch_us,
				square_query,
				hex_query / maxf(square_query, 1.0),
				found,
				agree,
				queries,
			]
		)
	)
	bridge.drop_graph("hex")
	bridge.drop_graph("square")
	hex.free()
	square.free()
	return true


# The usual workaround: an AStar2D point per open cell (id y * side + x) at map_to_local, joined
# to each open get_surrounding_cells neighbour.
static func _by_hand(layer: TileMapLayer, open: Array[Vector2i]) -> AStar2D:
	var astar := AStar2D.new()
	var side: int = layer.get_used_rect().size.x
	astar.reserve_space(open.size())
	for cell: Vector2i in open:
		astar.add_point(cell.y * side + cell.x, layer.map_to_local(cell))
	for cell: Vector2i in open:
		var id: int = cell.y * side + cell.x
		for near: Vector2i in layer.get_surrounding_cells(cell):
			if near.x < 0 or near.y < 0 or near.x >= side:
				continue
			var other: int = near.y * side + near.x
			if other > id and astar.has_point(other):
				astar.connect_points(id, other)
	return astar


static func _length(points: PackedVector2Array) -> float:
	var total: float = 0.0
	for i: int in range(1, points.size()):
		total += points[i - 1].distance_to(points[i])
	return total


static func _median(values: PackedFloat64Array) -> float:
	if values.is_empty():
		return 0.0
	var sorted: Array = Array(values)
	sorted.sort()
	return sorted[sorted.size() >> 1]
