## Unit sizes on the addon's side, without a sidecar: what a query sends for size and radius
## and what it refuses, the radius -> footprint rule and the anchor of a position (the sidecar's
## rules, issue 38), the radius the agents read from their body's collision shapes, and the
## footprint a flow field samples with.
extends "res://runner/gd_test.gd"

const AgentOccupancy = preload("res://addons/astar_bridge/runtime/agent_occupancy.gd")
const BodyExtent = preload("res://addons/astar_bridge/nodes/body_extent.gd")
const FieldCalls = preload("res://addons/astar_bridge/runtime/field_calls.gd")
const FlowField = preload("res://addons/astar_bridge/api/flow_field.gd")
const GraphStore = preload("res://addons/astar_bridge/runtime/graph_store.gd")
const GRID := "sizes_grid"

var _tree: SceneTree = Engine.get_main_loop() as SceneTree
var _root: Node = null


func before_each() -> void:
	_root = Node.new()
	_tree.root.add_child(_root)
	# A 10 x 6 grid of 16 px cells whose cell (0, 0) is at (8, 8), as a TileMapLayer's.
	var params: Dictionary = {
		"id": GRID, "width": 10, "height": 6, "origin": [8.0, 8.0], "cell_size": [16.0, 16.0]
	}
	AgentOccupancy.register_grid(params)


func after_each() -> void:
	_root.free()
	AgentOccupancy.forget_grid(GRID)


func test_a_query_sends_size_and_radius_only_when_set() -> void:
	var query := AStarBridgePathQuery.new()
	query.graph = GRID
	assert_false(query.to_options().has("size"), "size 1 is the default: nothing sent")
	assert_false(query.to_options().has("radius"))
	query.size = 3
	assert_eq(query.to_options()["size"], 3)
	assert_eq(query.check(), "")
	query.size = 1
	query.radius = 12.5
	assert_eq(query.to_options()["radius"], 12.5)
	assert_false(query.to_options().has("size"))
	assert_eq(query.check(), "")


func test_a_query_refuses_bad_sizes_and_radii() -> void:
	var query := AStarBridgePathQuery.new()
	query.graph = GRID
	for bad: int in [0, -1, 256]:
		query.size = bad
		assert_true(query.check().contains("size must be 1 .. 255"), "size %d" % bad)
	query.size = 1
	for bad: float in [-1.0, INF, NAN]:
		query.radius = bad
		assert_true(query.check().contains("radius must be"), "radius %s" % bad)
	query.size = 2
	query.radius = 8.0
	assert_true(query.check().contains("not both"), query.check())


func test_a_radius_takes_the_smallest_footprint_that_holds_it() -> void:
	# ceil(2r / 16), at least 1: a radius of exactly k/2 cells is k cells.
	var cases: Dictionary = {0.0: 1, 3.0: 1, 8.0: 1, 8.5: 2, 16.0: 2, 16.01: 3, 24.0: 3, -4.0: 1}
	for radius: float in cases:
		assert_eq(AgentOccupancy.size_for_radius(GRID, radius), cases[radius], "r = %s" % radius)
	assert_eq(AgentOccupancy.size_for_radius(GRID, 1e9), 255, "capped at the largest size")
	assert_eq(AgentOccupancy.size_for_radius("no_such_grid", 40.0), 1)


func test_a_position_maps_to_the_anchor_whose_footprint_centre_is_nearest() -> void:
	# Cell (x, y)'s point is (8 + 16x, 8 + 16y); a 2 x 2 footprint anchored at (x, y) has its
	# centre half a cell further: (16 + 16x, 16 + 16y).
	assert_eq(AgentOccupancy.anchor_of(GRID, Vector2(40, 40), 1), Vector2i(2, 2))
	assert_eq(AgentOccupancy.anchor_of(GRID, Vector2(48, 48), 2), Vector2i(2, 2))
	assert_eq(AgentOccupancy.anchor_of(GRID, Vector2(44, 52), 2), Vector2i(2, 2))
	assert_eq(AgentOccupancy.anchor_of(GRID, Vector2(56, 40), 3), Vector2i(2, 1))
	# Near the far edge the footprint is kept inside the grid.
	assert_eq(AgentOccupancy.anchor_of(GRID, Vector2(152, 88), 3), Vector2i(7, 3))
	assert_eq(AgentOccupancy.anchor_of(GRID, Vector2(-100, 40), 2), Vector2i(-1, -1))
	assert_eq(AgentOccupancy.anchor_of(GRID, Vector2(40, 40), 7), Vector2i(-1, -1), "7 > height")


func test_on_a_hex_layout_a_footprint_is_centred_on_the_cell_under_the_unit() -> void:
	var hexes: Dictionary = {
		"id": "hex_sizes",
		"width": 8,
		"height": 6,
		"origin": [16.0, 16.0],
		"cell_size": [32.0, 28.0],
		"layout": {"shape": "hexagon", "layout": 0, "offset_axis": 0, "map_origin": [0, 0]},
	}
	AgentOccupancy.register_grid(hexes)
	for cell: Vector2i in [Vector2i(3, 2), Vector2i(4, 3), Vector2i(0, 0)]:
		var at: Vector2 = AgentOccupancy.cell_position("hex_sizes", cell) + Vector2(3, -2)
		for size: int in [1, 2, 3]:
			assert_eq(AgentOccupancy.anchor_of("hex_sizes", at, size), cell, "size %d" % size)
	AgentOccupancy.forget_grid("hex_sizes")


func test_on_a_layout_a_radius_takes_the_rings_that_hold_it() -> void:
	# Expected sizes from the sidecar's rule (python_core TileGrid.size_for_radius) for radii
	# 5, 14, 20, 33, 47.5 and 90 world units.
	var radii: Array[float] = [5.0, 14.0, 20.0, 33.0, 47.5, 90.0]
	var cases: Array = [
		[{"shape": "hexagon", "layout": 0, "offset_axis": 0}, [32.0, 28.0], [1, 2, 2, 3, 3, 5]],
		[{"shape": "isometric", "layout": 0, "offset_axis": 0}, [64.0, 32.0], [1, 1, 3, 3, 4, 7]],
		[
			{"shape": "half_offset_square", "layout": 0, "offset_axis": 1},
			[32.0, 32.0],
			[1, 1, 2, 2, 3, 4]
		],
		[
			{"shape": "hexagon", "layout": 1, "offset_axis": 1, "map_origin": [1, 0]},
			[30.0, 34.0],
			[1, 2, 2, 3, 3, 5]
		],
		[{"shape": "isometric", "layout": 4, "offset_axis": 0}, [64.0, 32.0], [1, 1, 3, 3, 4, 7]],
	]
	for case: Array in cases:
		var params: Dictionary = {
			"id": "layout_radius",
			"width": 4,
			"height": 4,
			"origin": [0.0, 0.0],
			"cell_size": case[1],
			"layout": case[0],
		}
		AgentOccupancy.register_grid(params)
		var want: Array = case[2]
		for i: int in radii.size():
			var got: int = AgentOccupancy.size_for_radius("layout_radius", radii[i])
			assert_eq(got, want[i], "%s radius %s" % [case[0]["shape"], radii[i]])
		AgentOccupancy.forget_grid("layout_radius")


func test_a_body_radius_is_its_shapes_reach_along_x_or_y() -> void:
	var body := CharacterBody2D.new()
	_root.add_child(body)
	body.global_position = Vector2(100, 100)
	assert_eq(BodyExtent.radius_2d(body), 0.0, "no shape")
	var circle := CircleShape2D.new()
	circle.radius = 11.0
	var round_shape: CollisionShape2D = _shape_2d(body, circle)
	assert_almost(BodyExtent.radius_2d(body), 11.0, 1e-4)
	round_shape.disabled = true
	assert_eq(BodyExtent.radius_2d(body), 0.0, "a disabled shape does not count")
	var box := RectangleShape2D.new()
	box.size = Vector2(20, 36)
	var box_shape: CollisionShape2D = _shape_2d(body, box)
	assert_almost(BodyExtent.radius_2d(body), 18.0, 1e-4, "half the larger side")
	box_shape.position = Vector2(4, 0)
	assert_almost(BodyExtent.radius_2d(body), 18.0, 1e-4, "x reaches 14, y still 18")
	box_shape.rotation = PI / 2.0
	assert_almost(BodyExtent.radius_2d(body), 22.0, 1e-3, "turned: 18 along x, plus the offset")
	var capsule := CapsuleShape2D.new()
	capsule.radius = 6.0
	capsule.height = 60.0
	var tall: CollisionShape2D = _shape_2d(body, capsule)
	assert_almost(BodyExtent.radius_2d(body), 30.0, 1e-4, "a capsule: half its height")
	tall.scale = Vector2(2, 2)
	assert_almost(BodyExtent.radius_2d(body), 60.0, 1e-3, "scaled")


func test_a_3d_body_radius_is_horizontal() -> void:
	var body := CharacterBody3D.new()
	_root.add_child(body)
	var holder := CollisionShape3D.new()
	var capsule := CapsuleShape3D.new()
	capsule.radius = 0.8
	capsule.height = 3.0
	holder.shape = capsule
	body.add_child(holder)
	assert_almost(BodyExtent.radius_3d(body), 0.8, 1e-5, "the capsule's radius, not its height")
	var box_holder := CollisionShape3D.new()
	var box := BoxShape3D.new()
	box.size = Vector3(1.0, 9.0, 2.4)
	box_holder.shape = box
	body.add_child(box_holder)
	assert_almost(BodyExtent.radius_3d(body), 1.2, 1e-5, "half the box's larger horizontal side")
	var agent := AStarBridgeAgent3D.new()
	body.add_child(agent)
	assert_almost(agent.get_body_radius(), 1.2, 1e-5)


func test_an_agent_takes_its_size_from_size_then_radius_then_body() -> void:
	var body := CharacterBody2D.new()
	var circle := CircleShape2D.new()
	circle.radius = 13.0  # 26 px across: two 16 px cells
	_shape_2d(body, circle)
	var agent := AStarBridgeAgent2D.new()
	agent.graph_id = GRID
	body.add_child(agent)
	_root.add_child(body)
	assert_eq(agent.get_unit_size(), 2, "from the body")
	assert_eq(_options(agent)["size"], 2)
	agent.path_radius = 20.0
	assert_eq(agent.get_unit_size(), 3, "from path_radius")
	agent.size = 1
	assert_eq(agent.get_unit_size(), 1, "size set wins")
	assert_false(_options(agent).has("size"), "size 1 sends nothing")
	agent.size = 0
	agent.path_radius = 0.0
	agent.path_options = {"size": 4}
	assert_eq(_options(agent)["size"], 4, "path_options take precedence")
	agent.path_options = {}
	circle.radius = 5.0
	assert_eq(agent.get_unit_size(), 1)
	assert_false(_options(agent).has("size"), "a small body: today's query")
	agent.graph_id = "a_navmesh"
	circle.radius = 40.0
	assert_false(_options(agent).has("size"), "off a grid the body is not measured")
	assert_false(_options(agent).has("radius"))
	agent.path_radius = 2.5
	assert_eq(_options(agent)["radius"], 2.5, "on a navmesh: the radius set")


func test_flow_field_size_options_are_checked() -> void:
	assert_eq(FieldCalls._unit_problem({}), "")
	assert_eq(FieldCalls._unit_problem({"size": 3}), "")
	assert_eq(FieldCalls._unit_problem({"radius": 12.0}), "")
	assert_true(FieldCalls._unit_problem({"size": 0}).contains("options.size"))
	assert_true(FieldCalls._unit_problem({"size": 2.0}).contains("options.size"))
	assert_true(FieldCalls._unit_problem({"radius": -1.0}).contains("options.radius"))
	assert_true(FieldCalls._unit_problem({"radius": INF}).contains("options.radius"))
	assert_true(FieldCalls._unit_problem({"size": 2, "radius": 4.0}).contains("not both"))


func test_a_sized_field_speaks_anchors_and_footprint_centres() -> void:
	var grid: Dictionary = {"width": 10, "height": 6, "diagonal": "never"}
	var field := FlowField.new(
		GRID, grid, Vector2i.ZERO, Vector2(8, 8), Vector2(16, 16), {"size": 2}
	)
	assert_eq(field.size, 2)
	assert_eq(field.cell_to_world(Vector2i(2, 2)), Vector2(48, 48), "the footprint's centre")
	assert_eq(field.world_to_cell(Vector2(48, 48)), Vector2i(2, 2), "the anchor")
	var plain := FlowField.new(GRID, grid, Vector2i.ZERO, Vector2(8, 8), Vector2(16, 16), {})
	assert_eq(plain.cell_to_world(Vector2i(2, 2)), Vector2(40, 40))


func test_a_restart_places_agents_again_with_their_sizes() -> void:
	var store := GraphStore.new()
	store.loaded(
		"graph.load_grid", {"id": "g", "width": 8, "height": 8, "cells": PackedByteArray()}
	)
	var placed: Array[Dictionary] = [
		{"op": "place", "agent": 1, "cell": [1, 1], "size": 3},
		{"op": "place", "agent": 2, "cell": [5, 5]},
	]
	store.updated("g", {"id": "g", "agents": placed})
	var moved: Array[Dictionary] = [{"op": "move", "agent": 1, "cell": [2, 1]}]
	store.updated("g", {"id": "g", "agents": moved})
	var steps: Array[Array] = store.replay_steps("g")
	var update: Dictionary = steps[1][1]
	var ops: Array = update["agents"]
	assert_eq(ops[0], {"op": "place", "agent": 1, "cell": [2, 1], "size": 3}, "a move keeps it")
	assert_eq(ops[1], {"op": "place", "agent": 2, "cell": [5, 5]}, "size 1: today's op")


func _options(agent: AStarBridgeAgent2D) -> Dictionary:
	return agent.call("_query_options")


func _shape_2d(body: Node2D, shape: Shape2D) -> CollisionShape2D:
	var holder := CollisionShape2D.new()
	holder.shape = shape
	body.add_child(holder)
	return holder
