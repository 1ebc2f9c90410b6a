## The flow field's wire: the transforms of its answers (run on the connection's thread with
## io_thread, so static functions only: no [code]self[/code]) and the reading of load parameters.
## A [code]field.tiles[/code] answer is cut into one [PackedByteArray] (and one
## [PackedFloat32Array] of costs) per tile, a slice per tile: never a loop over cells.
extends RefCounted


## [code][x, y][/code] of numbers as a [Vector2], else [param fallback].
static func vec2(value: Variant, fallback: Vector2) -> Vector2:
	if value is Array:
		var pair: Array = value
		if pair.size() == 2 and is_number(pair[0]) and is_number(pair[1]):
			var x: float = pair[0]
			var y: float = pair[1]
			return Vector2(x, y)
	return fallback


## True for an int or a float.
static func is_number(value: Variant) -> bool:
	return value is int or value is float


## [param value] if it is an int, else 0.
static func int_of(value: Variant) -> int:
	return value if value is int else 0


## The transform that keeps a response as it is.
static func identity() -> Callable:
	return func(response: Dictionary) -> Dictionary: return response


## The transform of a field.tiles answer of tiles of [param cells] cells ([method split]).
static func splitter(cells: int, costs: bool) -> Callable:
	return func(response: Dictionary) -> Dictionary: return split(response, cells, costs)


## The transform of a field.request answer sent with [code]fetch[/code]: its starts' tiles are cut
## as [method split] cuts a field.tiles answer (the tile size comes in the same answer), and kept
## beside the result as [code]"dirs"[/code] / [code]"costs"[/code] (none without a
## [code]"fetched"[/code] list).
static func request_splitter(costs: bool) -> Callable:
	return func(response: Dictionary) -> Dictionary: return split_request(response, costs)


## See [method request_splitter].
static func split_request(response: Dictionary, costs: bool) -> Dictionary:
	if response.get("error") != null or not response.get("result") is Dictionary:
		return response
	var result: Dictionary = response["result"]
	if not result.get("fetched") is Array:
		return response
	var size: int = int_of(result.get("tile_size"))
	var tiles: Dictionary = {
		"result":
		{
			"tiles": result["fetched"],
			"directions": result.get("directions"),
			"costs": result.get("costs")
		}
	}
	var cut: Dictionary = split(tiles, size * size, costs)
	if cut.get("error") != null:
		return cut
	result.erase("directions")
	result.erase("costs")
	return {"error": null, "result": result, "dirs": cut["dirs"], "costs": cut["costs"]}


## The field.tiles answer as [code]{"error": null, "dirs": [PackedByteArray per tile], "costs":
## [PackedFloat32Array per tile]}[/code], or an error map ([code]bad_answer[/code] when the sizes
## are wrong).
static func split(response: Dictionary, cells: int, costs: bool) -> Dictionary:
	if response.get("error") != null:
		return response
	var result: Dictionary = response["result"] if response.get("result") is Dictionary else {}
	var tiles: Array = result.get("tiles", []) if result.get("tiles") is Array else []
	var dirs_value: Variant = result.get("directions")
	var costs_value: Variant = result.get("costs")
	var direction_bytes: PackedByteArray = (
		dirs_value if dirs_value is PackedByteArray else PackedByteArray()
	)
	var cost_bytes: PackedByteArray = (
		costs_value if costs_value is PackedByteArray else PackedByteArray()
	)
	var count: int = tiles.size()
	var bad: bool = direction_bytes.size() != count * cells
	if costs and cost_bytes.size() != count * cells * 4:
		bad = true
	if bad:
		var why: String = "field.tiles answered %d tiles of the wrong size" % count
		return {"error": {"code": "bad_answer", "message": why, "data": {}}}
	var split_dirs: Array[PackedByteArray] = []
	var split_costs: Array[PackedFloat32Array] = []
	for i: int in count:
		split_dirs.append(direction_bytes.slice(i * cells, (i + 1) * cells))
		if costs:
			split_costs.append(
				cost_bytes.slice(i * cells * 4, (i + 1) * cells * 4).to_float32_array()
			)
	return {"error": null, "dirs": split_dirs, "costs": split_costs}
