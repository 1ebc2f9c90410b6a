## What the debug drawing draws of a graph, read from its wire load parameters
## ([code]AStarBridge.get_graph_load(id)[/code], shaped by addons/astar_bridge/serializers/):
## [code]{"kind", "dim", ...}[/code] with, for a grid, [code]width, height, origin, cell_size,
## layout, cells, weights[/code]; for waypoints, [code]points[/code] (id -> position),
## [code]edges[/code] (pairs of positions) and [code]disabled[/code] (ids); for a navmesh,
## [code]vertices[/code] and [code]polygons[/code] (index lists). Pure functions.
extends RefCounted

const KIND_GRID := "grid"
const KIND_WAYPOINTS := "waypoints"
const KIND_NAVMESH := "navmesh"


## The shapes of a graph loaded by [param method] with [param params], or {} (with an error)
## when the parameters do not describe a graph of a known kind.
static func from_load(method: String, params: Dictionary) -> Dictionary:
	match method:
		"graph.load_grid":
			return _grid(params)
		"graph.load_waypoints":
			return _waypoints(params)
		"graph.load_navmesh":
			return _navmesh(params)
	push_error("A* Bridge debug: cannot draw a graph loaded by %s" % method)
	return {}


## A one-line description of a graph loaded by [param method] with [param params] for the
## debugger ("grid 64 x 48", "waypoints 2D: 12 points, 15 edges", ...): read from the sizes of
## the wire arrays, without decoding them, so it is cheap a few times a second.
static func summary(method: String, params: Dictionary) -> String:
	var dim: int = _int(params.get("dim", 2))
	match method:
		"graph.load_grid":
			var text: String = (
				"grid %d x %d" % [_int(params.get("width")), _int(params.get("height"))]
			)
			var layout: Dictionary = params["layout"] if params.get("layout") is Dictionary else {}
			if layout.has("shape"):
				text += ", %s" % layout["shape"]
			if params.has("hierarchy"):
				text += ", HPA*"
			return text
		"graph.load_waypoints":
			var points: int = _bytes(params.get("ids")).size() >> 2
			var edges: int = _bytes(params.get("edges")).size() >> 3
			return "waypoints %dD: %d points, %d edges" % [dim, points, edges]
		"graph.load_navmesh":
			var polygons: int = _bytes(params.get("sizes")).size() >> 2
			return "navmesh %dD: %d polygons" % [dim, polygons]
	return method


## Folds the wire [code]graph.update[/code] parameters [param update] into [param shapes]
## (cells + walkable, weights with or without weight_cells, points + disabled; agents are not
## drawn). Returns the grid cells changed, or [code][Vector2i(-1, -1)][/code] when anything
## may have changed (redraw all).
static func apply_update(shapes: Dictionary, update: Dictionary) -> Array[Vector2i]:
	var everything: Array[Vector2i] = [Vector2i(-1, -1)]
	var changed: Array[Vector2i] = []
	match str(shapes.get("kind", "")):
		KIND_GRID:
			changed.append_array(_update_cells(shapes, update))
			if update.has("weights"):
				if not update.has("weight_cells"):
					return everything if _replace_weights(shapes, update) else changed
				changed.append_array(_update_weights(shapes, update))
		KIND_WAYPOINTS:
			if update.has("points"):
				_update_points(shapes, update)
				return everything
	return changed


static func _update_cells(shapes: Dictionary, update: Dictionary) -> Array[Vector2i]:
	var changed: Array[Vector2i] = []
	var pairs: PackedInt32Array = _bytes(update.get("cells")).to_int32_array()
	var walkable: Variant = update.get("walkable", true)
	var flags: PackedByteArray = _bytes(walkable)
	var all_walkable: bool = walkable if walkable is bool else true
	var cells: PackedByteArray = shapes["cells"]
	var width: int = shapes["width"]
	var height: int = shapes["height"]
	for i: int in pairs.size() >> 1:
		var cell := Vector2i(pairs[2 * i], pairs[2 * i + 1])
		if cell.x < 0 or cell.y < 0 or cell.x >= width or cell.y >= height:
			continue
		var open: bool = flags[i] != 0 if i < flags.size() else all_walkable
		cells[cell.y * width + cell.x] = 1 if open else 0
		changed.append(cell)
	shapes["cells"] = cells
	return changed


static func _replace_weights(shapes: Dictionary, update: Dictionary) -> bool:
	var weights: PackedFloat32Array = _bytes(update.get("weights")).to_float32_array()
	var cells: PackedByteArray = shapes["cells"]
	if weights.size() != cells.size():
		return false
	shapes["weights"] = weights
	return true


static func _update_weights(shapes: Dictionary, update: Dictionary) -> Array[Vector2i]:
	var changed: Array[Vector2i] = []
	var pairs: PackedInt32Array = _bytes(update.get("weight_cells")).to_int32_array()
	var values: PackedFloat32Array = _bytes(update.get("weights")).to_float32_array()
	var width: int = shapes["width"]
	var height: int = shapes["height"]
	var weights: PackedFloat32Array = shapes["weights"]
	if weights.is_empty():
		weights.resize(width * height)
		weights.fill(1.0)
	for i: int in mini(pairs.size() >> 1, values.size()):
		var cell := Vector2i(pairs[2 * i], pairs[2 * i + 1])
		if cell.x >= 0 and cell.y >= 0 and cell.x < width and cell.y < height:
			weights[cell.y * width + cell.x] = values[i]
			changed.append(cell)
	shapes["weights"] = weights
	return changed


static func _update_points(shapes: Dictionary, update: Dictionary) -> void:
	var ids: PackedInt64Array = _bytes(update.get("points")).to_int64_array()
	var raw: Variant = update.get("disabled", true)
	var flags: PackedByteArray = _bytes(raw)
	var all_disabled: bool = raw if raw is bool else true
	var disabled: Dictionary = shapes["disabled"]
	for i: int in ids.size():
		if flags[i] != 0 if i < flags.size() else all_disabled:
			disabled[ids[i]] = true
		else:
			disabled.erase(ids[i])


static func _grid(params: Dictionary) -> Dictionary:
	var width: int = _int(params.get("width"))
	var height: int = _int(params.get("height"))
	var cells: PackedByteArray = _bytes(params.get("cells"))
	if width <= 0 or height <= 0 or cells.size() != width * height:
		push_error("A* Bridge debug: a grid's cells do not match its size")
		return {}
	var weights: PackedFloat32Array = _bytes(params.get("weights")).to_float32_array()
	return {
		"kind": KIND_GRID,
		"dim": 2,
		"width": width,
		"height": height,
		"origin": _vec2(params.get("origin"), Vector2.ZERO),
		"cell_size": _vec2(params.get("cell_size"), Vector2.ONE),
		# A hexagonal, isometric or half-offset grid's layout ({}: square cells).
		"layout": params.get("layout", {}) if params.get("layout") is Dictionary else {},
		# Copies: the debug drawing folds updates into them.
		"cells": cells.duplicate(),
		"weights": weights if weights.size() == cells.size() else PackedFloat32Array(),
	}


static func _waypoints(params: Dictionary) -> Dictionary:
	var dim: int = _int(params.get("dim", 2))
	if dim != 2 and dim != 3:
		push_error("A* Bridge debug: dim %d is neither 2 nor 3" % dim)
		return {}
	var ids: PackedInt32Array = _bytes(params.get("ids")).to_int32_array()
	var coords: PackedFloat32Array = _bytes(params.get("positions")).to_float32_array()
	var points: Dictionary = {}
	if coords.size() != ids.size() * dim:
		push_error("A* Bridge debug: waypoint positions do not match the ids")
		return {}
	for i: int in ids.size():
		points[ids[i]] = _point(coords, i, dim)
	var pairs: PackedInt32Array = _bytes(params.get("edges")).to_int32_array()
	var edges: Array[PackedInt64Array] = []
	for i: int in range(0, pairs.size() - 1, 2):
		if points.has(pairs[i]) and points.has(pairs[i + 1]):
			edges.append(PackedInt64Array([pairs[i], pairs[i + 1]]))
	var disabled: Dictionary = {}
	var flags: PackedByteArray = _bytes(params.get("disabled"))
	for i: int in mini(flags.size(), ids.size()):
		if flags[i] != 0:
			disabled[ids[i]] = true
	return {
		"kind": KIND_WAYPOINTS, "dim": dim, "points": points, "edges": edges, "disabled": disabled
	}


static func _navmesh(params: Dictionary) -> Dictionary:
	var dim: int = _int(params.get("dim", 2))
	if dim != 2 and dim != 3:
		push_error("A* Bridge debug: dim %d is neither 2 nor 3" % dim)
		return {}
	var coords: PackedFloat32Array = _bytes(params.get("vertices")).to_float32_array()
	var indices: PackedInt32Array = _bytes(params.get("indices")).to_int32_array()
	var sizes: PackedInt32Array = _bytes(params.get("sizes")).to_int32_array()
	var vertices: Array = []
	for i: int in floori(coords.size() / float(dim)):
		vertices.append(_point(coords, i, dim))
	var polygons: Array[PackedInt32Array] = []
	var start: int = 0
	for size: int in sizes:
		var polygon: PackedInt32Array = indices.slice(start, start + size)
		start += size
		if polygon.size() >= 3 and polygon.size() == size:
			polygons.append(polygon)
	return {"kind": KIND_NAVMESH, "dim": dim, "vertices": vertices, "polygons": polygons}


# Point i of flat float coordinates: a Vector2 (dim 2) or a Vector3 (dim 3).
static func _point(coords: PackedFloat32Array, i: int, dim: int) -> Variant:
	if dim == 3:
		return Vector3(coords[i * 3], coords[i * 3 + 1], coords[i * 3 + 2])
	return Vector2(coords[i * 2], coords[i * 2 + 1])


static func _bytes(value: Variant) -> PackedByteArray:
	return value if value is PackedByteArray else PackedByteArray()


static func _int(value: Variant) -> int:
	return value if value is int else 0


static func _vec2(value: Variant, fallback: Vector2) -> Vector2:
	if value is Vector2:
		return value
	if value is Array:
		var pair: Array = value
		if pair.size() >= 2 and (pair[0] is float or pair[0] is int):
			var x: float = pair[0]
			var y: float = pair[1]
			return Vector2(x, y)
	return fallback
