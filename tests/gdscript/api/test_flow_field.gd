## The flow-field resource against a real sidecar on a real Moving AI map (den312d, loaded as an
## AStarGrid2D whose region does not start at (0, 0) and whose cells are 16 px): following the
## fetched directions costs what AStarGrid2D and find_path say, tiles arrive only as cells of
## them are sampled (one field.request and one field.tiles per frame's batch), and a wall made
## with set_cells_solid makes the sidecar name the tiles it changed, which alone are fetched again.
extends "res://runner/gd_test.gd"

const AStarBridgeNode = preload("res://addons/astar_bridge/astar_bridge.gd")
const FlowField = preload("res://addons/astar_bridge/api/flow_field.gd")
const MovingAiMap = preload("res://tests/support/movingai_map.gd")
const START := Vector2i(3, 2)
const CELL := Vector2(16, 16)
const MAP := "den312d.map"

var _bridge: AStarBridgeNode = null
var _grid: AStarGrid2D = null


func before_each() -> void:
	_bridge = AStarBridgeNode.new()
	_bridge.config.extra_arguments = PackedStringArray(["--threads", "1", "--log-level", "ERROR"])
	_bridge.config.connect_timeout_ms = 20000
	_bridge.config.request_timeout_ms = 10000
	_tree().root.add_child(_bridge)
	_grid = MovingAiMap.astar_grid(MAP, START, CELL)
	assert_true(_grid != null, "read %s" % MovingAiMap.path_of(MAP))
	assert_true(_bridge.load_astar_grid_2d("den", _grid).is_ok())


func after_each() -> void:
	_bridge.stop()
	_bridge.free()


func test_following_the_field_costs_the_shortest_path() -> void:
	var goal: Vector2i = _open_cell_near(Vector2i(32, 40))
	var field: FlowField = _bridge.request_flow_field("den", [goal], {"costs": true})
	assert_true(await _ready(field), "the first tiles arrived")
	var checked: int = 0
	for y: int in range(1, _grid.region.size.y, 9):
		for x: int in range(1, _grid.region.size.x, 7):
			var cell: Vector2i = START + Vector2i(x, y)
			if _grid.is_point_solid(cell):
				continue
			var expected: PackedVector2Array = _grid.get_point_path(cell, goal)
			var followed: float = await _follow(field, cell)
			if expected.is_empty():
				assert_eq(followed, -1.0, "%s cannot reach the goal" % cell)
				continue
			var length: float = _length(expected)
			assert_almost(followed, length, 1e-3 * length + 1e-3, "followed from %s" % cell)
			assert_almost(field.cost_at(cell), length, 1e-4 * length + 1e-3, "cost_at %s" % cell)
			var found: float = _bridge.find_path_result("den", cell, goal)["cost"]
			assert_almost(followed, found, 1e-3 * length + 1e-3, "find_path %s" % cell)
			checked += 1
	assert_true(checked > 30, "checked %d cells" % checked)
	assert_eq(field.state_at(goal), FlowField.State.GOAL)
	assert_eq(field.direction_at(field.cell_to_world(goal)), Vector2.ZERO)


func test_tiles_arrive_only_where_cells_are_sampled() -> void:
	var goal: Vector2i = _open_cell_near(Vector2i(4, 4))
	var field: FlowField = _bridge.request_flow_field("den", [goal])
	assert_true(await _ready(field))
	assert_eq(field.requests_sent, 1, "one field.request for the goal's tile")
	assert_eq(field.fetches_sent, 0, "the first request's answer brought its tile: no field.tiles")
	assert_eq(field.get_held_tiles().size(), 1, "only the goal's tile is held")
	# Three far cells in two tiles not held, sampled many times in one frame: one request, one fetch.
	var far: Array[Vector2i] = [
		_open_cell_near(Vector2i(60, 76)),
		_open_cell_near(Vector2i(58, 74)),
		_open_cell_near(Vector2i(40, 76))
	]  # fmt: skip
	for _i: int in 50:
		for cell: Vector2i in far:
			field.direction_at(field.cell_to_world(cell))
	for _i: int in 600:
		await _tree().process_frame
		if field.state_at(far[0]) != FlowField.State.UNKNOWN:
			break
	await _tree().process_frame
	assert_eq(field.requests_sent, 2, "one request for the frame's batch")
	assert_eq(field.fetches_sent, 1, "one fetch for the frame's batch")
	for cell: Vector2i in far:
		assert_ne(field.state_at(cell), FlowField.State.UNKNOWN, "%s is held now" % cell)
	var held: int = field.get_held_tiles().size()
	assert_true(
		held <= 3, "held %d tiles: the goal's and the far cells' (%d x %d tiles)" % [held, 5, 6]
	)
	assert_eq(field.tiles_received, held)


func test_cells_asked_while_the_first_answer_is_out_come_without_a_failure() -> void:
	var goal: Vector2i = _open_cell_near(Vector2i(4, 4))
	var field: FlowField = _bridge.request_flow_field("den", [goal])
	var failed: Array[String] = []
	field.failed.connect(func(_code: String, message: String) -> void: failed.append(message))
	var far: Array[Vector2i] = [
		_open_cell_near(Vector2i(60, 76)),
		_open_cell_near(Vector2i(40, 40)),
		_open_cell_near(Vector2i(10, 70))
	]  # fmt: skip
	await _tree().process_frame  # the first request left with the goal's cell alone
	var frames: int = 0
	while frames < 600 and far.any(func(c: Vector2i) -> bool: return field.state_at(c) == 0):
		for cell: Vector2i in far:
			field.direction_at_cell(cell)  # asked in every frame, also before the first answer
		await _tree().process_frame
		frames += 1
	assert_eq(failed, [] as Array[String], "no fetch of a tile not computed")
	for cell: Vector2i in far:
		assert_ne(field.state_at(cell), FlowField.State.UNKNOWN, "%s arrived" % cell)


func test_a_wall_refetches_only_the_tiles_the_sidecar_names() -> void:
	var goal: Vector2i = _open_cell_near(Vector2i(8, 8))
	var from: Vector2i = _open_cell_near(Vector2i(56, 70))
	var field: FlowField = _bridge.request_flow_field("den", [goal], {"starts": [from]})
	assert_true(await _ready(field))
	var before: float = await _follow(field, from)  # fetches the tiles of the whole chain
	assert_almost(before, _length(_grid.get_point_path(from, goal)), 1e-2)
	var chain: Array[Vector2i] = _chain(field, from)
	var wall: Vector2i = chain[int(chain.size() * 0.5)]
	var held: PackedInt32Array = field.get_held_tiles()
	var fetches: int = field.fetches_sent
	var received: int = field.tiles_received
	var named: Array = []
	_bridge._link.rpc.notification_received.connect(
		func(method: String, params: Array) -> void:
			if method == "field.changed":
				var report: Dictionary = params[0]
				var tiles: Array = report["tiles"]
				named.append_array(tiles)
	)
	var changed: Array[PackedInt32Array] = []
	field.tiles_changed.connect(func(tiles: PackedInt32Array) -> void: changed.append(tiles))
	assert_true(_bridge.set_cells_solid("den", [wall], true).is_ok())
	assert_false(named.is_empty(), "field.changed arrived with the update's answer")
	for _i: int in 600:
		if not changed.is_empty():
			break
		await _tree().process_frame
	assert_eq(changed.size(), 1, "one fetch of the changed tiles")
	var expected := PackedInt32Array()
	for tile: int in named:
		if held.has(tile):
			expected.append(tile)
	expected.sort()
	var got: PackedInt32Array = changed[0].duplicate()
	got.sort()
	assert_eq(got, expected, "exactly the named tiles that were held")
	assert_true(
		got.size() < held.size(), "%d of %d held tiles fetched again" % [got.size(), held.size()]
	)
	assert_eq(field.fetches_sent, fetches + 1)
	assert_eq(field.tiles_received, received + got.size())
	assert_eq(field.state_at(wall), FlowField.State.WALL)
	assert_false(_chain(field, from).has(wall), "the chain goes around the new wall")
	_grid.set_point_solid(wall)
	var after: float = await _follow(field, from)
	assert_almost(after, _length(_grid.get_point_path(from, goal)), 1e-2, "the new shortest")


func test_weighted_cells_change_the_costs_as_in_astar_grid() -> void:
	var goal: Vector2i = _open_cell_near(Vector2i(8, 8))
	var from: Vector2i = _open_cell_near(Vector2i(56, 70))
	var field: FlowField = _bridge.request_flow_field(
		"den", [goal], {"starts": [from], "costs": true}
	)
	assert_true(await _ready(field))
	assert_true(await _follow(field, from) > 0.0)  # every tile of the chain held
	var chain: Array[Vector2i] = _chain(field, from)
	var mud: Array[Vector2i] = []
	for cell: Vector2i in chain.slice(int(chain.size() * 0.3), int(chain.size() * 0.6)):
		for dx: int in range(-2, 3):
			var near: Vector2i = cell + Vector2i(dx, 0)
			if _grid.is_in_boundsv(near) and not _grid.is_point_solid(near) and not mud.has(near):
				mud.append(near)
	var changed: Array[PackedInt32Array] = []
	field.tiles_changed.connect(func(tiles: PackedInt32Array) -> void: changed.append(tiles))
	assert_true(_bridge.set_cells_weight("den", mud, 3.0).is_ok())
	for _i: int in 600:
		if not changed.is_empty():
			break
		await _tree().process_frame
	assert_false(changed.is_empty(), "the changed tiles came again")
	for cell: Vector2i in mud:
		_grid.set_point_weight_scale(cell, 3.0)
	var expected: float = _weighted_cost(_grid.get_id_path(from, goal))
	assert_almost(field.cost_at(from), expected, 1e-4 * expected, "cost_at as AStarGrid2D's")
	assert_true(await _follow(field, from) > 0.0)  # fetches the tiles of the new chain, if any
	var followed: float = _weighted_cost(_chain(field, from))
	assert_almost(followed, expected, 1e-3 * expected, "following the field costs the same")


func test_a_killed_sidecar_is_followed_by_a_new_request_and_the_held_tiles_again() -> void:
	var goal: Vector2i = _open_cell_near(Vector2i(30, 30))
	var from: Vector2i = _open_cell_near(Vector2i(50, 60))
	var field: FlowField = _bridge.request_flow_field("den", [goal], {"starts": [from]})
	assert_true(await _ready(field))
	var expected: float = _length(_grid.get_point_path(from, goal))
	assert_almost(await _follow(field, from), expected, 1e-2)
	var held: PackedInt32Array = field.get_held_tiles()
	var again: Array[int] = []
	field.tiles_changed.connect(func(tiles: PackedInt32Array) -> void: again.append_array(tiles))
	var requests: int = field.requests_sent
	# A crash, not OS.kill(): OS.kill() also reaps the child, which the addon then cannot see.
	OS.execute("kill", PackedStringArray(["-9", str(_bridge.get_sidecar_pid())]))
	for _i: int in 3000:
		if again.size() >= held.size():
			break
		await _tree().process_frame
	assert_true(field.requests_sent > requests, "the field was asked again")
	again.sort()
	assert_eq(PackedInt32Array(again), held, "every held tile fetched again, once")
	assert_almost(await _follow(field, from), expected, 1e-2, "the same costs")


func test_a_reloaded_grid_and_a_forgotten_field_are_asked_again() -> void:
	var goal: Vector2i = _open_cell_near(Vector2i(30, 30))
	var from: Vector2i = _open_cell_near(Vector2i(50, 60))
	var field: FlowField = _bridge.request_flow_field("den", [goal], {"starts": [from]})
	assert_true(await _ready(field))
	assert_true(await _follow(field, from) > 0.0)
	var chain: Array[Vector2i] = _chain(field, from)
	var wall: Vector2i = chain[int(chain.size() * 0.5)]
	# A reload (here with one more wall) makes the sidecar forget the grid's fields.
	_grid.set_point_solid(wall)
	var changed: Array[int] = []
	field.tiles_changed.connect(func(tiles: PackedInt32Array) -> void: changed.append_array(tiles))
	assert_true(_bridge.load_astar_grid_2d("den", _grid).is_ok())
	for _i: int in 600:
		if field.state_at(wall) == FlowField.State.WALL:
			break
		await _tree().process_frame
	assert_eq(field.state_at(wall), FlowField.State.WALL, "the reloaded grid's field")
	assert_almost(await _follow(field, from), _length(_grid.get_point_path(from, goal)), 1e-2)
	# Every weight changed behind the addon's back: the sidecar forgets the field without a word;
	# the next fetch hears unknown_point and the field is asked again.
	var cells: int = _grid.region.size.x * _grid.region.size.y
	var weights := PackedFloat32Array()
	weights.resize(cells)
	weights.fill(1.0)
	var update: Dictionary = {"id": "den", "weights": weights.to_byte_array()}
	assert_true(_bridge.call_method("graph.update", update).is_ok())
	var requests: int = field.requests_sent
	var far: Vector2i = _open_cell_near(Vector2i(60, 5))
	for _i: int in 600:
		if field.state_at(far) != FlowField.State.UNKNOWN and field.requests_sent > requests + 1:
			break
		field.direction_at_cell(far)
		await _tree().process_frame
	assert_ne(field.state_at(far), FlowField.State.UNKNOWN, "the far tile arrived")
	assert_true(field.requests_sent >= requests + 2, "asked, then asked again after unknown_point")
	assert_almost(await _follow(field, from), _length(_grid.get_point_path(from, goal)), 1e-2)


func test_a_unit_cutting_a_corner_past_a_wall_point_keeps_its_way() -> void:
	# AStarGrid2D's default diagonal mode cuts corners: the field leads (7, 13) -> (8, 14) past
	# the wall cell (8, 13), and a unit half-way is nearest that wall's point. It must read the
	# open cell beside it, not "no way on" (the README crowd snippet stalled there).
	var level := AStarGrid2D.new()
	level.region = Rect2i(0, 0, 16, 16)
	level.cell_size = Vector2(32, 32)
	level.update()
	for y: int in range(0, 14):
		level.set_point_solid(Vector2i(8, y))
	assert_true(_bridge.load_astar_grid_2d("corner", level).is_ok())
	var field: FlowField = _bridge.request_flow_field("corner", [Vector2i(14, 1)])
	assert_true(await _ready(field))
	field.cover([Vector2i(7, 13), Vector2i(8, 14), Vector2i(8, 13)])
	for _i: int in 600:
		if field.state_at(Vector2i(8, 13)) != FlowField.State.UNKNOWN:
			break
		await _tree().process_frame
	assert_eq(field.state_at(Vector2i(8, 13)), FlowField.State.WALL, "(8, 13) is the wall")
	var halfway := Vector2(241.0, 430.0)  # between (7, 13) and (8, 14), nearest (8, 13)
	assert_eq(field.world_to_cell(halfway), Vector2i(8, 13))
	assert_true(field.direction_at(halfway) != Vector2.ZERO, "a way on from beside the wall")
	assert_true(field.next_waypoint(halfway) != halfway, "a waypoint ahead")


func _ready(field: FlowField) -> bool:
	assert_true(field != null, "a field was made")
	if field == null:
		return false
	for _i: int in 1200:
		if field.is_ready():
			return true
		await _tree().process_frame
	return false


# The cost of following the field's directions from [param cell] to a goal (waiting for tiles
# as they are asked), or -1 where it stops elsewhere.
func _follow(field: FlowField, cell: Vector2i) -> float:
	var total: float = 0.0
	var here: Vector2i = cell
	for _i: int in 20000:
		var step: Vector2i = field.direction_at_cell(here)
		var waited: int = 0
		while field.state_at(here) == FlowField.State.UNKNOWN and waited < 600:
			await _tree().process_frame
			waited += 1
			step = field.direction_at_cell(here)
		var state: FlowField.State = field.state_at(here)
		if state == FlowField.State.GOAL:
			return total
		if state != FlowField.State.MOVE:
			return -1.0
		total += (Vector2(step) * CELL).length()
		here += step
	return -1.0


# The cells of the chain from [param cell] (held tiles only), the goal last.
func _chain(field: FlowField, cell: Vector2i) -> Array[Vector2i]:
	var cells: Array[Vector2i] = [cell]
	var here: Vector2i = cell
	while field.state_at(here) == FlowField.State.MOVE and cells.size() < 10000:
		here += field.direction_at_cell(here)
		cells.append(here)
	return cells


# The cost of a path of cells (AStarGrid2D's rule: a step's length times the weight of the cell
# it enters).
func _weighted_cost(cells: Array[Vector2i]) -> float:
	var total: float = 0.0
	for i: int in range(1, cells.size()):
		var length: float = (Vector2(cells[i] - cells[i - 1]) * CELL).length()
		total += length * _grid.get_point_weight_scale(cells[i])
	return total


func _open_cell_near(local: Vector2i) -> Vector2i:
	for radius: int in 40:
		for dy: int in range(-radius, radius + 1):
			for dx: int in range(-radius, radius + 1):
				var cell: Vector2i = START + local + Vector2i(dx, dy)
				if _grid.is_in_bounds(cell.x, cell.y) and not _grid.is_point_solid(cell):
					return cell
	return START


func _length(path: PackedVector2Array) -> float:
	var total: float = 0.0
	for i: int in range(1, path.size()):
		total += path[i - 1].distance_to(path[i])
	return total


func _tree() -> SceneTree:
	return Engine.get_main_loop() as SceneTree
