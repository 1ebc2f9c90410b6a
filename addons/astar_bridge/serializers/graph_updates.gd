## Builds [code]graph.update[/code] parameters for incremental changes: cells made walkable or
## solid, agents placed / moved / removed on a grid, waypoints disabled or enabled.
##
## Pure functions: nothing is sent. Pass the result to
## [code]AStarBridge.update_graph(id, params)[/code].
## Cells are map cells of the grid as loaded
## ([code](0, 0)[/code] is the grid's first cell), not world positions.
## [codeblock]
## const GraphUpdates = preload("res://addons/astar_bridge/serializers/graph_updates.gd")
## var door := GraphUpdates.cells_walkable("level", [Vector2i(4, 7)], false)
## AStarBridge.update_graph("level", door)
## [/codeblock]
extends RefCounted

## The protocol method these parameters are for.
const METHOD := "graph.update"


## Sets every cell of [param cells] to [param walkable] (cells travel as int32 pairs).
static func cells_walkable(id: String, cells: Array[Vector2i], walkable: bool) -> Dictionary:
	return {"id": id, "cells": _cell_bytes(cells), "walkable": walkable}


## Sets each cell to its own walkability: [param changes] maps [Vector2i] -> bool. Keys are
## sent in sorted order so equal changes give equal bytes.
static func cells_changed(id: String, changes: Dictionary) -> Dictionary:
	var cells: Array[Vector2i] = []
	for key: Variant in changes:
		if key is Vector2i:
			cells.append(key)
	cells.sort()
	var flags := PackedByteArray()
	for cell: Vector2i in cells:
		flags.append(1 if changes[cell] else 0)
	return {"id": id, "cells": _cell_bytes(cells), "walkable": flags}


## Replaces every cell's weight: [param weights] holds width * height values, row-major.
static func weights_changed(id: String, weights: PackedFloat32Array) -> Dictionary:
	return {"id": id, "weights": weights.to_byte_array()}


## Gives every cell of [param cells] the weight [param weight] (cells as int32 pairs, one
## float32 weight per cell).
static func cells_weighted(id: String, cells: Array[Vector2i], weight: float) -> Dictionary:
	var weights := PackedFloat32Array()
	weights.resize(cells.size())
	weights.fill(weight)
	return {"id": id, "weight_cells": _cell_bytes(cells), "weights": weights.to_byte_array()}


## One agent operation for [method agents_changed]: [param op] is "place", "move" or "remove"
## ([param cell] is ignored for "remove").
static func agent_op(op: String, agent: int, cell: Vector2i = Vector2i.ZERO) -> Dictionary:
	if op == "remove":
		return {"op": op, "agent": agent}
	return {"op": op, "agent": agent, "cell": [cell.x, cell.y]}


## Agent operations (see [method agent_op]) applied in order.
static func agents_changed(id: String, ops: Array[Dictionary]) -> Dictionary:
	return {"id": id, "agents": ops}


## Agents [param moves] (agent id -> [Vector2i] cell) moved; ids sorted for determinism.
## An agent the sidecar does not know yet must be placed first: see [method agent_op].
static func agents_moved(id: String, moves: Dictionary) -> Dictionary:
	var agents: Array[int] = []
	for key: Variant in moves:
		if key is int:
			agents.append(key)
	agents.sort()
	var ops: Array[Dictionary] = []
	for agent: int in agents:
		var cell: Vector2i = moves[agent]
		ops.append(agent_op("move", agent, cell))
	return agents_changed(id, ops)


## Waypoints [param points] disabled (or enabled again when [param disabled] is false).
## Ids travel as int64, as Godot's [AStar2D] ids are.
static func points_disabled(
	id: String, points: PackedInt64Array, disabled: bool = true
) -> Dictionary:
	return {"id": id, "points": points.to_byte_array(), "disabled": disabled}


static func _cell_bytes(cells: Array[Vector2i]) -> PackedByteArray:
	var flat := PackedInt32Array()
	flat.resize(cells.size() * 2)
	for i: int in cells.size():
		flat[i * 2] = cells[i].x
		flat[i * 2 + 1] = cells[i].y
	return flat.to_byte_array()
