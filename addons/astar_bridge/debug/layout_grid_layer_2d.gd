## Debug drawing of a grid whose cells are not squares (a hexagonal, isometric or half-offset
## TileMapLayer, a diamond AStarGrid2D: the load's "layout"): each solid or weighted cell filled
## in its own shape (hexagon, diamond, offset square) where the engine draws the tile, and, up to
## [constant MAX_OUTLINED] cells, every cell's outline. One triangle array and one multiline on a
## canvas item of its own (the grid layer's cell shader is for its square texture); the cell
## images of grid_layer_2d.gd still follow updates, so counts and the clearance view work alike.
extends "res://addons/astar_bridge/debug/grid_layer_2d.gd"

const CellLayout = preload("res://addons/astar_bridge/serializers/cell_layout.gd")

## Grids with more cells than this draw their filled cells only (outlines would hide them).
const MAX_OUTLINED := 16384

var _solid_color: Color = Color.RED
var _cells_item: RID = RID()


func _init(shapes: Dictionary, solid_color: Color, edge_color: Color) -> void:
	_solid_color = solid_color
	super(shapes, solid_color, edge_color)


func _notification(what: int) -> void:
	if what == NOTIFICATION_PREDELETE and _cells_item.is_valid():
		RenderingServer.free_rid(_cells_item)


func _draw() -> void:
	if not _cells_item.is_valid():
		_cells_item = RenderingServer.canvas_item_create()
		RenderingServer.canvas_item_set_parent(_cells_item, get_canvas_item())
	RenderingServer.canvas_item_clear(_cells_item)
	var fill: Dictionary = filled_cells()
	var points := PackedVector2Array()
	var colors := PackedColorArray()
	var indices := PackedInt32Array()
	for cell: Vector2i in fill:
		var polygon: PackedVector2Array = CellLayout.outline(_shapes, cell)
		var first: int = points.size()
		var color: Color = fill[cell]
		points.append_array(polygon)
		for i: int in polygon.size():
			colors.append(color)
		for i: int in range(1, polygon.size() - 1):
			indices.append_array(PackedInt32Array([first, first + i, first + i + 1]))
	if not indices.is_empty():
		RenderingServer.canvas_item_add_triangle_array(_cells_item, indices, points, colors)
	var edges: PackedVector2Array = outline_edges()
	if not edges.is_empty():
		RenderingServer.canvas_item_add_multiline(
			_cells_item, edges, PackedColorArray([_edge_color * Color(1, 1, 1, 0.35)])
		)


## Grid cell -> the colour it is filled with: solid cells, and open cells heavier than 1 (on a
## log scale, as the square grids' shader tints them).
func filled_cells() -> Dictionary:
	var width: int = _shapes["width"]
	var cells: PackedByteArray = _shapes["cells"]
	var weights: PackedFloat32Array = _shapes["weights"]
	var fill: Dictionary = {}
	for index: int in cells.size():
		@warning_ignore("integer_division")
		var cell := Vector2i(index % width, index / width)
		if cells[index] == 0:
			fill[cell] = _solid_color
		elif not weights.is_empty() and weights[index] > 1.0:
			var strength: float = clampf(log(weights[index]) / log(16.0), 0.15, 1.0)
			fill[cell] = Color(_edge_color, _edge_color.a * strength)
	return fill


## Every cell's outline as segment pairs (draw_multiline's form), or nothing past
## [constant MAX_OUTLINED] cells.
func outline_edges() -> PackedVector2Array:
	var width: int = _shapes["width"]
	var height: int = _shapes["height"]
	var edges := PackedVector2Array()
	if width * height > MAX_OUTLINED:
		return edges
	for y: int in height:
		for x: int in width:
			var polygon: PackedVector2Array = CellLayout.outline(_shapes, Vector2i(x, y))
			for i: int in polygon.size():
				edges.append(polygon[i])
				edges.append(polygon[(i + 1) % polygon.size()])
	return edges
