## AStarBridgeAgent3D: follows a 3D path point by point and signals arrival (fake bridge).
extends "res://runner/gd_test.gd"

const FakeBridge = preload("res://tests/support/fake_line_bridge.gd")
const Agent3D = preload("res://addons/astar_bridge/nodes/astar_agent_3d.gd")

var _tree: SceneTree = Engine.get_main_loop() as SceneTree


func test_node_follows_the_path_through_every_point() -> void:
	var root := Node3D.new()
	_tree.root.add_child(root)
	var bridge := FakeBridge.new()
	root.add_child(bridge)
	var mover := Node3D.new()
	var agent := Agent3D.new()
	agent.graph_id = "mesh"
	agent.bridge = bridge
	mover.add_child(agent)
	root.add_child(mover)
	var seen: Array[int] = []
	agent.waypoint_reached.connect(func(details: Dictionary) -> void: seen.append(details["index"]))
	agent.target_position = Vector3(4, 0, 0)
	for i: int in 200:
		await _tree.physics_frame
		if agent.is_navigation_finished():
			break
		mover.global_position = mover.global_position.move_toward(
			agent.get_next_path_position(), 0.25
		)
	assert_true(agent.is_target_reached(), "at %s" % mover.global_position)
	assert_eq(seen, [1, 2], "the start point is skipped; detour and goal reached in order")
	assert_eq(bridge.requests.size(), 1)
	root.free()


func test_configuration_warning_without_a_node3d_parent() -> void:
	var agent := Agent3D.new()
	agent.graph_id = "mesh"
	assert_eq(agent._get_configuration_warnings().size(), 1)
	agent.free()


func test_points_decode_from_packed_arrays_bytes_and_plain_arrays() -> void:
	var agent := Agent3D.new()
	var points := PackedVector3Array([Vector3(1.5, 2.0, -1.0), Vector3(-3.0, 4.25, 0.5)])
	assert_eq(agent._decode_points(points), points)
	assert_eq(agent._decode_points(points.to_byte_array()), points)
	var mixed: Array = [Vector3(1.5, 2.0, -1.0), "x", Vector2.ONE, Vector3(-3.0, 4.25, 0.5)]
	assert_eq(agent._decode_points(mixed), points, "items that are not Vector3 are skipped")
	assert_eq(agent._decode_points(null), PackedVector3Array())
	agent.free()


func test_avoidance_answers_set_velocity_on_the_navigation_server_3d() -> void:
	var root := Node3D.new()
	_tree.root.add_child(root)
	var safe: Array[Vector3] = []
	var agents: Array[Agent3D] = []
	for x: float in [-1.0, 1.0]:
		var mover := Node3D.new()
		mover.position = Vector3(x, 0.0, 0.05 * x)
		var agent := Agent3D.new()
		agent.radius = 0.5
		agent.max_speed = 2.0
		agent.avoidance_enabled = true
		mover.add_child(agent)
		root.add_child(mover)
		agents.append(agent)
	agents[0].velocity_computed.connect(func(v: Vector3) -> void: safe.append(v))
	for frame: int in 5:
		agents[0].set_velocity(Vector3(2.0, 0.0, 0.0))
		agents[1].set_velocity(Vector3(-2.0, 0.0, 0.0))
		await _tree.physics_frame
	assert_true(agents[0].is_in_group("astar_bridge_agents"))
	assert_true(safe.size() >= 3, "answered after the server's steps (%d)" % safe.size())
	var last: Vector3 = safe[safe.size() - 1]
	assert_true(last.distance_to(Vector3(2.0, 0.0, 0.0)) > 0.1, "steered: %s" % last)
	root.free()
	var answered: int = safe.size()
	await _tree.physics_frame
	await _tree.physics_frame
	assert_eq(safe.size(), answered, "freed agents are off the server: no more answers")
