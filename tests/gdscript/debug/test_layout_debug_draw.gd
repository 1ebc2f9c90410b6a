## layout_grid_layer_2d.gd: a hexagonal or isometric grid's debug drawing fills its walls and
## heavy cells in the tile's own shape, over the tile the engine draws, and follows updates.
extends "res://runner/gd_test.gd"

const CellLayout = preload("res://addons/astar_bridge/serializers/cell_layout.gd")
const GraphShapes = preload("res://addons/astar_bridge/debug/graph_shapes.gd")
const GraphUpdates = preload("res://addons/astar_bridge/serializers/graph_updates.gd")
const GridSerializer = preload("res://addons/astar_bridge/serializers/grid_serializer.gd")
const LayoutGridLayer2D = preload("res://addons/astar_bridge/debug/layout_grid_layer_2d.gd")
const TileFixtures = preload("res://tests/support/tile_fixtures.gd")
const ROWS: PackedStringArray = ["..#..", ".~#..", "....#", "#...~"]


func test_layout_hex_walls_and_mud_are_filled_hexagons_over_their_tiles() -> void:
	for axis: int in 2:
		var tiles: TileMapLayer = _hex_tiles(axis)
		var params: Dictionary = GridSerializer.from_tile_map_layer(tiles, "hex")
		var shapes: Dictionary = GraphShapes.from_load(GridSerializer.METHOD, params)
		var layer := LayoutGridLayer2D.new(shapes, Color.RED, Color.CYAN)
		_tree().root.add_child(layer)
		await _tree().process_frame
		var fill: Dictionary = layer.filled_cells()
		var want: Array[Vector2i] = _cells_of(tiles, PackedInt32Array([1, 2]))
		assert_eq(fill.size(), want.size(), "axis %d: every wall and mud cell, nothing else" % axis)
		for cell: Vector2i in want:
			assert_true(fill.has(cell), "axis %d: %s is filled" % [axis, cell])
			var polygon: PackedVector2Array = CellLayout.outline(shapes, cell)
			assert_eq(polygon.size(), 6, "a hexagon")
			var centre: Vector2 = tiles.map_to_local(cell)
			assert_true(Geometry2D.is_point_in_polygon(centre, polygon), "over the tile")
		assert_eq(fill[Vector2i(2, 0)], Color.RED, "walls in the solid colour")
		assert_eq(layer.outline_edges().size(), 5 * 4 * 6 * 2, "six edges a cell")
		assert_eq(layer.solid_cell_count(), 4)
		layer.free()
		tiles.free()


func test_layout_drawing_follows_updates() -> void:
	var tiles: TileMapLayer = _hex_tiles(0)
	var params: Dictionary = GridSerializer.from_tile_map_layer(tiles, "hex")
	var shapes: Dictionary = GraphShapes.from_load(GridSerializer.METHOD, params)
	var layer := LayoutGridLayer2D.new(shapes, Color.RED, Color.CYAN)
	_tree().root.add_child(layer)
	var walls: Array[Vector2i] = [Vector2i(0, 0)]
	var update: Dictionary = GraphUpdates.cells_walkable("hex", walls, false)
	layer.refresh(GraphShapes.apply_update(shapes, update))
	await _tree().process_frame
	assert_true(layer.filled_cells().has(Vector2i(0, 0)), "a new wall is drawn")
	var opened: Array[Vector2i] = [Vector2i(2, 0)]
	layer.refresh(
		GraphShapes.apply_update(shapes, GraphUpdates.cells_walkable("hex", opened, true))
	)
	assert_false(layer.filled_cells().has(Vector2i(2, 0)), "an opened wall is not")
	layer.free()
	tiles.free()


func test_layout_summary_names_the_shape() -> void:
	var tiles: TileMapLayer = _hex_tiles(1)
	var params: Dictionary = GridSerializer.from_tile_map_layer(tiles, "hex")
	assert_eq(GraphShapes.summary(GridSerializer.METHOD, params), "grid 5 x 4, hexagon")
	tiles.free()


func test_layout_isometric_cells_are_diamonds() -> void:
	var tiles: TileMapLayer = TileFixtures.layer_from_rows(ROWS)
	tiles.tile_set.tile_shape = TileSet.TILE_SHAPE_ISOMETRIC
	tiles.tile_set.tile_layout = TileSet.TILE_LAYOUT_DIAMOND_RIGHT
	var params: Dictionary = GridSerializer.from_tile_map_layer(tiles, "iso")
	var shapes: Dictionary = GraphShapes.from_load(GridSerializer.METHOD, params)
	var layer := LayoutGridLayer2D.new(shapes, Color.RED, Color.CYAN)
	for cell: Vector2i in layer.filled_cells():
		var polygon: PackedVector2Array = CellLayout.outline(shapes, cell)
		assert_eq(polygon.size(), 4)
		assert_true(Geometry2D.is_point_in_polygon(tiles.map_to_local(cell), polygon))
	layer.free()
	tiles.free()


# ROWS on a hexagonal layer (32 x 28 tiles) of offset axis [param axis].
static func _hex_tiles(axis: int) -> TileMapLayer:
	var tiles: TileMapLayer = TileFixtures.layer_from_rows(ROWS)
	tiles.tile_set.tile_shape = TileSet.TILE_SHAPE_HEXAGON
	tiles.tile_set.tile_offset_axis = axis as TileSet.TileOffsetAxis
	tiles.tile_set.tile_size = Vector2i(32, 28)
	return tiles


# The cells of [param tiles] whose atlas x is one of [param kinds].
static func _cells_of(tiles: TileMapLayer, kinds: PackedInt32Array) -> Array[Vector2i]:
	var cells: Array[Vector2i] = []
	for cell: Vector2i in tiles.get_used_cells():
		if tiles.get_cell_atlas_coords(cell).x in kinds:
			cells.append(cell)
	return cells


func _tree() -> SceneTree:
	return Engine.get_main_loop() as SceneTree
