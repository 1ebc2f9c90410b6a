## grid_serializer.gd: AStarGrid2D and TileMapLayer -> graph.load_grid parameters.
extends "res://runner/gd_test.gd"

const GridSerializer = preload("res://addons/astar_bridge/serializers/grid_serializer.gd")


func test_astar_grid_solid_cells_become_zero_bytes() -> void:
	var grid := AStarGrid2D.new()
	grid.region = Rect2i(0, 0, 3, 2)
	grid.update()
	grid.set_point_solid(Vector2i(1, 0))
	grid.set_point_solid(Vector2i(2, 1))
	var params: Dictionary = GridSerializer.from_astar_grid_2d(grid, "g")
	assert_eq(params["id"], "g")
	assert_eq(params["width"], 3)
	assert_eq(params["height"], 2)
	assert_eq(params["cells"], PackedByteArray([1, 0, 1, 1, 1, 0]))
	assert_false(params.has("weights"), "uniform weights are left out")


func test_astar_grid_weights_travel_as_float32_per_cell() -> void:
	var grid := AStarGrid2D.new()
	grid.region = Rect2i(0, 0, 2, 2)
	grid.update()
	grid.set_point_weight_scale(Vector2i(1, 1), 4.5)
	var params: Dictionary = GridSerializer.from_astar_grid_2d(grid, "g")
	var weights: PackedByteArray = params["weights"]
	assert_eq(weights.to_float32_array(), PackedFloat32Array([1.0, 1.0, 1.0, 4.5]))


func test_astar_grid_diagonal_modes_map_to_protocol_names() -> void:
	var grid := AStarGrid2D.new()
	grid.region = Rect2i(0, 0, 1, 1)
	var expected: Dictionary = {
		AStarGrid2D.DIAGONAL_MODE_ALWAYS: "always",
		AStarGrid2D.DIAGONAL_MODE_NEVER: "never",
		AStarGrid2D.DIAGONAL_MODE_AT_LEAST_ONE_WALKABLE: "at_least_one_walkable",
		AStarGrid2D.DIAGONAL_MODE_ONLY_IF_NO_OBSTACLES: "only_if_no_obstacles",
	}
	for mode: AStarGrid2D.DiagonalMode in expected:
		grid.diagonal_mode = mode
		grid.update()
		var params: Dictionary = GridSerializer.from_astar_grid_2d(grid, "g")
		assert_eq(params["diagonal"], expected[mode])


func test_astar_grid_region_offset_and_cell_size_give_the_origin() -> void:
	var grid := AStarGrid2D.new()
	grid.region = Rect2i(2, 3, 4, 5)
	grid.cell_size = Vector2(16, 8)
	grid.offset = Vector2(8, 4)
	grid.update()
	grid.set_point_solid(Vector2i(2, 3))
	var params: Dictionary = GridSerializer.from_astar_grid_2d(grid, "g")
	assert_eq(params["cell_size"], [16.0, 8.0])
	var first: Vector2 = grid.get_point_position(Vector2i(2, 3))
	assert_eq(params["origin"], [first.x, first.y], "origin is the first cell's position")
	var cells: PackedByteArray = params["cells"]
	assert_eq(cells[0], 0, "region cell (2, 3) is serialised as (0, 0)")
	assert_eq(cells.size(), 20)


func test_astar_grid_dirty_grid_is_updated_first() -> void:
	var grid := AStarGrid2D.new()
	grid.region = Rect2i(0, 0, 2, 1)
	var params: Dictionary = GridSerializer.from_astar_grid_2d(grid, "g")
	assert_eq(params["cells"], PackedByteArray([1, 1]))


func test_world_to_cell_rounds_to_the_nearest_cell() -> void:
	var params: Dictionary = {
		"width": 4, "height": 4, "origin": [8.0, 8.0], "cell_size": [16.0, 16.0]
	}
	assert_eq(GridSerializer.world_to_cell(params, Vector2(9, 30)), Vector2i(0, 1))
	assert_eq(GridSerializer.world_to_cell(params, Vector2(100, 8)), Vector2i(-1, -1))
	assert_eq(GridSerializer.cell_to_world(params, Vector2i(2, 1)), Vector2(40, 24))


func test_tile_map_layer_custom_data_walkable_and_weight() -> void:
	var layer: TileMapLayer = _layer()
	# Row 0: floor, wall, mud; row 1: floor, (empty), floor.
	layer.set_cell(Vector2i(0, 0), 0, Vector2i(0, 0))
	layer.set_cell(Vector2i(1, 0), 0, Vector2i(1, 0))
	layer.set_cell(Vector2i(2, 0), 0, Vector2i(2, 0))
	layer.set_cell(Vector2i(0, 1), 0, Vector2i(0, 0))
	layer.set_cell(Vector2i(2, 1), 0, Vector2i(0, 0))
	var params: Dictionary = GridSerializer.from_tile_map_layer(layer, "tiles")
	assert_eq(params["width"], 3)
	assert_eq(params["height"], 2)
	assert_eq(params["cells"], PackedByteArray([1, 0, 1, 1, 0, 1]))
	var weights: PackedByteArray = params["weights"]
	assert_eq(weights.to_float32_array(), PackedFloat32Array([1, 1, 5, 1, 1, 1]))
	assert_eq(params["cell_size"], [16.0, 16.0])
	assert_eq(params["origin"], [8.0, 8.0], "cell centres, as map_to_local gives them")
	var open: Dictionary = GridSerializer.from_tile_map_layer(
		layer, "tiles", {"empty_walkable": true}
	)
	assert_eq(open["cells"], PackedByteArray([1, 0, 1, 1, 1, 1]))
	layer.free()


func test_tile_map_layer_physics_source_blocks_colliding_tiles() -> void:
	var layer: TileMapLayer = _layer()
	layer.set_cell(Vector2i(0, 0), 0, Vector2i(0, 0))
	layer.set_cell(Vector2i(1, 0), 0, Vector2i(1, 0))
	var params: Dictionary = GridSerializer.from_tile_map_layer(
		layer, "tiles", {"source": GridSerializer.Source.PHYSICS}
	)
	assert_eq(params["cells"], PackedByteArray([1, 0]))
	layer.free()


func test_tile_map_layer_navigation_source_needs_a_polygon() -> void:
	var layer: TileMapLayer = _layer()
	layer.set_cell(Vector2i(0, 0), 0, Vector2i(0, 0))
	layer.set_cell(Vector2i(1, 0), 0, Vector2i(1, 0))
	var params: Dictionary = GridSerializer.from_tile_map_layer(
		layer, "tiles", {"source": GridSerializer.Source.NAVIGATION}
	)
	assert_eq(params["cells"], PackedByteArray([1, 0]))
	layer.free()


func test_tile_map_layer_position_moves_the_origin() -> void:
	var layer: TileMapLayer = _layer()
	layer.position = Vector2(100, 50)
	layer.set_cell(Vector2i(3, 2), 0, Vector2i(0, 0))
	var params: Dictionary = GridSerializer.from_tile_map_layer(layer, "tiles")
	assert_eq(params["origin"], [100.0 + 56.0, 50.0 + 40.0])
	assert_eq(params["cells"], PackedByteArray([1]))
	layer.free()


## A 16 px tile set with three tiles: (0,0) floor, (1,0) wall, (2,0) mud (weight 5). The floor has
## a navigation polygon; the wall a collision polygon; custom data "walkable" and "weight".
func _layer() -> TileMapLayer:
	var tile_set := TileSet.new()
	tile_set.tile_size = Vector2i(16, 16)
	tile_set.add_custom_data_layer()
	tile_set.set_custom_data_layer_name(0, "walkable")
	tile_set.set_custom_data_layer_type(0, TYPE_BOOL)
	tile_set.add_custom_data_layer()
	tile_set.set_custom_data_layer_name(1, "weight")
	tile_set.set_custom_data_layer_type(1, TYPE_FLOAT)
	tile_set.add_physics_layer()
	tile_set.add_navigation_layer()
	var atlas := TileSetAtlasSource.new()
	var image := Image.create(48, 16, false, Image.FORMAT_RGBA8)
	atlas.texture = ImageTexture.create_from_image(image)
	atlas.texture_region_size = Vector2i(16, 16)
	tile_set.add_source(atlas, 0)
	var square := PackedVector2Array(
		[Vector2(-8, -8), Vector2(8, -8), Vector2(8, 8), Vector2(-8, 8)]
	)
	for x: int in 3:
		atlas.create_tile(Vector2i(x, 0))
		var data: TileData = atlas.get_tile_data(Vector2i(x, 0), 0)
		data.set_custom_data("walkable", x != 1)
		data.set_custom_data("weight", 5.0 if x == 2 else 1.0)
		if x == 1:
			data.add_collision_polygon(0)
			data.set_collision_polygon_points(0, 0, square)
		else:
			var nav := NavigationPolygon.new()
			nav.vertices = square
			nav.add_polygon(PackedInt32Array([0, 1, 2, 3]))
			data.set_navigation_polygon(0, nav)
	var layer := TileMapLayer.new()
	layer.tile_set = tile_set
	return layer
