## The flow-field debug drawing stays readable zoomed out (addons/astar_bridge/debug/
## field_layer_2d.gd): arrows are at least MIN_SPACING_PX (12) screen pixels apart, so where a
## cell is smaller than that on screen only every n-th cell of every n-th row gets one, and a
## zoom change redraws.
extends "res://runner/gd_test.gd"

const AStarBridgeNode = preload("res://addons/astar_bridge/astar_bridge.gd")
const DebugDraw = preload("res://addons/astar_bridge/debug/debug_draw.gd")
const FlowField = preload("res://addons/astar_bridge/api/flow_field.gd")
const ENABLED := "astar_bridge/debug/enabled"
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
	_bridge.stop()
	_bridge.free()


func test_zoomed_out_arrows_skip_cells_to_stay_apart() -> void:
	ProjectSettings.set_setting(ENABLED, true)
	_tree().root.add_child(_bridge)
	var grid := AStarGrid2D.new()  # an open room: every cell gets a mark
	grid.region = Rect2i(Vector2i.ZERO, SIZE)
	grid.cell_size = CELL
	grid.update()
	assert_true(_bridge.load_astar_grid_2d("room", grid).is_ok())
	var layer: Node2D = _layer()
	assert_ne(layer, null)
	layer.set("view_rect", Rect2(Vector2(-CELL), Vector2(SIZE + Vector2i(2, 2)) * CELL))
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
	assert_eq(layer.get("drawn_arrows"), SIZE.x * SIZE.y, "16 px cells: an arrow each")
	layer.scale = Vector2(0.5, 0.5)  # cells of 8 screen pixels
	await _frames(2)
	assert_eq(layer.get("drawn_arrows"), 20 * 15, "every second cell of every second row")
	layer.scale = Vector2(0.25, 0.25)  # 4 pixels: every third
	await _frames(2)
	assert_eq(layer.get("drawn_arrows"), 14 * 10, "every third cell of every third row")
	layer.scale = Vector2.ONE
	await _frames(2)
	assert_eq(layer.get("drawn_arrows"), SIZE.x * SIZE.y, "zoomed in again: an arrow each")


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
