## Flow fields for units of a size (issue 38) through the autoload, against a real sidecar: the
## field of options.size = 2 leads a 2 x 2 unit around the one-cell gap, through the wide opening,
## every footprint on its way open; the field of the same goal for one cell takes the gap; a
## radius becomes the same size; positions are footprint centres.
extends "res://runner/gd_test.gd"

const AStarBridgeNode = preload("res://addons/astar_bridge/astar_bridge.gd")
const AgentOccupancy = preload("res://addons/astar_bridge/runtime/agent_occupancy.gd")
const FlowField = preload("res://addons/astar_bridge/api/flow_field.gd")
const TestBridge = preload("res://tests/support/test_bridge.gd")
## "#" wall: a one-cell gap at (7, 3) and a two-cell opening at (12, 3)-(13, 3).
const LEVEL: PackedStringArray = [
	"................",
	"................",
	"................",
	"#######.####..##",
	"................",
	"................",
]
const GAP := Vector2i(7, 3)

var _tree: SceneTree = Engine.get_main_loop() as SceneTree
var _bridge: AStarBridgeNode = null


func after_each() -> void:
	AgentOccupancy.forget_grid("doors")
	_bridge.stop()
	_bridge.free()


# The runner does not wait for before_each: each test awaits this first.
func _start() -> void:
	_bridge = TestBridge.made(PackedStringArray(["--threads", "1", "--log-level", "ERROR"]))
	_tree.root.add_child(_bridge)
	var deadline: int = Time.get_ticks_msec() + 20000
	while not _bridge.is_ready() and Time.get_ticks_msec() < deadline:
		await _tree.process_frame
	var cells := PackedByteArray()
	for row: String in LEVEL:
		for c: String in row:
			cells.append(0 if c == "#" else 1)
	var placed: Dictionary = {"cell_size": [16.0, 16.0], "origin": [8.0, 8.0]}
	var diagonal := AStarGrid2D.DIAGONAL_MODE_ONLY_IF_NO_OBSTACLES
	var loaded: AStarBridgeResult = _bridge.load_grid(
		"doors", LEVEL[0].length(), LEVEL.size(), cells, diagonal, placed
	)
	assert_true(loaded.is_ok(), loaded.message)


func test_a_field_for_two_cells_goes_around_the_gap() -> void:
	await _start()
	var goal := Vector2i(6, 4)  # an anchor: the footprint (6..7, 4..5)
	var field: FlowField = _bridge.request_flow_field("doors", [goal], {"size": 2})
	assert_true(await _ready(field))
	assert_eq(field.size, 2)
	var chain: Array[Vector2i] = await _chain(field, Vector2i(6, 0))
	assert_eq(chain.back(), goal, "the chain ends on the goal: %s" % [chain])
	assert_true(chain.has(Vector2i(12, 2)) or chain.has(Vector2i(12, 3)), "by the opening")
	for anchor: Vector2i in chain:
		for dy: int in 2:
			for dx: int in 2:
				var cell: Vector2i = anchor + Vector2i(dx, dy)
				assert_eq(LEVEL[cell.y][cell.x], ".", "footprint of %s on a wall" % anchor)
	assert_eq(field.state_at(Vector2i(6, 2)), FlowField.State.WALL, "no room above the gap")
	assert_eq(field.cell_to_world(goal), Vector2(112, 80), "the footprint's centre")


func test_the_same_goal_for_one_cell_takes_the_gap() -> void:
	await _start()
	var field: FlowField = _bridge.request_flow_field("doors", [Vector2i(6, 4)])
	assert_true(await _ready(field))
	var chain: Array[Vector2i] = await _chain(field, Vector2i(6, 0))
	assert_true(chain.has(GAP), "through the gap: %s" % [chain])


func test_a_radius_becomes_the_size_it_needs() -> void:
	await _start()
	# 13 px on 16 px cells: a 26 px unit, two cells a side.
	var field: FlowField = _bridge.request_flow_field("doors", [Vector2i(6, 4)], {"radius": 13.0})
	assert_true(await _ready(field))
	assert_eq(field.size, 2)
	var chain: Array[Vector2i] = await _chain(field, Vector2i(6, 0))
	assert_false(chain.has(GAP) or chain.has(GAP + Vector2i(-1, 0)), "%s" % [chain])


func _ready(field: FlowField) -> bool:
	assert_true(field != null, "a field was made")
	if field == null:
		return false
	var deadline: int = Time.get_ticks_msec() + 30000
	while Time.get_ticks_msec() < deadline:
		if field.is_ready():
			return true
		await _tree.process_frame
	return false


# The anchors down the field from [param start] to its goal (waiting for tiles as they are asked).
func _chain(field: FlowField, start: Vector2i) -> Array[Vector2i]:
	var cells: Array[Vector2i] = [start]
	var here: Vector2i = start
	for _i: int in 200:
		var step: Vector2i = field.direction_at_cell(here)
		var deadline: int = Time.get_ticks_msec() + 10000
		while field.state_at(here) == FlowField.State.UNKNOWN and Time.get_ticks_msec() < deadline:
			await _tree.process_frame
			step = field.direction_at_cell(here)
		if field.state_at(here) != FlowField.State.MOVE:
			break
		here += step
		cells.append(here)
	return cells
