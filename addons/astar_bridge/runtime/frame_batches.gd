## The path requests of one frame, held until its end and then sent as few messages: the requests
## on one grid with one options map as one [code]path.find_packed[/code] (endpoints as two
## arrays), every other request as one [code]path.find_many[/code]. Each message knows its
## requests in order, so each still completes with its own result (request_queue.gd sends them
## and splits the answers). A group of one goes as the plain [code]path.find[/code] it was.
extends RefCounted

## How a message of [method take] is sent.
enum Kind { PACKED, MANY, SINGLE }

const PathRequest = preload("res://addons/astar_bridge/api/path_request.gd")
## Most queries in one message: a crowd of thousands goes as a few messages, each answered well
## under the sidecar's answer-size limit.
const CHUNK := 1024


## The requests of one grid and options map: their endpoints in path.find_packed's form.
class Group:
	var graph: String
	var options: Dictionary
	## int32 cells (else float32 world positions, as Vector2 is).
	var cells: bool
	var requests: Array[PathRequest] = []
	var cell_starts: PackedInt32Array = PackedInt32Array()  # x, y per request
	var cell_goals: PackedInt32Array = PackedInt32Array()
	var world_starts: PackedVector2Array = PackedVector2Array()
	var world_goals: PackedVector2Array = PackedVector2Array()

	func _init(graph_id: String, options_map: Dictionary, as_cells: bool) -> void:
		graph = graph_id
		options = options_map
		cells = as_cells

	## The group without its requests that are done (cancelled), or itself when none is.
	func live() -> Group:
		var done: int = 0
		for request: PathRequest in requests:
			if not request.result.is_empty():  # is_done(), without a call per request
				done += 1
		if done == 0:
			return self
		var kept: Group = Group.new(graph, options, cells)
		for i: int in requests.size():
			if requests[i].is_done():
				continue
			kept.requests.append(requests[i])
			if cells:
				kept.cell_starts.append_array(cell_starts.slice(2 * i, 2 * i + 2))
				kept.cell_goals.append_array(cell_goals.slice(2 * i, 2 * i + 2))
			else:
				kept.world_starts.append(world_starts[i])
				kept.world_goals.append(world_goals[i])
		return kept


# "graph|c" / "graph|w" (no options) or that plus the options' hash -> Group.
var _groups: Dictionary = {}
# The requests that fit no packed group, with their path.find params and dimensions.
var _others: Array[PathRequest] = []
var _other_queries: Array = []
var _other_dims: PackedInt32Array = PackedInt32Array()
var _count: int = 0
# The group of the last add_grid without options: the next request of a crowd (same graph, no
# options) joins it without a key or a look-up.
var _last: Group = null


## Requests held.
func size() -> int:
	return _count


## True when nothing is held.
func is_empty() -> bool:
	return _count == 0


## Holds [param request] from grid cell [param start] to [param goal] on [param graph] (int32
## cells as path.find_packed takes them when [param cells], else world positions).
func add_grid(
	request: PathRequest,
	graph: String,
	options: Dictionary,
	cells: bool,
	start: Vector2,
	goal: Vector2
) -> void:
	var group: Group = _last
	if not (
		group != null
		and options.is_empty()
		and group.graph == graph
		and group.cells == cells
		and group.options.is_empty()
	):
		group = _group(graph, options, cells)
		_last = group if options.is_empty() else null
	group.requests.append(request)
	if cells:
		group.cell_starts.append(int(start.x))
		group.cell_starts.append(int(start.y))
		group.cell_goals.append(int(goal.x))
		group.cell_goals.append(int(goal.y))
	else:
		group.world_starts.append(start)
		group.world_goals.append(goal)
	_count += 1


## Holds [param request] with its [code]path.find[/code] params [param query] (any graph, any
## endpoint: path.find_many answers each query on its own) and result dimension [param dim].
func add_query(request: PathRequest, query: Dictionary, dim: int) -> void:
	_others.append(request)
	_other_queries.append(query)
	_other_dims.append(dim)
	_count += 1


## Everything held as messages and forgets it: [code][Kind, params, requests, dims][/code] each
## ([code]params[/code] of path.find_packed, of path.find_many, or for SINGLE the one query's
## [code]{graph, start, goal, options(, cells)}[/code]; [code]dims[/code] the result dimension of
## each request). Requests already done (cancelled) are left out. Without [param corridors], a
## path.find_packed of world positions asks for no polygons (a navmesh's answer then has empty
## ids; a grid ignores it).
func take(corridors: bool = true) -> Array[Array]:
	var messages: Array[Array] = []
	for key: String in _groups:
		var group: Group = _groups[key]
		_take_group(group, messages, corridors)
	_take_others(messages)
	_groups = {}
	_last = null
	_others = []
	_other_queries = []
	_other_dims = PackedInt32Array()
	_count = 0
	return messages


func _group(graph: String, options: Dictionary, cells: bool) -> Group:
	var key: String = graph + ("|c" if cells else "|w")
	if not options.is_empty():
		key += "|%d" % options.hash()
	var group: Group = _groups.get(key)
	if group == null:
		group = Group.new(graph, options.duplicate(true), cells)
		_groups[key] = group
	elif group.options != options:  # two options maps of one hash: the second gets its own key
		key += "|%d" % _groups.size()
		group = Group.new(graph, options.duplicate(true), cells)
		_groups[key] = group
	return group


func _take_group(held: Group, messages: Array[Array], corridors: bool) -> void:
	var group: Group = held.live()
	var total: int = group.requests.size()
	for first: int in range(0, total, CHUNK):
		var last: int = mini(first + CHUNK, total)
		var requests: Array[PathRequest] = group.requests.slice(first, last)
		var dims: PackedInt32Array = PackedInt32Array()
		dims.resize(requests.size())
		dims.fill(2)
		if requests.size() == 1:  # a lone request goes as the path.find it was
			messages.append([Kind.SINGLE, _single(group, first), requests, dims])
			continue
		var params: Dictionary = {"graph": group.graph, "cells": group.cells}
		if group.cells:
			params["starts"] = group.cell_starts.slice(2 * first, 2 * last).to_byte_array()
			params["goals"] = group.cell_goals.slice(2 * first, 2 * last).to_byte_array()
		else:  # float32 pairs, as path.find_packed takes world positions
			params["starts"] = group.world_starts.slice(first, last).to_byte_array()
			params["goals"] = group.world_goals.slice(first, last).to_byte_array()
			if not corridors:
				params["corridors"] = false
		if not group.options.is_empty():
			params["options"] = group.options
		messages.append([Kind.PACKED, params, requests, dims])


# Request [param i] of [param group] as path.find params (endpoints: cells as [x, y] with
# "cells": true, or the world position's Vector2).
static func _single(group: Group, i: int) -> Dictionary:
	var query: Dictionary = {"graph": group.graph, "options": group.options}
	if group.cells:
		query["start"] = [group.cell_starts[2 * i], group.cell_starts[2 * i + 1]]
		query["goal"] = [group.cell_goals[2 * i], group.cell_goals[2 * i + 1]]
		query["cells"] = true
	else:
		query["start"] = group.world_starts[i]
		query["goal"] = group.world_goals[i]
	return query


func _take_others(messages: Array[Array]) -> void:
	var keep: PackedInt32Array = _live(_others)
	for first: int in range(0, keep.size(), CHUNK):
		var requests: Array[PathRequest] = []
		var queries: Array = []
		var dims: PackedInt32Array = PackedInt32Array()
		for k: int in range(first, mini(first + CHUNK, keep.size())):
			var i: int = keep[k]
			requests.append(_others[i])
			queries.append(_other_queries[i])
			dims.append(_other_dims[i])
		if requests.size() == 1:
			messages.append([Kind.SINGLE, queries[0], requests, dims])
		else:
			messages.append([Kind.MANY, {"queries": queries}, requests, dims])


# The indices of the requests not done yet (a cancelled one is done).
static func _live(requests: Array[PathRequest]) -> PackedInt32Array:
	var keep: PackedInt32Array = PackedInt32Array()
	for i: int in requests.size():
		if not requests[i].is_done():
			keep.append(i)
	return keep
