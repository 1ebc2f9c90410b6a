## The autoload's path calls: endpoints turned into the wire's terms (a [Vector2i] is always a
## cell in the engine's coordinates, whatever the grid's cell size), synchronous queries that
## never sleep while they wait, and asynchronous requests through the request queue.
extends RefCounted

const BridgeConfig = preload("res://addons/astar_bridge/runtime/bridge_config.gd")
const GraphCalls = preload("res://addons/astar_bridge/runtime/graph_calls.gd")
const GraphStore = preload("res://addons/astar_bridge/runtime/graph_store.gd")
const GridSerializer = preload("res://addons/astar_bridge/serializers/grid_serializer.gd")
const PathQuery = preload("res://addons/astar_bridge/api/path_query.gd")
const PathRequest = preload("res://addons/astar_bridge/api/path_request.gd")
const PathWire = preload("res://addons/astar_bridge/runtime/path_wire.gd")
const RequestQueue = preload("res://addons/astar_bridge/runtime/request_queue.gd")
const SettingsTable = preload("res://addons/astar_bridge/runtime/settings_table.gd")
const SidecarLink = preload("res://addons/astar_bridge/runtime/sidecar_link.gd")
## The setting that prints a line for each synchronous query without a path.
const REPORT_NO_PATH := "astar_bridge/debug/report_no_path"
# Cell coordinates past this go as path.find_many queries (int32 would not hold them).
const MAX_CELL := 1 << 30
## The load method of navmeshes and navigation maps (their frame's 2D requests go packed too).
const NAVMESH_METHOD := "graph.load_navmesh"
## The options of a request without any: one read-only map, not a new one a call (the
## autoload's request_path default; a crowd's requests each allocated one).
const NO_OPTIONS: Dictionary = {}

var _config: BridgeConfig
var _link: SidecarLink
var _queue: RequestQueue
var _graphs: GraphCalls
var _store: GraphStore
# graph -> true when its requests between two finite Vector2 go packed as a flat navmesh's
# (worked out once per graph for the store's revision _flat_revision: a crowd's requests skip
# the look-ups).
var _flat_meshes: Dictionary = {}
var _flat_revision: int = -1


func _init(
	config: BridgeConfig,
	link: SidecarLink,
	queue: RequestQueue,
	graphs: GraphCalls,
	store: GraphStore
) -> void:
	_config = config
	_link = link
	_queue = queue
	_graphs = graphs
	_store = store


## One synchronous query -> the result map ([code]{"status", "points", "ids", "cost",
## "expanded", "error"}[/code]). A failure (status "error") is a warning when
## [code]config.report_failures[/code] is on; no_path and budget_exhausted print a line only with
## the [code]astar_bridge/debug/report_no_path[/code] setting.
func find(graph: String, from: Variant, to: Variant, options: Dictionary) -> Dictionary:
	var dim: int = _dim_of(graph, from)
	var started: int = Time.get_ticks_usec()
	var result: Dictionary = {}
	if not _link.wait_ready():
		var why: String = "the sidecar is not ready: %s" % _link.last_error
		result = PathWire.error_result("not_connected", why, dim)
	else:
		var params: Dictionary = _wire_query(graph, from, to, options)
		var response: Dictionary = _link.rpc.call_sync(
			"path.find", params, _config.request_timeout_ms
		)
		result = PathWire.path_result(response, dim)
	var status: String = result["status"]
	_queue.stats.record(Time.get_ticks_usec() - started, status == "error")
	if status == "error" and _link.reports():
		var error: Dictionary = result["error"]
		var where: String = "%s from %s to %s" % [graph, from, to]
		push_warning(
			"AStarBridge: the path on %s failed (%s): %s" % [where, error["code"], error["message"]]
		)
	elif status != "found" and status != "partial" and SettingsTable.value(REPORT_NO_PATH):
		# An unreachable goal is an ordinary answer: one plain line, and only when asked for.
		print("AStarBridge: %s on %s from %s to %s" % [status, graph, from, to])
	return result


## [method find] for a typed query; a query that cannot be sent fails with "bad_request".
func find_query(query: PathQuery) -> Dictionary:
	var problem: String = _problem(query)
	if not problem.is_empty():
		return PathWire.error_result("bad_request", problem, _dim_of(query.graph, query.from))
	return find(query.graph, query.from, query.to, query.to_options())


## An asynchronous query: the request completes from a later point of the frame. Its
## main-thread time counts in the queue's [code]main_thread_usec[/code]. With
## [code]config.batch_requests[/code] it is held until the end of the frame and leaves with the
## frame's others (see request_queue.gd).
func request(graph: String, from: Variant, to: Variant, options: Dictionary) -> PathRequest:
	var started: int = Time.get_ticks_usec()
	var made: PathRequest = PathRequest.new()
	if _config.batch_requests:
		made.sent_usec = started
		# A crowd on a flat navmesh: its finite positions go packed, with no look-up a request.
		var flat: Variant = _flat_meshes.get(graph) if _store.revision == _flat_revision else null
		if flat == null:
			flat = _learn_flat(graph)
		if flat and from is Vector2 and to is Vector2:
			var from_point: Vector2 = from
			var to_point: Vector2 = to
			if from_point.is_finite() and to_point.is_finite():
				_queue.hold_grid(made, graph, options, false, from_point, to_point)
				_queue.main_thread_usec += Time.get_ticks_usec() - started
				return made
		_hold(made, graph, from, to, options)
		_queue.main_thread_usec += Time.get_ticks_usec() - started
		return made
	var dim: int = _dim_of(graph, from)
	var cells: Array = _cell_pair(graph, from, to)
	if not cells.is_empty():
		_queue.send_path(made, graph, cells[0], cells[1], options, dim, started, true)
		_queue.main_thread_usec += Time.get_ticks_usec() - started
		return made
	# A float vector goes as it is (the encoder writes it as the array of its coordinates).
	var start: Variant = from if from is Vector2 or from is Vector3 else _endpoint(graph, from)
	var goal: Variant = to if to is Vector2 or to is Vector3 else _endpoint(graph, to)
	_queue.send_path(made, graph, start, goal, options, dim, started)
	_queue.main_thread_usec += Time.get_ticks_usec() - started
	return made


# Holds [param made] for the end of the frame: with the other requests on the same grid and
# options when both ends are 2D points path.find_packed takes (cells, or world positions on a
# grid placed in the world), else as a query of the frame's path.find_many, which answers (and
# fails) each query on its own as path.find would.
func _hold(
	made: PathRequest, graph: String, from: Variant, to: Variant, options: Dictionary
) -> void:
	if _store.has(graph) and _store.method_of(graph) == GridSerializer.METHOD:
		var grid: Dictionary = _store.params_of(graph)
		var world: bool = grid.has("cell_size") or grid.has("origin")
		var cells: bool = not world or (from is Vector2i and to is Vector2i)
		var start: Variant = _packable(graph, grid, from, cells)
		var goal: Variant = _packable(graph, grid, to, cells)
		if start is Vector2 and goal is Vector2:
			var start_point: Vector2 = start
			var goal_point: Vector2 = goal
			_queue.hold_grid(made, graph, options, cells, start_point, goal_point)
			return
	if _store.method_of(graph) == NAVMESH_METHOD and from is Vector2 and to is Vector2:
		var mesh_start: Vector2 = from
		var mesh_goal: Vector2 = to
		var flat: bool = _dim_of(graph, from) == 2
		if flat and mesh_start.is_finite() and mesh_goal.is_finite():  # a 2D navmesh packs positions
			_queue.hold_grid(made, graph, options, false, mesh_start, mesh_goal)
			return
	_queue.hold_query(made, _wire_query(graph, from, to, options), _dim_of(graph, from))


# True when [param graph]'s requests between two finite Vector2 go packed as a flat navmesh's
# (the navmesh case of _hold), remembered for the store's revision.
func _learn_flat(graph: String) -> bool:
	if _store.revision != _flat_revision:
		_flat_meshes.clear()
		_flat_revision = _store.revision
	var flat: bool = _store.method_of(graph) == NAVMESH_METHOD and _dim_of(graph, Vector2()) == 2
	_flat_meshes[graph] = flat
	return flat


# [param value] as path.find_packed takes it on grid [param graph] (a Vector2: a cell of the
# grid's own when [param cells], else a world position), or null when it cannot go packed: a
# position that is not finite, a cell with fractional or huge coordinates, not a 2D point.
func _packable(graph: String, grid: Dictionary, value: Variant, cells: bool) -> Variant:
	if value is Vector2i:
		var cell: Vector2i = value
		cell -= _graphs.cell_offset(graph)
		return Vector2(cell) if cells else GridSerializer.cell_to_world(grid, cell)
	if not value is Vector2:
		return null
	var point: Vector2 = value
	if not point.is_finite():
		return null
	if cells and (point != point.floor() or absf(point.x) > MAX_CELL or absf(point.y) > MAX_CELL):
		return null
	return point


## [method request] for a typed query; one that cannot be sent completes with "bad_request".
func request_query(query: PathQuery) -> PathRequest:
	var problem: String = _problem(query)
	if problem.is_empty():
		return request(query.graph, query.from, query.to, query.to_options())
	var failed: PathRequest = PathRequest.new()
	var dim: int = _dim_of(query.graph, query.from)
	failed.finish.call_deferred(PathWire.error_result("bad_request", problem, dim))
	return failed


## Many queries (maps with graph, from, to and options) in one message: one
## [code]path.find_packed[/code] when every query asks the same grid with the same options (the
## endpoints and answers travel as arrays), else one [code]path.find_many[/code].
func request_many(queries: Array[Dictionary]) -> PathRequest:
	var started: int = Time.get_ticks_usec()
	var made: PathRequest = PathRequest.new()
	var packed: Dictionary = packed_params(queries)
	if not packed.is_empty():
		_queue.send_packed(made, packed, queries.size())
		_queue.main_thread_usec += Time.get_ticks_usec() - started
		return made
	var wire: Array = []
	var dims: PackedInt32Array = PackedInt32Array()
	for query: Dictionary in queries:
		var graph: String = str(query.get("graph", ""))
		var from: Variant = query.get("from", query.get("start"))
		var to: Variant = query.get("to", query.get("goal"))
		var given: Variant = query.get("options", {})
		var options: Dictionary = given if given is Dictionary else {}
		dims.append(_dim_of(graph, from))
		wire.append(_wire_query(graph, from, to, options))
	_queue.send_batch(made, wire, dims)
	_queue.main_thread_usec += Time.get_ticks_usec() - started
	return made


## The [code]path.find_packed[/code] params of [param queries], or [code]{}[/code] when they do
## not share one loaded grid and one options map, or an endpoint is not a 2D point (a cell of a
## grid without cell size or origin must have whole coordinates): those go as a find_many. On a
## grid placed in the world, endpoints that are all Vector2i go as its cells ("cells": true).
func packed_params(queries: Array[Dictionary]) -> Dictionary:
	if queries.is_empty():
		return {}
	var graph: String = str(queries[0].get("graph", ""))
	if not _store.has(graph) or _store.method_of(graph) != GridSerializer.METHOD:
		return {}
	var grid: Dictionary = _store.params_of(graph)
	var world: bool = grid.has("cell_size") or grid.has("origin")
	var cells: bool = not world or _all_cells(queries)
	var options: Variant = queries[0].get("options", {})
	var starts: PackedFloat64Array = PackedFloat64Array()
	var goals: PackedFloat64Array = PackedFloat64Array()
	for query: Dictionary in queries:
		var alike: bool = (
			str(query.get("graph", "")) == graph and query.get("options", {}) == options
		)
		var from: Variant = query.get("from", query.get("start"))
		var to: Variant = query.get("to", query.get("goal"))
		if not (
			alike and _add_end(graph, from, cells, starts) and _add_end(graph, to, cells, goals)
		):
			return {}
	var params: Dictionary = {
		"graph": graph,
		"starts": _packed_ends(starts, not cells),
		"goals": _packed_ends(goals, not cells),
		"cells": cells,
	}
	var given: Dictionary = options if options is Dictionary else {}
	if not given.is_empty():
		params["options"] = given
	return params


# Every query's ends are Vector2i: on a grid placed in the world they go as its cells, so the
# sidecar's is the only cell <-> world conversion (a batch with a position goes as positions).
static func _all_cells(queries: Array[Dictionary]) -> bool:
	for query: Dictionary in queries:
		if not (query.get("from", query.get("start")) is Vector2i):
			return false
		if not (query.get("to", query.get("goal")) is Vector2i):
			return false
	return true


# Appends the wire coordinates of [param value] to [param coords]; false when it is not a 2D
# point, or ([param cells]) a cell with fractional coordinates. A Vector2i goes as the grid's own
# cell when [param cells], else as [method _endpoint] sends it.
func _add_end(graph: String, value: Variant, cells: bool, coords: PackedFloat64Array) -> bool:
	var wire: Variant = null
	if cells and value is Vector2i:
		var cell: Vector2i = value
		cell -= _graphs.cell_offset(graph)
		wire = [cell.x, cell.y]
	else:
		wire = _endpoint(graph, value)
	if not wire is Array:
		return false
	var pair: Array = wire
	if pair.size() != 2 or not _is_number(pair[0]) or not _is_number(pair[1]):
		return false
	var x: float = pair[0]
	var y: float = pair[1]
	if cells and (x != floorf(x) or y != floorf(y)):
		return false
	coords.append(x)
	coords.append(y)
	return true


static func _is_number(value: Variant) -> bool:
	return value is int or value is float


# int32 cells or float32 world positions, as path.find_packed takes them.
static func _packed_ends(coords: PackedFloat64Array, world: bool) -> PackedByteArray:
	if world:
		var positions: PackedFloat32Array = PackedFloat32Array()
		positions.resize(coords.size())
		for i: int in coords.size():
			positions[i] = coords[i]
		return positions.to_byte_array()
	var cells: PackedInt32Array = PackedInt32Array()
	cells.resize(coords.size())
	for i: int in coords.size():
		cells[i] = int(coords[i])
	return cells.to_byte_array()


func _problem(query: PathQuery) -> String:
	if query == null:
		push_error("AStarBridge: the query is null")
		return "the query is null"
	var problem: String = query.check()
	if not problem.is_empty():
		push_error("AStarBridge: %s" % problem)
	return problem


func _wire_query(graph: String, from: Variant, to: Variant, options: Dictionary) -> Dictionary:
	var query: Dictionary = {}
	var cells: Array = _cell_pair(graph, from, to)
	if cells.is_empty():
		query = {"graph": graph, "start": _endpoint(graph, from), "goal": _endpoint(graph, to)}
	else:
		query = {"graph": graph, "start": cells[0], "goal": cells[1], "cells": true}
	if not options.is_empty():
		query["options"] = options
	return query


# Two Vector2i on a grid placed in the world (cell size or origin given): the grid's own cells of
# both, sent with "cells": true so the sidecar's is the only cell <-> world conversion; else [].
func _cell_pair(graph: String, from: Variant, to: Variant) -> Array:
	if not (from is Vector2i and to is Vector2i and _store.has(graph)):
		return []
	if _store.method_of(graph) != GridSerializer.METHOD:
		return []
	var params: Dictionary = _store.params_of(graph)
	if not (params.has("cell_size") or params.has("origin")):
		return []
	var offset: Vector2i = _graphs.cell_offset(graph)
	var start: Vector2i = from
	var goal: Vector2i = to
	start -= offset
	goal -= offset
	return [[start.x, start.y], [goal.x, goal.y]]


# A Vector2i names a cell in the engine's coordinates: on a grid placed in the world (cell size
# or origin given) it travels as that cell's position (one end of a pair with a position, or of a
# packed batch with one), else as the grid's own cell.
func _endpoint(graph: String, value: Variant) -> Variant:
	if value is Vector2i and _store.has(graph) and _store.method_of(graph) == GridSerializer.METHOD:
		var params: Dictionary = _store.params_of(graph)
		var cell: Vector2i = value
		cell -= _graphs.cell_offset(graph)
		if params.has("cell_size") or params.has("origin"):
			var world: Vector2 = GridSerializer.cell_to_world(params, cell)
			return [world.x, world.y]
		return [cell.x, cell.y]
	return PathWire.endpoint(value)


func _dim_of(graph: String, endpoint: Variant) -> int:
	var type: int = typeof(endpoint)
	if type == TYPE_VECTOR3 or type == TYPE_VECTOR3I:
		return 3
	if type == TYPE_ARRAY:
		var coords: Array = endpoint
		if coords.size() == 3:
			return 3
	var dim: Variant = _store.params_of(graph).get("dim")  # {} when unknown
	return 2 if dim == null else PathWire.int_of(dim, 2)
