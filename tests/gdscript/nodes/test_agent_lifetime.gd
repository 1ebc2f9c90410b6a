## Agents that live a whole game, against a real sidecar, in 2D (a grid) and 3D (a navmesh): a
## second target after an arrival is walked to; an unreachable second target is told and never
## reported as arrival; a patrol of five targets set from navigation_finished; a target that
## moves every frame is followed, and repath_distance spares requests.
## The mover is moved from the test after physics_frame, before the agent's own physics step,
## as a body's _physics_process runs before its child agent's.
extends "res://runner/gd_test.gd"

const Bridge = preload("res://addons/astar_bridge/astar_bridge.gd")
const GridSerializer = preload("res://addons/astar_bridge/serializers/grid_serializer.gd")
const NavmeshSerializer = preload("res://addons/astar_bridge/serializers/navmesh_serializer.gd")
const PathFollower = preload("res://addons/astar_bridge/nodes/path_follower.gd")
const Agent2D = preload("res://addons/astar_bridge/nodes/astar_agent_2d.gd")
const Agent3D = preload("res://addons/astar_bridge/nodes/astar_agent_3d.gd")
const TestBridge = preload("res://tests/support/test_bridge.gd")
const Walker = preload("res://tests/support/agent_walker.gd")
const CELL := 16.0
## "#" wall, "." floor: two rooms joined at row 4; a sealed closet at (9, 6) and (10, 6).
const LEVEL: PackedStringArray = [
	"############",
	"#....#.....#",
	"#....#.....#",
	"#....#.....#",
	"#..........#",
	"#....#..####",
	"#....#..#..#",
	"############",
]

var _tree: SceneTree = Engine.get_main_loop() as SceneTree
var _bridge: Bridge = null
var _root: Node = null
var _params: Dictionary = {}


func before_each() -> void:
	_bridge = TestBridge.made(PackedStringArray(["--log-level", "ERROR"]))
	_tree.root.add_child(_bridge)
	_root = Node.new()
	_tree.root.add_child(_root)


func after_each() -> void:
	_root.free()
	_bridge.stop()
	_bridge.free()


func test_2d_an_agent_that_arrived_walks_to_a_second_target() -> void:
	await _second_target(_walker_2d(Vector2i(1, 1)), _cell(3, 2), _cell(9, 1))


func test_3d_an_agent_that_arrived_walks_to_a_second_target() -> void:
	await _second_target(_walker_3d(Vector3(1, 0, 1)), Vector3(4, 0, 1), Vector3(9, 0, 8))


func test_2d_an_unreachable_second_target_is_told_and_never_finished() -> void:
	await _unreachable_second(_walker_2d(Vector2i(1, 1)), _cell(3, 2), _cell(9, 6))


func test_3d_an_unreachable_second_target_is_told_and_never_finished() -> void:
	await _unreachable_second(_walker_3d(Vector3(1, 0, 1)), Vector3(4, 0, 1), Vector3(22, 0, 2))


func test_2d_a_patrol_of_five_targets() -> void:
	var stops: Array = [_cell(9, 1), _cell(7, 6), _cell(2, 6), _cell(3, 1), _cell(10, 3)]
	await _patrol(_walker_2d(Vector2i(1, 1)), stops)


func test_3d_a_patrol_of_five_targets() -> void:
	var stops: Array = [
		Vector3(9, 0, 1), Vector3(9, 0, 9), Vector3(2, 0, 1), Vector3(9, 0, 5), Vector3(5, 0, 1)
	]
	await _patrol(_walker_3d(Vector3(1, 0, 1)), stops)


func test_2d_a_target_moved_every_frame_is_followed() -> void:
	var route: Array = [_cell(4, 4), _cell(9, 4), _cell(9, 1)]
	await _moving_target(_walker_2d(Vector2i(1, 1)), route, 0.0, 30.0)


func test_3d_a_target_moved_every_frame_is_followed() -> void:
	var route: Array = [Vector3(4, 0, 1), Vector3(9, 0, 1), Vector3(9, 0, 9)]
	await _moving_target(_walker_3d(Vector3(1, 0, 1)), route, 0.0, 1.5)


func test_2d_repath_distance_spares_requests_for_a_moving_target() -> void:
	var route: Array = [_cell(4, 4), _cell(9, 4), _cell(9, 1)]
	var requests: int = await _moving_target(_walker_2d(Vector2i(1, 1)), route, 3 * CELL, 30.0)
	assert_true(requests <= 8, "one request per 3 cells the target moved or so: %d" % requests)


func test_3d_repath_distance_spares_requests_for_a_moving_target() -> void:
	var route: Array = [Vector3(4, 0, 1), Vector3(9, 0, 1), Vector3(9, 0, 9)]
	var requests: int = await _moving_target(_walker_3d(Vector3(1, 0, 1)), route, 3.0, 1.5)
	assert_true(requests <= 8, "one request per 3 m the target moved or so: %d" % requests)


## Arrives at [param first], then is sent to [param second]: the result is reset at once (not
## finished, not reached, no path), and the walker arrives there.
func _second_target(walker: Walker, first: Variant, second: Variant) -> void:
	var finished: Array[Variant] = []
	walker.agent.navigation_finished.connect(func() -> void: finished.append(walker.position()))
	walker.go_to(first)
	assert_true(await walker.walk(300), "arrived at the first target")
	walker.go_to(second)
	assert_false(walker.agent.is_navigation_finished(), "a new target: not finished")
	assert_false(walker.agent.is_target_reached(), "a new target: not reached")
	assert_eq(walker.path_size(), 0, "a new target: the old path is gone")
	assert_true(await walker.walk(600), "arrived at the second target")
	assert_eq(finished.size(), 2, "navigation_finished once per target")
	assert_true(walker.distance_to(second) <= walker.reach(), "at %s" % [walker.position()])
	if finished.size() == 2:
		assert_true(walker.distance_between(finished[1], second) <= walker.reach())


## Arrives at [param first], then is sent to [param unreachable]: target_unreachable once, never
## navigation_finished nor target_reached, however long it is driven.
func _unreachable_second(walker: Walker, first: Variant, unreachable: Variant) -> void:
	walker.go_to(first)
	assert_true(await walker.walk(300), "arrived at the first target")
	var events: Array[String] = []
	var agent: PathFollower = walker.agent
	agent.target_unreachable.connect(func() -> void: events.append("target_unreachable"))
	agent.target_reached.connect(func() -> void: events.append("target_reached"))
	agent.navigation_finished.connect(func() -> void: events.append("navigation_finished"))
	walker.go_to(unreachable)
	# As a body's _physics_process would, before the agent's own step has asked for a path.
	assert_false(agent.is_navigation_finished(), "a new target: not finished")
	await walker.walk(120)
	assert_eq(events, ["target_unreachable"], "told once, never arrival")
	assert_false(agent.is_navigation_finished())
	assert_false(agent.is_target_reachable())
	assert_false(agent.is_target_reached())


## Walks [param stops] in turn, each next one set from navigation_finished (the usual patrol
## code): every arrival is at its stop, one path request per stop.
func _patrol(walker: Walker, stops: Array) -> void:
	var arrivals: Array[float] = []
	var next: Array[int] = [0]
	walker.agent.navigation_finished.connect(
		func() -> void:
			arrivals.append(walker.distance_to(stops[next[0]]))
			next[0] += 1
			if next[0] < stops.size():
				walker.go_to(stops[next[0]])
	)
	var requests: int = _bridge.get_stats()["requests"]
	walker.go_to(stops[0])
	for frame: int in 3000:
		if arrivals.size() == stops.size():
			break
		await walker.step()
	assert_eq(arrivals.size(), stops.size(), "every stop arrived at: %s" % [arrivals])
	for distance: float in arrivals:
		assert_true(distance <= walker.reach() + 0.001, "arrived at its stop: %s" % [arrivals])
	assert_eq(_bridge.get_stats()["requests"] - requests, stops.size(), "one request a stop")


## Sets the target every frame along [param route] at [param speed] (half the walker's) with
## [param repath] as repath_distance: the walker follows it (near it when it stops), then
## reaches it. Returns the path requests made.
func _moving_target(walker: Walker, route: Array, repath: float, speed: float) -> int:
	walker.agent.repath_distance = repath
	var requests: int = _bridge.get_stats()["requests"]
	var target: Variant = route[0]
	walker.go_to(target)
	for leg: int in range(1, route.size()):
		while walker.distance_between(target, route[leg]) > 0.0:
			target = walker.toward(target, route[leg], speed / Engine.physics_ticks_per_second)
			walker.go_to(target)
			await walker.step()
	# Near it, when a path that ends repath_distance short takes a round trip to be replaced.
	var behind: float = walker.distance_to(target)
	var close: float = repath + 4.0 * walker.reach() + speed
	assert_true(behind <= close, "followed: %.2f behind (%.2f at most)" % [behind, close])
	assert_true(await walker.walk(300), "reached the target once it stopped")
	assert_true(walker.distance_to(target) <= walker.reach())
	requests = _bridge.get_stats()["requests"] - requests
	print("    %d path requests with repath_distance %.1f" % [requests, repath])
	return requests


func _walker_2d(start: Vector2i) -> Walker:
	var grid := AStarGrid2D.new()
	grid.region = Rect2i(0, 0, LEVEL[0].length(), LEVEL.size())
	grid.cell_size = Vector2(CELL, CELL)
	grid.offset = Vector2(CELL, CELL) / 2.0
	grid.diagonal_mode = AStarGrid2D.DIAGONAL_MODE_ONLY_IF_NO_OBSTACLES
	grid.update()
	for y: int in LEVEL.size():
		for x: int in LEVEL[y].length():
			grid.set_point_solid(Vector2i(x, y), LEVEL[y][x] != ".")
	_params = GridSerializer.from_astar_grid_2d(grid, "life")
	assert_true(_bridge.load_graph(GridSerializer.METHOD, _params).is_ok())
	var mover := Node2D.new()
	mover.position = _cell(start.x, start.y)
	var agent := Agent2D.new()
	agent.path_desired_distance = 2.0
	agent.target_desired_distance = 2.0
	return _walker(mover, agent, 60.0)


## An L of floor (x 0-10 along z 0-2, then x 8-10 up to z 10) and an island at x 20-24.
func _walker_3d(start: Vector3) -> Walker:
	var mesh := NavigationMesh.new()
	mesh.vertices = PackedVector3Array(
		[
			Vector3(0, 0, 0),
			Vector3(8, 0, 0),
			Vector3(8, 0, 2),
			Vector3(0, 0, 2),
			Vector3(10, 0, 0),
			Vector3(10, 0, 2),
			Vector3(10, 0, 10),
			Vector3(8, 0, 10),
			Vector3(20, 0, 0),
			Vector3(24, 0, 0),
			Vector3(24, 0, 4),
			Vector3(20, 0, 4),
		]
	)
	mesh.add_polygon(PackedInt32Array([0, 3, 2, 1]))
	mesh.add_polygon(PackedInt32Array([1, 2, 5, 4]))
	mesh.add_polygon(PackedInt32Array([2, 7, 6, 5]))
	mesh.add_polygon(PackedInt32Array([8, 11, 10, 9]))
	var loaded: AStarBridgeResult = _bridge.load_graph(
		NavmeshSerializer.METHOD, NavmeshSerializer.from_navigation_mesh(mesh, "life")
	)
	assert_true(loaded.is_ok(), "navmesh loaded: %s" % loaded.message)
	var mover := Node3D.new()
	mover.position = start
	var agent := Agent3D.new()
	agent.path_desired_distance = 0.1
	agent.target_desired_distance = 0.1
	return _walker(mover, agent, 3.0)


func _walker(mover: Node, agent: PathFollower, speed: float) -> Walker:
	agent.name = "Agent"
	agent.graph_id = "life"
	agent.bridge = _bridge
	mover.add_child(agent)
	_root.add_child(mover)
	return Walker.new(mover, agent, speed)


func _cell(x: int, y: int) -> Vector2:
	return Vector2(x, y) * CELL + Vector2(CELL, CELL) / 2.0
