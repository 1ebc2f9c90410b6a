## graph_updates.gd: incremental changes -> graph.update parameters.
extends "res://runner/gd_test.gd"

const GraphUpdates = preload("res://addons/astar_bridge/serializers/graph_updates.gd")


func test_cells_walkable_sends_int32_pairs_and_one_flag() -> void:
	var params: Dictionary = GraphUpdates.cells_walkable(
		"g", [Vector2i(1, 2), Vector2i(3, 4)], false
	)
	assert_eq(params["id"], "g")
	var cells: PackedByteArray = params["cells"]
	assert_eq(cells.to_int32_array(), PackedInt32Array([1, 2, 3, 4]))
	assert_eq(params["walkable"], false)


func test_cells_weighted_sends_int32_pairs_and_a_float32_weight_each() -> void:
	var params: Dictionary = GraphUpdates.cells_weighted("g", [Vector2i(1, 2), Vector2i(3, 4)], 2.5)
	assert_eq(params["id"], "g")
	var cells: PackedByteArray = params["weight_cells"]
	assert_eq(cells.to_int32_array(), PackedInt32Array([1, 2, 3, 4]))
	var weights: PackedByteArray = params["weights"]
	assert_eq(weights.to_float32_array(), PackedFloat32Array([2.5, 2.5]))


func test_cells_changed_sorts_cells_and_sends_a_flag_each() -> void:
	var params: Dictionary = GraphUpdates.cells_changed(
		"g", {Vector2i(5, 0): true, Vector2i(0, 1): false, Vector2i(2, 0): true}
	)
	var cells: PackedByteArray = params["cells"]
	assert_eq(cells.to_int32_array(), PackedInt32Array([0, 1, 2, 0, 5, 0]))
	assert_eq(params["walkable"], PackedByteArray([0, 1, 1]))


func test_agent_ops_place_move_remove() -> void:
	var ops: Array[Dictionary] = [
		GraphUpdates.agent_op("place", 3, Vector2i(1, 1)),
		GraphUpdates.agent_op("remove", 4),
	]
	var params: Dictionary = GraphUpdates.agents_changed("g", ops)
	assert_eq(
		params["agents"],
		[{"op": "place", "agent": 3, "cell": [1, 1]}, {"op": "remove", "agent": 4}]
	)


func test_agents_moved_orders_by_agent_id() -> void:
	var params: Dictionary = GraphUpdates.agents_moved("g", {9: Vector2i(0, 0), 2: Vector2i(4, 5)})
	assert_eq(
		params["agents"],
		[{"op": "move", "agent": 2, "cell": [4, 5]}, {"op": "move", "agent": 9, "cell": [0, 0]}]
	)


func test_points_disabled_sends_int64_ids() -> void:
	var params: Dictionary = GraphUpdates.points_disabled("w", PackedInt64Array([7, 1]))
	var points: PackedByteArray = params["points"]
	assert_eq(points.to_int64_array(), PackedInt64Array([7, 1]))
	assert_eq(params["disabled"], true)


func test_weights_changed_sends_float32_bytes() -> void:
	var params: Dictionary = GraphUpdates.weights_changed("g", PackedFloat32Array([1, 2.5]))
	var weights: PackedByteArray = params["weights"]
	assert_eq(weights.to_float32_array(), PackedFloat32Array([1, 2.5]))
