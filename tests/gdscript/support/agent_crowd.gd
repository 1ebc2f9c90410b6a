## A crowd of grid agents for the soak test and bench/agents_memory.py: [member count] plain
## Node2D movers, each led by an AStarBridgeAgent2D with an agent id (so each occupies its cell),
## wander between random floor cells of a walled room with pillars, moving one cell per physics
## frame, so every agent changes cell (and the occupancy sends an update) every frame.
extends Node2D

const GridSerializer = preload("res://addons/astar_bridge/serializers/grid_serializer.gd")
const AgentOccupancy = preload("res://addons/astar_bridge/runtime/agent_occupancy.gd")
const GRAPH := "crowd"
const SIZE := 48
const CELL := 16.0

## How many agents.
var count: int = 50
## Agents occupy their cells (agent ids), so the occupancy sends an update every frame.
var occupy: bool = true
## Seed of the start and goal cells.
var random_seed: int = 1
## Physics frames run, and the game time they made (sum of their deltas).
var frames: int = 0
var game_time: float = 0.0
## Cell changes of all agents so far.
var cell_changes: int = 0
## Goals reached, and targets given up as unreachable, by all agents.
var arrivals: int = 0
var given_up: int = 0
## The movers, in agent id order.
var movers: Array[Node2D] = []

var _bridge: Node = null
var _params: Dictionary = {}
var _floor: Array[Vector2i] = []
var _rng: RandomNumberGenerator = RandomNumberGenerator.new()


## Loads the room into [param bridge] (an AStarBridge) and spawns the agents; false (and an
## error pushed) when the load failed.
func build(bridge: Node) -> bool:
	_bridge = bridge
	_rng.seed = random_seed
	var grid := AStarGrid2D.new()
	grid.region = Rect2i(0, 0, SIZE, SIZE)
	grid.cell_size = Vector2(CELL, CELL)
	grid.offset = Vector2(CELL, CELL) / 2.0
	grid.diagonal_mode = AStarGrid2D.DIAGONAL_MODE_ONLY_IF_NO_OBSTACLES
	grid.update()
	for y: int in SIZE:
		for x: int in SIZE:
			var wall: bool = x == 0 or y == 0 or x == SIZE - 1 or y == SIZE - 1
			wall = wall or (x % 8 == 4 and y % 8 == 4)  # pillars
			grid.set_point_solid(Vector2i(x, y), wall)
			if not wall:
				_floor.append(Vector2i(x, y))
	_params = GridSerializer.from_astar_grid_2d(grid, GRAPH)
	var loaded: Object = bridge.call("load_graph", GridSerializer.METHOD, _params)
	if loaded == null or loaded.call("is_ok") != true:
		push_error("agent crowd: the grid did not load")
		return false
	var free: Array[Vector2i] = _floor.duplicate()
	for i: int in count:
		var start: Vector2i = free.pop_at(_rng.randi_range(0, free.size() - 1))
		movers.append(_spawn(i, start))
	return true


## The world position of [param cell].
func cell_center(cell: Vector2i) -> Vector2:
	return GridSerializer.cell_to_world(_params, cell)


func _physics_process(delta: float) -> void:
	frames += 1
	game_time += delta
	for mover: Node2D in movers:
		var agent: AStarBridgeAgent2D = mover.get_node("Agent")
		if agent.is_navigation_finished():
			arrivals += 1
			_send(agent)
			continue
		var before: Vector2i = AgentOccupancy.cell_of(GRAPH, mover.position)
		mover.position = mover.position.move_toward(agent.get_next_path_position(), CELL)
		if AgentOccupancy.cell_of(GRAPH, mover.position) != before:
			cell_changes += 1


func _spawn(index: int, start: Vector2i) -> Node2D:
	var mover := Node2D.new()
	mover.name = "Mover%02d" % index
	mover.position = cell_center(start)
	var agent := AStarBridgeAgent2D.new()
	agent.name = "Agent"
	agent.graph_id = GRAPH
	agent.agent_id = index if occupy else AStarBridgeAgent2D.NO_AGENT
	agent.bridge = _bridge
	agent.repath_interval = 0.5
	agent.path_desired_distance = 1.0
	agent.target_desired_distance = 1.0
	agent.path_options = {"allow_partial": true}
	agent.target_unreachable.connect(
		func() -> void:
			given_up += 1
			_send.call_deferred(agent)
	)
	mover.add_child(agent)
	add_child(mover)
	_send(agent)
	return mover


func _send(agent: AStarBridgeAgent2D) -> void:
	var here: Vector2i = AgentOccupancy.cell_of(GRAPH, (agent.get_parent() as Node2D).position)
	var goal: Vector2i = here
	while goal == here:
		goal = _floor[_rng.randi_range(0, _floor.size() - 1)]
	agent.target_position = cell_center(goal)
