## Turns an [AStar2D] or [AStar3D] into [code]graph.load_waypoints[/code] parameters.
##
## Pure functions: nothing is sent. Point ids are sorted so equal graphs give equal bytes.
## Each connection becomes one edge; an edge is bidirectional when both directions exist
## ([method AStar2D.are_points_connected] with [code]bidirectional = false[/code] both ways),
## otherwise it is one-way from its first id to its second. Disabled points travel as a uint8
## flag per point in [code]disabled[/code] (left out when none is disabled).
## [codeblock]
## const WaypointSerializer = preload(
##     "res://addons/astar_bridge/serializers/waypoint_serializer.gd")
## var params := WaypointSerializer.from_astar_2d(astar, "roads")
## AStarBridge.load_graph(WaypointSerializer.METHOD, params)
## [/codeblock]
extends RefCounted

## The protocol method these parameters are for.
const METHOD := "graph.load_waypoints"


## Waypoint parameters ([code]dim = 2[/code]) for every point and connection of [param astar].
static func from_astar_2d(astar: AStar2D, id: String) -> Dictionary:
	var ids: PackedInt64Array = astar.get_point_ids()
	ids.sort()
	var positions := PackedVector2Array()
	var weights := PackedFloat32Array()
	var edges := PackedInt32Array()
	var both := PackedByteArray()
	for point: int in ids:
		positions.append(astar.get_point_position(point))
		weights.append(astar.get_point_weight_scale(point))
		var neighbours: PackedInt64Array = astar.get_point_connections(point)
		neighbours.sort()
		for other: int in neighbours:
			var back: bool = astar.are_points_connected(other, point, false)
			if back and other < point:
				continue  # Listed once, from the smaller id.
			edges.append_array([point, other])
			both.append(1 if back else 0)
	return _params(
		id, 2, ids, positions.to_byte_array(), weights, edges, both, _disabled(astar, ids)
	)


## Waypoint parameters ([code]dim = 3[/code]) for every point and connection of [param astar].
static func from_astar_3d(astar: AStar3D, id: String) -> Dictionary:
	var ids: PackedInt64Array = astar.get_point_ids()
	ids.sort()
	var positions := PackedVector3Array()
	var weights := PackedFloat32Array()
	var edges := PackedInt32Array()
	var both := PackedByteArray()
	for point: int in ids:
		positions.append(astar.get_point_position(point))
		weights.append(astar.get_point_weight_scale(point))
		var neighbours: PackedInt64Array = astar.get_point_connections(point)
		neighbours.sort()
		for other: int in neighbours:
			var back: bool = astar.are_points_connected(other, point, false)
			if back and other < point:
				continue  # Listed once, from the smaller id.
			edges.append_array([point, other])
			both.append(1 if back else 0)
	return _params(
		id, 3, ids, positions.to_byte_array(), weights, edges, both, _disabled(astar, ids)
	)


## The ids of the disabled points of [param astar] ([AStar2D] or [AStar3D]), sorted.
static func disabled_ids(astar: Object) -> PackedInt32Array:
	var found := PackedInt32Array()
	if not (astar is AStar2D or astar is AStar3D):
		push_error("disabled_ids: expected an AStar2D or AStar3D")
		return found
	var ids: PackedInt64Array = astar.call("get_point_ids")
	ids.sort()
	for point: int in ids:
		if astar.call("is_point_disabled", point):
			found.append(point)
	return found


static func _params(
	id: String,
	dim: int,
	ids: PackedInt64Array,
	positions: PackedByteArray,
	weights: PackedFloat32Array,
	edges: PackedInt32Array,
	both: PackedByteArray,
	disabled: PackedByteArray
) -> Dictionary:
	var narrow := PackedInt32Array()
	for point: int in ids:
		narrow.append(point)
	var params: Dictionary = {
		"id": id,
		"dim": dim,
		"ids": narrow.to_byte_array(),
		"positions": positions,
		"weights": weights.to_byte_array(),
		"edges": edges.to_byte_array(),
		"bidirectional": both,
	}
	if disabled.has(1):
		params["disabled"] = disabled
	return params


static func _disabled(astar: Object, ids: PackedInt64Array) -> PackedByteArray:
	var flags := PackedByteArray()
	for point: int in ids:
		flags.append(1 if astar.call("is_point_disabled", point) else 0)
	return flags
