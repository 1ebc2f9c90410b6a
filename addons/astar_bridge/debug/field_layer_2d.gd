## Debug drawing of every flow field the autoload made ([code]get_flow_fields()[/code]): an arrow
## per cell of the fetched tiles inside the view, pointing at the next cell, and a cross on goal
## cells; walls, unreachable cells and tiles not fetched are left blank. All arrows go in one
## [method CanvasItem.draw_multiline]; the layer redraws only when tiles arrive or change, a
## field comes or goes, or the view moves. Arrows stay readable when the view is zoomed out: they
## are at least [constant MIN_SPACING_PX] screen pixels apart (and at most [constant MAX_ARROWS]
## a field), so past that every n-th cell of every n-th row gets an arrow n cells long, and lines
## are [constant LINE_WIDTH] of an arrow's cell wide.
extends Node2D

const FlowField = preload("res://addons/astar_bridge/api/flow_field.gd")
## Most arrows drawn per field (a zoomed-out view of a large map draws a sample of the cells).
const MAX_ARROWS := 20000
## Fewest screen pixels between two arrows' centres.
const MIN_SPACING_PX := 12.0
const ARROW_HALF := 0.35  # of the cell's smaller side
const HEAD := 0.55  # of the half arrow
const HEAD_ANGLE := 0.5
## Line width, as a share of the cell's smaller side (thinner than 1.5 px: a hairline).
const LINE_WIDTH := 0.08

## Arrows (and goal crosses) drawn by the last draw, for tests.
var drawn_arrows: int = 0
## The world rectangle to draw in; empty (the default) means the viewport's visible rectangle.
var view_rect: Rect2 = Rect2()

var _bridge: Node = null
var _color: Color = Color.GREEN
var _dirty: bool = true
# Instance ids of the fields seen (ids, not the fields: the drawing must not keep them alive).
var _known: PackedInt64Array = PackedInt64Array()
var _last_view: Rect2 = Rect2()
var _last_zoom: float = 1.0


func _init(bridge: Node, color: Color) -> void:
	_bridge = bridge
	_color = color


func _process(_delta: float) -> void:
	var ids := PackedInt64Array()
	for field: FlowField in _fields():
		ids.append(field.get_instance_id())
		if not _known.has(field.get_instance_id()):
			field.tiles_arrived.connect(_on_tiles)
			field.tiles_changed.connect(_on_tiles)
	if ids != _known:
		_known = ids
		_dirty = true
	var view: Rect2 = _view()
	var zoom: float = _screen_scale()
	if view != _last_view or zoom != _last_zoom:
		_last_view = view
		_last_zoom = zoom
		_dirty = true
	if _dirty:
		_dirty = false
		queue_redraw()


func _draw() -> void:
	drawn_arrows = 0
	var px_per_unit: float = _screen_scale()
	for field: FlowField in _fields():
		var stride: int = _stride(field, _last_view, px_per_unit)
		var lines := PackedVector2Array()
		drawn_arrows += _arrows(field, _last_view, stride, lines)
		if not lines.is_empty():
			var width: float = LINE_WIDTH * _cell_side(field) * stride
			if width * px_per_unit >= 1.5:
				draw_multiline(lines, _color, width, true)
			else:  # a hairline (antialiasing needs a width)
				draw_multiline(lines, _color)


# Appends the segments of [param field]'s arrows inside [param view] to [param lines], one every
# [param stride] cells of every [param stride]-th row; returns how many cells got one.
func _arrows(field: FlowField, view: Rect2, stride: int, lines: PackedVector2Array) -> int:
	var grid: Rect2i = field.get_grid_rect()
	var first: Vector2i = field.world_to_cell(view.position).max(grid.position)
	var last: Vector2i = field.world_to_cell(view.end).min(grid.end - Vector2i.ONE)
	if last.x < first.x or last.y < first.y:
		return 0
	var shapes: Array[PackedVector2Array] = _shapes(field, stride)
	# hexagonal, isometric, half-offset: a byte is the layout's move, drawn toward that centre
	var on_layout: bool = field.has_method("is_on_layout") and field.call("is_on_layout") == true
	var half: float = ARROW_HALF * _cell_side(field) * stride
	var count: int = 0
	for y: int in range(first.y, last.y + 1, stride):
		for x: int in range(first.x, last.x + 1, stride):
			var code: int = field.byte_at(Vector2i(x, y))
			if code < 0 or code > FlowField.GOAL_BYTE:
				continue
			var centre: Vector2 = field.cell_to_world(Vector2i(x, y))
			var shape: PackedVector2Array = shapes[code]
			if on_layout and code < FlowField.GOAL_BYTE:
				var next: Vector2i = Vector2i(x, y) + field.direction_at_cell(Vector2i(x, y))
				shape = _arrow((field.cell_to_world(next) - centre).normalized(), half)
			for offset: Vector2 in shape:
				lines.append(centre + offset)
			count += 1
	return count


# The n of "every n-th cell of every n-th row" for [param field] in [param view], drawn at
# [param px_per_unit] screen pixels a world unit.
func _stride(field: FlowField, view: Rect2, px_per_unit: float) -> int:
	var grid: Rect2i = field.get_grid_rect()
	var first: Vector2i = field.world_to_cell(view.position).max(grid.position)
	var last: Vector2i = field.world_to_cell(view.end).min(grid.end - Vector2i.ONE)
	var cells: int = maxi(0, last.x - first.x + 1) * maxi(0, last.y - first.y + 1)
	var stride: int = maxi(1, ceili(sqrt(float(cells) / MAX_ARROWS)))
	var on_screen: float = _cell_side(field) * px_per_unit
	return maxi(stride, ceili(MIN_SPACING_PX / maxf(on_screen, 0.001)))


# Per direction byte 0..8, the segment ends of its mark around a cell's centre: an arrow's shaft
# and head, and for a goal a cross; [param stride] cells long.
static func _shapes(field: FlowField, stride: int) -> Array[PackedVector2Array]:
	var size: Vector2 = field.get_cell_size()
	var half: float = ARROW_HALF * _cell_side(field) * stride
	var shapes: Array[PackedVector2Array] = []
	for step: Vector2i in FlowField.STEPS:
		shapes.append(_arrow((Vector2(step) * size).normalized(), half))
	var a := Vector2(half, half)
	var b := Vector2(half, -half)
	shapes.append(PackedVector2Array([-a, a, -b, b]))
	return shapes


# An arrow's shaft and head along unit vector [param way], [param half] long each side.
static func _arrow(way: Vector2, half: float) -> PackedVector2Array:
	var tip: Vector2 = way * half
	var left: Vector2 = tip - way.rotated(HEAD_ANGLE) * half * HEAD
	var right: Vector2 = tip - way.rotated(-HEAD_ANGLE) * half * HEAD
	return PackedVector2Array([-tip, tip, tip, left, tip, right])


static func _cell_side(field: FlowField) -> float:
	var size: Vector2 = field.get_cell_size()
	return minf(absf(size.x), absf(size.y))


# Screen pixels a world unit, from the canvas transform (the camera's zoom).
func _screen_scale() -> float:
	var zoom: Vector2 = get_global_transform_with_canvas().get_scale()
	return maxf(absf(zoom.x), absf(zoom.y))


func _view() -> Rect2:
	if view_rect.has_area():
		return view_rect
	return get_global_transform_with_canvas().affine_inverse() * get_viewport_rect()


func _fields() -> Array[FlowField]:
	var fields: Array[FlowField] = []
	if _bridge == null or not _bridge.has_method(&"get_flow_fields"):
		return fields
	var held: Array = _bridge.call(&"get_flow_fields")
	for item: Variant in held:
		if item is FlowField:
			fields.append(item)
	return fields


func _on_tiles(_tiles: PackedInt32Array) -> void:
	_dirty = true
