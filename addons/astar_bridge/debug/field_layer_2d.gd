## Debug drawing of every flow field the autoload made ([code]get_flow_fields()[/code]): an arrow
## per cell of the fetched tiles inside the view, pointing at the next cell, and a cross on goal
## cells; walls, unreachable cells and tiles not fetched are left blank. All arrows go in one
## [method CanvasItem.draw_multiline]; the layer redraws only when tiles arrive or change, a
## field comes or goes, or the view moves. Past [constant MAX_ARROWS] cells in view, every n-th
## cell of every n-th row is drawn.
extends Node2D

const FlowField = preload("res://addons/astar_bridge/flow_field.gd")
## Most arrows drawn per field (a zoomed-out view of a large map draws a sample of the cells).
const MAX_ARROWS := 20000
const ARROW_HALF := 0.35  # of the cell's smaller side
const HEAD := 0.55  # of the half arrow
const HEAD_ANGLE := 0.5

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
	if view != _last_view:
		_last_view = view
		_dirty = true
	if _dirty:
		_dirty = false
		queue_redraw()


func _draw() -> void:
	drawn_arrows = 0
	for field: FlowField in _fields():
		var lines := PackedVector2Array()
		drawn_arrows += _arrows(field, _last_view, lines)
		if not lines.is_empty():
			draw_multiline(lines, _color)


# Appends the segments of [param field]'s arrows inside [param view] to [param lines]; returns
# how many cells got one.
func _arrows(field: FlowField, view: Rect2, lines: PackedVector2Array) -> int:
	var grid: Rect2i = field.get_grid_rect()
	var first: Vector2i = field.world_to_cell(view.position).max(grid.position)
	var last: Vector2i = field.world_to_cell(view.end).min(grid.end - Vector2i.ONE)
	if last.x < first.x or last.y < first.y:
		return 0
	var cells: int = (last.x - first.x + 1) * (last.y - first.y + 1)
	var stride: int = maxi(1, ceili(sqrt(float(cells) / MAX_ARROWS)))
	var shapes: Array[PackedVector2Array] = _shapes(field)
	var count: int = 0
	for y: int in range(first.y, last.y + 1, stride):
		for x: int in range(first.x, last.x + 1, stride):
			var code: int = field.byte_at(Vector2i(x, y))
			if code < 0 or code > FlowField.GOAL_BYTE:
				continue
			var centre: Vector2 = field.cell_to_world(Vector2i(x, y))
			for offset: Vector2 in shapes[code]:
				lines.append(centre + offset)
			count += 1
	return count


# Per direction byte 0..8, the segment ends of its mark around a cell's centre: an arrow's shaft
# and head, and for a goal a cross.
static func _shapes(field: FlowField) -> Array[PackedVector2Array]:
	var size: Vector2 = field.get_cell_size()
	var half: float = ARROW_HALF * minf(absf(size.x), absf(size.y))
	var shapes: Array[PackedVector2Array] = []
	for step: Vector2i in FlowField.STEPS:
		var way: Vector2 = (Vector2(step) * size).normalized()
		var tip: Vector2 = way * half
		var left: Vector2 = tip - way.rotated(HEAD_ANGLE) * half * HEAD
		var right: Vector2 = tip - way.rotated(-HEAD_ANGLE) * half * HEAD
		shapes.append(PackedVector2Array([-tip, tip, tip, left, tip, right]))
	var a := Vector2(half, half)
	var b := Vector2(half, -half)
	shapes.append(PackedVector2Array([-a, a, -b, b]))
	return shapes


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
