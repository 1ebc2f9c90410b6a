## What a successful [code]graph.update[/code] changed of a graph's ground, for the autoload's
## [code]graph_updated[/code] signal: agents moving are not a ground change, nor obstacles (the
## autoload's [code]obstacles_changed[/code] tells which paths they may cross); cells and weights
## of named cells are, with those cells; anything else (a whole weight array, waypoint points,
## fields this file does not know) may change any part of the graph.
extends RefCounted


## True when the update [param params] changed more than agents and obstacles.
static func changes_ground(params: Dictionary) -> bool:
	for key: Variant in params:
		if not key in ["id", "agents", "obstacles"]:
			return true
	return false


## The cells the update [param params] changed, or an empty array when any part may have
## changed.
static func changed_cells(params: Dictionary) -> Array[Vector2i]:
	var named: Array[Vector2i] = []
	for key: Variant in params:
		match key:
			"id", "agents", "walkable":
				pass
			"cells", "weight_cells":
				named.append_array(_cells_of(params[key]))
			"weights":
				if not params.has("weight_cells"):
					return [] as Array[Vector2i]
			_:
				return [] as Array[Vector2i]
	return named


static func _cells_of(raw: Variant) -> Array[Vector2i]:
	var cells: Array[Vector2i] = []
	if raw is PackedByteArray:
		var bytes: PackedByteArray = raw
		var pairs: PackedInt32Array = bytes.to_int32_array()
		for i: int in range(0, pairs.size() - 1, 2):
			cells.append(Vector2i(pairs[i], pairs[i + 1]))
	return cells
