## Hexagonal, isometric and half-offset TileMapLayers (and diamond AStarGrid2Ds) through a real
## sidecar: every path steps between the engine's own neighbours (get_surrounding_cells, and the
## corner cells under the diagonal rule on isometric layers), costs what a Dijkstra over those
## neighbours in GDScript gives (world distance between map_to_local centres times the entered
## cell's weight), and passes through the cells' map_to_local points.
extends "res://runner/gd_test.gd"

const AStarBridgeNode = preload("res://addons/astar_bridge/astar_bridge.gd")
const LayoutOracle = preload("res://tests/support/layout_oracle.gd")
const TestBridge = preload("res://tests/support/test_bridge.gd")
const TileFixtures = preload("res://tests/support/tile_fixtures.gd")
# An odd first cell: a hex cell's neighbours follow the parity of its map coordinates.
const FIRST := Vector2i(1, -3)
const SIZE := Vector2i(9, 8)
const MUD := 3.0

var _bridge: AStarBridgeNode = null


func before_each() -> void:
	_bridge = TestBridge.made(PackedStringArray(["--threads", "1", "--log-level", "ERROR"]))
	_tree().root.add_child(_bridge)


func after_each() -> void:
	_bridge.stop()
	_bridge.free()


func test_layout_paths_cost_the_engine_neighbours_dijkstra_on_every_shape() -> void:
	var rng := RandomNumberGenerator.new()
	rng.seed = 3901
	for config: Array in _configs():
		var layer: TileMapLayer = _random_layer(config, rng)
		var what: String = LayoutOracle.describe(config)
		var loaded: AStarBridgeResult = _bridge.load_tile_map_layer("tiles", layer)
		assert_true(loaded.is_ok(), "%s loads: %s" % [what, loaded.message])
		if not loaded.is_ok():
			layer.free()
			return
		var oracle := LayoutOracle.new(layer, Rect2i(FIRST, SIZE), MUD)
		var open: Array[Vector2i] = oracle.open_cells()
		for s: int in 2:
			var start: Vector2i = open[rng.randi_range(0, open.size() - 1)]
			var costs: Dictionary = oracle.dijkstra(start)
			for g: int in 10:
				var goal: Vector2i = open[rng.randi_range(0, open.size() - 1)]
				_check_path(layer, oracle, start, goal, costs, what)
		layer.free()


func test_layout_world_positions_edits_and_placed_layers_use_the_layer_coordinates() -> void:
	var rng := RandomNumberGenerator.new()
	rng.seed = 3902
	var config: Array = [TileSet.TILE_SHAPE_HEXAGON, TileSet.TILE_LAYOUT_STACKED, 1]
	var layer: TileMapLayer = _random_layer(config, rng)
	var oracle := LayoutOracle.new(layer, Rect2i(FIRST, SIZE), MUD)
	assert_true(_bridge.load_tile_map_layer("hex", layer).is_ok())
	var open: Array[Vector2i] = oracle.open_cells()
	var start: Vector2i = open[0]
	var goal: Vector2i = open[open.size() - 1]
	# A point inside the tile (a quarter tile off its centre) names that tile.
	var nudge := Vector2(layer.tile_set.tile_size) * 0.2
	var from: Vector2 = layer.map_to_local(start) + nudge
	var to: Vector2 = layer.map_to_local(goal) - nudge
	var by_world: Dictionary = _bridge.find_path_result("hex", from, to)
	var by_cell: Dictionary = _bridge.find_path_result("hex", start, goal)
	assert_eq(by_world["status"], "found")
	var world_cost: float = by_world["cost"]
	var cell_cost: float = by_cell["cost"]
	assert_almost(world_cost, cell_cost, 1e-4, "a position names its tile")
	var points: PackedVector2Array = by_cell["points"]
	var middle: Vector2i = layer.local_to_map(points[points.size() >> 1])
	var blocked: Array[Vector2i] = [middle]
	assert_true(_bridge.set_cells_solid("hex", blocked).is_ok())
	oracle.set_solid(middle)
	var after: Dictionary = _bridge.find_path_result("hex", start, goal)
	var want: Dictionary = oracle.dijkstra(start)
	if want.has(goal):
		var cost: float = after["cost"]
		var wanted: float = want[goal]
		assert_almost(cost, wanted, 1e-4 * wanted, "around the new wall")
		var around: PackedVector2Array = after["points"]
		for point: Vector2 in around:
			assert_ne(layer.local_to_map(point), middle, "the path avoids %s" % middle)
	else:
		assert_eq(after["status"], "no_path")
	layer.free()
	_check_placed_layer()


# An isometric layer moved and scaled in the tree: points in global coordinates, costs scaled.
func _check_placed_layer() -> void:
	var rng := RandomNumberGenerator.new()
	rng.seed = 3903
	var config: Array = [TileSet.TILE_SHAPE_ISOMETRIC, TileSet.TILE_LAYOUT_DIAMOND_DOWN, 0]
	var layer: TileMapLayer = _random_layer(config, rng)
	layer.position = Vector2(300, -20)
	layer.scale = Vector2(1.5, 1.5)
	_tree().root.add_child(layer)
	var oracle := LayoutOracle.new(layer, Rect2i(FIRST, SIZE), MUD)
	assert_true(_bridge.load_tile_map_layer("iso", layer).is_ok())
	var open: Array[Vector2i] = oracle.open_cells()
	var costs: Dictionary = oracle.dijkstra(open[0])
	var goal: Vector2i = open[open.size() - 1]
	var result: Dictionary = _bridge.find_path_result("iso", open[0], goal)
	if not costs.has(goal):
		assert_eq(result["status"], "no_path")
	else:
		var cost: float = result["cost"]
		var wanted: float = costs[goal]
		assert_almost(cost, wanted * 1.5, 1e-4 * wanted, "scaled by 1.5")
		var points: PackedVector2Array = result["points"]
		for point: Vector2 in points:
			var cell: Vector2i = layer.local_to_map(layer.to_local(point))
			var centre: Vector2 = layer.to_global(layer.map_to_local(cell))
			assert_true(point.is_equal_approx(centre), "%s is the centre of %s" % [point, cell])
	layer.free()


func test_layout_diamond_astar_grids_cost_what_godot_finds() -> void:
	var rng := RandomNumberGenerator.new()
	rng.seed = 3904
	for shape: AStarGrid2D.CellShape in [
		AStarGrid2D.CELL_SHAPE_ISOMETRIC_RIGHT, AStarGrid2D.CELL_SHAPE_ISOMETRIC_DOWN
	]:
		var grid := AStarGrid2D.new()
		grid.region = Rect2i(-2, 3, 12, 10)
		grid.cell_size = Vector2(64, 32)
		grid.offset = Vector2(40, 8)
		grid.cell_shape = shape
		grid.diagonal_mode = AStarGrid2D.DIAGONAL_MODE_ONLY_IF_NO_OBSTACLES
		grid.update()
		for y: int in range(3, 13):
			for x: int in range(-2, 10):
				var roll: float = rng.randf()
				if roll < 0.2:
					grid.set_point_solid(Vector2i(x, y))
				elif roll < 0.5:
					grid.set_point_weight_scale(Vector2i(x, y), rng.randf_range(1.0, 4.0))
		assert_true(_bridge.load_astar_grid_2d("iso", grid).is_ok())
		var same: int = 0
		for q: int in 100:
			var from := Vector2i(rng.randi_range(-2, 9), rng.randi_range(3, 12))
			var to := Vector2i(rng.randi_range(-2, 9), rng.randi_range(3, 12))
			if grid.is_point_solid(from) or grid.is_point_solid(to):
				continue
			var godot: Array[Vector2i] = grid.get_id_path(from, to)
			var ours: Dictionary = _bridge.find_path_result("iso", from, to)
			if godot.is_empty():
				assert_eq(ours["status"], "no_path", "%s -> %s" % [from, to])
				continue
			var want: float = LayoutOracle.id_path_cost(grid, godot)
			var cost: float = ours["cost"]
			assert_almost(cost, want, 1e-5 * maxf(want, 1.0), "%s -> %s" % [from, to])
			var points: PackedVector2Array = ours["points"]
			var expected: PackedVector2Array = grid.get_point_path(from, to)
			same += 1 if points == expected else 0
			for point: Vector2 in points:
				assert_true(_is_point_of_grid(grid, point), "%s is a cell's point" % point)
		assert_true(same > 0, "some paths are the very points get_point_path gives")


func _check_path(
	layer: TileMapLayer,
	oracle: LayoutOracle,
	start: Vector2i,
	goal: Vector2i,
	costs: Dictionary,
	what: String
) -> void:
	var result: Dictionary = _bridge.find_path_result("tiles", start, goal)
	var label: String = "%s %s -> %s" % [what, start, goal]
	if not costs.has(goal):
		assert_eq(result["status"], "no_path", label)
		return
	assert_eq(result["status"], "found", label)
	var want: float = costs[goal]
	var cost: float = result["cost"]
	assert_almost(cost, want, 1e-5 * maxf(want, 1.0), label)
	var points: PackedVector2Array = result["points"]
	var previous: Vector2i = start
	for i: int in points.size():
		var cell: Vector2i = layer.local_to_map(points[i])
		assert_true(points[i].is_equal_approx(layer.map_to_local(cell)), "%s: a centre" % label)
		if i > 0:
			assert_true(oracle.is_step(previous, cell), "%s: %s -> %s" % [label, previous, cell])
		previous = cell
	assert_eq(previous, goal, label)


static func _is_point_of_grid(grid: AStarGrid2D, point: Vector2) -> bool:
	for y: int in range(grid.region.position.y, grid.region.end.y):
		for x: int in range(grid.region.position.x, grid.region.end.x):
			if grid.get_point_position(Vector2i(x, y)).is_equal_approx(point):
				return true
	return false


# [shape, layout, offset axis]: hexagons on every layout and both axes, isometric layers on
# both diamond layouts and a stacked one, half-offset squares on both axes.
static func _configs() -> Array[Array]:
	var configs: Array[Array] = []
	for tile_layout: int in 6:
		for axis: int in 2:
			configs.append([TileSet.TILE_SHAPE_HEXAGON, tile_layout, axis])
	for tile_layout: int in [
		TileSet.TILE_LAYOUT_DIAMOND_RIGHT,
		TileSet.TILE_LAYOUT_DIAMOND_DOWN,
		TileSet.TILE_LAYOUT_STACKED
	]:
		configs.append([TileSet.TILE_SHAPE_ISOMETRIC, tile_layout, 0])
	for axis: int in 2:
		configs.append([TileSet.TILE_SHAPE_HALF_OFFSET_SQUARE, TileSet.TILE_LAYOUT_STACKED, axis])
	return configs


# A SIZE layer from FIRST in the shape of [param config]: every cell a tile, a fifth walls, a
# sixth mud; tiles 32 x 28 so that distances differ per axis.
static func _random_layer(config: Array, rng: RandomNumberGenerator) -> TileMapLayer:
	var layer: TileMapLayer = TileFixtures.layer_from_rows(PackedStringArray(), MUD)
	var tile_set: TileSet = layer.tile_set
	tile_set.tile_size = Vector2i(32, 28)
	var shape: TileSet.TileShape = config[0]
	var tile_layout: TileSet.TileLayout = config[1]
	var axis: TileSet.TileOffsetAxis = config[2]
	tile_set.tile_shape = shape
	tile_set.tile_layout = tile_layout
	tile_set.tile_offset_axis = axis
	for y: int in SIZE.y:
		for x: int in SIZE.x:
			var roll: float = rng.randf()
			var tile: int = 1 if roll < 0.2 else (2 if roll < 0.37 else 0)
			layer.set_cell(FIRST + Vector2i(x, y), 0, Vector2i(tile, 0))
	return layer


func _tree() -> SceneTree:
	return Engine.get_main_loop() as SceneTree
