## The debug drawing's clearance view (debug/clearance_layer_2d.gd, issue 38) against a real
## sidecar: on a grid loaded through the autoload, the view for size k tints exactly the anchors
## whose k x k footprint is open and inside the grid (checked cell by cell here), drawn at the
## footprint's centre, and follows a door closing and opening.
extends "res://runner/gd_test.gd"

const AStarBridgeNode = preload("res://addons/astar_bridge/astar_bridge.gd")
const DebugDraw = preload("res://addons/astar_bridge/debug/debug_draw.gd")
const ClearanceLayer2D = preload("res://addons/astar_bridge/debug/clearance_layer_2d.gd")
const TestBridge = preload("res://tests/support/test_bridge.gd")
const ENABLED := "astar_bridge/debug/enabled"
## "#" wall: a 1-cell gap at (4, 2) and a 2-cell gap at rows 5-6 in the wall at x = 4.
const LEVEL: PackedStringArray = [
	"..........",
	"....#.....",
	".#........",
	"....#.....",
	"....#...#.",
	"..........",
	"..........",
	"....#.....",
]

var _bridge: AStarBridgeNode = null


func before_each() -> void:
	_bridge = TestBridge.made(PackedStringArray(["--threads", "1", "--log-level", "ERROR"]))
	ProjectSettings.set_setting(ENABLED, true)
	_tree().root.add_child(_bridge)
	var deadline: int = Time.get_ticks_msec() + 20000
	while not _bridge.is_ready() and Time.get_ticks_msec() < deadline:
		await _tree().process_frame


func after_each() -> void:
	ProjectSettings.set_setting(ENABLED, null)
	_bridge.stop()
	_bridge.free()


func test_the_view_tints_exactly_the_anchors_a_unit_fits_at() -> void:
	var layer: Node = await _grid_layer()
	for size: int in [2, 3]:
		layer.set("debug_clearance_size", size)
		var view: ClearanceLayer2D = layer.call("get_clearance_view")
		assert_ne(view, null)
		var expected: int = 0
		for y: int in LEVEL.size():
			for x: int in LEVEL[0].length():
				var fits: bool = _fits(LEVEL, Vector2i(x, y), size)
				expected += 1 if fits else 0
				assert_eq(view.fits_at(Vector2i(x, y)), fits, "size %d at (%d, %d)" % [size, x, y])
		assert_eq(view.fitting_count(), expected, "size %d" % size)
	# Drawn at the footprint's centre: cell (0, 0)'s point is (8, 8) on 16 px cells, a size-3
	# footprint's centre one cell further, and each texel one cell wide around it.
	layer.set("debug_clearance_size", 3)
	var size_3: ClearanceLayer2D = layer.call("get_clearance_view")
	var drawn: Rect2 = size_3.drawn_rect()
	assert_eq(drawn.position, Vector2(16, 16))
	assert_eq(drawn.size, Vector2(160, 128))
	layer.set("debug_clearance_size", 1)
	assert_eq(layer.call("get_clearance_view"), null, "size 1: no view")


func test_the_view_follows_a_door() -> void:
	var layer: Node = await _grid_layer()
	layer.set("debug_clearance_size", 2)
	var view: ClearanceLayer2D = layer.call("get_clearance_view")
	assert_true(view.fits_at(Vector2i(3, 5)), "the 2-cell gap takes a 2 x 2 unit")
	var door: Array[Vector2i] = [Vector2i(4, 5)]
	assert_true(_bridge.set_cells_solid("grid", door, true).is_ok())
	await _tree().process_frame
	await _tree().process_frame
	assert_false(view.fits_at(Vector2i(3, 5)), "door closed")
	var closed: PackedStringArray = LEVEL.duplicate()
	closed[5] = "....#....."
	for y: int in closed.size():
		for x: int in closed[0].length():
			assert_eq(view.fits_at(Vector2i(x, y)), _fits(closed, Vector2i(x, y), 2))
	assert_true(_bridge.set_cells_solid("grid", door, false).is_ok())
	await _tree().process_frame
	await _tree().process_frame
	assert_true(view.fits_at(Vector2i(3, 5)), "door open again")


func _grid_layer() -> Node:
	var cells := PackedByteArray()
	for row: String in LEVEL:
		for c: String in row:
			cells.append(0 if c == "#" else 1)
	var width: int = LEVEL[0].length()
	var placed: Dictionary = {"cell_size": [16.0, 16.0], "origin": [8.0, 8.0]}
	var diagonal := AStarGrid2D.DIAGONAL_MODE_ONLY_IF_NO_OBSTACLES
	assert_true(_bridge.load_grid("grid", width, LEVEL.size(), cells, diagonal, placed).is_ok())
	await _tree().process_frame
	await _tree().process_frame
	var draw: DebugDraw = null
	for child: Node in _bridge.get_children():
		if child is DebugDraw:
			draw = child
	assert_ne(draw, null, "the debug drawing is on")
	return draw.get_layer("grid")


# The oracle: every cell of the footprint inside the grid and open.
static func _fits(level: PackedStringArray, anchor: Vector2i, size: int) -> bool:
	for dy: int in size:
		for dx: int in size:
			var x: int = anchor.x + dx
			var y: int = anchor.y + dy
			if y >= level.size() or x >= level[0].length() or level[y][x] == "#":
				return false
	return true


func _tree() -> SceneTree:
	return Engine.get_main_loop() as SceneTree
