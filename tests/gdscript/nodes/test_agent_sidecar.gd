## AStarBridgeAgent2D against a real sidecar: a TileMapLayer level with walls is serialised,
## uploaded through the AStarBridge autoload script, and the agent leads a CharacterBody2D from
## start to goal around the walls; a second agent blocks a doorway as a grid obstacle, from its
## agent_id alone (loading the grid through the bridge is all the set-up occupancy needs).
extends "res://runner/gd_test.gd"

const Bridge = preload("res://addons/astar_bridge/astar_bridge.gd")
const GridSerializer = preload("res://addons/astar_bridge/serializers/grid_serializer.gd")
const AgentOccupancy = preload("res://addons/astar_bridge/runtime/agent_occupancy.gd")
const TestBridge = preload("res://tests/support/test_bridge.gd")
const SPEED := 480.0
## "#" wall, "." floor: two rooms joined by a one-cell doorway at (5, 4).
const LEVEL: PackedStringArray = [
	"###########",
	"#....#....#",
	"#....#....#",
	"#....#....#",
	"#.........#",
	"###########",
]

var _tree: SceneTree = Engine.get_main_loop() as SceneTree
var _bridge: Bridge = null
var _root: Node2D = null
var _layer: TileMapLayer = null
var _params: Dictionary = {}


func before_each() -> void:
	_bridge = TestBridge.made(PackedStringArray(["--threads", "1", "--log-level", "ERROR"]))
	_tree.root.add_child(_bridge)
	_root = Node2D.new()
	_tree.root.add_child(_root)
	_layer = _tile_layer()
	_root.add_child(_layer)
	_params = GridSerializer.from_tile_map_layer(_layer, "rooms")
	var loaded: AStarBridgeResult = _bridge.load_graph(GridSerializer.METHOD, _params)
	assert_true(loaded.is_ok(), "grid loaded: %s" % loaded.message)


func after_each() -> void:
	_root.free()
	AgentOccupancy.forget_grid("rooms")
	_bridge.stop()
	_bridge.free()


func test_body_reaches_the_goal_around_the_wall() -> void:
	var body: CharacterBody2D = _body(Vector2i(1, 1), -1)
	var agent: AStarBridgeAgent2D = body.get_node("Agent")
	var goal: Vector2 = _layer.map_to_local(Vector2i(9, 1))
	agent.target_position = goal
	await _walk(body, agent, 600)
	assert_true(agent.is_target_reached(), "at %s, goal %s" % [body.global_position, goal])
	assert_true(agent.is_target_reachable())
	var through_door: bool = false
	for point: Vector2 in agent.get_current_navigation_path():
		through_door = through_door or _layer.local_to_map(point) == Vector2i(5, 4)
	assert_true(through_door, "the path passes the doorway")


func test_an_agent_in_the_doorway_blocks_others_but_not_itself() -> void:
	var guard: CharacterBody2D = _body(Vector2i(5, 4), 1)
	var walker: CharacterBody2D = _body(Vector2i(1, 1), 2)
	var agent: AStarBridgeAgent2D = walker.get_node("Agent")
	for i: int in 10:
		await _tree.process_frame
	assert_true(AgentOccupancy.is_placed("rooms", 1), "the guard occupies its cell")
	assert_true(AgentOccupancy.is_placed("rooms", 2))
	agent.target_position = _layer.map_to_local(Vector2i(9, 1))
	await _walk(walker, agent, 60)
	assert_false(agent.is_target_reachable(), "the only doorway is taken")
	var guard_agent: AStarBridgeAgent2D = guard.get_node("Agent")
	guard_agent.target_position = _layer.map_to_local(Vector2i(3, 4))
	await _walk(guard, guard_agent, 300)
	assert_true(guard_agent.is_target_reached(), "the guard is not blocked by its own cell")


func _body(cell: Vector2i, agent_id: int) -> CharacterBody2D:
	var body := CharacterBody2D.new()
	body.collision_layer = 2
	body.collision_mask = 1
	var shape := CollisionShape2D.new()
	var circle := CircleShape2D.new()
	circle.radius = 5.0
	shape.shape = circle
	body.add_child(shape)
	var agent := AStarBridgeAgent2D.new()
	agent.name = "Agent"
	agent.graph_id = "rooms"
	agent.agent_id = agent_id
	agent.bridge = _bridge
	body.add_child(agent)
	body.position = _layer.map_to_local(cell)
	_root.add_child(body)
	return body


func _walk(body: CharacterBody2D, agent: AStarBridgeAgent2D, frames: int) -> void:
	for i: int in frames:
		await _tree.physics_frame
		if agent.is_navigation_finished() and not agent.is_path_pending():
			return
		var next: Vector2 = agent.get_next_path_position()
		var step: float = SPEED / Engine.physics_ticks_per_second
		var gap: float = body.global_position.distance_to(next)
		body.velocity = body.global_position.direction_to(next) * SPEED * minf(1.0, gap / step)
		body.move_and_slide()


func _tile_layer() -> TileMapLayer:
	var tile_set := TileSet.new()
	tile_set.tile_size = Vector2i(16, 16)
	tile_set.add_custom_data_layer()
	tile_set.set_custom_data_layer_name(0, "walkable")
	tile_set.set_custom_data_layer_type(0, TYPE_BOOL)
	tile_set.add_physics_layer()
	var atlas := TileSetAtlasSource.new()
	atlas.texture = ImageTexture.create_from_image(Image.create(32, 16, false, Image.FORMAT_RGBA8))
	atlas.texture_region_size = Vector2i(16, 16)
	tile_set.add_source(atlas, 0)
	var square := PackedVector2Array(
		[Vector2(-8, -8), Vector2(8, -8), Vector2(8, 8), Vector2(-8, 8)]
	)
	for x: int in 2:
		atlas.create_tile(Vector2i(x, 0))
		var data: TileData = atlas.get_tile_data(Vector2i(x, 0), 0)
		data.set_custom_data("walkable", x == 0)
		if x == 1:
			data.add_collision_polygon(0)
			data.set_collision_polygon_points(0, 0, square)
	var layer := TileMapLayer.new()
	layer.tile_set = tile_set
	for y: int in LEVEL.size():
		for x: int in LEVEL[y].length():
			layer.set_cell(Vector2i(x, y), 0, Vector2i(1 if LEVEL[y][x] == "#" else 0, 0))
	return layer
