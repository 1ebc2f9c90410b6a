## A test oracle built from the engine alone: the graph of a [TileMapLayer] whose neighbours are
## [method TileMapLayer.get_surrounding_cells] (plus, on square and isometric layers, the corner
## cells of [method TileMapLayer.get_neighbor_cell] when both sides beside the corner are open:
## the default diagonal rule, only_if_no_obstacles), step cost the distance between the cells'
## [method TileMapLayer.map_to_local] centres times the entered cell's weight, solved by a plain
## Dijkstra. Tiles as tile_fixtures.gd makes them: atlas x 0 floor, 1 wall, 2 mud.
extends RefCounted

# Square layers: each corner and the two sides beside it.
const SQUARE_CORNERS: Array[Array] = [
	[
		TileSet.CELL_NEIGHBOR_BOTTOM_RIGHT_CORNER,
		TileSet.CELL_NEIGHBOR_RIGHT_SIDE,
		TileSet.CELL_NEIGHBOR_BOTTOM_SIDE
	],
	[
		TileSet.CELL_NEIGHBOR_BOTTOM_LEFT_CORNER,
		TileSet.CELL_NEIGHBOR_BOTTOM_SIDE,
		TileSet.CELL_NEIGHBOR_LEFT_SIDE
	],
	[
		TileSet.CELL_NEIGHBOR_TOP_LEFT_CORNER,
		TileSet.CELL_NEIGHBOR_LEFT_SIDE,
		TileSet.CELL_NEIGHBOR_TOP_SIDE
	],
	[
		TileSet.CELL_NEIGHBOR_TOP_RIGHT_CORNER,
		TileSet.CELL_NEIGHBOR_TOP_SIDE,
		TileSet.CELL_NEIGHBOR_RIGHT_SIDE
	],
]
# Isometric layers: each corner and the two sides beside it.
const ISOMETRIC_CORNERS: Array[Array] = [
	[
		TileSet.CELL_NEIGHBOR_RIGHT_CORNER,
		TileSet.CELL_NEIGHBOR_TOP_RIGHT_SIDE,
		TileSet.CELL_NEIGHBOR_BOTTOM_RIGHT_SIDE
	],
	[
		TileSet.CELL_NEIGHBOR_BOTTOM_CORNER,
		TileSet.CELL_NEIGHBOR_BOTTOM_RIGHT_SIDE,
		TileSet.CELL_NEIGHBOR_BOTTOM_LEFT_SIDE
	],
	[
		TileSet.CELL_NEIGHBOR_LEFT_CORNER,
		TileSet.CELL_NEIGHBOR_BOTTOM_LEFT_SIDE,
		TileSet.CELL_NEIGHBOR_TOP_LEFT_SIDE
	],
	[
		TileSet.CELL_NEIGHBOR_TOP_CORNER,
		TileSet.CELL_NEIGHBOR_TOP_LEFT_SIDE,
		TileSet.CELL_NEIGHBOR_TOP_RIGHT_SIDE
	],
]
const SHAPE_NAMES: PackedStringArray = ["square", "isometric", "half_offset_square", "hexagon"]

var _layer: TileMapLayer
var _region: Rect2i
var _mud: float
var _solid: Dictionary = {}


func _init(layer: TileMapLayer, region: Rect2i, mud_weight: float) -> void:
	_layer = layer
	_region = region
	_mud = mud_weight


## "hexagon layout 3 axis 1" for a [shape, layout, axis] triple.
static func describe(config: Array) -> String:
	return "%s layout %d axis %d" % [SHAPE_NAMES[config[0]], config[1], config[2]]


## The cost of [param path] (ids of [param grid]) as [AStarGrid2D] counts it: id-space step
## lengths (1 or sqrt 2) times the entered cell's weight scale.
static func id_path_cost(grid: AStarGrid2D, path: Array[Vector2i]) -> float:
	var cost: float = 0.0
	for i: int in range(1, path.size()):
		var step: float = Vector2(path[i] - path[i - 1]).length()
		cost += step * grid.get_point_weight_scale(path[i])
	return cost


## Marks [param cell] a wall (as set_cells_solid does on the sidecar).
func set_solid(cell: Vector2i) -> void:
	_solid[cell] = true


## Every open cell of the region, row by row.
func open_cells() -> Array[Vector2i]:
	var cells: Array[Vector2i] = []
	for y: int in range(_region.position.y, _region.end.y):
		for x: int in range(_region.position.x, _region.end.x):
			if is_open(Vector2i(x, y)):
				cells.append(Vector2i(x, y))
	return cells


## Inside the region, a floor or mud tile, not made solid.
func is_open(cell: Vector2i) -> bool:
	if not _region.has_point(cell) or _solid.has(cell):
		return false
	return _layer.get_cell_atlas_coords(cell).x != 1


## The open cells one step from [param cell].
func neighbours(cell: Vector2i) -> Array[Vector2i]:
	var out: Array[Vector2i] = []
	for near: Vector2i in _layer.get_surrounding_cells(cell):
		if is_open(near):
			out.append(near)
	var corners: Array[Array] = []
	if _layer.tile_set.tile_shape == TileSet.TILE_SHAPE_SQUARE:
		corners = SQUARE_CORNERS
	elif _layer.tile_set.tile_shape == TileSet.TILE_SHAPE_ISOMETRIC:
		corners = ISOMETRIC_CORNERS
	for corner: Array in corners:
		var towards: TileSet.CellNeighbor = corner[0]
		var beside_a: TileSet.CellNeighbor = corner[1]
		var beside_b: TileSet.CellNeighbor = corner[2]
		var at: Vector2i = _layer.get_neighbor_cell(cell, towards)
		var side_a: Vector2i = _layer.get_neighbor_cell(cell, beside_a)
		var side_b: Vector2i = _layer.get_neighbor_cell(cell, beside_b)
		if is_open(at) and is_open(side_a) and is_open(side_b):
			out.append(at)
	return out


## True when [param to] is one step from [param from].
func is_step(from: Vector2i, to: Vector2i) -> bool:
	return neighbours(from).has(to)


## The cost of entering [param to] from [param from].
func step_cost(from: Vector2i, to: Vector2i) -> float:
	var length: float = _layer.map_to_local(from).distance_to(_layer.map_to_local(to))
	var weight: float = _mud if _layer.get_cell_atlas_coords(to).x == 2 else 1.0
	return length * weight


## Cell -> cost of the cheapest path from [param start], for every cell it reaches.
func dijkstra(start: Vector2i) -> Dictionary:
	var best: Dictionary = {start: 0.0}
	var done: Dictionary = {}
	while true:
		var current := Vector2i.ZERO
		var lowest: float = INF
		for cell: Vector2i in best:
			if not done.has(cell) and best[cell] < lowest:
				lowest = best[cell]
				current = cell
		if lowest == INF:
			return best
		done[current] = true
		for near: Vector2i in neighbours(current):
			var cost: float = lowest + step_cost(current, near)
			if cost < best.get(near, INF):
				best[near] = cost
	return best
