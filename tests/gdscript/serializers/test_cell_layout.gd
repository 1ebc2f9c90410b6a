## cell_layout.gd: the cells of hexagonal, isometric and half-offset layers (and diamond
## AStarGrid2Ds) placed where the engine places them, for every shape, layout and offset axis.
extends "res://runner/gd_test.gd"

const CellLayout = preload("res://addons/astar_bridge/serializers/cell_layout.gd")
const GridSerializer = preload("res://addons/astar_bridge/serializers/grid_serializer.gd")
const TileFixtures = preload("res://tests/support/tile_fixtures.gd")
# An odd, negative first cell: parity in map coordinates is what hex neighbours follow.
const FIRST := Vector2i(-3, 5)
const TILE := Vector2i(32, 24)


func test_layout_centres_equal_map_to_local_on_every_shape_layout_and_axis() -> void:
	for config: Array in _configs():
		var layer: TileMapLayer = _bare_layer(config)
		var params: Dictionary = _params(layer)
		for y: int in 7:
			for x: int in 8:
				var cell := Vector2i(x, y)
				var want: Vector2 = layer.map_to_local(FIRST + cell)
				var got: Vector2 = GridSerializer.cell_to_world(params, cell)
				assert_true(
					got.is_equal_approx(want), "%s cell %s: %s, not %s" % [config, cell, got, want]
				)
		layer.free()


func test_layout_cell_at_equals_local_to_map_on_random_points() -> void:
	var rng := RandomNumberGenerator.new()
	rng.seed = 39
	for config: Array in _configs():
		# Square grids keep the sidecar's rounding (local_to_map adds 5e-5 before its floor).
		if config[0] == TileSet.TILE_SHAPE_SQUARE:
			continue
		var layer: TileMapLayer = _bare_layer(config)
		var params: Dictionary = _params(layer)
		var centre: Vector2 = layer.map_to_local(FIRST + Vector2i(4, 4))
		var wrong: int = 0
		for i: int in 250:
			var point: Vector2 = (
				centre + Vector2(rng.randf_range(-90, 90), rng.randf_range(-90, 90))
			)
			var want: Vector2i = layer.local_to_map(point) - FIRST
			if CellLayout.cell_at(params, point) != want:
				wrong += 1
		assert_eq(wrong, 0, "%s: points whose cell differs from local_to_map" % [config])
		for y: int in 6:
			for x: int in 6:
				var cell := Vector2i(x, y)
				assert_eq(CellLayout.cell_at(params, CellLayout.centre(params, cell)), cell)
		layer.free()


func test_layout_outlines_of_engine_neighbours_share_an_edge() -> void:
	for config: Array in _configs():
		# Half-offset rows share half an edge: no common corner to count.
		if config[0] != TileSet.TILE_SHAPE_HEXAGON and config[0] != TileSet.TILE_SHAPE_ISOMETRIC:
			continue
		var layer: TileMapLayer = _bare_layer(config)
		var params: Dictionary = _params(layer)
		var cell := Vector2i(4, 3)
		var polygon: PackedVector2Array = CellLayout.outline(params, cell)
		assert_eq(polygon.size(), 6 if config[0] == TileSet.TILE_SHAPE_HEXAGON else 4)
		for near: Vector2i in layer.get_surrounding_cells(FIRST + cell):
			var shared: int = 0
			for corner: Vector2 in CellLayout.outline(params, near - FIRST):
				for own: Vector2 in polygon:
					shared += 1 if own.is_equal_approx(corner) else 0
			assert_eq(
				shared, 2, "%s: %s and its neighbour %s share one edge" % [config, cell, near]
			)
		layer.free()


func test_layout_of_a_hex_layer_travels_with_its_grid() -> void:
	var layer: TileMapLayer = TileFixtures.layer_from_rows(PackedStringArray(["..#", ".~."]))
	layer.tile_set.tile_shape = TileSet.TILE_SHAPE_HEXAGON
	layer.tile_set.tile_layout = TileSet.TILE_LAYOUT_STACKED_OFFSET
	layer.tile_set.tile_offset_axis = TileSet.TILE_OFFSET_AXIS_VERTICAL
	var params: Dictionary = GridSerializer.from_tile_map_layer(layer, "hex")
	var want: Dictionary = {
		"shape": "hexagon",
		"layout": TileSet.TILE_LAYOUT_STACKED_OFFSET,
		"offset_axis": TileSet.TILE_OFFSET_AXIS_VERTICAL,
		"map_origin": [0, 0],
	}
	assert_eq(params["layout"], want)
	assert_eq(params["cells"], PackedByteArray([1, 1, 0, 1, 1, 1]))
	var first: Vector2 = layer.map_to_local(Vector2i.ZERO)
	assert_eq(params["origin"], [first.x, first.y])
	var square: TileMapLayer = TileFixtures.layer_from_rows(PackedStringArray([".."]))
	assert_false(
		GridSerializer.from_tile_map_layer(square, "sq").has("layout"), "square: as before"
	)
	layer.free()
	square.free()


func test_layout_of_a_scaled_moved_layer_is_in_world_units() -> void:
	var layer: TileMapLayer = TileFixtures.layer_from_rows(PackedStringArray())
	layer.tile_set.tile_shape = TileSet.TILE_SHAPE_ISOMETRIC
	layer.tile_set.tile_layout = TileSet.TILE_LAYOUT_DIAMOND_RIGHT
	for y: int in 4:
		for x: int in 5:
			layer.set_cell(FIRST + Vector2i(x, y), 0, Vector2i.ZERO)
	layer.position = Vector2(100, -40)
	layer.scale = Vector2(2, 2)
	var params: Dictionary = GridSerializer.from_tile_map_layer(
		layer, "iso", {"empty_walkable": true}
	)
	for y: int in 4:
		for x: int in 5:
			var want: Vector2 = layer.transform * layer.map_to_local(FIRST + Vector2i(x, y))
			var got: Vector2 = GridSerializer.cell_to_world(params, Vector2i(x, y))
			assert_true(
				got.is_equal_approx(want), "cell %s at %s, not %s" % [Vector2i(x, y), got, want]
			)
			assert_eq(GridSerializer.world_to_cell(params, want), Vector2i(x, y))
	assert_eq(GridSerializer.world_to_cell(params, Vector2(-5000, 0)), Vector2i(-1, -1))
	layer.free()


func test_layout_diamond_astar_grids_load_with_the_engine_points() -> void:
	for shape: AStarGrid2D.CellShape in [
		AStarGrid2D.CELL_SHAPE_ISOMETRIC_RIGHT, AStarGrid2D.CELL_SHAPE_ISOMETRIC_DOWN
	]:
		var grid := AStarGrid2D.new()
		grid.region = Rect2i(2, 1, 5, 4)
		grid.cell_size = Vector2(32, 16)
		grid.offset = Vector2(10, 5)
		grid.cell_shape = shape
		grid.update()
		grid.set_point_solid(Vector2i(3, 2))
		var params: Dictionary = GridSerializer.from_astar_grid_2d(grid, "iso")
		assert_eq(params["layout"]["shape"], CellLayout.ASTAR_SHAPE_NAMES[shape - 1])
		assert_eq(params["layout"]["map_origin"], [2, 1])
		var cells: PackedByteArray = params["cells"]
		assert_eq(cells[1 * 5 + 1], 0, "(3, 2) is solid")
		for y: int in 4:
			for x: int in 5:
				var cell := Vector2i(x, y)
				var want: Vector2 = grid.get_point_position(Vector2i(2, 1) + cell)
				assert_true(GridSerializer.cell_to_world(params, cell).is_equal_approx(want))
				assert_eq(GridSerializer.world_to_cell(params, want + Vector2(3, -2)), cell)


# [shape, layout, offset axis] for every tile shape, layout and axis Godot offers.
static func _configs() -> Array[Array]:
	var configs: Array[Array] = []
	for shape: int in 4:
		for tile_layout: int in 6:
			for axis: int in 2:
				configs.append([shape, tile_layout, axis])
	return configs


# A layer of [param config]'s shape, layout and axis whose tile set has one plain tile.
static func _bare_layer(config: Array) -> TileMapLayer:
	var shape: TileSet.TileShape = config[0]
	var tile_layout: TileSet.TileLayout = config[1]
	var axis: TileSet.TileOffsetAxis = config[2]
	var tile_set := TileSet.new()
	tile_set.tile_size = TILE
	tile_set.tile_shape = shape
	tile_set.tile_layout = tile_layout
	tile_set.tile_offset_axis = axis
	var atlas := TileSetAtlasSource.new()
	atlas.texture = ImageTexture.create_from_image(Image.create(32, 24, false, Image.FORMAT_RGBA8))
	atlas.texture_region_size = TILE
	tile_set.add_source(atlas, 0)
	atlas.create_tile(Vector2i.ZERO)
	var layer := TileMapLayer.new()
	layer.tile_set = tile_set
	return layer


# What from_tile_map_layer sends for a layer whose region starts at FIRST (no tiles needed).
static func _params(layer: TileMapLayer) -> Dictionary:
	var first: Vector2 = layer.map_to_local(FIRST)
	var params: Dictionary = {
		"width": 8, "height": 7, "origin": [first.x, first.y], "cell_size": [TILE.x, TILE.y]
	}
	var layout: Dictionary = CellLayout.of_tile_set(layer.tile_set, FIRST)
	if not layout.is_empty():
		params["layout"] = layout
	return params
