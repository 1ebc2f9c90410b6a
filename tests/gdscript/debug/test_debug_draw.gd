## The debug drawing (addons/astar_bridge/debug/) against a real sidecar: what it draws of a
## loaded grid, waypoint graph and navmesh (2D and 3D) matches the graph, it follows updates
## and drops, it draws agents' current paths and obstacle nodes' outlines as cut (following
## them while they are in the tree), it is absent when the setting is off, and the debugger
## snapshot carries the autoload's state and stats.
extends "res://runner/gd_test.gd"

const AStarBridgeNode = preload("res://addons/astar_bridge/astar_bridge.gd")
const DebugDraw = preload("res://addons/astar_bridge/debug/debug_draw.gd")
const DebuggerReporter = preload("res://addons/astar_bridge/debug/debugger_reporter.gd")
const WaypointSerializer = preload("res://addons/astar_bridge/serializers/waypoint_serializer.gd")
const NavmeshSerializer = preload("res://addons/astar_bridge/serializers/navmesh_serializer.gd")
const GraphUpdates = preload("res://addons/astar_bridge/serializers/graph_updates.gd")
const TestBridge = preload("res://tests/support/test_bridge.gd")
const Obstacle2D = preload("res://addons/astar_bridge/nodes/astar_obstacle_2d.gd")
const Obstacle3D = preload("res://addons/astar_bridge/nodes/astar_obstacle_3d.gd")
const SQUARE := [Vector2(-2, -2), Vector2(2, -2), Vector2(2, 2), Vector2(-2, 2)]
const ENABLED := "astar_bridge/debug/enabled"
const WIDTH := 12
const HEIGHT := 9

var _bridge: AStarBridgeNode = null


func before_each() -> void:
	_bridge = TestBridge.made(PackedStringArray(["--threads", "1", "--log-level", "ERROR"]))


func after_each() -> void:
	ProjectSettings.set_setting(ENABLED, null)
	ProjectSettings.set_setting("astar_bridge/debug/draw_graphs", null)
	_bridge.stop()
	_bridge.free()


func test_absent_when_the_setting_is_off() -> void:
	ProjectSettings.set_setting(ENABLED, false)
	_tree().root.add_child(_bridge)
	assert_eq(_draw_node(), null)


func test_present_when_the_setting_is_on() -> void:
	ProjectSettings.set_setting(ENABLED, true)
	_tree().root.add_child(_bridge)
	assert_true(_draw_node() is DebugDraw)


func test_grid_solid_cells_match_and_follow_updates() -> void:
	var draw: DebugDraw = await _start_drawing()
	var cells: PackedByteArray = _cells()
	assert_true(_bridge.load_grid("level", WIDTH, HEIGHT, cells).is_ok())
	await _frames(2)
	var layer: Node = draw.get_layer("level")
	assert_ne(layer, null)
	assert_eq(layer.call("solid_cell_count"), cells.count(0))
	var walls: Array[Vector2i] = [Vector2i(1, 1), Vector2i(2, 1), Vector2i(3, 1)]
	var door: Dictionary = GraphUpdates.cells_walkable("level", walls, false)
	door.erase("id")
	assert_true(_bridge.update_graph("level", door).is_ok())
	await _frames(2)
	assert_eq(layer.call("solid_cell_count"), cells.count(0) + 3, "three cells became solid")
	var opened: Array[Vector2i] = [Vector2i(5, 0)]  # a wall cell of the level
	var gap: Dictionary = GraphUpdates.cells_walkable("level", opened, true)
	gap.erase("id")
	assert_true(_bridge.update_graph("level", gap).is_ok())
	await _frames(2)
	assert_eq(layer.call("solid_cell_count"), cells.count(0) + 2)
	var shapes: Dictionary = draw.get_shapes("level")
	var drawn: PackedByteArray = shapes["cells"]
	assert_eq(drawn[1 * WIDTH + 2], 0)
	assert_eq(drawn[0 * WIDTH + 5], 1)


func test_grid_weights_are_drawn_and_follow_weight_updates() -> void:
	var draw: DebugDraw = await _start_drawing()
	var weights := PackedFloat32Array()
	weights.resize(WIDTH * HEIGHT)
	weights.fill(1.0)
	weights[2 * WIDTH + 1] = 4.0
	weights[2 * WIDTH + 2] = 4.0
	weights[0 * WIDTH + 5] = 9.0  # a wall: drawn as solid, not as weight
	var extra: Dictionary = {"weights": weights.to_byte_array()}
	assert_true(
		(
			_bridge
			. load_grid("mud", WIDTH, HEIGHT, _cells(), AStarGrid2D.DIAGONAL_MODE_NEVER, extra)
			. is_ok()
		)
	)
	await _frames(2)
	var layer: Node = draw.get_layer("mud")
	assert_eq(layer.call("weighted_cell_count"), 2)
	var update: Dictionary = {
		"weight_cells": PackedInt32Array([1, 2, 7, 7]).to_byte_array(),
		"weights": PackedFloat32Array([1.0, 3.0]).to_byte_array(),
	}
	assert_true(_bridge.update_graph("mud", update).is_ok())
	await _frames(2)
	assert_eq(layer.call("weighted_cell_count"), 2, "(1, 2) back to 1, (7, 7) now 3")
	var shapes: Dictionary = draw.get_shapes("mud")
	var drawn: PackedFloat32Array = shapes["weights"]
	assert_eq(drawn[7 * WIDTH + 7], 3.0)
	assert_eq(drawn[2 * WIDTH + 1], 1.0)


func test_draw_graphs_off_draws_paths_only() -> void:
	ProjectSettings.set_setting("astar_bridge/debug/draw_graphs", false)
	var draw: DebugDraw = await _start_drawing()
	assert_true(_bridge.load_grid("level", WIDTH, HEIGHT, _cells()).is_ok())
	await _frames(2)
	assert_eq(draw.get_drawn_ids(), PackedStringArray())
	assert_ne(draw.get_node_or_null(^"Paths2D"), null)
	assert_true(draw.get_node_or_null(^"Obstacles2D") == null)
	assert_true(draw.get_node_or_null(^"Obstacles3D") == null)


func test_waypoint_edges_and_points_match_the_graph() -> void:
	var draw: DebugDraw = await _start_drawing()
	var astar := AStar2D.new()
	for i: int in 5:
		astar.add_point(i + 1, Vector2(i * 10, (i % 2) * 10))
	for i: int in 4:
		astar.connect_points(i + 1, i + 2)
	astar.connect_points(1, 5, false)
	var params: Dictionary = WaypointSerializer.from_astar_2d(astar, "roads")
	assert_true(_bridge.load_graph(WaypointSerializer.METHOD, params).is_ok())
	await _frames(2)
	var layer: Node = draw.get_layer("roads")
	assert_true(layer is Node2D)
	assert_eq(layer.get("drawn_edges"), 5)
	assert_eq(layer.get("drawn_points"), 5)


func test_navmesh_polygons_2d_and_3d_match_the_graph() -> void:
	var draw: DebugDraw = await _start_drawing()
	var polygon := NavigationPolygon.new()
	polygon.vertices = PackedVector2Array(
		[Vector2(0, 0), Vector2(10, 0), Vector2(10, 10), Vector2(0, 10), Vector2(20, 5)]
	)
	polygon.add_polygon(PackedInt32Array([0, 1, 2, 3]))
	polygon.add_polygon(PackedInt32Array([1, 4, 2]))
	var flat: Dictionary = NavmeshSerializer.from_navigation_polygon(polygon, "floor")
	assert_true(_bridge.load_graph(NavmeshSerializer.METHOD, flat).is_ok())
	var mesh := NavigationMesh.new()
	mesh.vertices = PackedVector3Array(
		[Vector3(0, 0, 0), Vector3(4, 0, 0), Vector3(4, 0, 4), Vector3(0, 0, 4), Vector3(8, 0, 2)]
	)
	mesh.add_polygon(PackedInt32Array([0, 3, 2, 1]))
	mesh.add_polygon(PackedInt32Array([1, 2, 4]))
	var solid: Dictionary = NavmeshSerializer.from_navigation_mesh(mesh, "hall")
	assert_true(_bridge.load_graph(NavmeshSerializer.METHOD, solid).is_ok())
	await _frames(2)
	var layer_2d: Node = draw.get_layer("floor")
	assert_true(layer_2d is Node2D)
	assert_eq(layer_2d.get("drawn_polygons"), 2)
	assert_eq(layer_2d.get("drawn_edges"), 7)
	var layer_3d: Node = draw.get_layer("hall")
	assert_true(layer_3d is MeshInstance3D)
	assert_eq(layer_3d.get("drawn_polygons"), 2)
	assert_eq(layer_3d.get("drawn_edges"), 7)
	var built: ImmediateMesh = (layer_3d as MeshInstance3D).mesh
	assert_eq(built.get_surface_count(), 2, "faces and edges")


func test_dropped_graph_is_no_longer_drawn() -> void:
	var draw: DebugDraw = await _start_drawing()
	assert_true(_bridge.load_grid("level", WIDTH, HEIGHT, _cells()).is_ok())
	await _frames(2)
	assert_eq(draw.get_drawn_ids(), PackedStringArray(["level"]))
	assert_true(_bridge.drop_graph("level").is_ok())
	var deadline: int = Time.get_ticks_msec() + 3000
	while not draw.get_drawn_ids().is_empty() and Time.get_ticks_msec() < deadline:
		await _frames(1)
	assert_eq(draw.get_drawn_ids(), PackedStringArray())


func test_agent_paths_are_drawn_2d_and_3d() -> void:
	var draw: DebugDraw = await _start_drawing()
	var agents: Array[Node] = [
		_agent(PackedVector2Array([Vector2(0, 0), Vector2(5, 0), Vector2(5, 5)])),
		_agent(PackedVector2Array([Vector2(1, 1)])),  # one point: nothing to draw
		_agent(PackedVector3Array([Vector3(0, 0, 0), Vector3(2, 0, 0)])),
	]
	for agent: Node in agents:
		_tree().root.add_child(agent)
	await _frames(3)
	assert_eq(draw.get_node("Paths2D").get("drawn_paths"), 1)
	assert_eq(draw.get_node("Paths3D").get("drawn_paths"), 1)
	for agent: Node in agents:
		agent.free()


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


func test_debugger_snapshot_carries_state_graphs_and_stats() -> void:
	_tree().root.add_child(_bridge)
	assert_true(_bridge.load_grid("level", WIDTH, HEIGHT, _cells()).is_ok())
	for i: int in 3:
		assert_eq(_bridge.find_path("level", Vector2(0, 0), Vector2(11, 8)).is_empty(), false)
	var snapshot: Dictionary = DebuggerReporter.snapshot(_bridge)
	assert_eq(snapshot["phase"], "READY")
	assert_eq(snapshot["pid"], _bridge.get_sidecar_pid())
	assert_eq(snapshot["port"], _bridge.get_sidecar_port())
	assert_eq(snapshot["last_error"], "")
	assert_eq(snapshot["graphs"], [{"id": "level", "summary": "grid 12 x 9"}])
	var stats: Dictionary = snapshot["stats"]
	for key: String in ["requests", "failures", "latency_ms_p50", "paths_per_second", "pending"]:
		assert_true(stats.has(key), key)
	# The message is one Array argument, as EngineDebugger.send_message takes it, and it
	# survives the debugger's Variant encoding.
	var decoded: Variant = bytes_to_var(var_to_bytes([snapshot]))
	assert_eq(decoded, [snapshot])


# Turns the drawing on, starts the bridge and waits until the sidecar is ready.
func _start_drawing() -> DebugDraw:
	ProjectSettings.set_setting(ENABLED, true)
	_tree().root.add_child(_bridge)
	var deadline: int = Time.get_ticks_msec() + 20000
	while not _bridge.is_ready() and Time.get_ticks_msec() < deadline:
		await _frames(1)
	var draw: DebugDraw = _draw_node()
	assert_ne(draw, null)
	return draw


func _draw_node() -> DebugDraw:
	for child: Node in _bridge.get_children():
		if child is DebugDraw:
			return child
	return null


# A node honouring the agents' contract: group astar_bridge_agents and
# get_current_navigation_path() (the real agent nodes join the same group).
func _agent(path: Variant) -> Node:
	var script := GDScript.new()
	script.source_code = (
		"extends Node\nvar path: Variant = null\n"
		+ "func get_current_navigation_path() -> Variant:\n\treturn path\n"
	)
	script.reload()
	var agent := Node.new()
	agent.set_script(script)
	agent.set("path", path)
	agent.add_to_group(&"astar_bridge_agents")
	return agent


# A 12x9 grid: a wall down column 5 (gap at the bottom row).
func _cells() -> PackedByteArray:
	var cells: PackedByteArray = PackedByteArray()
	cells.resize(WIDTH * HEIGHT)
	cells.fill(1)
	for y: int in HEIGHT - 1:
		cells[y * WIDTH + 5] = 0
	return cells


func _frames(count: int) -> void:
	for i: int in count:
		await _tree().process_frame


func _tree() -> SceneTree:
	return Engine.get_main_loop() as SceneTree
