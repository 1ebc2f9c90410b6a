## What the autoload keeps of each graph it loaded, to upload it again after a restart: the load
## parameters and the graph's current state, kept up to date, never a log of every change.
##
## Successful [code]graph.update[/code]s are folded in as they happen: grid cells into their last
## walkable value, weights into the last full array plus the last value of each cell changed
## since, agents into their last cell (removed ones are forgotten), waypoint points into their
## last disabled flag, obstacles into their last shape (removed or cleared ones are forgotten).
## The size of what is kept is bounded by the graph (cells, agents, points, obstacles), whatever
## the number of updates; [method replay_steps] gives it back as the load call and at
## most one [code]graph.update[/code]. Fields it does not know are kept as they came.
## [codeblock]
## const GraphStore = preload("res://addons/astar_bridge/runtime/graph_store.gd")
## var store := GraphStore.new()
## store.loaded("graph.load_grid", {"id": "level", "width": 8, "height": 8, "cells": cells})
## store.updated("level", {"id": "level", "cells": PackedInt32Array([1, 2]).to_byte_array(),
##     "walkable": false})
## for step in store.replay_steps("level"):
##     print(step[0])  # graph.load_grid, then graph.update
## [/codeblock]
extends RefCounted

const FOLDED_KEYS: Array[String] = [
	"id", "cells", "walkable", "weights", "weight_cells", "agents", "points", "disabled"
]
# Folded too, but kept apart: a graph.update's obstacle operations (see _fold_obstacles).
const OBSTACLES := "obstacles"

## Counts loads and erasures: what a caller worked out from a graph's method and params holds
## while this is unchanged (the path calls' per-graph look-up of how requests go).
var revision: int = 0

# id -> {"method", "params", "cells": {index: bool}, "weights": PackedByteArray or null,
#        "cell_weights": {index: float}, "agents": {agent: [x, y(, size)]}, "points": {id: bool},
#        "obstacles": {id: "set" op}, "other": Array[Dictionary]}
var _graphs: Dictionary = {}


## Remembers graph [code]params["id"][/code], loaded by [param method] with [param params]
## (replacing what was kept of a graph of that id).
func loaded(method: String, params: Dictionary) -> void:
	var id: String = str(params.get("id", ""))
	revision += 1
	_graphs[id] = {
		"method": method,
		"params": params.duplicate(),
		"cells": {},
		"weights": null,
		"cell_weights": {},
		"agents": {},
		"points": {},
		"obstacles": {},
		"other": [],
	}


## Folds the successful update [param params] into graph [param id]'s state; false (and
## nothing kept) when no graph of that id is known.
func updated(id: String, params: Dictionary) -> bool:
	if not _graphs.has(id):
		return false
	var state: Dictionary = _graphs[id]
	var width: int = _width(state)
	var cells: Variant = params.get("cells")
	if cells is PackedByteArray and width > 0:
		var cell_bytes: PackedByteArray = cells
		var kept_cells: Dictionary = state["cells"]
		_fold_cells(kept_cells, cell_bytes, params.get("walkable", true), width)
	var weights: Variant = params.get("weights")
	if weights is PackedByteArray:
		var weight_bytes: PackedByteArray = weights
		_fold_weights(state, weight_bytes, params.get("weight_cells"), width)
	var agents: Variant = params.get("agents")
	if agents is Array:
		var ops: Array = agents
		var kept_agents: Dictionary = state["agents"]
		_fold_agents(kept_agents, ops)
	var points: Variant = params.get("points")
	if points is PackedByteArray:
		var point_bytes: PackedByteArray = points
		var kept_points: Dictionary = state["points"]
		_fold_points(kept_points, point_bytes, params.get("disabled", true))
	var obstacles: Variant = params.get("obstacles")
	if obstacles is Array:
		var obstacle_ops: Array = obstacles
		var kept_obstacles: Dictionary = state["obstacles"]
		_fold_obstacles(kept_obstacles, obstacle_ops)
	var other: Dictionary = {}
	for key: Variant in params:
		if not str(key) in FOLDED_KEYS and str(key) != OBSTACLES:
			other[key] = params[key]
	if not other.is_empty():
		other["id"] = id
		var kept: Array = state["other"]
		kept.append(other)
	return true


## Forgets graph [param id].
func erase(id: String) -> void:
	revision += 1
	_graphs.erase(id)


## True when graph [param id] is kept.
func has(id: String) -> bool:
	return _graphs.has(id)


## The ids of the graphs kept.
func ids() -> PackedStringArray:
	return PackedStringArray(_graphs.keys())


## The load method of graph [param id] ("" when unknown).
func method_of(id: String) -> String:
	return str(_graphs[id]["method"]) if _graphs.has(id) else ""


## The load parameters of graph [param id] (empty when unknown).
func params_of(id: String) -> Dictionary:
	if not _graphs.has(id):
		return {}
	var params: Dictionary = _graphs[id]["params"]
	return params


## The calls that rebuild graph [param id]'s current state on a fresh sidecar, in order:
## [code][[load method, params], ["graph.update", merged update]][/code] (the update only when
## something changed since the load, then any unfolded updates as they came).
func replay_steps(id: String) -> Array[Array]:
	var steps: Array[Array] = []
	if not _graphs.has(id):
		return steps
	var state: Dictionary = _graphs[id]
	steps.append([state["method"], state["params"]])
	var merged: Dictionary = _merged_update(id, state)
	if merged.size() > 1:
		steps.append(["graph.update", merged])
	for extra: Dictionary in state["other"]:
		steps.append(["graph.update", extra])
	return steps


## How many entries graph [param id]'s kept state holds (changed cells, weighted cells, agents,
## points, unfolded updates): bounded by the graph's size, not by the number of updates.
func state_size(id: String) -> int:
	if not _graphs.has(id):
		return 0
	var state: Dictionary = _graphs[id]
	var total: int = 0
	for key: String in ["cells", "cell_weights", "agents", "points", "obstacles"]:
		var kept: Dictionary = state[key]
		total += kept.size()
	var other: Array = state["other"]
	return total + other.size()


func _merged_update(id: String, state: Dictionary) -> Dictionary:
	var merged: Dictionary = {"id": id}
	var width: int = _width(state)
	var cells: Dictionary = state["cells"]
	if not cells.is_empty():
		merged["cells"] = _cell_bytes(cells.keys(), width)
		var flags: PackedByteArray = PackedByteArray()
		for index: int in cells:
			flags.append(1 if cells[index] else 0)
		merged["walkable"] = flags
	var cell_weights: Dictionary = state["cell_weights"]
	if state["weights"] is PackedByteArray:
		var last_full: PackedByteArray = state["weights"]
		var full: PackedByteArray = last_full.duplicate()
		for index: int in cell_weights:
			var weight: float = cell_weights[index]
			full.encode_float(index * 4, weight)
		merged["weights"] = full
	elif not cell_weights.is_empty():
		merged["weight_cells"] = _cell_bytes(cell_weights.keys(), width)
		merged["weights"] = PackedFloat32Array(cell_weights.values()).to_byte_array()
	var agents: Dictionary = state["agents"]
	if not agents.is_empty():
		var ops: Array = []
		for agent: int in agents:
			var kept: Array = agents[agent]
			var op: Dictionary = {"op": "place", "agent": agent, "cell": kept.slice(0, 2)}
			if kept.size() > 2:
				op["size"] = kept[2]
			ops.append(op)
		merged["agents"] = ops
	var points: Dictionary = state["points"]
	if not points.is_empty():
		merged["points"] = PackedInt64Array(points.keys()).to_byte_array()
		var disabled: PackedByteArray = PackedByteArray()
		for point: int in points:
			disabled.append(1 if points[point] else 0)
		merged["disabled"] = disabled
	var obstacles: Dictionary = state["obstacles"]
	if not obstacles.is_empty():
		merged["obstacles"] = obstacles.values()
	return merged


static func _width(state: Dictionary) -> int:
	var params: Dictionary = state["params"]
	var width: Variant = params.get("width", 0)
	return width if width is int else 0


static func _fold_cells(
	kept: Dictionary, cells: PackedByteArray, walkable: Variant, width: int
) -> void:
	var pairs: PackedInt32Array = cells.to_int32_array()
	var flags: PackedByteArray = walkable if walkable is PackedByteArray else PackedByteArray()
	var all_walkable: bool = walkable if walkable is bool else true
	for i: int in pairs.size() >> 1:
		var index: int = pairs[2 * i + 1] * width + pairs[2 * i]
		kept[index] = flags[i] != 0 if i < flags.size() else all_walkable


static func _fold_weights(
	state: Dictionary, weights: PackedByteArray, weight_cells: Variant, width: int
) -> void:
	var kept: Dictionary = state["cell_weights"]
	if not weight_cells is PackedByteArray:
		state["weights"] = weights  # a full array: replaces every earlier weight
		kept.clear()
		return
	var cells: PackedByteArray = weight_cells
	var pairs: PackedInt32Array = cells.to_int32_array()
	var values: PackedFloat32Array = weights.to_float32_array()
	for i: int in mini(pairs.size() >> 1, values.size()):
		kept[pairs[2 * i + 1] * width + pairs[2 * i]] = values[i]


static func _fold_agents(kept: Dictionary, ops: Array) -> void:
	for item: Variant in ops:
		if not item is Dictionary:
			continue
		var op: Dictionary = item
		var agent: Variant = op.get("agent")
		if not agent is int:
			continue
		if str(op.get("op", "")) == "remove":
			kept.erase(agent)
		elif op.get("cell") is Array:
			# [x, y], or [x, y, size] for a unit of several cells: a move keeps the size.
			var given: Array = op["cell"]
			var cell: Array = given.duplicate()
			var old: Array = kept.get(agent, [])
			var size: Variant = op.get("size", old[2] if old.size() > 2 else 1)
			if op.get("op") == "place":
				size = op.get("size", 1)
			if size is int and size != 1:
				cell.append(size)
			kept[agent] = cell


static func _fold_points(kept: Dictionary, points: PackedByteArray, disabled: Variant) -> void:
	var point_ids: PackedInt64Array = points.to_int64_array()
	var flags: PackedByteArray = disabled if disabled is PackedByteArray else PackedByteArray()
	var all_disabled: bool = disabled if disabled is bool else true
	for i: int in point_ids.size():
		kept[point_ids[i]] = flags[i] != 0 if i < flags.size() else all_disabled


# Operations apply in order: "clear" forgets all, "remove" one, "set" keeps the op (a move
# replaces it).
static func _fold_obstacles(kept: Dictionary, ops: Array) -> void:
	for item: Variant in ops:
		if not item is Dictionary:
			continue
		var op: Dictionary = item
		match str(op.get("op", "")):
			"clear":
				kept.clear()
			"remove":
				kept.erase(op.get("id"))
			"set":
				kept[op.get("id")] = op


static func _cell_bytes(indices: Array, width: int) -> PackedByteArray:
	var flat: PackedInt32Array = PackedInt32Array()
	flat.resize(indices.size() * 2)
	for i: int in indices.size():
		var index: int = indices[i]
		flat[2 * i] = index % width
		flat[2 * i + 1] = floori(float(index) / width)
	return flat.to_byte_array()
