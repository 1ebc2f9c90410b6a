## The crowd level: 2,000 units on a generated 512 x 512 map ([code]crowd_map.gd[/code]) stream to
## four goal rooms, one flow field per goal ([code]AStarBridge.request_flow_field[/code], unit i
## heading for goal i % 4), while doors close and open through
## [code]AStarBridge.request_cells_solid[/code] every few seconds: the game goes on while the
## sidecar repairs the fields, and the changed tiles are fetched again. The units are one crowd
## node ([code]npc/crowd.gd[/code]): packed arrays moved each physics step, drawn by a
## MultiMeshInstance2D. The level is over when every unit has reached its goal
## ([method is_over], [method passed]) or at the time limit.
extends Node2D

## Emitted after each door change: how many doors closed and opened.
signal doors_changed(closed: int, opened: int, time: float)

const Bridge = preload("res://addons/astar_bridge/astar_bridge.gd")
const CrowdMap = preload("res://levels/crowd_map.gd")
const Crowd = preload("res://npc/crowd.gd")
const CELL_PX := 8.0
## Every DOOR_PERIOD_S seconds, up to DOORS_PER_CHANGE open doors close, and the doors closed for
## DOOR_CLOSED_S seconds or more open again.
const DOOR_PERIOD_S := 2.0
const DOORS_PER_CHANGE := 8
const DOOR_CLOSED_S := 4.0
## The upload: HPA* clusters of 16 cells are the fields' tiles.
const HIERARCHY := {"cluster_size": 16}
## Units per goal in the first request of its field (the rest follow once it is ready).
const FIRST_UNITS := 8
## Milliseconds (wall clock, as the field's own pause of half a second) before a field whose
## first request failed is asked again.
const RETRY_MS := 600
const UNKNOWN := AStarBridgeFlowField.State.UNKNOWN

## Units, the seed of the map, the units' starts and the doors, and the simulated seconds within
## which every unit must arrive.
@export var unit_count: int = 2000
@export var random_seed: int = 7
@export var time_limit_s: float = 60.0
@export var graph_id: String = "crowd"
## Pixels per second.
@export var unit_speed: float = 320.0

## The autoload, found in [method build].
var bridge: Bridge = null
var map: CrowdMap = null
var crowd: Crowd = null
## One field per goal.
var fields: Array[AStarBridgeFlowField] = []
## Each unit's start cell (unit i heads for goal i % 4).
var start_cells: Array[Vector2i] = []
## Simulated seconds so far.
var sim_time: float = 0.0
## Milliseconds the upload took (with the hierarchy's build), and the map's generation.
var load_ms: float = 0.0
var generate_ms: float = 0.0
## Door changes made (a door closing or opening counts one), and door changes refused (a unit
## in the doorway).
var door_changes: int = 0
## Milliseconds of the main thread each door update took (a request_cells_solid call: the
## sidecar repairs the fields meanwhile), and from each request to its answer.
var door_update_ms: PackedFloat64Array = PackedFloat64Array()
var door_answer_ms: PackedFloat64Array = PackedFloat64Array()
## Door edits sent and not answered yet.
var doors_pending: int = 0
## Tiles fetched for the first time, and fetched again after a door change (every field).
var tiles_fetched: int = 0
var tiles_refetched: int = 0
## Door updates that failed, and field requests that failed (each field asks again).
var failures: int = 0
var field_failures: int = 0

var _rng: RandomNumberGenerator = RandomNumberGenerator.new()
var _door_open: PackedByteArray = PackedByteArray()
var _door_closed_at: PackedFloat64Array = PackedFloat64Array()
var _door_candidates: PackedInt32Array = PackedInt32Array()
var _next_doors: float = DOOR_PERIOD_S
# Per field, tile -> true: tiles a door change made stale that have not come back yet.
var _stale: Array[Dictionary] = []
# Per goal, the units' cells of its field's first request, and when to ask for them again
# after it failed (0: not to).
var _first_starts: Array[Array] = []
var _retry_at_ms: PackedInt64Array = PackedInt64Array([0, 0, 0, 0])
# Per goal, the cells covered once its field was ready that are not known yet.
var _covering: Array[Array] = [[], [], [], []]
# Per goal, its units' start cells.
var _unit_starts: Array[Array] = []


## Generates the map, uploads it, places the units and asks for the four fields
## ([method upload], then [method order]). Returns the load error, if any.
func build() -> Error:
	var uploaded: Error = upload()
	return uploaded if uploaded != OK else order()


## Generates the map and uploads it (with its HPA* hierarchy). Returns the load error, if any.
func upload() -> Error:
	var autoload: Node = get_node_or_null(^"/root/AStarBridge")
	if not autoload is Bridge:
		printerr("crowd level: the AStarBridge autoload is missing")
		return ERR_UNCONFIGURED
	bridge = autoload
	_rng.seed = random_seed
	var started_us: int = Time.get_ticks_usec()
	map = CrowdMap.new()
	map.generate(random_seed)
	generate_ms = (Time.get_ticks_usec() - started_us) / 1000.0
	started_us = Time.get_ticks_usec()
	var extra: Dictionary = {
		"cell_size": [CELL_PX, CELL_PX],
		"origin": [CELL_PX / 2.0, CELL_PX / 2.0],
		"hierarchy": HIERARCHY.duplicate(),
	}
	var loaded: AStarBridgeResult = bridge.load_grid(
		graph_id,
		CrowdMap.SIZE,
		CrowdMap.SIZE,
		map.cells,
		AStarGrid2D.DIAGONAL_MODE_ONLY_IF_NO_OBSTACLES,
		extra
	)
	load_ms = (Time.get_ticks_usec() - started_us) / 1000.0
	if not loaded.is_ok():
		printerr("crowd level: loading the grid failed: %s" % loaded.message)
		return FAILED
	_prepare_doors()
	return OK


## Places the units and asks for the four fields (the order: the units start moving as their
## tiles arrive). After [method upload]; places the units first unless [method spawn] did.
func order() -> Error:
	if crowd == null:
		spawn()
	for goal: int in CrowdMap.GOAL_ROOMS.size():
		_order_field(goal)
	return OK if not fields.has(null) else FAILED


## True while the units wait for field tiles or a door edit (the headless run holds simulated
## time still then, so every run moves the units the same way): tiles a unit sampled before they
## arrived, door edits not answered yet, and tiles a door change made stale.
func any_path_pending() -> bool:
	_ask_failed_again()
	if doors_pending > 0:
		return true
	for goal: int in fields.size():
		if fields[goal] == null or not fields[goal].is_ready() or _still_covering(goal):
			return true
	if crowd.has_unknown_cells():
		return true
	for stale: Dictionary in _stale:
		if not stale.is_empty():
			return true
	return false


## True once every unit has arrived or the time limit has passed.
func is_over() -> bool:
	return crowd.active == 0 or sim_time >= time_limit_s


## True when every unit reached its goal.
func passed() -> bool:
	return crowd.active == 0 and crowd.arrived == unit_count


## The world position of the centre of [param cell].
func map_to_world(cell: Vector2i) -> Vector2:
	return (Vector2(cell) + Vector2(0.5, 0.5)) * CELL_PX


## The index (in [code]map.doors[/code]) of the door that may close nearest to the map's centre.
func first_door() -> int:
	var centre := Vector2(CrowdMap.SIZE, CrowdMap.SIZE) / 2.0
	var best: int = _door_candidates[0]
	for i: int in _door_candidates:
		var cell: Vector2i = map.doors[i][0]
		var best_cell: Vector2i = map.doors[best][0]
		if Vector2(cell).distance_to(centre) < Vector2(best_cell).distance_to(centre):
			best = i
	return best


func _physics_process(delta: float) -> void:
	if is_over():
		return
	sim_time += delta
	_ask_failed_again()
	crowd.step(delta)
	if sim_time >= _next_doors - 0.0001:
		_next_doors += DOOR_PERIOD_S
		_change_doors()


# The doors that may close: not in a goal room's walls (a goal stays reachable).
func _prepare_doors() -> void:
	_door_open.resize(map.doors.size())
	_door_open.fill(1)
	_door_closed_at.resize(map.doors.size())
	for i: int in map.doors.size():
		var beside_goal: bool = false
		for cell: Vector2i in map.doors[i]:
			for side: Vector2i in [
				Vector2i(1, 0), Vector2i(-1, 0), Vector2i(0, 1), Vector2i(0, -1)
			]:
				var next: Vector2i = cell + side
				if map.goal_of_cell[next.y * CrowdMap.SIZE + next.x] != 0:
					beside_goal = true
		if not beside_goal:
			_door_candidates.append(i)


## Places the units (standing still until [method order]). After [method upload].
func spawn() -> void:
	var positions := PackedVector2Array()
	var goals := PackedByteArray()
	var starts: Array[Array] = [[], [], [], []]
	for cell: Vector2i in map.unit_cells(unit_count, _rng):
		var goal: int = positions.size() % CrowdMap.GOAL_ROOMS.size()
		var jitter := Vector2(_rng.randf_range(-2.0, 2.0), _rng.randf_range(-2.0, 2.0))
		positions.append(map_to_world(cell) + jitter)
		goals.append(goal)
		starts[goal].append(cell)
		start_cells.append(cell)
	_unit_starts = starts
	fields.resize(CrowdMap.GOAL_ROOMS.size())  # each set when ordered
	for goal: int in CrowdMap.GOAL_ROOMS.size():
		_first_starts.append(_nearest(starts[goal], map.goal_centre(goal), FIRST_UNITS))
		_stale.append({})
	crowd = Crowd.new()
	crowd.name = "Crowd"
	crowd.cell_px = CELL_PX
	crowd.speed = unit_speed
	add_child(crowd)
	crowd.setup(map, fields, positions, goals)


# A field's first request names only the units nearest its goal: the sidecar solves those tiles
# near the goal in a few milliseconds and sends them in its answer, so the four first requests
# go together and every field's first units move a frame or two after the order. The rest of a
# field's units are covered once it is ready (one request that computes most of the map, about
# 80 ms: asked for first, it would hold every field's first tiles back behind it).
func _order_field(goal: int) -> void:
	var field: AStarBridgeFlowField = bridge.request_flow_field(
		graph_id, map.goal_cells[goal], {"starts": _first_starts[goal]}
	)
	if field == null:
		printerr("crowd level: request_flow_field for goal %d failed" % goal)
		failures += 1
		return
	fields[goal] = field
	field.ready_changed.connect(_on_field_ready.bind(goal), CONNECT_ONE_SHOT)
	field.tiles_arrived.connect(
		func(tiles: PackedInt32Array) -> void: tiles_fetched += tiles.size()
	)
	field.tiles_changed.connect(_on_tiles_changed.bind(goal))
	field.failed.connect(_on_failed.bind(goal))


func _on_field_ready(goal: int) -> void:
	_cover(goal, _unit_starts[goal])


# The rest of a field's units, once its first tiles are there: the cells of tiles it does not
# hold yet (cover() would fetch a held tile again). The headless run waits for them.
func _cover(goal: int, cells: Array) -> void:
	var field: AStarBridgeFlowField = fields[goal]
	var unknown: Array[Vector2i] = []
	for cell: Vector2i in cells:
		if field.state_at(cell) == AStarBridgeFlowField.State.UNKNOWN:
			unknown.append(cell)
	field.cover(unknown)
	_covering[goal] = unknown


# The [param count] cells of [param cells] nearest to [param goal] (straight-line distance).
func _nearest(cells: Array, goal: Vector2i, count: int) -> Array[Vector2i]:
	var sorted: Array[Vector2i] = []
	sorted.assign(cells)
	sorted.sort_custom(
		func(a: Vector2i, b: Vector2i) -> bool:
			return (a - goal).length_squared() < (b - goal).length_squared()
	)
	return sorted.slice(0, count)


func _on_tiles_changed(tiles: PackedInt32Array, goal: int) -> void:
	tiles_refetched += tiles.size()
	for tile: int in tiles:
		_stale[goal].erase(tile)


# A field request failed (on a busy machine, a sidecar still loading its flow-field kernels
# can answer the first requests after the timeout): the field asks again at the next sample
# after a pause; a field not ready yet is not sampled, so its first units ask again then.
func _on_failed(code: String, message: String, goal: int) -> void:
	print(
		(
			"crowd level: field %d request failed, asked again: %s (%s) (timing)"
			% [goal, message, code]
		)
	)
	field_failures += 1
	_stale[goal].clear()  # a failed fetch is not asked again: nothing to wait for
	if not fields[goal].is_ready():
		_retry_at_ms[goal] = Time.get_ticks_msec() + RETRY_MS


# True while cells the level covered for [param goal]'s units are still unknown to its field
# (each is sampled again, so tiles dropped after a failed request are asked for again).
func _still_covering(goal: int) -> bool:
	var field: AStarBridgeFlowField = fields[goal]
	var left: Array[Vector2i] = []
	for cell: Vector2i in _covering[goal]:
		if field.direction_at_cell(cell) == Vector2i.ZERO and field.state_at(cell) == UNKNOWN:
			left.append(cell)
	_covering[goal] = left
	return not left.is_empty()


# A field not ready yet is not sampled, so the units of a failed first request ask again here.
func _ask_failed_again() -> void:
	for goal: int in fields.size():
		if _retry_at_ms[goal] > 0 and Time.get_ticks_msec() >= _retry_at_ms[goal]:
			_retry_at_ms[goal] = 0
			if fields[goal] != null and not fields[goal].is_ready():
				fields[goal].cover(_first_starts[goal])


# Opens the doors closed long enough, closes up to DOORS_PER_CHANGE others (never on a unit).
func _change_doors() -> void:
	var opening: Array[Vector2i] = []
	var closing: Array[Vector2i] = []
	var opened: int = 0
	var closed: int = 0
	for i: int in _door_candidates:
		if _door_open[i] == 0 and sim_time - _door_closed_at[i] >= DOOR_CLOSED_S - 0.0001:
			_door_open[i] = 1
			opened += 1
			opening.append_array(map.doors[i])
	crowd.rehash()  # the units' cells now, not at the step's start
	for _try: int in DOORS_PER_CHANGE * 2:
		if closed == DOORS_PER_CHANGE:
			break
		var i: int = _door_candidates[_rng.randi_range(0, _door_candidates.size() - 1)]
		if _door_open[i] == 0 or crowd.near_any(map.doors[i]):
			continue
		_door_open[i] = 0
		_door_closed_at[i] = sim_time
		closed += 1
		closing.append_array(map.doors[i])
	_set_solid(opening, false)
	_set_solid(closing, true)
	door_changes += opened + closed
	doors_changed.emit(closed, opened, sim_time)


# Asks for [param cells] solid (or open) without waiting: the main thread's part is timed, the
# answer comes in a later frame.
func _set_solid(cells: Array[Vector2i], solid: bool) -> void:
	if cells.is_empty():
		return
	_mark_stale(cells)
	for cell: Vector2i in cells:
		map.cells[cell.y * CrowdMap.SIZE + cell.x] = 0 if solid else 1
	var started_us: int = Time.get_ticks_usec()
	var edit: AStarBridgeEditRequest = bridge.request_cells_solid(graph_id, cells, solid)
	door_update_ms.append((Time.get_ticks_usec() - started_us) / 1000.0)
	doors_pending += 1
	edit.completed.connect(_on_door_answered.bind(edit), CONNECT_ONE_SHOT)


func _on_door_answered(_result: RefCounted, edit: AStarBridgeEditRequest) -> void:
	doors_pending -= 1
	door_answer_ms.append((Time.get_ticks_usec() - edit.sent_usec) / 1000.0)
	if not edit.result.is_ok():
		printerr("crowd level: door update failed: %s" % edit.result.message)
		failures += 1


# The tiles of [param cells] that a field holds: their bytes change, so the sidecar's
# field.changed names them and the field fetches them again.
func _mark_stale(cells: Array[Vector2i]) -> void:
	for goal: int in fields.size():
		var field: AStarBridgeFlowField = fields[goal]
		var size: int = field.get_tile_size() if field != null else 0
		if size <= 0:
			continue
		for cell: Vector2i in cells:
			if field.state_at(cell) != AStarBridgeFlowField.State.UNKNOWN:
				var tiles_x: int = ceili(float(CrowdMap.SIZE) / size)
				var tile: int = (
					floori(float(cell.y) / size) * tiles_x + floori(float(cell.x) / size)
				)
				_stale[goal][tile] = true
