## waypoint_serializer.gd: AStar2D / AStar3D -> graph.load_waypoints parameters.
extends "res://runner/gd_test.gd"

const WaypointSerializer = preload("res://addons/astar_bridge/serializers/waypoint_serializer.gd")


func test_astar_2d_ids_positions_and_weights() -> void:
	var astar := AStar2D.new()
	astar.add_point(7, Vector2(1, 2), 3.0)
	astar.add_point(2, Vector2(-4, 0.5))
	var params: Dictionary = WaypointSerializer.from_astar_2d(astar, "w")
	assert_eq(params["id"], "w")
	assert_eq(params["dim"], 2)
	assert_eq(_ints(params["ids"]), PackedInt32Array([2, 7]), "ids sorted")
	assert_eq(_floats(params["positions"]), PackedFloat32Array([-4, 0.5, 1, 2]))
	assert_eq(_floats(params["weights"]), PackedFloat32Array([1, 3]))
	assert_eq(_ints(params["edges"]), PackedInt32Array())


func test_astar_2d_two_way_edges_are_listed_once() -> void:
	var astar := AStar2D.new()
	for i: int in 3:
		astar.add_point(i, Vector2(i, 0))
	astar.connect_points(0, 1)
	astar.connect_points(2, 1)
	var params: Dictionary = WaypointSerializer.from_astar_2d(astar, "w")
	assert_eq(_ints(params["edges"]), PackedInt32Array([0, 1, 1, 2]))
	assert_eq(params["bidirectional"], PackedByteArray([1, 1]))


func test_astar_2d_one_way_edges_keep_their_direction() -> void:
	var astar := AStar2D.new()
	for i: int in 3:
		astar.add_point(i, Vector2(i, 0))
	astar.connect_points(2, 0, false)
	astar.connect_points(0, 1, false)
	astar.connect_points(1, 0, false)
	var params: Dictionary = WaypointSerializer.from_astar_2d(astar, "w")
	# 0->1 and 1->0 make one two-way edge; 2->0 stays one-way from 2.
	assert_eq(_ints(params["edges"]), PackedInt32Array([0, 1, 2, 0]))
	assert_eq(params["bidirectional"], PackedByteArray([1, 0]))


func test_astar_3d_positions_are_triples() -> void:
	var astar := AStar3D.new()
	astar.add_point(1, Vector3(1, 2, 3))
	astar.add_point(5, Vector3(4, 5, 6), 2.0)
	astar.connect_points(5, 1, false)
	var params: Dictionary = WaypointSerializer.from_astar_3d(astar, "w3")
	assert_eq(params["dim"], 3)
	assert_eq(_floats(params["positions"]), PackedFloat32Array([1, 2, 3, 4, 5, 6]))
	assert_eq(_ints(params["edges"]), PackedInt32Array([5, 1]))
	assert_eq(params["bidirectional"], PackedByteArray([0]))


func test_disabled_ids_lists_disabled_points() -> void:
	var astar := AStar2D.new()
	for i: int in 4:
		astar.add_point(i, Vector2(i, 0))
	astar.set_point_disabled(3)
	astar.set_point_disabled(1)
	assert_eq(WaypointSerializer.disabled_ids(astar), PackedInt32Array([1, 3]))
	var params: Dictionary = WaypointSerializer.from_astar_2d(astar, "w")
	assert_eq(params["disabled"], PackedByteArray([0, 1, 0, 1]))
	astar.set_point_disabled(1, false)
	astar.set_point_disabled(3, false)
	assert_false(WaypointSerializer.from_astar_2d(astar, "w").has("disabled"), "none disabled")


func _ints(bytes: Variant) -> PackedInt32Array:
	var raw: PackedByteArray = bytes
	return raw.to_int32_array()


func _floats(bytes: Variant) -> PackedFloat32Array:
	var raw: PackedByteArray = bytes
	return raw.to_float32_array()
