## Turns a [TileMapLayer] or an [AStarGrid2D] into [code]graph.load_grid[/code] parameters.
##
## Pure functions: nothing is sent. The result goes to
## [code]AStarBridge.load_graph(METHOD, params)[/code].
## Cells travel as one byte each, row-major ([code]y * width + x[/code], 0 = blocked); weights as
## little-endian float32 per cell (only when some weight differs from 1). World positions follow
## [AStarGrid2D]: cell [code](x, y)[/code] sits at [code]origin + (x, y) * cell_size[/code]; on
## an isometric, half-offset or hexagonal layer (or a diamond AStarGrid2D) the map's
## [code]"layout"[/code] says where (cell_layout.gd: the engine's map_to_local).
## [codeblock]
## const GridSerializer = preload("res://addons/astar_bridge/serializers/grid_serializer.gd")
## var params := GridSerializer.from_tile_map_layer($Floor, "level", {"walkable_layer": "walkable"})
## AStarBridge.load_graph(GridSerializer.METHOD, params)
## [/codeblock]
extends RefCounted

## Where [method from_tile_map_layer] reads walkability from.
enum Source {
	## A bool custom data layer (option [code]walkable_layer[/code], default "walkable").
	CUSTOM_DATA,
	## A tile is walkable when it has a navigation polygon in [code]navigation_layer[/code].
	NAVIGATION,
	## A tile is blocked when it has a collision polygon in [code]physics_layer[/code].
	PHYSICS,
}

const CellLayout = preload("res://addons/astar_bridge/serializers/cell_layout.gd")

## The protocol method these parameters are for.
const METHOD := "graph.load_grid"
## Godot's [enum AStarGrid2D.DiagonalMode] values, in order, as protocol names.
const DIAGONAL_NAMES: PackedStringArray = [
	"always", "never", "at_least_one_walkable", "only_if_no_obstacles"
]
const _DEFAULT_DIAGONAL := "only_if_no_obstacles"
# from_tile_map_layer's options and their types (TYPE_NIL: any; "hierarchy" is the load's).
const _OPTION_TYPES: Dictionary = {
	"source": TYPE_INT,
	"walkable_layer": TYPE_STRING,
	"weight_layer": TYPE_STRING,
	"navigation_layer": TYPE_INT,
	"physics_layer": TYPE_INT,
	"empty_walkable": TYPE_BOOL,
	"region": TYPE_RECT2I,
	"diagonal": TYPE_NIL,
	"global": TYPE_BOOL,
	"hierarchy": TYPE_NIL,
}


## Grid parameters for the used rectangle of [param layer], in the shape its [TileSet] draws:
## square, isometric, half-offset square or hexagonal, every [enum TileSet.TileLayout] and
## [enum TileSet.TileOffsetAxis] (a [code]"layout"[/code] entry for all but square; a cell's
## neighbours are then the engine's [method TileMapLayer.get_surrounding_cells], plus the corner
## cells under [code]diagonal[/code] on isometric layers). [code]origin[/code] is the world
## position of the region's first cell ([method TileMapLayer.map_to_local]), [code]cell_size[/code]
## the tile size, both through the layer's transform (its scale; rotation is not supported).
## Options (all optional):
## [code]source[/code] ([enum Source], default CUSTOM_DATA),
## [code]walkable_layer[/code] (String, default "walkable"),
## [code]weight_layer[/code] (String, default "weight"; a float custom data layer, absent = 1),
## [code]navigation_layer[/code] / [code]physics_layer[/code] (int, default 0),
## [code]empty_walkable[/code] (bool, default false: cells without a tile are blocked),
## [code]region[/code] (Rect2i in map coordinates, default [method TileMapLayer.get_used_rect]),
## [code]diagonal[/code] (an [enum AStarGrid2D.DiagonalMode] or its protocol name; default
## "only_if_no_obstacles", [constant AStarGrid2D.DIAGONAL_MODE_ONLY_IF_NO_OBSTACLES], not
## [AStarGrid2D]'s own default ALWAYS: no corner cutting past a wall tile),
## [code]global[/code] (bool, default true: origin and cell size in global coordinates when the
## layer is inside the tree), [code]hierarchy[/code] (passed on to the load: docs/hpa.md).
## Returns {} after a push_error saying what to change when the layer has no tile set, its tile
## set lacks the layer [code]source[/code] reads, or an option is unknown or of the wrong type.
static func from_tile_map_layer(
	layer: TileMapLayer, id: String, options: Dictionary = {}
) -> Dictionary:
	var problem: String = _options_problem(options)
	if not problem.is_empty():
		push_error("from_tile_map_layer: %s" % problem)
		return {}
	var tile_set: TileSet = layer.tile_set
	if tile_set == null:
		push_error(
			"from_tile_map_layer: the layer %s has no tile_set: give it a TileSet" % layer.name
		)
		return {}
	var region: Rect2i = options.get("region", layer.get_used_rect())
	var source: int = options.get("source", Source.CUSTOM_DATA)
	var walk_name: String = str(options.get("walkable_layer", "walkable"))
	var walk_layer: int = tile_set.get_custom_data_layer_by_name(walk_name)
	var weight_layer: int = tile_set.get_custom_data_layer_by_name(
		str(options.get("weight_layer", "weight"))
	)
	if source == Source.CUSTOM_DATA and walk_layer < 0:
		push_error(
			(
				(
					'from_tile_map_layer: the TileSet of %s has no custom data layer "%s". Add a'
					+ ' bool custom data layer named "%s" (TileSet > Custom Data Layers) and tick'
					+ ' it on walkable tiles, name yours in the option "walkable_layer", or set'
					+ ' "source" to GridSerializer.Source.NAVIGATION or PHYSICS'
				)
				% [layer.name, walk_name, walk_name]
			)
		)
		return {}
	var missing: String = _missing_source_layer(tile_set, source, options)
	if not missing.is_empty():
		push_error("from_tile_map_layer: the TileSet of %s %s" % [layer.name, missing])
		return {}
	var empty_walkable: bool = options.get("empty_walkable", false)
	var cells := PackedByteArray()
	cells.resize(region.size.x * region.size.y)
	var weights := PackedFloat32Array()
	weights.resize(cells.size())
	weights.fill(1.0)
	var weighted: bool = false
	for y: int in region.size.y:
		for x: int in region.size.x:
			var data: TileData = layer.get_cell_tile_data(region.position + Vector2i(x, y))
			var index: int = y * region.size.x + x
			if data == null:
				cells[index] = 1 if empty_walkable else 0
				continue
			cells[index] = 1 if _tile_walkable(data, source, walk_layer, options) else 0
			if weight_layer >= 0:
				var weight: float = _as_float(data.get_custom_data_by_layer_id(weight_layer), 1.0)
				weights[index] = weight
				weighted = weighted or weight != 1.0
	var frame: Transform2D = layer.transform
	if options.get("global", true) and layer.is_inside_tree():
		frame = layer.get_global_transform()
	var first: Vector2 = frame * layer.map_to_local(region.position)
	var size: Vector2 = Vector2(tile_set.tile_size) * frame.get_scale()
	var params: Dictionary = {
		"id": id,
		"width": region.size.x,
		"height": region.size.y,
		"cells": cells,
		"diagonal": _diagonal_option(options),
		"cell_size": [size.x, size.y],
		"origin": [first.x, first.y],
	}
	var layout: Dictionary = CellLayout.of_tile_set(tile_set, region.position)
	if not layout.is_empty():
		params["layout"] = layout
	if weighted:
		params["weights"] = weights.to_byte_array()
	return params


## Grid parameters for [param grid]'s region: solid cells, weight scales, diagonal mode,
## cell size and offset (origin = offset + region.position * cell_size, the position
## [method AStarGrid2D.get_point_position] gives the region's first cell).
## Every [enum AStarGrid2D.CellShape] maps: the diamond ones (ISOMETRIC_RIGHT / ISOMETRIC_DOWN)
## add a [code]"layout"[/code] entry; their neighbours and costs are the square grid's (as
## [AStarGrid2D] keeps them), only the points move, as [method AStarGrid2D.get_point_path] gives
## them. A dirty grid is updated first (as [method AStarGrid2D.update] would be before a query).
## Returns {} after a push_error when the grid's region is empty.
static func from_astar_grid_2d(grid: AStarGrid2D, id: String) -> Dictionary:
	var region: Rect2i = grid.region
	if not region.has_area():
		push_error(
			"from_astar_grid_2d: the grid's region %s is empty: set grid.region first" % region
		)
		return {}
	if grid.is_dirty():
		grid.update()
	var cells := PackedByteArray()
	cells.resize(region.size.x * region.size.y)
	var weights := PackedFloat32Array()
	weights.resize(cells.size())
	var weighted: bool = false
	for y: int in region.size.y:
		for x: int in region.size.x:
			var cell: Vector2i = region.position + Vector2i(x, y)
			var index: int = y * region.size.x + x
			cells[index] = 0 if grid.is_point_solid(cell) else 1
			var weight: float = grid.get_point_weight_scale(cell)
			weights[index] = weight
			weighted = weighted or weight != 1.0
	# The engine's own point of the first cell (a diamond grid shifts it by half a cell).
	var first: Vector2 = grid.get_point_position(region.position)
	var params: Dictionary = {
		"id": id,
		"width": region.size.x,
		"height": region.size.y,
		"cells": cells,
		"diagonal": diagonal_name(grid.diagonal_mode),
		"cell_size": [grid.cell_size.x, grid.cell_size.y],
		"origin": [first.x, first.y],
	}
	var layout: Dictionary = CellLayout.of_astar_grid(grid.cell_shape, region.position)
	if not layout.is_empty():
		params["layout"] = layout
	if weighted:
		params["weights"] = weights.to_byte_array()
	return params


## The protocol name of an [enum AStarGrid2D.DiagonalMode] value.
static func diagonal_name(mode: AStarGrid2D.DiagonalMode) -> String:
	if mode >= 0 and mode < DIAGONAL_NAMES.size():
		return DIAGONAL_NAMES[mode]
	return _DEFAULT_DIAGONAL


## The cell (x, y) of [param params] under world point [param point], or (-1, -1) outside: the
## nearest on a square grid, the tile containing it on other shapes (CellLayout.cell_at).
static func world_to_cell(params: Dictionary, point: Vector2) -> Vector2i:
	var cell: Vector2i = CellLayout.cell_at(params, point)
	var width: int = params.get("width", 0)
	var height: int = params.get("height", 0)
	var inside: bool = cell.x >= 0 and cell.y >= 0 and cell.x < width and cell.y < height
	return cell if inside else Vector2i(-1, -1)


## The world position of cell [param cell] of [param params] (its centre, in every shape).
static func cell_to_world(params: Dictionary, cell: Vector2i) -> Vector2:
	return CellLayout.centre(params, cell)


static func _tile_walkable(
	data: TileData, source: int, walk_layer: int, options: Dictionary
) -> bool:
	match source:
		Source.NAVIGATION:
			var nav_layer: int = options.get("navigation_layer", 0)
			var nav: NavigationPolygon = data.get_navigation_polygon(nav_layer)
			return nav != null and (nav.get_polygon_count() > 0 or nav.get_outline_count() > 0)
		Source.PHYSICS:
			var physics_layer: int = options.get("physics_layer", 0)
			return data.get_collision_polygons_count(physics_layer) == 0
		_:
			return data.get_custom_data_by_layer_id(walk_layer) == true


# What the option "source" asks of the tile set that it lacks, or "".
static func _missing_source_layer(tile_set: TileSet, source: int, options: Dictionary) -> String:
	match source:
		Source.NAVIGATION:
			var nav_layer: int = options.get("navigation_layer", 0)
			var count: int = tile_set.get_navigation_layers_count()
			if nav_layer >= count:
				return (
					(
						'has %d navigation layers, and "source" NAVIGATION reads layer %d: add one'
						+ ' (TileSet > Navigation Layers) or set the option "navigation_layer"'
					)
					% [count, nav_layer]
				)
		Source.PHYSICS:
			var physics_layer: int = options.get("physics_layer", 0)
			var count: int = tile_set.get_physics_layers_count()
			if physics_layer >= count:
				return (
					(
						'has %d physics layers, and "source" PHYSICS reads layer %d: add one'
						+ ' (TileSet > Physics Layers) or set the option "physics_layer"'
					)
					% [count, physics_layer]
				)
	return ""


# Why [param options] cannot be read (an unknown key, a value of the wrong type), or "".
static func _options_problem(options: Dictionary) -> String:
	for key: Variant in options:
		if not key in _OPTION_TYPES:
			return 'unknown option "%s" (known: %s)' % [key, ", ".join(_OPTION_TYPES.keys())]
		var want: int = _OPTION_TYPES[key]
		var given: int = typeof(options[key])
		if want == TYPE_STRING and given == TYPE_STRING_NAME:
			continue
		if want != TYPE_NIL and given != want:
			return 'option "%s" must be a %s, got %s' % [key, type_string(want), options[key]]
	var source: Variant = options.get("source", Source.CUSTOM_DATA)
	if not source in Source.values():
		return 'option "source" must be a GridSerializer.Source value, got %s' % source
	var diagonal: Variant = options.get("diagonal", _DEFAULT_DIAGONAL)
	var known: bool = diagonal is int and diagonal >= 0 and diagonal < DIAGONAL_NAMES.size()
	if (
		not known
		and not ((diagonal is String or diagonal is StringName) and diagonal in DIAGONAL_NAMES)
	):
		return (
			'option "diagonal" must be an AStarGrid2D.DiagonalMode or one of %s, got %s'
			% [DIAGONAL_NAMES, diagonal]
		)
	return ""


# The protocol name of the option "diagonal" (checked by _options_problem).
static func _diagonal_option(options: Dictionary) -> String:
	var diagonal: Variant = options.get("diagonal", _DEFAULT_DIAGONAL)
	if diagonal is int:
		var mode: int = diagonal
		return DIAGONAL_NAMES[mode]
	return str(diagonal)


static func _as_float(value: Variant, fallback: float) -> float:
	if value is float or value is int:
		var number: float = value
		return number
	return fallback
