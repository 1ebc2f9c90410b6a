## The debug drawing of flow fields (addons/astar_bridge/debug/field_layer_2d.gd) against a real
## sidecar: one arrow per cell of the fetched tiles inside the view (a cross on goals, nothing on
## walls), redrawn when the view moves and when a wall change makes tiles arrive again, and
## nothing once no one holds the field; absent when its setting is off.
extends "res://runner/gd_test.gd"

const AStarBridgeNode = preload("res://addons/astar_bridge/astar_bridge.gd")
const DebugDraw = preload("res://addons/astar_bridge/debug/debug_draw.gd")
const FlowField = preload("res://addons/astar_bridge/api/flow_field.gd")
const ENABLED := "astar_bridge/debug/enabled"
const DRAW_FIELDS := "astar_bridge/debug/draw_fields"
const SIZE := Vector2i(40, 30)
const CELL := Vector2(16, 16)

var _bridge: AStarBridgeNode = null


func before_each() -> void:
	_bridge = AStarBridgeNode.new()
	_bridge.config.extra_arguments = PackedStringArray(["--threads", "1", "--log-level", "ERROR"])
	_bridge.config.connect_timeout_ms = 20000
	_bridge.config.request_timeout_ms = 10000


func after_each() -> void:
	ProjectSettings.set_setting(ENABLED, null)
	ProjectSettings.set_setting(DRAW_FIELDS, null)
	_bridge.stop()
	_bridge.free()


func test_an_arrow_per_fetched_cell_in_view() -> void:
	ProjectSettings.set_setting(ENABLED, true)
	_tree().root.add_child(_bridge)
	var grid: AStarGrid2D = _grid()
	assert_true(_bridge.load_astar_grid_2d("room", grid).is_ok())
	var layer: Node2D = _layer()
	assert_ne(layer, null)
	var whole := Rect2(Vector2(-CELL), Vector2(SIZE + Vector2i(2, 2)) * CELL)
	layer.set("view_rect", whole)
	var field: FlowField = _bridge.request_flow_field("room", [Vector2i(3, 3)])
	var everywhere: Array = []
	for y: int in range(0, SIZE.y, 8):
		for x: int in range(0, SIZE.x, 8):
			everywhere.append(Vector2i(x, y))
	field.cover(everywhere)
	for _i: int in 600:
		await _tree().process_frame
		if field.get_held_tiles().size() == 3 * 2:
			break
	await _frames(2)
	assert_eq(field.get_held_tiles().size(), 6, "every tile of 16 x 16 cells fetched")
	assert_eq(layer.get("drawn_arrows"), _marked(field, Rect2i(Vector2i.ZERO, SIZE)))
	assert_eq(_marked(field, Rect2i(Vector2i.ZERO, SIZE)), SIZE.x * SIZE.y - _solid(grid))
	# A window of 10 x 6 cells (cells 20..29, 10..15).
	layer.set("view_rect", Rect2(Vector2(20, 10) * CELL, Vector2(9.4, 5.4) * CELL))
	await _frames(2)
	assert_eq(layer.get("drawn_arrows"), _marked(field, Rect2i(20, 10, 10, 6)))
	layer.set("view_rect", whole)
	var changed: Array[PackedInt32Array] = []
	field.tiles_changed.connect(func(tiles: PackedInt32Array) -> void: changed.append(tiles))
	var wall: Array[Vector2i] = []
	for y: int in range(0, 20):
		wall.append(Vector2i(12, y))
	assert_true(_bridge.set_cells_solid("room", wall, true).is_ok())
	for _i: int in 600:
		if not changed.is_empty():
			break
		await _tree().process_frame
	await _frames(2)
	for cell: Vector2i in wall:
		grid.set_point_solid(cell)
	var open: int = SIZE.x * SIZE.y - _solid(grid)
	assert_eq(layer.get("drawn_arrows"), open, "the new wall has no arrows")
	field = null
	await _frames(3)
	assert_eq(layer.get("drawn_arrows"), 0, "a field no one holds is not drawn")


func test_absent_when_its_setting_is_off() -> void:
	ProjectSettings.set_setting(ENABLED, true)
	ProjectSettings.set_setting(DRAW_FIELDS, false)
	_tree().root.add_child(_bridge)
	await _frames(1)
	assert_true(_layer() == null, "no field layer")


# A room of 40 x 30 cells of 16 px with a few pillars.
func _grid() -> AStarGrid2D:
	var grid := AStarGrid2D.new()
	grid.region = Rect2i(Vector2i.ZERO, SIZE)
	grid.cell_size = CELL
	grid.diagonal_mode = AStarGrid2D.DIAGONAL_MODE_ONLY_IF_NO_OBSTACLES
	grid.update()
	for y: int in range(4, SIZE.y, 6):
		for x: int in range(5, SIZE.x, 7):
			grid.set_point_solid(Vector2i(x, y))
	return grid


func _solid(grid: AStarGrid2D) -> int:
	var count: int = 0
	for y: int in SIZE.y:
		for x: int in SIZE.x:
			count += 1 if grid.is_point_solid(Vector2i(x, y)) else 0
	return count


# Cells of [param rect] the layer marks: a move or a goal.
func _marked(field: FlowField, rect: Rect2i) -> int:
	var count: int = 0
	for y: int in range(rect.position.y, rect.end.y):
		for x: int in range(rect.position.x, rect.end.x):
			var code: int = field.byte_at(Vector2i(x, y))
			count += 1 if code >= 0 and code <= FlowField.GOAL_BYTE else 0
	return count


func _layer() -> Node2D:
	for child: Node in _bridge.get_children():
		if child is DebugDraw:
			return child.get_node_or_null("Fields2D") as Node2D
	return null


func _frames(count: int) -> void:
	for i: int in count:
		await _tree().process_frame


func _tree() -> SceneTree:
	return Engine.get_main_loop() as SceneTree
