## Dumps the engine's own tile geometry for the hex/isometric oracle (issue 39): for every
## tile shape, layout and offset axis, each cell's map_to_local, get_surrounding_cells and
## (square, isometric) its four corner cells, plus local_to_map of random points; and
## AStarGrid2D isometric grids with get_point_position and get_id_path answers. Run:
## godot --headless --script tests/data/tile_layouts/dump_tile_layouts.gd -- OUT.json
extends SceneTree

const REGION := Rect2i(-3, -2, 12, 10)
const PROBES := 60
const QUERIES := 100
## Non-square tile sizes per shape, so no layout passes by symmetry.
const TILE_SIZES := {
	TileSet.TILE_SHAPE_SQUARE: Vector2i(16, 12),
	TileSet.TILE_SHAPE_ISOMETRIC: Vector2i(64, 32),
	TileSet.TILE_SHAPE_HALF_OFFSET_SQUARE: Vector2i(20, 14),
	TileSet.TILE_SHAPE_HEXAGON: Vector2i(36, 40),
}
const SQUARE_CORNERS: Array[int] = [
	TileSet.CELL_NEIGHBOR_BOTTOM_RIGHT_CORNER,
	TileSet.CELL_NEIGHBOR_BOTTOM_LEFT_CORNER,
	TileSet.CELL_NEIGHBOR_TOP_LEFT_CORNER,
	TileSet.CELL_NEIGHBOR_TOP_RIGHT_CORNER,
]
const ISOMETRIC_CORNERS: Array[int] = [
	TileSet.CELL_NEIGHBOR_RIGHT_CORNER,
	TileSet.CELL_NEIGHBOR_BOTTOM_CORNER,
	TileSet.CELL_NEIGHBOR_LEFT_CORNER,
	TileSet.CELL_NEIGHBOR_TOP_CORNER,
]


func _init() -> void:
	var args: PackedStringArray = OS.get_cmdline_user_args()
	var out_path: String = args[0] if args.size() > 0 else "user://tile_layouts.json"
	var rng := RandomNumberGenerator.new()
	rng.seed = 39
	var layers: Array = []
	for shape: int in TILE_SIZES:
		var layouts: Array = [0] if shape == TileSet.TILE_SHAPE_SQUARE else range(6)
		var axes: Array = [0] if shape == TileSet.TILE_SHAPE_SQUARE else [0, 1]
		for layout: int in layouts:
			for axis: int in axes:
				layers.append(_dump_layer(shape, layout, axis, rng))
	var grids: Array = []
	var shapes: Array[int] = [
		AStarGrid2D.CELL_SHAPE_ISOMETRIC_RIGHT, AStarGrid2D.CELL_SHAPE_ISOMETRIC_DOWN
	]
	for cell_shape: int in shapes:
		for mode: int in [
			AStarGrid2D.DIAGONAL_MODE_ALWAYS, AStarGrid2D.DIAGONAL_MODE_ONLY_IF_NO_OBSTACLES
		]:
			grids.append(_dump_astar_grid(cell_shape, mode, rng))
	var dump := {
		"godot": Engine.get_version_info()["string"],
		"region": [REGION.position.x, REGION.position.y, REGION.size.x, REGION.size.y],
		"layers": layers,
		"astar_grids": grids,
	}
	var file := FileAccess.open(out_path, FileAccess.WRITE)
	file.store_string(JSON.stringify(dump, "", false))
	file.close()
	print("dumped %d layers and %d grids to %s" % [layers.size(), grids.size(), out_path])
	quit()


func _dump_layer(shape: int, layout: int, axis: int, rng: RandomNumberGenerator) -> Dictionary:
	var tile_set := TileSet.new()
	tile_set.tile_shape = shape as TileSet.TileShape
	tile_set.tile_layout = layout as TileSet.TileLayout
	tile_set.tile_offset_axis = axis as TileSet.TileOffsetAxis
	tile_set.tile_size = TILE_SIZES[shape]
	var layer := TileMapLayer.new()
	layer.tile_set = tile_set
	var centres: Array = []
	var surrounding: Array = []
	var corners: Array = []
	var low := Vector2(INF, INF)
	var high := Vector2(-INF, -INF)
	for y: int in REGION.size.y:
		for x: int in REGION.size.x:
			var cell: Vector2i = REGION.position + Vector2i(x, y)
			var centre: Vector2 = layer.map_to_local(cell)
			low = low.min(centre)
			high = high.max(centre)
			centres.append([centre.x, centre.y])
			surrounding.append(_cells(layer.get_surrounding_cells(cell)))
			var names: Array[int] = []
			if shape == TileSet.TILE_SHAPE_SQUARE:
				names = SQUARE_CORNERS
			elif shape == TileSet.TILE_SHAPE_ISOMETRIC:
				names = ISOMETRIC_CORNERS
			var mine: Array = []
			for neighbor: int in names:
				var other: Vector2i = layer.get_neighbor_cell(
					cell, neighbor as TileSet.CellNeighbor
				)
				mine.append([other.x, other.y])
			corners.append(mine)
	var probes: Array = []
	for i: int in PROBES:
		var point := Vector2(rng.randf_range(low.x, high.x), rng.randf_range(low.y, high.y))
		var cell: Vector2i = layer.local_to_map(point)
		probes.append([point.x, point.y, cell.x, cell.y])
	layer.free()
	return {
		"shape": shape,
		"layout": layout,
		"offset_axis": axis,
		"tile_size": [TILE_SIZES[shape].x, TILE_SIZES[shape].y],
		"centres": centres,
		"surrounding": surrounding,
		"corners": corners,
		"probes": probes,
	}


func _dump_astar_grid(cell_shape: int, mode: int, rng: RandomNumberGenerator) -> Dictionary:
	var grid := AStarGrid2D.new()
	grid.region = Rect2i(-2, 1, 14, 10)
	grid.cell_size = Vector2(64, 32)
	grid.offset = Vector2(5, 7)
	grid.cell_shape = cell_shape as AStarGrid2D.CellShape
	grid.diagonal_mode = mode as AStarGrid2D.DiagonalMode
	grid.update()
	var solid: Array = []
	var weights: Array = []
	var positions: Array = []
	var open: Array[Vector2i] = []
	for y: int in grid.region.size.y:
		for x: int in grid.region.size.x:
			var cell: Vector2i = grid.region.position + Vector2i(x, y)
			var wall: bool = rng.randf() < 0.2
			var weight: float = [1.0, 1.0, 1.5, 3.0][rng.randi_range(0, 3)]
			grid.set_point_solid(cell, wall)
			grid.set_point_weight_scale(cell, weight)
			solid.append(1 if wall else 0)
			weights.append(weight)
			var at: Vector2 = grid.get_point_position(cell)
			positions.append([at.x, at.y])
			if not wall:
				open.append(cell)
	var queries: Array = []
	for i: int in QUERIES:
		var start: Vector2i = open[rng.randi_range(0, open.size() - 1)]
		var goal: Vector2i = open[rng.randi_range(0, open.size() - 1)]
		queries.append([start.x, start.y, goal.x, goal.y, _cells(grid.get_id_path(start, goal))])
	return {
		"cell_shape": cell_shape,
		"diagonal_mode": mode,
		"region":
		[grid.region.position.x, grid.region.position.y, grid.region.size.x, grid.region.size.y],
		"cell_size": [grid.cell_size.x, grid.cell_size.y],
		"offset": [grid.offset.x, grid.offset.y],
		"solid": solid,
		"weights": weights,
		"positions": positions,
		"queries": queries,
	}


func _cells(cells: Array) -> Array:
	var out: Array = []
	for cell: Vector2i in cells:
		out.append([cell.x, cell.y])
	return out
