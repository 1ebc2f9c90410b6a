## AStarBridgeAgent2D: follows paths, emits NavigationAgent2D-style signals, re-paths, occupies a
## grid cell. A fake bridge answers from Godot's AStarGrid2D, so no sidecar is needed here.
extends "res://runner/gd_test.gd"

const FakeBridge = preload("res://tests/support/fake_path_bridge.gd")
const GridSerializer = preload("res://addons/astar_bridge/serializers/grid_serializer.gd")
const AgentOccupancy = preload("res://addons/astar_bridge/runtime/agent_occupancy.gd")
const Agent2D = preload("res://addons/astar_bridge/nodes/astar_agent_2d.gd")
const SPEED := 400.0
## A room with a wall across the middle and a gap at the bottom ("#" wall, "." floor).
const LEVEL: PackedStringArray = [
	"##########",
	"#....#...#",
	"#....#...#",
	"#....#...#",
	"#........#",
	"##########",
]

var _tree: SceneTree = Engine.get_main_loop() as SceneTree
var _root: Node2D = null
var _bridge: FakeBridge = null


func before_each() -> void:
	_root = Node2D.new()
	_tree.root.add_child(_root)
	_bridge = FakeBridge.new()
	_root.add_child(_bridge)


func after_each() -> void:
	_root.queue_free()
	AgentOccupancy.forget_grid("level")


func test_body_walks_around_the_wall_to_the_goal() -> void:
	var params: Dictionary = _load_level()
	var body: CharacterBody2D = _body(GridSerializer.cell_to_world(params, Vector2i(1, 1)))
	var agent: Agent2D = body.get_node("Agent")
	var goal: Vector2 = GridSerializer.cell_to_world(params, Vector2i(8, 1))
	var events: Array[String] = []
	agent.path_changed.connect(func() -> void: events.append("path_changed"))
	agent.target_reached.connect(func() -> void: events.append("target_reached"))
	agent.navigation_finished.connect(func() -> void: events.append("navigation_finished"))
	agent.target_position = goal
	assert_false(agent.is_navigation_finished(), "navigating while the first path is on its way")
	await _walk(body, agent, 240)
	assert_true(agent.is_target_reached(), "reached %s, at %s" % [goal, body.global_position])
	assert_true(agent.is_target_reachable())
	assert_true(body.global_position.distance_to(goal) <= agent.target_desired_distance)
	assert_eq(events, ["path_changed", "target_reached", "navigation_finished"])
	var path: PackedVector2Array = agent.get_current_navigation_path()
	var through_gap: bool = false
	for point: Vector2 in path:
		through_gap = through_gap or GridSerializer.world_to_cell(params, point) == Vector2i(5, 4)
	assert_true(through_gap, "the path goes through the gap in the wall")


func test_new_target_requests_a_new_path() -> void:
	var params: Dictionary = _load_level()
	var body: CharacterBody2D = _body(GridSerializer.cell_to_world(params, Vector2i(1, 1)))
	var agent: Agent2D = body.get_node("Agent")
	agent.target_position = GridSerializer.cell_to_world(params, Vector2i(3, 3))
	# The request leaves in the agent's physics step, after physics_frame resumes this test: wait
	# for it (one frame was not always enough: run alone, the test changed the target first).
	for frame: int in 60:
		if not _bridge.requests.is_empty():
			break
		await _tree.physics_frame
	assert_eq(_bridge.requests.size(), 1, "the first target was asked for")
	agent.target_position = GridSerializer.cell_to_world(params, Vector2i(2, 4))
	await _walk(body, agent, 120)
	assert_true(agent.is_target_reached())
	assert_eq(_bridge.requests.size(), 2, "one request per target")
	assert_eq(_bridge.requests[1]["to"], GridSerializer.cell_to_world(params, Vector2i(2, 4)))


func test_navigation_layers_go_with_every_request_unless_the_options_say() -> void:
	var params: Dictionary = _load_level()
	var body: CharacterBody2D = _body(GridSerializer.cell_to_world(params, Vector2i(1, 1)))
	var agent: Agent2D = body.get_node("Agent")
	agent.navigation_layers = 5
	agent.target_position = GridSerializer.cell_to_world(params, Vector2i(3, 3))
	await _walk(body, agent, 120)
	assert_eq(_bridge.requests[0]["options"], {"navigation_layers": 5})
	agent.path_options = {"navigation_layers": 2}
	agent.target_position = GridSerializer.cell_to_world(params, Vector2i(2, 4))
	await _walk(body, agent, 120)
	assert_eq(_bridge.requests[1]["options"], {"navigation_layers": 2})
	agent.optimal = true
	agent.target_position = GridSerializer.cell_to_world(params, Vector2i(3, 3))
	await _walk(body, agent, 120)
	assert_eq(_bridge.requests[2]["options"], {"navigation_layers": 2, "optimal": true})


func test_graph_reload_triggers_a_repath() -> void:
	var params: Dictionary = _load_level()
	var body: CharacterBody2D = _body(GridSerializer.cell_to_world(params, Vector2i(1, 1)))
	var agent: Agent2D = body.get_node("Agent")
	agent.target_position = GridSerializer.cell_to_world(params, Vector2i(8, 3))
	await _tree.physics_frame
	await _tree.physics_frame
	_bridge.load_grid_params(params)
	await _tree.physics_frame
	await _tree.physics_frame
	assert_eq(_bridge.requests.size(), 2, "graph_loaded for our graph re-paths")


func test_unreachable_target_never_reports_arrival() -> void:
	var params: Dictionary = _load_level()
	var body: CharacterBody2D = _body(GridSerializer.cell_to_world(params, Vector2i(1, 1)))
	var agent: Agent2D = body.get_node("Agent")
	var events: Array[String] = []
	agent.target_unreachable.connect(func() -> void: events.append("target_unreachable"))
	agent.target_reached.connect(func() -> void: events.append("target_reached"))
	agent.navigation_finished.connect(func() -> void: events.append("navigation_finished"))
	agent.repath_interval = 0.1
	agent.target_position = GridSerializer.cell_to_world(params, Vector2i(5, 1))  # a wall
	await _walk(body, agent, 60)
	assert_false(agent.is_navigation_finished(), "no arrival at the start")
	assert_false(agent.is_target_reachable())
	assert_false(agent.is_target_reached())
	assert_true(_bridge.requests.size() > 2, "it keeps trying on its repath interval")
	assert_eq(events, ["target_unreachable"], "told once, never arrival")
	assert_eq(agent.get_next_path_position(), body.global_position, "no path: stay")


func test_a_change_off_the_path_does_not_repath_but_one_on_it_does() -> void:
	var params: Dictionary = _load_level()
	var body: CharacterBody2D = _body(GridSerializer.cell_to_world(params, Vector2i(1, 1)))
	var agent: Agent2D = body.get_node("Agent")
	agent.target_position = GridSerializer.cell_to_world(params, Vector2i(8, 1))
	for i: int in 3:
		await _tree.physics_frame
	assert_eq(_bridge.requests.size(), 1)
	var far: Array[Vector2i] = [Vector2i(1, 4)]  # two cells below the start, off the path
	_bridge.play_ground_change("level", far)
	_bridge.play_ground_change("other", [] as Array[Vector2i])
	await _tree.physics_frame
	await _tree.physics_frame
	var cells: Array[Vector2i] = []
	for point: Vector2 in agent.get_current_navigation_path():
		cells.append(GridSerializer.world_to_cell(params, point))
	assert_eq(_bridge.requests.size(), 1, "a change away from %s leaves it alone" % [cells])
	var gap: Array[Vector2i] = [Vector2i(5, 4)]  # the gap the path goes through
	_bridge.play_ground_change("level", gap)
	await _tree.physics_frame
	await _tree.physics_frame
	assert_eq(_bridge.requests.size(), 2, "a change on the path re-paths")
	_bridge.play_ground_change("level", [] as Array[Vector2i])
	await _tree.physics_frame
	await _tree.physics_frame
	assert_eq(_bridge.requests.size(), 3, "an update naming no cells may touch any path")


func test_set_velocity_without_avoidance_answers_the_same_velocity_at_once() -> void:
	var params: Dictionary = _load_level()
	var body: CharacterBody2D = _body(GridSerializer.cell_to_world(params, Vector2i(1, 1)))
	var agent: Agent2D = body.get_node("Agent")
	var seen: Array[Vector2] = []
	agent.velocity_computed.connect(func(safe: Vector2) -> void: seen.append(safe))
	agent.set_velocity(Vector2(3, 4))
	assert_eq(seen, [Vector2(3, 4)])
	assert_true(agent.is_in_group("astar_bridge_agents"))


func test_agent_id_places_then_moves_and_is_passed_in_options() -> void:
	var params: Dictionary = _load_level()
	var body: CharacterBody2D = _body(GridSerializer.cell_to_world(params, Vector2i(1, 1)), 7)
	var agent: Agent2D = body.get_node("Agent")
	await _tree.physics_frame
	await _tree.process_frame
	assert_eq(_bridge.updates.size(), 1, "one batched update placed the agent")
	var first: Dictionary = _bridge.updates[0][1]
	assert_eq(first["agents"], [{"op": "place", "agent": 7, "cell": [1, 1]}])
	agent.target_position = GridSerializer.cell_to_world(params, Vector2i(3, 1))
	await _walk(body, agent, 120)
	assert_eq(_bridge.requests[0]["options"], {"agent": 7, "navigation_layers": 1})
	var last: Dictionary = _bridge.updates[_bridge.updates.size() - 1][1]
	assert_eq(last["agents"], [{"op": "move", "agent": 7, "cell": [3, 1]}])


func test_the_deprecated_register_grid_forgets_no_placed_agent() -> void:
	var params: Dictionary = _load_level()
	_body(GridSerializer.cell_to_world(params, Vector2i(1, 1)), 4)
	await _tree.physics_frame
	await _tree.process_frame
	assert_true(AgentOccupancy.is_placed("level", 4))
	Agent2D.register_grid(params)  # left in an older game's code
	assert_true(AgentOccupancy.is_placed("level", 4), "the grid was known: nothing forgotten")
	await _tree.physics_frame
	await _tree.process_frame
	assert_eq(_bridge.updates.size(), 1, "and nothing placed twice")


func test_configuration_warnings_name_graph_and_parent() -> void:
	var agent := Agent2D.new()
	var warnings: PackedStringArray = agent._get_configuration_warnings()
	assert_eq(warnings.size(), 2)
	agent.graph_id = "level"
	var body := Node2D.new()
	body.add_child(agent)
	assert_eq(agent._get_configuration_warnings().size(), 0)
	body.free()


func test_points_decode_from_packed_arrays_bytes_and_plain_arrays() -> void:
	var agent := Agent2D.new()
	var points := PackedVector2Array([Vector2(1.5, 2.0), Vector2(-3.0, 4.25)])
	var lifted := PackedVector3Array([Vector3(1.5, 2.0, 0.0), Vector3(-3.0, 4.25, 0.0)])
	assert_eq(agent._decode_points(points), lifted, "the follower works at z = 0")
	assert_eq(agent._decode_points(points.to_byte_array()), lifted)
	var mixed: Array = [Vector2(1.5, 2.0), "x", Vector3.ONE, Vector2(-3.0, 4.25)]
	assert_eq(agent._decode_points(mixed), lifted, "items that are not Vector2 are skipped")
	assert_eq(agent._decode_points(null), PackedVector3Array())
	assert_eq(typeof(agent._to_agent_space(lifted[1])), TYPE_VECTOR2, "requests and signals")
	agent.free()


func _load_level() -> Dictionary:
	var grid := AStarGrid2D.new()
	grid.region = Rect2i(0, 0, LEVEL[0].length(), LEVEL.size())
	grid.cell_size = Vector2(32, 32)
	grid.offset = Vector2(16, 16)
	grid.update()
	for y: int in LEVEL.size():
		for x: int in LEVEL[y].length():
			grid.set_point_solid(Vector2i(x, y), LEVEL[y][x] == "#")
	var params: Dictionary = GridSerializer.from_astar_grid_2d(grid, "level")
	_bridge.load_grid_params(params)
	return params


func _body(at: Vector2, agent_id: int = -1) -> CharacterBody2D:
	var body := CharacterBody2D.new()
	var shape := CollisionShape2D.new()
	var circle := CircleShape2D.new()
	circle.radius = 6.0
	shape.shape = circle
	body.add_child(shape)
	var agent := Agent2D.new()
	agent.name = "Agent"
	agent.graph_id = "level"
	agent.agent_id = agent_id
	agent.bridge = _bridge
	body.add_child(agent)
	body.position = at
	_root.add_child(body)
	return body


## Moves [param body] along its agent's path for at most [param frames] physics frames.
func _walk(body: CharacterBody2D, agent: Agent2D, frames: int) -> void:
	for i: int in frames:
		await _tree.physics_frame
		if agent.is_navigation_finished():
			return
		var next: Vector2 = agent.get_next_path_position()
		var step: float = SPEED / Engine.physics_ticks_per_second
		body.velocity = (
			body.global_position.direction_to(next)
			* minf(SPEED, body.global_position.distance_to(next) / step * SPEED)
		)
		body.move_and_slide()
