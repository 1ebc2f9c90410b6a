## Where a grid's cells sit in the world for every cell shape Godot draws: the geometry of a
## [code]graph.load_grid[/code] map's [code]"layout"[/code] entry (absent or {} = a square grid,
## cell (x, y) at [code]origin + (x, y) * cell_size[/code]).
##
## A layout is [code]{"shape", "layout", "offset_axis", "map_origin"}[/code]: the
## [TileSet]'s tile shape ("square", "isometric", "half_offset_square", "hexagon"), its
## [enum TileSet.TileLayout] and [enum TileSet.TileOffsetAxis] as ints, and the map coordinate of
## the grid's cell (0, 0) (a hex cell's neighbours depend on the parity of its map coordinates);
## or an [AStarGrid2D]'s diamond cells ("astar_isometric_right", "astar_isometric_down").
## Centres follow [method TileMapLayer.map_to_local], the cell under a point
## [method TileMapLayer.local_to_map] (TileSet's own formulas, in tile units); grid cells are the
## map's minus [code]map_origin[/code]. Pure functions.
## [codeblock]
## var params := GridSerializer.from_tile_map_layer($HexFloor, "hex")
## var centre: Vector2 = CellLayout.centre(params, Vector2i(2, 3))  # = map_to_local, in world
## var cell: Vector2i = CellLayout.cell_at(params, centre)  # Vector2i(2, 3)
## [/codeblock]
extends RefCounted

## [enum TileSet.TileShape] values, in order, as the wire names them.
const SHAPE_NAMES: PackedStringArray = ["square", "isometric", "half_offset_square", "hexagon"]
## [enum AStarGrid2D.CellShape] ISOMETRIC_RIGHT and ISOMETRIC_DOWN as the wire names them.
const ASTAR_SHAPE_NAMES: PackedStringArray = ["astar_isometric_right", "astar_isometric_down"]
# How far rows (columns on the vertical axis) overlap, as TileSet scales them: square tiles do
# not, hexagons by a quarter, diamonds by half.
const _OVERLAP: Dictionary = {"isometric": 0.5, "half_offset_square": 1.0, "hexagon": 0.75}
# A layout read on the vertical axis is the horizontal one of the transposed map, with the
# stairs and diamond layouts swapped (TileSet's vertical formulas are exactly these).
const _TRANSPOSED: PackedInt32Array = [0, 1, 3, 2, 5, 4]


## The layout map of a [TileSet] whose grid starts at map cell [param map_origin]; {} for a
## square tile set (a plain grid, bit for bit as before).
static func of_tile_set(tile_set: TileSet, map_origin: Vector2i) -> Dictionary:
	if tile_set.tile_shape == TileSet.TILE_SHAPE_SQUARE:
		return {}
	return {
		"shape": SHAPE_NAMES[tile_set.tile_shape],
		"layout": int(tile_set.tile_layout),
		"offset_axis": int(tile_set.tile_offset_axis),
		"map_origin": [map_origin.x, map_origin.y],
	}


## The layout map of an [AStarGrid2D] whose region starts at [param map_origin]; {} for square
## cells.
static func of_astar_grid(shape: AStarGrid2D.CellShape, map_origin: Vector2i) -> Dictionary:
	if shape == AStarGrid2D.CELL_SHAPE_ISOMETRIC_RIGHT:
		return {"shape": ASTAR_SHAPE_NAMES[0], "map_origin": [map_origin.x, map_origin.y]}
	if shape == AStarGrid2D.CELL_SHAPE_ISOMETRIC_DOWN:
		return {"shape": ASTAR_SHAPE_NAMES[1], "map_origin": [map_origin.x, map_origin.y]}
	return {}


## The world position of grid cell [param cell] of [param params] (its centre, the point paths
## go through).
static func centre(params: Dictionary, cell: Vector2i) -> Vector2:
	var origin: Vector2 = _vec2(params.get("origin"), Vector2.ZERO)
	var size: Vector2 = _vec2(params.get("cell_size"), Vector2.ONE)
	var layout: Dictionary = layout_of(params)
	if layout.is_empty():
		return origin + Vector2(cell) * size
	var first: Vector2i = _map_origin(layout)
	return origin + (unit_centre(layout, first + cell) - unit_centre(layout, first)) * size


## The grid cell of [param params] under world point [param point] (it may lie outside the
## grid): the nearest centre on a square grid (halfway goes to the later cell, as the sidecar
## rounds), the tile containing the point on the other shapes, as local_to_map finds it.
static func cell_at(params: Dictionary, point: Vector2) -> Vector2i:
	var origin: Vector2 = _vec2(params.get("origin"), Vector2.ZERO)
	var size: Vector2 = _vec2(params.get("cell_size"), Vector2.ONE)
	var layout: Dictionary = layout_of(params)
	var rel: Vector2 = (point - origin) / size
	if layout.is_empty():
		return Vector2i((rel + Vector2(0.5, 0.5)).floor())
	var first: Vector2i = _map_origin(layout)
	var shape: String = str(layout.get("shape", ""))
	var unit: Vector2 = rel + unit_centre(layout, first)
	if shape in ASTAR_SHAPE_NAMES:
		# The diamond lattice is a linear map of the square one: undo it and round.
		var ids: Vector2 = unit
		if shape == ASTAR_SHAPE_NAMES[0]:
			ids = Vector2(unit.x - unit.y, unit.x + unit.y)
		else:
			ids = Vector2(unit.x + unit.y, unit.y - unit.x)
		return Vector2i((ids + Vector2(0.5, 0.5)).floor()) - first
	return _local_to_map(unit + Vector2(0.5, 0.5), layout) - first


## The world outline of grid cell [param cell] (a rectangle, diamond or hexagon around its
## centre, TileSet's tile polygon).
static func outline(params: Dictionary, cell: Vector2i) -> PackedVector2Array:
	var at: Vector2 = centre(params, cell)
	var size: Vector2 = _vec2(params.get("cell_size"), Vector2.ONE)
	var polygon := PackedVector2Array()
	for corner: Vector2 in unit_outline(layout_of(params)):
		polygon.append(at + corner * size)
	return polygon


## TileSet's tile polygon for [param layout], around (0, 0), in tile units.
static func unit_outline(layout: Dictionary) -> PackedVector2Array:
	var shape: String = str(layout.get("shape", "square"))
	if shape == "isometric" or shape in ASTAR_SHAPE_NAMES:
		return PackedVector2Array(
			[Vector2(0, -0.5), Vector2(0.5, 0), Vector2(0, 0.5), Vector2(-0.5, 0)]
		)
	if shape == "hexagon":
		var hexagon := PackedVector2Array(
			[
				Vector2(0, -0.5),
				Vector2(0.5, -0.25),
				Vector2(0.5, 0.25),
				Vector2(0, 0.5),
				Vector2(-0.5, 0.25),
				Vector2(-0.5, -0.25),
			]
		)
		if _int(layout.get("offset_axis")) == TileSet.TILE_OFFSET_AXIS_VERTICAL:
			for i: int in hexagon.size():
				hexagon[i] = Vector2(hexagon[i].y, hexagon[i].x)
		return hexagon
	return PackedVector2Array(
		[Vector2(-0.5, -0.5), Vector2(0.5, -0.5), Vector2(0.5, 0.5), Vector2(-0.5, 0.5)]
	)


## The layout map of grid parameters [param params] ({} = square cells).
static func layout_of(params: Dictionary) -> Dictionary:
	var layout: Variant = params.get("layout", {})
	return layout if layout is Dictionary else {}


## The centre of map cell [param map_cell] in tile units, without TileSet's half-tile shift:
## [code]map_to_local(map_cell) / tile_size - (0.5, 0.5)[/code].
static func unit_centre(layout: Dictionary, map_cell: Vector2i) -> Vector2:
	var shape: String = str(layout.get("shape", "square"))
	var at := Vector2(map_cell)
	if shape == ASTAR_SHAPE_NAMES[0]:
		return Vector2(at.x + at.y, at.y - at.x) / 2.0
	if shape == ASTAR_SHAPE_NAMES[1]:
		return Vector2(at.x - at.y, at.x + at.y) / 2.0
	if not _OVERLAP.has(shape):
		return at
	var vertical: bool = _int(layout.get("offset_axis")) == TileSet.TILE_OFFSET_AXIS_VERTICAL
	var tile_layout: int = clampi(_int(layout.get("layout")), 0, 5)
	if vertical:
		at = Vector2(at.y, at.x)
		tile_layout = _TRANSPOSED[tile_layout]
	var overlap: float = _OVERLAP[shape]
	var odd: bool = fposmod(at.y, 2.0) == 1.0
	match tile_layout:
		TileSet.TILE_LAYOUT_STACKED:
			at = Vector2(at.x + (0.5 if odd else 0.0), at.y)
		TileSet.TILE_LAYOUT_STACKED_OFFSET:
			at = Vector2(at.x + (0.0 if odd else 0.5), at.y)
		TileSet.TILE_LAYOUT_STAIRS_RIGHT:
			at = Vector2(at.x + at.y / 2.0, at.y)
		TileSet.TILE_LAYOUT_STAIRS_DOWN:
			at = Vector2(at.x / 2.0, at.y * 2.0 + at.x)
		TileSet.TILE_LAYOUT_DIAMOND_RIGHT:
			at = Vector2((at.x + at.y) / 2.0, at.y - at.x)
		TileSet.TILE_LAYOUT_DIAMOND_DOWN:
			at = Vector2((at.x - at.y) / 2.0, at.y + at.x)
	at.y *= overlap
	return Vector2(at.y, at.x) if vertical else at


# TileSet.local_to_map in tile units ([param unit] = local position / tile_size) for the
# half-offset shapes: the vertical axis read as the horizontal one of the transposed map.
static func _local_to_map(unit: Vector2, layout: Dictionary) -> Vector2i:
	var shape: String = str(layout.get("shape", "square"))
	if not _OVERLAP.has(shape):
		return Vector2i((unit + Vector2(0.00005, 0.00005)).floor())
	var vertical: bool = _int(layout.get("offset_axis")) == TileSet.TILE_OFFSET_AXIS_VERTICAL
	var tile_layout: int = clampi(_int(layout.get("layout")), 0, 5)
	var overlap: float = _OVERLAP[shape]
	var at: Vector2 = unit
	if vertical:
		at = Vector2(at.y, at.x)
		tile_layout = _TRANSPOSED[tile_layout]
	var map: Vector2i = _horizontal_local_to_map(at, tile_layout, overlap)
	return Vector2i(map.y, map.x) if vertical else map


# TileSet.local_to_map's horizontal-axis branch: a "smart floor" onto the row's tiles, then a
# step to the row above when the point lies in one of the tile's two top triangles.
static func _horizontal_local_to_map(unit: Vector2, tile_layout: int, overlap: float) -> Vector2i:
	var raw := Vector2(unit.x, unit.y / overlap)
	var at: Vector2 = raw.floor()
	var shifted: bool = fposmod(floorf(raw.y), 2.0) == 1.0
	if shifted != (tile_layout == TileSet.TILE_LAYOUT_STACKED_OFFSET):
		at = Vector2(floorf(raw.x + 0.5) - 0.5, floorf(raw.y))
	var inside: Vector2 = raw - at
	var rise: float = 1.0 / overlap - 1.0
	var top_left: bool = (inside - Vector2(0.5, 0.0)).cross(Vector2(-0.5, rise)) <= 0.0
	var top_right: bool = (inside - Vector2(0.5, 0.0)).cross(Vector2(0.5, rise)) > 0.0
	var left_step := Vector2i.ZERO
	var right_step := Vector2i.ZERO
	match tile_layout:
		TileSet.TILE_LAYOUT_STACKED, TileSet.TILE_LAYOUT_STACKED_OFFSET:
			at = at.floor()
			var odd: bool = fposmod(at.y, 2.0) == 1.0
			if tile_layout == TileSet.TILE_LAYOUT_STACKED_OFFSET:
				odd = not odd
			left_step = Vector2i(0 if odd else -1, -1)
			right_step = Vector2i(1 if odd else 0, -1)
		TileSet.TILE_LAYOUT_STAIRS_RIGHT:
			at = Vector2(at.x - at.y / 2.0, at.y).floor()
			left_step = Vector2i(0, -1)
			right_step = Vector2i(1, -1)
		TileSet.TILE_LAYOUT_STAIRS_DOWN:
			at = Vector2(at.x * 2.0, at.y / 2.0 - at.x).floor()
			left_step = Vector2i(-1, 0)
			right_step = Vector2i(1, -1)
		TileSet.TILE_LAYOUT_DIAMOND_RIGHT:
			at = Vector2(at.x - at.y / 2.0, at.y / 2.0 + at.x).floor()
			left_step = Vector2i(0, -1)
			right_step = Vector2i(1, 0)
		TileSet.TILE_LAYOUT_DIAMOND_DOWN:
			at = Vector2(at.x + at.y / 2.0, at.y / 2.0 - at.x).floor()
			left_step = Vector2i(-1, 0)
			right_step = Vector2i(0, -1)
	var map := Vector2i(at)
	if top_left:
		return map + left_step
	if top_right:
		return map + right_step
	return map


static func _map_origin(layout: Dictionary) -> Vector2i:
	var pair: Variant = layout.get("map_origin", [0, 0])
	if pair is Vector2i:
		return pair
	if not pair is Array:
		return Vector2i.ZERO
	var values: Array = pair
	if values.size() < 2:
		return Vector2i.ZERO
	return Vector2i(_int(values[0]), _int(values[1]))


# A whole number from the wire (an int, or a float msgpack may have made of one); 0 otherwise.
static func _int(value: Variant) -> int:
	if value is int:
		return value
	if value is float:
		var number: float = value
		return roundi(number)
	return 0


static func _vec2(value: Variant, fallback: Vector2) -> Vector2:
	if value is Vector2:
		return value
	if value is Array:
		var pair: Array = value
		if pair.size() >= 2 and (pair[0] is float or pair[0] is int):
			var x: float = pair[0]
			var y: float = pair[1]
			return Vector2(x, y)
	return fallback
