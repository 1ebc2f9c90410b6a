## Path results of the autoload: the wire form of a query's endpoints, and path.find /
## path.find_many / path.find_packed responses turned into the API's result maps
## ([code]{"status", "points", "ids", "cost", "expanded", "error"}[/code]), points and ids
## straight from the response's [code]bin[/code] fields into packed arrays (one copy, no loop
## per point).
extends RefCounted

const BridgeResult = preload("res://addons/astar_bridge/api/bridge_result.gd")
## The status names of path.find_packed's status bytes 0-3 (255: an error, in "errors").
const PACKED_STATUS: PackedStringArray = ["found", "partial", "no_path", "budget_exhausted"]


## The wire form of an endpoint: a vector as an array of its coordinates, anything else as is.
static func endpoint(value: Variant) -> Variant:
	match typeof(value):
		TYPE_VECTOR2:
			var v2: Vector2 = value
			return [v2.x, v2.y]
		TYPE_VECTOR2I:
			var v2i: Vector2i = value
			return [v2i.x, v2i.y]
		TYPE_VECTOR3:
			var v3: Vector3 = value
			return [v3.x, v3.y, v3.z]
		TYPE_VECTOR3I:
			var v3i: Vector3i = value
			return [v3i.x, v3i.y, v3i.z]
	return value


## An empty PackedVector3Array when [param dim] is 3, else an empty PackedVector2Array.
static func empty_points(dim: int) -> Variant:
	if dim == 3:
		return PackedVector3Array()
	return PackedVector2Array()


## The result map of a failed query.
static func error_result(code: String, message: String, dim: int) -> Dictionary:
	return {
		"status": "error",
		"points": empty_points(dim),
		"ids": PackedInt64Array(),
		"cost": 0.0,
		"expanded": 0,
		"error": {"code": code, "message": message, "data": {}},
	}


## A path.find response map ([code]{"error", "result"}[/code]) -> the result map of the API.
static func path_result(response: Dictionary, dim: int) -> Dictionary:
	var value: Variant = response.get("result")
	if response.get("error") == null and value is Dictionary:
		var wire: Dictionary = value
		return decode_path(wire, dim)  # the usual case, without a BridgeResult in between
	var result: BridgeResult = BridgeResult.from_response(response)
	if result.is_error():
		return error_result(result.code, result.message, dim)
	if not result.value is Dictionary:
		return error_result("bad_response", "path.find answered %s" % str(result.value), dim)
	var map: Dictionary = result.value
	return decode_path(map, dim)


## One path.find result on the wire -> the result map of the API.
static func decode_path(wire: Dictionary, dim: int) -> Dictionary:
	var status: String = str(wire.get("status", "error"))
	if status == "error":
		var error: Variant = wire.get("error", {})
		var map: Dictionary = error if error is Dictionary else {"message": str(error)}
		return error_result(str(map.get("code", "error")), str(map.get("message", "")), dim)
	var points_bytes: Variant = wire.get("points", PackedByteArray())
	var node_bytes: Variant = wire.get("nodes", PackedByteArray())
	var points: Variant = empty_points(dim)
	if points_bytes is PackedByteArray:
		var raw: PackedByteArray = points_bytes
		if dim == 3:
			points = raw.to_vector3_array()
		else:
			points = raw.to_vector2_array()
	var ids: PackedInt64Array = PackedInt64Array()
	if node_bytes is PackedByteArray:
		var raw_ids: PackedByteArray = node_bytes
		ids = raw_ids.to_int64_array()
	return path_map(
		status, points, ids, _float_of(wire.get("cost", 0.0)), int_of(wire.get("expanded", 0), 0)
	)


## The result map of a query that ended without an error.
static func path_map(
	status: String, points: Variant, ids: PackedInt64Array, cost: float, expanded: int
) -> Dictionary:
	return {
		"status": status,
		"points": points,
		"ids": ids,
		"cost": cost,
		"expanded": expanded,
		"error": {},
	}


## A path.find_many response map -> [code]{"status", "results", "error"}[/code].
static func batch_result(response: Dictionary, dims: PackedInt32Array) -> Dictionary:
	var result: BridgeResult = BridgeResult.from_response(response)
	var results: Array = []
	var value: Variant = result.value
	var items: Variant = null
	if value is Dictionary:
		var map: Dictionary = value
		items = map.get("results")
	if result.is_error() or not items is Array:
		var code: String = result.code if result.is_error() else "bad_response"
		for dim: int in dims:
			results.append(error_result(code, result.message, dim))
		return {"status": "error", "results": results, "error": result.error_map()}
	var wire: Array = items
	for i: int in wire.size():
		var dim: int = dims[i] if i < dims.size() else 2
		var item: Variant = wire[i]
		var map: Dictionary = item if item is Dictionary else {"status": "error"}
		results.append(decode_path(map, dim))
	return {"status": "done", "results": results, "error": {}}


## A path.find_packed response map -> [code]{"status", "results", "error"}[/code] of its
## [param count] queries: each path's points and ids are slices of the answer's arrays.
static func packed_result(response: Dictionary, count: int) -> Dictionary:
	var result: BridgeResult = BridgeResult.from_response(response)
	var value: Variant = result.value
	var map: Dictionary = value if value is Dictionary else {}
	var status: PackedByteArray = _bytes_of(map, "status")
	var offsets: PackedInt64Array = _bytes_of(map, "offsets").to_int64_array()
	var costs: PackedFloat64Array = _bytes_of(map, "costs").to_float64_array()
	var expanded: PackedInt64Array = _bytes_of(map, "expanded").to_int64_array()
	var points: PackedByteArray = _bytes_of(map, "points")
	var ids: PackedByteArray = _bytes_of(map, "nodes")
	# A navmesh answer indexes its polygons apart from its waypoints (node_offsets).
	var node_offsets: PackedInt64Array = (
		_bytes_of(map, "node_offsets").to_int64_array() if map.has("node_offsets") else offsets
	)
	var results: Array = []
	var whole: bool = (
		status.size() == count
		and offsets.size() == count + 1
		and node_offsets.size() == count + 1
		and costs.size() == count
		and expanded.size() == count
		and points.size() == offsets[count] * 8
		and ids.size() == node_offsets[count] * 8
	)
	if result.is_error() or not whole:
		var code: String = result.code if result.is_error() else "bad_response"
		var why: String = (
			result.message if result.is_error() else "path.find_packed: arrays of wrong sizes"
		)
		for i: int in count:
			results.append(error_result(code, why, 2))
		return {"status": "error", "results": results, "error": result.error_map()}
	var errors: Dictionary = {}
	var listed: Variant = map.get("errors", [])
	if listed is Array:
		var entries: Array = listed
		for item: Variant in entries:
			var pair: Array = item if item is Array else []
			if pair.size() == 2 and pair[1] is Dictionary:
				errors[int_of(pair[0], -1)] = pair[1]
	for i: int in count:
		var code: int = status[i]
		if code >= PACKED_STATUS.size():
			var error: Dictionary = errors.get(i, {})
			results.append(
				error_result(str(error.get("code", "error")), str(error.get("message", "")), 2)
			)
			continue
		var lo: int = offsets[i] * 8
		var hi: int = offsets[i + 1] * 8
		results.append(
			path_map(
				PACKED_STATUS[code],
				points.slice(lo, hi).to_vector2_array(),
				ids.slice(node_offsets[i] * 8, node_offsets[i + 1] * 8).to_int64_array(),
				costs[i],
				expanded[i]
			)
		)
	return {"status": "done", "results": results, "error": {}}


static func _bytes_of(map: Dictionary, key: String) -> PackedByteArray:
	var value: Variant = map.get(key)
	return value if value is PackedByteArray else PackedByteArray()


## [param value] as an int when it is a number (msgpack gives ints or floats), else [param default].
static func int_of(value: Variant, default: int) -> int:
	if value is int:
		var whole: int = value
		return whole
	if value is float:
		var real: float = value
		return int(real)
	return default


static func _float_of(value: Variant) -> float:
	if value is float or value is int:
		var real: float = value
		return real
	return 0.0
