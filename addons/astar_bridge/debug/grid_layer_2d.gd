## Debug drawing of one grid: its solid cells (and weighted ones) baked into one texel per cell
## and coloured by a shader, so a grid of millions of cells costs one textured rectangle; an
## update rewrites only the texels of the cells it names. Cell (x, y) is centred on
## [code]origin + (x, y) * cell_size[/code], as the serializers place it.
extends Node2D

const CELLS_SHADER = preload("res://addons/astar_bridge/debug/grid_cells.gdshader")
const ClearanceLayer2D = preload("res://addons/astar_bridge/debug/clearance_layer_2d.gd")

## Show where a unit of this many cells a side fits (clearance_layer_2d.gd: the positions its
## footprint's centre may take, tinted [member clearance_color]); 0 or 1: not shown.
var debug_clearance_size: int = 0:
	set = set_debug_clearance_size
## The tint of [member debug_clearance_size]'s view.
var clearance_color: Color = Color(0.3, 1.0, 0.4, 0.35)

var _shapes: Dictionary = {}
var _cells_image: Image = null
var _cells_texture: ImageTexture = null
var _weights_image: Image = null
var _weights_texture: ImageTexture = null
var _edge_color: Color = Color.WHITE
var _clearance: ClearanceLayer2D = null


func _init(shapes: Dictionary, solid_color: Color, edge_color: Color) -> void:
	_shapes = shapes
	_edge_color = edge_color
	texture_filter = CanvasItem.TEXTURE_FILTER_NEAREST
	var shader_material := ShaderMaterial.new()
	shader_material.shader = CELLS_SHADER
	shader_material.set_shader_parameter("solid_color", solid_color)
	shader_material.set_shader_parameter("weight_color", edge_color)
	material = shader_material
	rebuild()


func _draw() -> void:
	var size: Vector2 = _shapes["cell_size"]
	var origin: Vector2 = _shapes["origin"]
	var width: int = _shapes["width"]
	var height: int = _shapes["height"]
	var rect := Rect2(origin - size / 2.0, Vector2(width, height) * size)
	draw_texture_rect(_cells_texture, rect, false)
	draw_rect(rect, _edge_color, false, 1.0)


## Shows (or, for 0 and 1, hides) where a unit of [param value] cells a side fits; a value
## outside 0 .. 255 is refused (push_error, nothing changes).
func set_debug_clearance_size(value: int) -> void:
	if value < 0 or value > 255:
		push_error("AStarBridge debug: debug_clearance_size must be 0 .. 255, got %d" % value)
		return
	debug_clearance_size = value
	if _clearance != null:
		_clearance.queue_free()
		_clearance = null
	if value > 1:
		_clearance = ClearanceLayer2D.new(_shapes, value, clearance_color)
		_clearance.name = "Clearance"
		add_child(_clearance)


## The view of [member debug_clearance_size] (clearance_layer_2d.gd), or null when off.
func get_clearance_view() -> ClearanceLayer2D:
	return _clearance


## Bakes every cell again (after a load or an update that may change anything).
func rebuild() -> void:
	var width: int = _shapes["width"]
	var height: int = _shapes["height"]
	var cells: PackedByteArray = _shapes["cells"]
	_cells_image = Image.create_from_data(width, height, false, Image.FORMAT_L8, cells)
	_cells_texture = ImageTexture.create_from_image(_cells_image)
	var weights: PackedFloat32Array = _shapes["weights"]
	var shader_material: ShaderMaterial = material
	shader_material.set_shader_parameter("has_weights", not weights.is_empty())
	if not weights.is_empty():
		_weights_image = Image.create_from_data(
			width, height, false, Image.FORMAT_RF, weights.to_byte_array()
		)
		_weights_texture = ImageTexture.create_from_image(_weights_image)
		shader_material.set_shader_parameter("weights", _weights_texture)
	if _clearance != null:
		_clearance.rebuild()
	queue_redraw()


## Rewrites the texels of [param cells] from the grid's current cells (and weights).
func refresh(cells: Array[Vector2i]) -> void:
	var width: int = _shapes["width"]
	var values: PackedByteArray = _shapes["cells"]
	var weights: PackedFloat32Array = _shapes["weights"]
	if not weights.is_empty() and _weights_texture == null:
		rebuild()
		return
	for cell: Vector2i in cells:
		var value: float = values[cell.y * width + cell.x] / 255.0
		_cells_image.set_pixel(cell.x, cell.y, Color(value, value, value))
	_cells_texture.update(_cells_image)
	if not weights.is_empty():
		for cell: Vector2i in cells:
			_weights_image.set_pixel(cell.x, cell.y, Color(weights[cell.y * width + cell.x], 0, 0))
		_weights_texture.update(_weights_image)
	if _clearance != null:
		_clearance.rebuild()
	queue_redraw()


## How many solid cells the texture shows (for tests and the debugger).
func solid_cell_count() -> int:
	var count: int = 0
	for y: int in _cells_image.get_height():
		for x: int in _cells_image.get_width():
			if _cells_image.get_pixel(x, y).r < 0.5 / 255.0:
				count += 1
	return count


## How many open cells the weight texture shows heavier than 1 (for tests and the debugger).
func weighted_cell_count() -> int:
	if _weights_image == null:
		return 0
	var count: int = 0
	for y: int in _cells_image.get_height():
		for x: int in _cells_image.get_width():
			var open: bool = _cells_image.get_pixel(x, y).r >= 0.5 / 255.0
			if open and _weights_image.get_pixel(x, y).r > 1.0:
				count += 1
	return count
