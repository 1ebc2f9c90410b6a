## Serializer parity, Godot side: builds each engine graph source, serializes it, uploads it to a
## real sidecar through the AStarBridge autoload script, asks for paths, and writes JSON for
## tests/addon/test_serializer_parity.py: the load parameters (bin as {"$bin": base64}), each
## query with the sidecar's answer and, where Godot has one, its own path cost (the oracle).
## Usage: godot --headless --path tests/godot_project --script res://tests/support/parity_dump.gd
##        -- <output.json>
extends SceneTree

const Bridge = preload("res://addons/astar_bridge/astar_bridge.gd")
const GridSerializer = preload("res://addons/astar_bridge/serializers/grid_serializer.gd")
const WaypointSerializer = preload("res://addons/astar_bridge/serializers/waypoint_serializer.gd")
const NavmeshSerializer = preload("res://addons/astar_bridge/serializers/navmesh_serializer.gd")
const TileFixtures = preload("res://tests/support/tile_fixtures.gd")
const WALLS: PackedStringArray = [
	"..........",
	".####.....",
	"....#..~~.",
	"....#..~~.",
	".##.#.....",
	"....####..",
	"..........",
	"......#...",
]

var _bridge: Bridge = null
var _cases: Array[Dictionary] = []


func _initialize() -> void:
	_run.call_deferred()


func _run() -> void:
	var args: PackedStringArray = OS.get_cmdline_user_args()
	if args.is_empty():
		printerr("parity_dump: give the output path")
		quit(2)
		return
	_bridge = Bridge.new()
	if OS.get_environment("ASTAR_BRIDGE_PYTHON").is_empty():
		var venv: String = ProjectSettings.globalize_path("res://").path_join(
			"../../.venv/bin/python"
		)
		_bridge.config.python_executable = venv.simplify_path()
	_bridge.config.extra_arguments = PackedStringArray(["--threads", "1", "--log-level", "ERROR"])
	_bridge.config.connect_timeout_ms = 20000
	_bridge.config.request_timeout_ms = 10000
	root.add_child(_bridge)
	_astar_grid_case("astar_grid_no_corner_cutting", AStarGrid2D.DIAGONAL_MODE_ONLY_IF_NO_OBSTACLES)
	_astar_grid_case("astar_grid_always", AStarGrid2D.DIAGONAL_MODE_ALWAYS)
	_astar_grid_case("astar_grid_never", AStarGrid2D.DIAGONAL_MODE_NEVER)
	_astar_grid_case("astar_grid_one_walkable", AStarGrid2D.DIAGONAL_MODE_AT_LEAST_ONE_WALKABLE)
	_tile_map_case()
	_astar_2d_case()
	_astar_3d_case()
	_navigation_polygon_case()
	_navigation_mesh_case()
	var file: FileAccess = FileAccess.open(args[0], FileAccess.WRITE)
	file.store_string(JSON.stringify({"cases": _cases}, " "))
	file.close()
	_bridge.stop()
	print("parity_dump: %d cases" % _cases.size())
	quit(0)


func _grid_from_walls(mode: AStarGrid2D.DiagonalMode) -> AStarGrid2D:
	var grid := AStarGrid2D.new()
	grid.region = Rect2i(2, 1, WALLS[0].length(), WALLS.size())
	grid.cell_size = Vector2(16, 16)
	grid.offset = Vector2(8, 8)
	grid.diagonal_mode = mode
	grid.update()
	for y: int in WALLS.size():
		for x: int in WALLS[y].length():
			var cell := Vector2i(2 + x, 1 + y)
			grid.set_point_solid(cell, WALLS[y][x] == "#")
			if WALLS[y][x] == "~":
				grid.set_point_weight_scale(cell, 3.0)
	return grid


func _astar_grid_case(name: String, mode: AStarGrid2D.DiagonalMode) -> void:
	var grid: AStarGrid2D = _grid_from_walls(mode)
	var params: Dictionary = GridSerializer.from_astar_grid_2d(grid, name)
	_upload(GridSerializer.METHOD, params)
	var queries: Array[Dictionary] = []
	for pair: Array in [
		[Vector2i(2, 1), Vector2i(11, 8)],
		[Vector2i(2, 3), Vector2i(8, 3)],
		[Vector2i(3, 6), Vector2i(10, 1)],
		[Vector2i(7, 4), Vector2i(11, 4)]
	]:
		var start: Vector2i = pair[0]
		var goal: Vector2i = pair[1]
		var from: Vector2 = grid.get_point_position(start)
		var to: Vector2 = grid.get_point_position(goal)
		var oracle: float = _grid_cost(grid, grid.get_id_path(start, goal))
		queries.append(_query(name, from, to, oracle))
	_add_case(name, GridSerializer.METHOD, params, queries)


func _tile_map_case() -> void:
	var layer: TileMapLayer = _layer()
	var params: Dictionary = GridSerializer.from_tile_map_layer(layer, "tile_map")
	_upload(GridSerializer.METHOD, params)
	var queries: Array[Dictionary] = []
	for pair: Array in [[Vector2i(0, 0), Vector2i(9, 7)], [Vector2i(0, 2), Vector2i(9, 3)]]:
		var start: Vector2i = pair[0]
		var goal: Vector2i = pair[1]
		var from: Vector2 = layer.map_to_local(start)
		var to: Vector2 = layer.map_to_local(goal)
		queries.append(_query("tile_map", from, to, -1.0))
	_add_case("tile_map", GridSerializer.METHOD, params, queries)
	layer.free()


func _astar_2d_case() -> void:
	var astar := AStar2D.new()
	var rng := RandomNumberGenerator.new()
	rng.seed = 11
	for i: int in 30:
		astar.add_point(
			i * 3 + 1,
			Vector2(rng.randf_range(0, 100), rng.randf_range(0, 100)),
			rng.randf_range(1.0, 3.0)
		)
	for i: int in 30:
		for j: int in 3:
			var other: int = rng.randi_range(0, 29)
			if other != i:
				astar.connect_points(i * 3 + 1, other * 3 + 1, rng.randf() < 0.6)
	astar.set_point_disabled(7 * 3 + 1)
	var params: Dictionary = WaypointSerializer.from_astar_2d(astar, "astar_2d")
	_upload(WaypointSerializer.METHOD, params)
	var queries: Array[Dictionary] = []
	for pair: Array in [[1, 88], [4, 49], [88, 1], [13, 70], [31, 2 * 3 + 1]]:
		var from: int = pair[0]
		var to: int = pair[1]
		queries.append(
			_query("astar_2d", from, to, _point_cost(astar, astar.get_id_path(from, to)))
		)
	_add_case("astar_2d", WaypointSerializer.METHOD, params, queries)


func _astar_3d_case() -> void:
	var astar := AStar3D.new()
	for i: int in 5:
		for j: int in 5:
			astar.add_point(i * 5 + j, Vector3(i, (i + j) % 3 * 0.5, j), 1.0 + (i * j) % 3)
	for i: int in 5:
		for j: int in 5:
			if i < 4:
				astar.connect_points(i * 5 + j, (i + 1) * 5 + j, j != 2)
			if j < 4:
				astar.connect_points(i * 5 + j, i * 5 + j + 1)
	var params: Dictionary = WaypointSerializer.from_astar_3d(astar, "astar_3d")
	_upload(WaypointSerializer.METHOD, params)
	var queries: Array[Dictionary] = []
	for pair: Array in [[0, 24], [24, 0], [4, 20], [12, 2]]:
		var from: int = pair[0]
		var to: int = pair[1]
		queries.append(
			_query("astar_3d", from, to, _point_cost(astar, astar.get_id_path(from, to)))
		)
	_add_case("astar_3d", WaypointSerializer.METHOD, params, queries)


func _navigation_polygon_case() -> void:
	# An L-shaped floor: a horizontal bar and a vertical bar, four convex polygons.
	var nav := NavigationPolygon.new()
	nav.vertices = PackedVector2Array(
		[
			Vector2(0, 0),
			Vector2(40, 0),
			Vector2(40, 10),
			Vector2(0, 10),
			Vector2(80, 0),
			Vector2(80, 10),
			Vector2(80, 50),
			Vector2(70, 50),
			Vector2(70, 10),
		]
	)
	nav.add_polygon(PackedInt32Array([0, 1, 2, 3]))
	nav.add_polygon(PackedInt32Array([1, 4, 5, 8, 2]))
	nav.add_polygon(PackedInt32Array([8, 5, 6, 7]))
	var frame := Transform2D(0.0, Vector2(100, 20))
	var params: Dictionary = NavmeshSerializer.from_navigation_polygon(nav, "navpoly", frame)
	_upload(NavmeshSerializer.METHOD, params)
	var queries: Array[Dictionary] = []
	for pair: Array in [[Vector2(105, 25), Vector2(175, 65)], [Vector2(130, 28), Vector2(172, 40)]]:
		queries.append(_query("navpoly", pair[0], pair[1], -1.0))
	_add_case("navpoly", NavmeshSerializer.METHOD, params, queries)


func _navigation_mesh_case() -> void:
	var mesh := NavigationMesh.new()
	mesh.vertices = PackedVector3Array(
		[
			Vector3(0, 0, 0),
			Vector3(4, 0, 0),
			Vector3(4, 0, 1),
			Vector3(0, 0, 1),
			Vector3(5, 0.5, 0),
			Vector3(5, 0.5, 1),
			Vector3(5, 0.5, 5),
			Vector3(4, 0.5, 5),
		]
	)
	mesh.add_polygon(PackedInt32Array([0, 3, 2, 1]))
	mesh.add_polygon(PackedInt32Array([1, 2, 5, 4]))
	mesh.add_polygon(PackedInt32Array([2, 7, 6, 5]))
	var params: Dictionary = NavmeshSerializer.from_navigation_mesh(mesh, "navmesh")
	_upload(NavmeshSerializer.METHOD, params)
	var queries: Array[Dictionary] = []
	for pair: Array in [[Vector3(0.5, 0, 0.5), Vector3(4.5, 0.5, 4.5)]]:
		queries.append(_query("navmesh", pair[0], pair[1], -1.0))
	_add_case("navmesh", NavmeshSerializer.METHOD, params, queries)


func _query(graph: String, from: Variant, to: Variant, oracle_cost: float) -> Dictionary:
	var result: Dictionary = _bridge.find_path_result(graph, from, to)
	var points: Array = []
	var raw: Variant = result["points"]
	if raw is PackedVector2Array:
		var flat: PackedVector2Array = raw
		for point: Vector2 in flat:
			points.append([point.x, point.y])
	elif raw is PackedVector3Array:
		var solid: PackedVector3Array = raw
		for point: Vector3 in solid:
			points.append([point.x, point.y, point.z])
	return {
		"from": _plain(from),
		"to": _plain(to),
		"status": result["status"],
		"cost": result["cost"],
		"points": points,
		"error": result["error"],
		"oracle_cost": oracle_cost,
	}


func _upload(method: String, params: Dictionary) -> void:
	var loaded: AStarBridgeResult = _bridge.load_graph(method, params)
	if not loaded.is_ok():
		printerr("parity_dump: loading %s failed: %s" % [params.get("id"), loaded.message])


func _add_case(name: String, method: String, params: Dictionary, queries: Array) -> void:
	var plain: Dictionary = {}
	for key: String in params:
		plain[key] = _plain(params[key])
	_cases.append({"name": name, "method": method, "params": plain, "queries": queries})


func _plain(value: Variant) -> Variant:
	if value is PackedByteArray:
		var raw: PackedByteArray = value
		return {"$bin": Marshalls.raw_to_base64(raw)}
	if value is Vector2:
		var v2: Vector2 = value
		return [v2.x, v2.y]
	if value is Vector3:
		var v3: Vector3 = value
		return [v3.x, v3.y, v3.z]
	return value


## Godot's cost of an AStarGrid2D id path: each step's euclidean length (in cells) times the
## weight scale of the cell entered.
func _grid_cost(grid: AStarGrid2D, ids: Array[Vector2i]) -> float:
	var cost: float = 0.0
	for i: int in range(1, ids.size()):
		cost += (
			Vector2(ids[i - 1]).distance_to(Vector2(ids[i])) * grid.get_point_weight_scale(ids[i])
		)
	return cost if not ids.is_empty() else -1.0


## Godot's cost of an AStar2D/3D id path: each edge's length times the weight scale of the
## point entered.
func _point_cost(astar: Object, ids: PackedInt64Array) -> float:
	var cost: float = 0.0
	for i: int in range(1, ids.size()):
		var a: Variant = astar.call("get_point_position", ids[i - 1])
		var b: Variant = astar.call("get_point_position", ids[i])
		var step: float = 0.0
		if a is Vector2:
			var a2: Vector2 = a
			var b2: Vector2 = b
			step = a2.distance_to(b2)
		else:
			var a3: Vector3 = a
			var b3: Vector3 = b
			step = a3.distance_to(b3)
		var weight: float = astar.call("get_point_weight_scale", ids[i])
		cost += step * weight
	return cost if not ids.is_empty() else -1.0


## The tile-map case: the WALLS layout with "#" walls and "~" mud (weight 3).
func _layer() -> TileMapLayer:
	return TileFixtures.layer_from_rows(WALLS)
