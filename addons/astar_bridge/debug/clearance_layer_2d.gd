## Debug drawing of where a unit of [member size] x [member size] cells fits on a grid: every
## position its footprint's centre may take (the points of its paths) tinted, one texel per
## anchor (the footprint's top-left cell) drawn (size - 1) / 2 cells past the anchor's point, so
## the tint covers the centres, not the anchors. A unit fits at an anchor when every cell of its
## footprint is open and inside the grid: the grid's clearance (the largest square anchored at
## a cell on open cells) is at least [member size], the rule the sidecar's searches follow.
## Made by grid_layer_2d.gd's [code]debug_clearance_size[/code]; the clearance is computed here
## from the layer's copy of the cells, again after every update (one pass over the grid: keep
## it for debugging).
extends Node2D

## The unit's footprint in cells.
var size: int = 2
## The tint of the positions a unit of [member size] may stand on.
var color: Color = Color(0.3, 1.0, 0.4, 0.35)

var _shapes: Dictionary = {}
var _clearance := PackedByteArray()
var _image: Image = null
var _texture: ImageTexture = null


func _init(shapes: Dictionary, unit_size: int, tint: Color) -> void:
	_shapes = shapes
	size = unit_size
	color = tint
	texture_filter = CanvasItem.TEXTURE_FILTER_NEAREST
	rebuild()


func _draw() -> void:
	draw_texture_rect(_texture, drawn_rect(), false, color)


## Computes the clearance again from the grid's current cells and redraws.
func rebuild() -> void:
	var width: int = _shapes["width"]
	var height: int = _shapes["height"]
	var cells: PackedByteArray = _shapes["cells"]
	_clearance = clearance_of(cells, width, height)
	# White where the unit fits, clear elsewhere: the draw call tints it.
	var texels := PackedByteArray()
	texels.resize(width * height * 2)
	texels.fill(255)
	for i: int in _clearance.size():
		if _clearance[i] < size:
			texels[i * 2 + 1] = 0
	_image = Image.create_from_data(width, height, false, Image.FORMAT_LA8, texels)
	_texture = ImageTexture.create_from_image(_image)
	queue_redraw()


## True when a unit of [member size] fits with its footprint's top-left cell at [param anchor].
func fits_at(anchor: Vector2i) -> bool:
	var width: int = _shapes["width"]
	var height: int = _shapes["height"]
	if anchor.x < 0 or anchor.y < 0 or anchor.x >= width or anchor.y >= height:
		return false
	return _clearance[anchor.y * width + anchor.x] >= size


## How many anchors a unit of [member size] fits at (the tinted texels).
func fitting_count() -> int:
	var count: int = 0
	for value: int in _clearance:
		count += 1 if value >= size else 0
	return count


## Where the texture is drawn: each anchor's texel centred on its footprint's centre.
func drawn_rect() -> Rect2:
	var cell: Vector2 = _shapes["cell_size"]
	var origin: Vector2 = _shapes["origin"]
	var width: int = _shapes["width"]
	var height: int = _shapes["height"]
	var centre_shift: Vector2 = cell * ((size - 1) * 0.5)
	return Rect2(origin + centre_shift - cell / 2.0, Vector2(width, height) * cell)


## The clearance of every cell of a [param width] x [param height] grid whose row-major
## [param cells] hold 0 for a wall: the side of the largest square of open cells inside the grid
## with that cell as its top-left corner (0 on walls), at most 255.
static func clearance_of(cells: PackedByteArray, width: int, height: int) -> PackedByteArray:
	var out := PackedByteArray()
	out.resize(width * height)
	for y: int in range(height - 1, -1, -1):
		for x: int in range(width - 1, -1, -1):
			var i: int = y * width + x
			if cells[i] == 0:
				continue  # resize() zeroed it
			var right: int = out[i + 1] if x + 1 < width else 0
			var down: int = out[i + width] if y + 1 < height else 0
			var diagonal: int = out[i + width + 1] if x + 1 < width and y + 1 < height else 0
			out[i] = mini(1 + mini(right, mini(down, diagonal)), 255)
	return out
