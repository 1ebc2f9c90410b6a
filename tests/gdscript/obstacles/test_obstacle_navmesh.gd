## Obstacle nodes on navigation meshes, against a real sidecar (issue 40): on a 2D mesh an agent
## whose path an AStarBridgeObstacle2D (the shape of a NavigationObstacle2D child:
## use_engine_obstacle) is dropped on re-paths around it and one whose path it misses keeps its
## path; on a 3D mesh an AStarBridgeObstacle3D cylinder is cut out of the paths only within its
## height.
extends "res://runner/gd_test.gd"

const Bridge = preload("res://addons/astar_bridge/astar_bridge.gd")
const TestBridge = preload("res://tests/support/test_bridge.gd")
# A wall across y 20 .. 90 at x 140 .. 160 (the mesh is 0 .. 300 x 0 .. 110).
const WALL: PackedVector2Array = [
	Vector2(-10, -35), Vector2(10, -35), Vector2(10, 35), Vector2(-10, 35)
]

var _tree: SceneTree = Engine.get_main_loop() as SceneTree
var _bridge: Bridge = null
var _root: Node = null


func before_each() -> void:
	_bridge = TestBridge.made(PackedStringArray(["--threads", "1", "--log-level", "ERROR"]))
	_bridge.name = "AStarBridge"  # the nodes find it at /root/AStarBridge
	_bridge.config.load_timeout_ms = 120000  # a sidecar whose kernel cache is cold compiles first
	_bridge.config.request_timeout_ms = 60000  # a cold sidecar may compile its navmesh kernels
	_tree.root.add_child(_bridge)
	_root = Node.new()
	_tree.root.add_child(_root)


func after_each() -> void:
	_root.free()
	_bridge.stop()
	_bridge.free()


func test_an_agent_repaths_around_an_engine_obstacle_flagged_and_another_keeps_its_path() -> void:
	var corners: PackedVector2Array = []  # three 100 x 110 squares side by side
	for x: int in 4:
		corners.append_array([Vector2(100 * x, 0), Vector2(100 * x, 110)])
	var loaded: AStarBridgeResult = (
		_bridge
		. load_graph(
			"graph.load_navmesh",
			{
				"id": "yard",
				"dim": 2,
				"vertices": corners.to_byte_array(),
				"indices": PackedInt32Array([0, 2, 3, 1, 2, 4, 5, 3, 4, 6, 7, 5]).to_byte_array(),
				"sizes": PackedInt32Array([4, 4, 4]).to_byte_array(),
			}
		)
	)
	assert_true(loaded.is_ok(), "mesh loaded: %s" % loaded.message)
	var crossed: AStarBridgeAgent2D = _agent(Vector2(25, 55), Vector2(275, 55))
	var clear: AStarBridgeAgent2D = _agent(Vector2(25, 5), Vector2(275, 5))
	await _until(func() -> bool: return _has_path(crossed) and _has_path(clear))
	var kept: PackedVector2Array = clear.get_current_navigation_path()
	assert_eq(crossed.get_current_navigation_path().size(), 2, "a straight path first")
	var changes: Array[int] = [0, 0]
	crossed.path_changed.connect(func() -> void: changes[0] += 1)
	clear.path_changed.connect(func() -> void: changes[1] += 1)
	var holder := Node2D.new()
	holder.position = Vector2(150, 55)
	var engine := NavigationObstacle2D.new()
	engine.vertices = WALL
	holder.add_child(engine)
	var flag := AStarBridgeObstacle2D.new()
	flag.graph_id = &"yard"
	flag.use_engine_obstacle = true
	holder.add_child(flag)
	_root.add_child(holder)
	await _until(func() -> bool: return changes[0] > 0 and not crossed.is_path_pending())
	var after: PackedVector2Array = crossed.get_current_navigation_path()
	assert_eq(flag.get_global_outline(), Transform2D(0.0, Vector2(150, 55)) * WALL)
	assert_false(_crosses(after, flag.get_global_outline()), "around the wall: %s" % after)
	assert_true(after.size() > 2)
	for _i: int in 10:
		await _tree.physics_frame
	assert_eq(changes[1], 0, "the agent whose path it misses asked nothing")
	assert_eq(clear.get_current_navigation_path(), kept)
	holder.free()  # leaving the tree removes it
	for _i: int in 3:
		await _tree.process_frame
	var path: PackedVector2Array = _bridge.find_path("yard", Vector2(25, 55), Vector2(275, 55))
	assert_eq(path.size(), 2, "straight again once it left: %s" % path)


func test_a_3d_cylinder_cuts_paths_within_its_height_only() -> void:
	var vertices := PackedVector3Array(
		[Vector3(0, 0, 0), Vector3(30, 0, 0), Vector3(30, 0, 11), Vector3(0, 0, 11)]
	)
	var loaded: AStarBridgeResult = (
		_bridge
		. load_graph(
			"graph.load_navmesh",
			{
				"id": "hall",
				"dim": 3,
				"vertices": vertices.to_byte_array(),
				"indices": PackedInt32Array([0, 3, 2, 1]).to_byte_array(),
				"sizes": PackedInt32Array([4]).to_byte_array(),
			}
		)
	)
	assert_true(loaded.is_ok(), "mesh loaded: %s" % loaded.message)
	var pillar := AStarBridgeObstacle3D.new()
	pillar.graph_id = &"hall"
	pillar.radius = 2.0
	pillar.height = 3.0
	pillar.position = Vector3(15, -1, 5.5)  # the floor (y = 0) lies within [-1, 2]
	_root.add_child(pillar)
	for _i: int in 3:
		await _tree.process_frame
	var path: PackedVector3Array = _bridge.find_path_3d(
		"hall", Vector3(2, 0, 5.5), Vector3(28, 0, 5.5)
	)
	var flat := PackedVector2Array()
	for point: Vector3 in path:
		flat.append(Vector2(point.x, point.z))
	assert_true(path.size() > 2, "around the pillar: %s" % path)
	assert_false(_crosses(flat, pillar.get_global_outline()))
	pillar.position = Vector3(15, 1, 5.5)  # now above the floor: [1, 4]
	for _i: int in 3:
		await _tree.process_frame
	path = _bridge.find_path_3d("hall", Vector3(2, 0, 5.5), Vector3(28, 0, 5.5))
	assert_eq(path.size(), 2, "under it, straight: %s" % path)


func _agent(from: Vector2, to: Vector2) -> AStarBridgeAgent2D:
	var body := Node2D.new()
	body.position = from
	_root.add_child(body)
	var agent := AStarBridgeAgent2D.new()
	agent.graph_id = "yard"
	body.add_child(agent)
	agent.target_position = to
	return agent


static func _has_path(agent: AStarBridgeAgent2D) -> bool:
	return not agent.get_current_navigation_path().is_empty() and not agent.is_path_pending()


# True when the polyline runs inside the polygon shrunk by a hair (touching is allowed).
static func _crosses(line: PackedVector2Array, polygon: PackedVector2Array) -> bool:
	for piece: PackedVector2Array in Geometry2D.offset_polygon(polygon, -0.01):
		if not Geometry2D.intersect_polyline_with_polygon(line, piece).is_empty():
			return true
	return false


func _until(condition: Callable, frames: int = 1200) -> void:
	for _i: int in frames:
		if condition.call():
			return
		await _tree.physics_frame
	fail("condition not met after %d frames" % frames)
