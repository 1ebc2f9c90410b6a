## Crowd mode of AStarBridgeAgent2D against a real sidecar on a real Moving AI map (arena): 20
## agents given one shared flow field walk to its goal cells with Godot's RVO avoidance keeping
## them apart, asking no path at all, and each emits navigation_finished in a goal cell.
extends "res://runner/gd_test.gd"

const AStarBridgeNode = preload("res://addons/astar_bridge/astar_bridge.gd")
const Agent2D = preload("res://addons/astar_bridge/nodes/astar_agent_2d.gd")
const FlowField = preload("res://addons/astar_bridge/api/flow_field.gd")
const MovingAiMap = preload("res://tests/support/movingai_map.gd")
const CELL := Vector2(16, 16)
const AGENTS := 20
const SPEED := 240.0

var _bridge: AStarBridgeNode = null
var _root: Node2D = null


func before_each() -> void:
	_bridge = AStarBridgeNode.new()
	_bridge.config.extra_arguments = PackedStringArray(["--threads", "1", "--log-level", "ERROR"])
	_bridge.config.connect_timeout_ms = 20000
	_bridge.config.request_timeout_ms = 10000
	_tree().root.add_child(_bridge)
	_root = Node2D.new()
	_tree().root.add_child(_root)


func after_each() -> void:
	_root.free()
	_bridge.stop()
	_bridge.free()


func test_twenty_agents_reach_the_goal_on_one_field_without_a_path_request() -> void:
	var grid: AStarGrid2D = MovingAiMap.astar_grid("arena.map", Vector2i.ZERO, CELL)
	assert_true(_bridge.load_astar_grid_2d("arena", grid).is_ok())
	var goals: Array = []
	for dy: int in range(-1, 2):
		for dx: int in range(-1, 2):
			var cell := Vector2i(24 + dx, 24 + dy)
			if not grid.is_point_solid(cell):
				goals.append(cell)
	var field: FlowField = _bridge.request_flow_field("arena", goals)
	var starts: Array[Vector2i] = _spread_cells(grid, AGENTS)
	var agents: Array[Agent2D] = []
	var arrived: Array[Vector2i] = []
	var steered: Array[int] = [0]
	for start: Vector2i in starts:
		var agent: Agent2D = _spawn(grid.get_point_position(start), field, arrived, steered)
		agents.append(agent)
	var frames: int = 0
	while arrived.size() < AGENTS and frames < 3000:
		await _tree().physics_frame
		frames += 1
	assert_eq(arrived.size(), AGENTS, "every agent arrived (after %d frames)" % frames)
	for agent: Agent2D in agents:
		if is_instance_valid(agent) and not agent.get_parent().is_queued_for_deletion():
			var at: Vector2 = (agent.get_parent() as Node2D).position
			var cell: Vector2i = field.world_to_cell(at)
			fail("stuck at %s, cell %s in state %s" % [at, cell, field.state_at(cell)])
	for cell: Vector2i in arrived:
		assert_true(goals.has(cell), "%s is a goal cell" % cell)
	var requests: int = _bridge.get_stats()["requests"]
	assert_eq(requests, 0, "no path was asked")
	var tiles: int = 4 * 4  # 49 x 49 cells in tiles of 16
	assert_true(field.requests_sent <= 1 + tiles, "%d field requests" % field.requests_sent)
	assert_true(steered[0] > 0, "the avoidance changed some velocities")


func _spawn(
	at: Vector2, field: FlowField, arrived: Array[Vector2i], steered: Array[int]
) -> Agent2D:
	var mover := Node2D.new()
	mover.position = at
	var agent := Agent2D.new()
	agent.radius = 5.0
	agent.max_speed = SPEED
	agent.neighbor_distance = 64.0
	agent.avoidance_enabled = true
	mover.add_child(agent)
	_root.add_child(mover)
	agent.flow_field = field
	# An arrived unit leaves the goal (as a game's would), making room for the next ones.
	agent.navigation_finished.connect(
		func() -> void:
			if agent.is_target_reached():
				arrived.append(field.world_to_cell(mover.position))
			mover.queue_free()
	)
	var wanted: Array[Vector2] = [Vector2.ZERO]
	agent.velocity_computed.connect(
		func(safe: Vector2) -> void:
			if safe.distance_to(wanted[0]) > 1.0:
				steered[0] += 1
			mover.position += safe * mover.get_physics_process_delta_time()
	)
	var step: Callable = func() -> void:
		if agent.is_navigation_finished():
			return
		var target: Vector2 = agent.get_next_path_position()
		wanted[0] = mover.position.direction_to(target) * SPEED
		agent.set_velocity(wanted[0])
	_tree().physics_frame.connect(step)
	mover.tree_exiting.connect(func() -> void: _tree().physics_frame.disconnect(step))
	return agent


# [param count] open cells spread over the map (a walk over it in a coarse stride).
func _spread_cells(grid: AStarGrid2D, count: int) -> Array[Vector2i]:
	var cells: Array[Vector2i] = []
	var size: Vector2i = grid.region.size
	for y: int in range(3, size.y - 3, 5):
		for x: int in range(3, size.x - 3, 5):
			var cell := Vector2i(x, y)
			if not grid.is_point_solid(cell) and absi(x - 24) + absi(y - 24) > 8:
				cells.append(cell)
	var spread: Array[Vector2i] = []
	for i: int in count:
		spread.append(cells[int(float(i) * cells.size() / count)])
	return spread


func _tree() -> SceneTree:
	return Engine.get_main_loop() as SceneTree
