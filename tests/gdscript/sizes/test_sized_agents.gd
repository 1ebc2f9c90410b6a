## Agents of different sizes against a real sidecar (issue 38's headless Godot test): on one
## loaded grid a 2 x 2 agent and a 1 x 1 agent are sent to the same target; the small one takes
## the one-cell gap, the big one goes around through the wide opening, and both arrive. Neither
## sets a size: each paths for its body's collision circle. A 2 x 2 agent standing as an
## obstacle blocks with its whole footprint. On a navmesh, an agent with a path_radius keeps
## that distance from every wall along its whole path.
extends "res://runner/gd_test.gd"

const AStarBridgeNode = preload("res://addons/astar_bridge/astar_bridge.gd")
const AgentOccupancy = preload("res://addons/astar_bridge/runtime/agent_occupancy.gd")
const NavmeshSerializer = preload("res://addons/astar_bridge/serializers/navmesh_serializer.gd")
const TestBridge = preload("res://tests/support/test_bridge.gd")
const CELL := 16.0
## "#" wall: a one-cell gap at (7, 3) and a two-cell opening at (12, 3)-(13, 3).
const LEVEL: PackedStringArray = [
	"................",
	"................",
	"................",
	"#######.####..##",
	"................",
	"................",
]
const GAP := Vector2i(7, 3)
const SPEED := 240.0
## The navmesh: a 200 x 200 hall around a 80 x 80 block, as four convex polygons.
const HALL_RADIUS := 12.0

var _tree: SceneTree = Engine.get_main_loop() as SceneTree
var _bridge: AStarBridgeNode = null
var _root: Node2D = null


func before_each() -> void:
	_bridge = TestBridge.made(PackedStringArray(["--threads", "1", "--log-level", "ERROR"]))
	_tree.root.add_child(_bridge)
	_root = Node2D.new()
	_tree.root.add_child(_root)
	var deadline: int = Time.get_ticks_msec() + 20000
	while not _bridge.is_ready() and Time.get_ticks_msec() < deadline:
		await _tree.process_frame


func after_each() -> void:
	_root.free()
	AgentOccupancy.forget_grid("doors")
	_bridge.stop()
	_bridge.free()


func test_the_small_unit_takes_the_gap_and_the_big_one_goes_around() -> void:
	_load_grid()
	# Same start area, same target: below the wall, left of the gap.
	var target := Vector2(112, 80)
	var big: CharacterBody2D = _body(Vector2(112, 16), 13.0)  # 26 px across: 2 x 2 cells
	var small: CharacterBody2D = _body(Vector2(120, 24), 5.0)
	var big_agent: AStarBridgeAgent2D = big.get_node("Agent")
	var small_agent: AStarBridgeAgent2D = small.get_node("Agent")
	assert_eq(big_agent.get_unit_size(), 2, "the body makes the big unit 2 x 2")
	assert_eq(small_agent.get_unit_size(), 1)
	big_agent.target_position = target
	small_agent.target_position = target
	var big_path := PackedVector2Array()
	var small_path := PackedVector2Array()
	var deadline: int = Time.get_ticks_msec() + 30000
	while Time.get_ticks_msec() < deadline:
		await _tree.physics_frame
		big_path.append_array(_step(big, big_agent))
		small_path.append_array(_step(small, small_agent))
		if big_agent.is_target_reached() and small_agent.is_target_reached():
			break
	assert_true(small_agent.is_target_reached(), "the small unit arrived")
	assert_true(big_agent.is_target_reached(), "the big unit arrived")
	assert_true(_cells_under(small_path, 1).has(GAP), "the small unit went through the gap")
	var big_cells: Dictionary = _cells_under(big_path, 2)
	assert_false(big_cells.has(GAP), "the big unit never stood in the gap")
	assert_true(big_cells.has(Vector2i(12, 3)), "it went through the wide opening")
	for cell: Vector2i in big_cells:
		assert_eq(LEVEL[cell.y][cell.x], ".", "the big unit's footprint on a wall at %s" % cell)


func test_a_big_agent_blocks_with_its_whole_footprint() -> void:
	_load_grid()
	# A 2 x 2 guard in the wide opening fills it (a 1 x 1 one would leave a cell beside it).
	var guard: CharacterBody2D = _body(Vector2(16 * 12 + 16, 16 * 3 + 16), 13.0, 1)
	var walker: CharacterBody2D = _body(Vector2(232, 24), 5.0, 2)
	var walker_agent: AStarBridgeAgent2D = walker.get_node("Agent")
	walker_agent.path_options = {}
	for i: int in 6:
		await _tree.physics_frame
	assert_true(AgentOccupancy.is_placed("doors", 1))
	assert_eq(AgentOccupancy.confirmed_cell("doors", 1), Vector2i(12, 3), "anchored top-left")
	assert_eq(AgentOccupancy.confirmed_size("doors", 1), 2, "placed with its size")
	# Through the wide opening, or the long way round by the gap.
	walker_agent.target_position = Vector2(232, 88)
	for frame: int in 60:
		await _tree.physics_frame
		if not walker_agent.is_path_pending() and walker_agent.get_current_navigation_path().size():
			break
	var cells: Dictionary = _cells_under(walker_agent.get_current_navigation_path(), 1)
	assert_true(cells.has(GAP), "the opening is taken: the walker goes by the gap")
	assert_false(cells.has(Vector2i(12, 3)) or cells.has(Vector2i(13, 3)))
	guard.queue_free()


func test_a_navmesh_agent_keeps_its_radius_from_every_wall() -> void:
	var polygon := NavigationPolygon.new()
	polygon.vertices = PackedVector2Array(
		[
			Vector2(0, 0),
			Vector2(200, 0),
			Vector2(200, 200),
			Vector2(0, 200),
			Vector2(60, 60),
			Vector2(140, 60),
			Vector2(140, 140),
			Vector2(60, 140),
		]
	)
	for ring: PackedInt32Array in [[0, 1, 5, 4], [1, 2, 6, 5], [2, 3, 7, 6], [3, 0, 4, 7]]:
		polygon.add_polygon(ring)
	var flat: Dictionary = NavmeshSerializer.from_navigation_polygon(polygon, "hall")
	assert_true(_bridge.load_graph(NavmeshSerializer.METHOD, flat).is_ok())
	var body: CharacterBody2D = _body(Vector2(20, 100), 0.0)
	var agent: AStarBridgeAgent2D = body.get_node("Agent")
	agent.graph_id = "hall"
	agent.path_radius = HALL_RADIUS
	agent.target_position = Vector2(180, 100)
	# Frames until arrival, however long the sidecar takes to shrink the mesh the first time.
	var deadline: int = Time.get_ticks_msec() + 30000
	while not agent.is_target_reached() and Time.get_ticks_msec() < deadline:
		await _tree.physics_frame
		_step(body, agent)
	assert_true(agent.is_target_reached(), "arrived at %s" % body.global_position)
	var path: PackedVector2Array = agent.get_current_navigation_path()
	assert_true(path.size() >= 3, "around the block: %s" % path)
	var walls: Array[PackedVector2Array] = [
		PackedVector2Array([Vector2(0, 0), Vector2(200, 0), Vector2(200, 200), Vector2(0, 200)]),
		PackedVector2Array(
			[Vector2(60, 60), Vector2(140, 60), Vector2(140, 140), Vector2(60, 140)]
		),
	]
	# Every point of every segment (sampled each half pixel), the ends excepted: the start and the
	# target are the game's, 8 px from the wall at most... here 20 px, so all of it.
	var nearest: float = INF
	for i: int in range(1, path.size()):
		var length: float = path[i - 1].distance_to(path[i])
		var samples: int = maxi(1, ceili(length * 2.0))
		for s: int in samples + 1:
			var at: Vector2 = path[i - 1].lerp(path[i], float(s) / samples)
			nearest = minf(nearest, _distance_to_walls(at, walls))
	assert_true(nearest >= HALL_RADIUS - 1e-3, "closest to a wall: %s" % nearest)
	assert_true(nearest <= HALL_RADIUS + 1.0, "the path hugs the block at its radius: %s" % nearest)


func _load_grid() -> void:
	var cells := PackedByteArray()
	for row: String in LEVEL:
		for c: String in row:
			cells.append(0 if c == "#" else 1)
	var placed: Dictionary = {"cell_size": [CELL, CELL], "origin": [8.0, 8.0]}
	var diagonal := AStarGrid2D.DIAGONAL_MODE_ONLY_IF_NO_OBSTACLES
	var loaded: AStarBridgeResult = _bridge.load_grid(
		"doors", LEVEL[0].length(), LEVEL.size(), cells, diagonal, placed
	)
	assert_true(loaded.is_ok(), loaded.message)


func _body(at: Vector2, radius: float, agent_id: int = -1) -> CharacterBody2D:
	var body := CharacterBody2D.new()
	if radius > 0.0:
		var holder := CollisionShape2D.new()
		var circle := CircleShape2D.new()
		circle.radius = radius
		holder.shape = circle
		body.add_child(holder)
	var agent := AStarBridgeAgent2D.new()
	agent.name = "Agent"
	agent.graph_id = "doors"
	agent.agent_id = agent_id
	agent.bridge = _bridge
	agent.target_desired_distance = 12.0
	body.add_child(agent)
	body.position = at
	_root.add_child(body)
	return body


# Moves [param body] one physics step towards its agent's next point (no physics: the test is
# about paths) and returns where it went.
func _step(body: CharacterBody2D, agent: AStarBridgeAgent2D) -> PackedVector2Array:
	if agent.is_navigation_finished():
		return PackedVector2Array()
	var next: Vector2 = agent.get_next_path_position()
	var step: float = SPEED / Engine.physics_ticks_per_second
	body.global_position = body.global_position.move_toward(next, step)
	return PackedVector2Array([body.global_position])


# Every cell covered by a [param size] x [param size] footprint centred on a point of
# [param points] (for an even size the centre lies on a cell corner).
static func _cells_under(points: PackedVector2Array, size: int) -> Dictionary:
	var cells: Dictionary = {}
	for point: Vector2 in points:
		var rel: Vector2 = (point - Vector2(8, 8)) / CELL - Vector2.ONE * ((size - 1) * 0.5)
		var anchor := Vector2i((rel + Vector2(0.5, 0.5)).floor())
		for dy: int in size:
			for dx: int in size:
				cells[anchor + Vector2i(dx, dy)] = true
	return cells


static func _distance_to_walls(point: Vector2, walls: Array[PackedVector2Array]) -> float:
	var nearest: float = INF
	for ring: PackedVector2Array in walls:
		for i: int in ring.size():
			var a: Vector2 = ring[i]
			var b: Vector2 = ring[(i + 1) % ring.size()]
			nearest = minf(
				nearest, point.distance_to(Geometry2D.get_closest_point_to_segment(point, a, b))
			)
	return nearest
