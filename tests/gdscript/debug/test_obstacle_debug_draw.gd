## The debug drawing of obstacle nodes against a real sidecar: every AStarBridgeObstacle2D / 3D
## in the tree is drawn with the outline the sidecar cuts (a circle's 16-gon), it follows the node
## as it moves, and it is gone when the node leaves; nothing is drawn with draw_graphs off.
extends "res://runner/gd_test.gd"

const AStarBridgeNode = preload("res://addons/astar_bridge/astar_bridge.gd")
const DebugDraw = preload("res://addons/astar_bridge/debug/debug_draw.gd")
const Obstacle2D = preload("res://addons/astar_bridge/nodes/astar_obstacle_2d.gd")
const Obstacle3D = preload("res://addons/astar_bridge/nodes/astar_obstacle_3d.gd")
const TestBridge = preload("res://tests/support/test_bridge.gd")
const ENABLED := "astar_bridge/debug/enabled"
const SQUARE := [Vector2(-2, -2), Vector2(2, -2), Vector2(2, 2), Vector2(-2, 2)]

var _bridge: AStarBridgeNode = null


func before_each() -> void:
	_bridge = TestBridge.made(PackedStringArray(["--threads", "1", "--log-level", "ERROR"]))


func after_each() -> void:
	ProjectSettings.set_setting(ENABLED, null)
	ProjectSettings.set_setting("astar_bridge/debug/draw_graphs", null)
	_bridge.stop()
	_bridge.free()


func test_obstacles_2d_and_3d_are_drawn_while_in_the_tree() -> void:
	var draw: DebugDraw = await _start_drawing()
	var layer_2d: Node = draw.get_node("Obstacles2D")
	var layer_3d: Node = draw.get_node("Obstacles3D")
	assert_eq(layer_2d.get("drawn_obstacles"), 0)
	var crate: Obstacle2D = Obstacle2D.new()
	crate.graph_id = &"level"
	crate.vertices = PackedVector2Array(SQUARE)
	crate.position = Vector2(10, 4)
	var barrel: Obstacle2D = Obstacle2D.new()
	barrel.graph_id = &"level"
	barrel.radius = 3.0
	var pillar: Obstacle3D = Obstacle3D.new()
	pillar.graph_id = &"hall"
	pillar.radius = 1.0
	pillar.height = 2.0
	for node: Node in [crate, barrel, pillar]:
		node.call("set_bridge", _bridge)
		_tree().root.add_child(node)
	await _frames(3)
	assert_eq(layer_2d.get("drawn_obstacles"), 2)
	assert_eq(layer_3d.get("drawn_obstacles"), 1)
	assert_eq(crate.get_global_outline()[0], Vector2(8, 2), "the outline is in global positions")
	assert_eq(barrel.get_global_outline().size(), 16, "a circle is drawn as the 16-gon cut")
	var mesh: ImmediateMesh = (layer_3d as MeshInstance3D).mesh
	# 16 sides at the base, 16 at the top, 16 posts: two vertices each.
	var vertices: PackedVector3Array = mesh.surface_get_arrays(0)[Mesh.ARRAY_VERTEX]
	assert_eq(vertices.size(), 16 * 3 * 2)
	barrel.free()
	pillar.free()
	await _frames(2)
	assert_eq(layer_2d.get("drawn_obstacles"), 1)
	assert_eq(layer_3d.get("drawn_obstacles"), 0)
	crate.free()


func test_nothing_drawn_with_draw_graphs_off() -> void:
	ProjectSettings.set_setting("astar_bridge/debug/draw_graphs", false)
	var draw: DebugDraw = await _start_drawing()
	assert_true(draw.get_node_or_null(^"Obstacles2D") == null)
	assert_true(draw.get_node_or_null(^"Obstacles3D") == null)


# Turns the drawing on, starts the bridge and waits until the sidecar is ready.
func _start_drawing() -> DebugDraw:
	ProjectSettings.set_setting(ENABLED, true)
	_tree().root.add_child(_bridge)
	var deadline: int = Time.get_ticks_msec() + 20000
	while not _bridge.is_ready() and Time.get_ticks_msec() < deadline:
		await _frames(1)
	for child: Node in _bridge.get_children():
		if child is DebugDraw:
			return child
	assert_true(false, "no debug drawing under the bridge")
	return null


func _frames(count: int) -> void:
	for i: int in count:
		await _tree().process_frame


func _tree() -> SceneTree:
	return Engine.get_main_loop() as SceneTree
