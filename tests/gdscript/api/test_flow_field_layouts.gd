## Flow fields on hexagonal, isometric and half-offset TileMapLayers through a real sidecar
## (issue 39): following direction_at_cell from every open cell steps between the engine's own
## neighbours (get_surrounding_cells, corners on isometric layers), reaches the goal, and costs
## what a Dijkstra over those neighbours gives; unreachable cells say so; direction_at and
## next_waypoint point at the next cell's map_to_local centre.
extends "res://runner/gd_test.gd"

const AStarBridgeNode = preload("res://addons/astar_bridge/astar_bridge.gd")
const FlowField = preload("res://addons/astar_bridge/api/flow_field.gd")
const LayoutOracle = preload("res://tests/support/layout_oracle.gd")
const TestBridge = preload("res://tests/support/test_bridge.gd")
const TileFixtures = preload("res://tests/support/tile_fixtures.gd")
# An odd first cell: a hex cell's neighbours follow the parity of its map coordinates.
const FIRST := Vector2i(1, -3)
const SIZE := Vector2i(9, 8)

var _bridge: AStarBridgeNode = null


func before_each() -> void:
	_bridge = TestBridge.made(PackedStringArray(["--threads", "1", "--log-level", "ERROR"]))
	_tree().root.add_child(_bridge)


func after_each() -> void:
	_bridge.stop()
	_bridge.free()


func test_following_a_layout_field_costs_the_engine_neighbours_dijkstra() -> void:
	var rng := RandomNumberGenerator.new()
	rng.seed = 3905
	for config: Array in [
		[TileSet.TILE_SHAPE_HEXAGON, TileSet.TILE_LAYOUT_STACKED, 0],
		[TileSet.TILE_SHAPE_HEXAGON, TileSet.TILE_LAYOUT_STACKED_OFFSET, 1],
		[TileSet.TILE_SHAPE_HEXAGON, TileSet.TILE_LAYOUT_DIAMOND_RIGHT, 0],
		[TileSet.TILE_SHAPE_ISOMETRIC, TileSet.TILE_LAYOUT_DIAMOND_DOWN, 0],
		[TileSet.TILE_SHAPE_HALF_OFFSET_SQUARE, TileSet.TILE_LAYOUT_STACKED, 1],
	]:
		var layer: TileMapLayer = _random_layer(config, rng)
		var what: String = LayoutOracle.describe(config)
		assert_true(_bridge.load_tile_map_layer("tiles", layer).is_ok(), "%s loads" % what)
		var oracle := LayoutOracle.new(layer, Rect2i(FIRST, SIZE), 1.0)
		var open: Array[Vector2i] = oracle.open_cells()
		var goal: Vector2i = open[rng.randi_range(0, open.size() - 1)]
		var distance: Dictionary = oracle.dijkstra(goal)  # no mud: the graph is symmetric
		var field: FlowField = _bridge.request_flow_field("tiles", [goal], {"starts": open})
		assert_true(await _ready(field), "%s: the field arrived" % what)
		var followed: int = 0
		for cell: Vector2i in open:
			var cost: float = _follow(field, oracle, cell, goal, what)
			if not distance.has(cell):
				assert_eq(cost, -1.0, "%s: %s cannot reach %s" % [what, cell, goal])
				assert_eq(field.state_at(cell), FlowField.State.UNREACHABLE)
				continue
			var want: float = distance[cell]
			assert_almost(cost, want, 1e-4 * maxf(want, 1.0), "%s: followed from %s" % [what, cell])
			followed += 1
			if cell == goal:
				continue
			var next: Vector2i = cell + field.direction_at_cell(cell)
			var here: Vector2 = layer.map_to_local(cell)
			var there: Vector2 = layer.map_to_local(next)
			assert_eq(field.world_to_cell(here + Vector2(3, 2)), cell, "%s: local_to_map" % what)
			assert_true(field.cell_to_world(cell).is_equal_approx(here), "%s: a centre" % what)
			var way: Vector2 = field.direction_at(here + Vector2(2, -3))
			assert_true(
				way.is_equal_approx((there - here).normalized()), "%s: toward %s" % [what, next]
			)
			assert_true(field.next_waypoint(here).is_equal_approx(there), "%s: waypoint" % what)
		assert_true(followed > 20, "%s: followed from %d cells" % [what, followed])
		assert_eq(field.direction_at(layer.map_to_local(goal)), Vector2.ZERO)
		layer.free()


# The cost of following the field from [param cell] (every step one of the engine's), or -1
# where it stops elsewhere than [param goal].
func _follow(
	field: FlowField, oracle: LayoutOracle, cell: Vector2i, goal: Vector2i, what: String
) -> float:
	var total: float = 0.0
	var here: Vector2i = cell
	for _i: int in 200:
		var step: Vector2i = field.direction_at_cell(here)
		if step == Vector2i.ZERO:
			return total if here == goal else -1.0
		var next: Vector2i = here + step
		assert_true(oracle.is_step(here, next), "%s: %s -> %s is the engine's" % [what, here, next])
		total += oracle.step_cost(here, next)
		here = next
	return -1.0


func _ready(field: FlowField) -> bool:
	assert_true(field != null, "a field was made")
	if field == null:
		return false
	for _i: int in 1200:
		if field.is_ready():
			return true
		await _tree().process_frame
	return false


# A SIZE layer from FIRST in the shape of [param config]: every cell a tile, a fifth walls;
# tiles 32 x 28 so that distances differ per axis.
static func _random_layer(config: Array, rng: RandomNumberGenerator) -> TileMapLayer:
	var layer: TileMapLayer = TileFixtures.layer_from_rows(PackedStringArray(), 1.0)
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
			var tile: int = 1 if rng.randf() < 0.2 else 0
			layer.set_cell(FIRST + Vector2i(x, y), 0, Vector2i(tile, 0))
	return layer


func _tree() -> SceneTree:
	return Engine.get_main_loop() as SceneTree
