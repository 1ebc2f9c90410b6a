## Dumps what AStarBridgeFlowField's line-of-sight smoothing answers on den312d, for
## tests/addon/test_flow_field_sight.py to compare with python_core.flowfield.sight: per
## diagonal mode, every cell's direction byte as the field fetched it and the farthest cell
## farthest_cell() picks from each open cell. Usage (in tests/godot_project):
## godot --headless --script res://tests/support/sight_dump.gd -- <out.json>
extends SceneTree

const AStarBridgeNode = preload("res://addons/astar_bridge/astar_bridge.gd")
const FlowField = preload("res://addons/astar_bridge/api/flow_field.gd")
const MovingAiMap = preload("res://tests/support/movingai_map.gd")
const START := Vector2i(3, 2)
const CELL := Vector2(16, 16)
const GOAL := Vector2i(33, 40)
const MAX_CELLS := 32
const MODES: Dictionary = {
	"only_if_no_obstacles": AStarGrid2D.DIAGONAL_MODE_ONLY_IF_NO_OBSTACLES,
	"always": AStarGrid2D.DIAGONAL_MODE_ALWAYS,
	"at_least_one_walkable": AStarGrid2D.DIAGONAL_MODE_AT_LEAST_ONE_WALKABLE,
	"never": AStarGrid2D.DIAGONAL_MODE_NEVER,
}


func _initialize() -> void:
	_run.call_deferred()


func _run() -> void:
	var bridge: AStarBridgeNode = AStarBridgeNode.new()
	bridge.config.connect_timeout_ms = 20000
	bridge.config.request_timeout_ms = 10000
	root.add_child(bridge)
	var cases: Array[Dictionary] = []
	for mode: String in MODES:
		cases.append(await _dump(bridge, mode))
	var file: FileAccess = FileAccess.open(OS.get_cmdline_user_args()[0], FileAccess.WRITE)
	file.store_string(
		JSON.stringify({"map": "den312d.map", "goal": [GOAL.x, GOAL.y], "cases": cases})
	)
	file.close()
	bridge.stop()
	bridge.free()
	quit(0)


func _dump(bridge: AStarBridgeNode, mode: String) -> Dictionary:
	var diagonal: AStarGrid2D.DiagonalMode = MODES[mode]
	var grid: AStarGrid2D = MovingAiMap.astar_grid("den312d.map", START, CELL, diagonal)
	var id: String = "den_" + mode
	bridge.load_astar_grid_2d(id, grid)
	var field: FlowField = bridge.request_flow_field(id, [START + GOAL])
	field.waypoint_budget_usec = 0  # every next_waypoint walks its chain: compared below
	var size: Vector2i = grid.region.size
	var every: Array = []
	for y: int in range(0, size.y, 8):
		for x: int in range(0, size.x, 8):
			every.append(START + Vector2i(x, y))
	field.cover(every)
	var tiles: int = 0
	for _i: int in 3000:
		await process_frame
		var ts: int = field.get_tile_size()
		if ts > 0:
			tiles = ceili(float(size.x) / ts) * ceili(float(size.y) / ts)
			if field.get_held_tiles().size() == tiles:
				break
	var codes := PackedInt32Array()
	var farthest := PackedInt32Array()
	var waypoints_agree: bool = true
	for y: int in size.y:
		for x: int in size.x:
			var cell: Vector2i = START + Vector2i(x, y)
			codes.append(_code(field, cell))
			var far: Vector2i = field.farthest_cell(cell, MAX_CELLS)
			farthest.append_array([far.x - START.x, far.y - START.y])
			var world: Vector2 = field.next_waypoint(field.cell_to_world(cell), MAX_CELLS)
			var state: FlowField.State = field.state_at(cell)
			if state == FlowField.State.MOVE or state == FlowField.State.GOAL:
				waypoints_agree = waypoints_agree and world == field.cell_to_world(far)
	return {
		"mode": mode,
		"held": field.get_held_tiles().size(),
		"tiles": tiles,
		"codes": Array(codes),
		"farthest": Array(farthest),
		"waypoints_agree": waypoints_agree,
	}


# The direction byte of [param cell] as the field holds it (8 goal, 9 unreachable, 10 wall).
func _code(field: FlowField, cell: Vector2i) -> int:
	match field.state_at(cell):
		FlowField.State.GOAL:
			return 8
		FlowField.State.UNREACHABLE:
			return 9
		FlowField.State.WALL:
			return 10
		FlowField.State.UNKNOWN:
			return -1
	return FlowField.STEPS.find(field.direction_at_cell(cell))
