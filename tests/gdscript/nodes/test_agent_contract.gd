## The NavigationAgent2D contract of AStarBridgeAgent2D against a real sidecar: a door closing on
## one agent's path re-paths that agent only; an unreachable target never reports arrival (and
## is reached once a wall opens); Godot's avoidance keeps two crossing agents apart.
extends "res://runner/gd_test.gd"

const Bridge = preload("res://addons/astar_bridge/astar_bridge.gd")
const GridSerializer = preload("res://addons/astar_bridge/serializers/grid_serializer.gd")
const GraphUpdates = preload("res://addons/astar_bridge/serializers/graph_updates.gd")
const AgentOccupancy = preload("res://addons/astar_bridge/runtime/agent_occupancy.gd")
const TestBridge = preload("res://tests/support/test_bridge.gd")
const CELL := 16.0
## "#" wall, "." floor: two rooms joined by doors at (8, 3) and (8, 7); a sealed closet at
## (15, 1) ("x" marks its wall, opened by a test).
const LEVEL: PackedStringArray = [
	"##################",
	"#.......#......#.#",
	"#.......#......x.#",
	"#...............##",
	"#.......#.......##",
	"#.......#.......##",
	"#.......#.......##",
	"#...............##",
	"#.......#.......##",
	"##################",
]
## Two agents of this radius touch at 2 * RADIUS.
const RADIUS := 8.0
const SPEED := 120.0

var _tree: SceneTree = Engine.get_main_loop() as SceneTree
var _bridge: Bridge = null
var _root: Node2D = null
var _params: Dictionary = {}


func before_each() -> void:
	_bridge = TestBridge.made(PackedStringArray(["--log-level", "ERROR"]))
	_tree.root.add_child(_bridge)
	_root = Node2D.new()
	_tree.root.add_child(_root)


func after_each() -> void:
	_root.free()
	AgentOccupancy.forget_grid("contract")
	_bridge.stop()
	_bridge.free()


func test_a_door_closing_on_one_path_re_paths_only_that_agent() -> void:
	_load(LEVEL)
	var through: Node2D = _mover(Vector2i(2, 3), Vector2i(14, 3))  # via the door at (8, 3)
	var left: Node2D = _mover(Vector2i(2, 8), Vector2i(6, 8))  # its own room, far from it
	var right: Node2D = _mover(Vector2i(10, 8), Vector2i(14, 6))
	var movers: Array[Node2D] = [through, left, right]
	var changes: Array[int] = [0, 0, 0]
	for i: int in movers.size():
		_agent(movers[i]).path_changed.connect(func() -> void: changes[i] += 1)
	await _settle(movers)
	assert_eq(changes, [1, 1, 1], "one path each")
	assert_true(_path_cells(_agent(through)).has(Vector2i(8, 3)), "through the upper door")
	var requests: int = _bridge.get_stats()["requests"]
	var door: Array[Vector2i] = [Vector2i(8, 3)]
	var closed: AStarBridgeResult = _bridge.update_graph(
		"contract", GraphUpdates.cells_walkable("contract", door, false)
	)
	assert_true(closed.is_ok())
	await _settle(movers)
	assert_eq(changes, [2, 1, 1], "only the agent whose path the door was on re-pathed")
	assert_eq(_bridge.get_stats()["requests"] - requests, 1, "one request in all")
	var cells: Array[Vector2i] = _path_cells(_agent(through))
	assert_false(cells.has(Vector2i(8, 3)), "the new path avoids the closed door")
	assert_true(cells.has(Vector2i(8, 7)), "it takes the lower door: %s" % [cells])
	await _walk([through], 600)
	assert_true(_agent(through).is_target_reached())


func test_an_unreachable_target_never_reports_arrival_until_a_wall_opens() -> void:
	_load(LEVEL)
	var mover: Node2D = _mover(Vector2i(2, 2), Vector2i(16, 1))  # the sealed closet
	var agent: AStarBridgeAgent2D = _agent(mover)
	agent.path_options = {"allow_partial": true}
	var events: Array[String] = []
	agent.target_unreachable.connect(func() -> void: events.append("target_unreachable"))
	agent.target_reached.connect(func() -> void: events.append("target_reached"))
	agent.navigation_finished.connect(func() -> void: events.append("navigation_finished"))
	await _walk([mover], 400)
	assert_eq(events, ["target_unreachable"], "told once; no arrival")
	assert_false(agent.is_navigation_finished())
	assert_false(agent.is_target_reachable())
	assert_eq(str(agent.get_current_navigation_result()["status"]), "partial")
	var end: Vector2 = agent.get_final_position()
	assert_true(mover.global_position.distance_to(end) < 1.0, "walked the partial path's end")
	var wall: Array[Vector2i] = [Vector2i(15, 2)]
	var opened: AStarBridgeResult = _bridge.update_graph(
		"contract", GraphUpdates.cells_walkable("contract", wall, true)
	)
	assert_true(opened.is_ok())
	await _walk([mover], 400)
	assert_eq(
		events,
		["target_unreachable", "target_reached", "navigation_finished"],
		"the opened wall re-paths the waiting agent, which then arrives"
	)


func test_avoidance_keeps_two_crossing_agents_apart() -> void:
	var open_room: PackedStringArray = []
	for y: int in 12:
		var row: String = ""
		for x: int in 22:
			var edge: bool = x == 0 or y == 0 or x == 21 or y == 11
			row += "#" if edge else "."
		open_room.append(row)
	_load(open_room)
	var without: float = await _crossing(false)
	var with_avoidance: float = await _crossing(true)
	print(
		"    closest approach: %.1f px without avoidance, %.1f px with" % [without, with_avoidance]
	)
	assert_true(without < 2.0 * RADIUS * 0.5, "without avoidance they meet (%.1f px)" % without)
	assert_true(
		with_avoidance > 2.0 * RADIUS * 0.75,
		(
			"with avoidance they keep apart: closest %.1f px, touching at %.1f"
			% [with_avoidance, 2.0 * RADIUS]
		)
	)


## The closest two agents came while crossing the room (both must arrive).
func _crossing(avoidance: bool) -> float:
	var a: Node2D = _mover(Vector2i(2, 5), Vector2i(19, 6))
	var b: Node2D = _mover(Vector2i(19, 5), Vector2i(2, 6))
	for mover: Node2D in [a, b]:
		var agent: AStarBridgeAgent2D = _agent(mover)
		agent.radius = RADIUS
		agent.max_speed = SPEED
		agent.avoidance_enabled = avoidance
	var closest: float = INF
	for frame: int in 900:
		await _tree.physics_frame
		closest = minf(closest, a.global_position.distance_to(b.global_position))
		var done: bool = true
		for mover: Node2D in [a, b]:
			var agent: AStarBridgeAgent2D = _agent(mover)
			if agent.is_navigation_finished():
				continue
			done = false
			var next: Vector2 = agent.get_next_path_position()
			agent.set_velocity(mover.global_position.direction_to(next) * SPEED)
		if done:
			break
	assert_true(_agent(a).is_target_reached() and _agent(b).is_target_reached(), "both arrive")
	a.free()
	b.free()
	await _tree.physics_frame
	return closest


func _load(rows: PackedStringArray) -> void:
	var grid := AStarGrid2D.new()
	grid.region = Rect2i(0, 0, rows[0].length(), rows.size())
	grid.cell_size = Vector2(CELL, CELL)
	grid.offset = Vector2(CELL, CELL) / 2.0
	grid.diagonal_mode = AStarGrid2D.DIAGONAL_MODE_ONLY_IF_NO_OBSTACLES
	grid.update()
	for y: int in rows.size():
		for x: int in rows[y].length():
			grid.set_point_solid(Vector2i(x, y), rows[y][x] != ".")
	_params = GridSerializer.from_astar_grid_2d(grid, "contract")
	var loaded: AStarBridgeResult = _bridge.load_graph(GridSerializer.METHOD, _params)
	assert_true(loaded.is_ok(), "grid loaded: %s" % loaded.message)


## A plain Node2D led by an agent (moved by velocity_computed, no physics body), already
## navigating to [param goal].
func _mover(start: Vector2i, goal: Vector2i) -> Node2D:
	var mover := Node2D.new()
	var agent := AStarBridgeAgent2D.new()
	agent.name = "Agent"
	agent.graph_id = "contract"
	agent.bridge = _bridge
	agent.path_desired_distance = 2.0
	agent.target_desired_distance = 2.0
	mover.add_child(agent)
	mover.position = GridSerializer.cell_to_world(_params, start)
	agent.velocity_computed.connect(
		func(safe: Vector2) -> void: mover.position += safe / Engine.physics_ticks_per_second
	)
	_root.add_child(mover)
	agent.target_position = GridSerializer.cell_to_world(_params, goal)
	return mover


func _agent(mover: Node2D) -> AStarBridgeAgent2D:
	return mover.get_node("Agent")


## Waits (without moving anyone) until no agent of [param movers] has a request on its way.
func _settle(movers: Array[Node2D]) -> void:
	for frame: int in 600:
		await _tree.physics_frame
		var busy: bool = false
		for mover: Node2D in movers:
			var agent: AStarBridgeAgent2D = _agent(mover)
			busy = busy or agent.is_path_pending() or agent._wanted
		if not busy:
			return
	fail("requests still pending after 600 frames")


## Moves [param movers] along their paths for [param frames] physics frames at most (until every
## one arrived).
func _walk(movers: Array[Node2D], frames: int) -> void:
	for frame: int in frames:
		await _tree.physics_frame
		var done: bool = true
		for mover: Node2D in movers:
			var agent: AStarBridgeAgent2D = _agent(mover)
			if agent.is_navigation_finished():
				continue
			done = false
			var next: Vector2 = agent.get_next_path_position()
			var step: float = SPEED / Engine.physics_ticks_per_second
			var gap: float = mover.global_position.distance_to(next)
			agent.set_velocity(
				mover.global_position.direction_to(next) * SPEED * minf(1.0, gap / step)
			)
		if done:
			return


func _path_cells(agent: AStarBridgeAgent2D) -> Array[Vector2i]:
	var cells: Array[Vector2i] = []
	for point: Vector2 in agent.get_current_navigation_path():
		cells.append(GridSerializer.world_to_cell(_params, point))
	return cells
