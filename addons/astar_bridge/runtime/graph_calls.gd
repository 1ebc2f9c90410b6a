## The autoload's graph calls: loads, updates and drops sent synchronously, and updates sent
## without waiting through the request queue (in order with the frame's path and field requests);
## each success folded into the graph store (what a restart re-uploads), agent occupancy told
## about grids, and the [signal loaded] / [signal updated] signals the autoload re-emits. A failed
## call changes nothing that was loaded: the sidecar keeps the old graph and so does the store.
extends RefCounted

## A graph was loaded.
signal loaded(id: String)
## A graph's ground changed (see the autoload's graph_updated).
signal updated(id: String, cells: Array[Vector2i])
## The wire parameters of an update that changed a graph's ground.
signal applied(id: String, update: Dictionary)

const AgentOccupancy = preload("res://addons/astar_bridge/runtime/agent_occupancy.gd")
const BridgeConfig = preload("res://addons/astar_bridge/runtime/bridge_config.gd")
const BridgeResult = preload("res://addons/astar_bridge/api/bridge_result.gd")
const EditRequest = preload("res://addons/astar_bridge/api/edit_request.gd")
const GraphFileWriter = preload("res://addons/astar_bridge/export/graph_file_writer.gd")
const GraphStore = preload("res://addons/astar_bridge/runtime/graph_store.gd")
const GridSerializer = preload("res://addons/astar_bridge/serializers/grid_serializer.gd")
const GroundChanges = preload("res://addons/astar_bridge/runtime/ground_changes.gd")
const RequestQueue = preload("res://addons/astar_bridge/runtime/request_queue.gd")
const SidecarLink = preload("res://addons/astar_bridge/runtime/sidecar_link.gd")

const LOAD_METHODS: Array[String] = [
	"graph.load_grid", "graph.load_waypoints", "graph.load_navmesh"
]
# What an unknown graph id's error tells to do.
const LOAD_FIRST := " (load it first: load_tile_map_layer, load_astar_grid_2d, load_grid, ...)"
# Godot registers class_name types when it scans the project; one of the addon's tells.
const SCANNED_CLASS := "AStarBridgeAgent2D"

var _config: BridgeConfig
var _link: SidecarLink
var _store: GraphStore
var _queue: RequestQueue
# Grid id -> the engine's coordinates of the grid's cell (0, 0) (a TileMapLayer's used rect or an
# AStarGrid2D's region start), so game code names cells as the engine does.
var _cell_offsets: Dictionary = {}


func _init(config: BridgeConfig, link: SidecarLink, store: GraphStore, queue: RequestQueue) -> void:
	_config = config
	_link = link
	_store = store
	_queue = queue


## Loads grid parameters [param params] built from an engine object whose cell (0, 0) is
## [param offset] in the engine's coordinates; {} (the source could not be turned into a grid:
## its reason was pushed) fails with "bad_request".
func load_engine_grid(id: String, params: Dictionary, offset: Vector2i) -> BridgeResult:
	var result: BridgeResult = load_source(id, GridSerializer.METHOD, params)
	if result.is_ok():
		_cell_offsets[id] = offset
	return result


## Loads [param params] with [param method]; {} fails with "bad_request" (its reason was pushed).
func load_source(id: String, method: String, params: Dictionary) -> BridgeResult:
	if params.is_empty():
		return BridgeResult.failure(
			"bad_request", "nothing to load as %s (see the error above)" % id
		)
	return load_wire(method, params)


## Loads a grid from its bytes (see the autoload's load_grid).
func load_grid(
	id: String,
	width: int,
	height: int,
	cells: PackedByteArray,
	diagonal: AStarGrid2D.DiagonalMode,
	extra: Dictionary
) -> BridgeResult:
	var params: Dictionary = extra.duplicate()
	var mode: String = GridSerializer.diagonal_name(diagonal)
	params.merge(
		{"id": id, "width": width, "height": height, "cells": cells, "diagonal": mode}, true
	)
	return load_wire(GridSerializer.METHOD, params)


## Uploads a graph with a wire load method (see the autoload's load_graph).
func load_wire(method: String, params: Dictionary) -> BridgeResult:
	if not method in LOAD_METHODS:
		push_error("AStarBridge.load_graph: %s is not one of %s" % [method, LOAD_METHODS])
		return BridgeResult.failure("bad_request", "unknown load method %s" % method)
	var raw_id: Variant = params.get("id")
	var id: String = raw_id if raw_id is String else ""
	if id.is_empty():
		push_error('AStarBridge.load_graph: params need a non-empty String "id"')
		return BridgeResult.failure("bad_request", "params need a non-empty String id")
	var result: BridgeResult = _link.call_sync(method, params, _config.load_timeout_ms)
	if result.is_ok():
		_store.loaded(method, params)
		_cell_offsets.erase(id)
		if method == GridSerializer.METHOD:
			AgentOccupancy.register_grid(params)
		else:
			AgentOccupancy.forget_grid(id)
		loaded.emit(id)
	elif _link.reports():
		push_error("AStarBridge: %s %s failed: %s" % [method, id, result.message])
	return result


## Applies wire update fields [param changes] to graph [param id] (see update_graph).
func update_wire(id: String, changes: Dictionary) -> BridgeResult:
	var params: Dictionary = changes.duplicate()
	params["id"] = id
	var result: BridgeResult = _link.call_sync("graph.update", params, _config.load_timeout_ms)
	if result.is_ok():
		_store.updated(id, params)
		if GroundChanges.changes_ground(params):
			updated.emit(id, GroundChanges.changed_cells(params))
			applied.emit(id, params)
	elif _link.reports():
		push_error("AStarBridge: graph.update %s failed: %s" % [id, result.message])
	return result


## An edit made in the engine's terms, as update map [param params] ({}: it was refused, and its
## reason pushed).
func edit(id: String, params: Dictionary) -> BridgeResult:
	if params.is_empty():
		return BridgeResult.failure("bad_request", "the edit of %s was refused (see above)" % id)
	if not _store.has(id):
		push_error("AStarBridge: no graph %s was loaded through this node%s" % [id, LOAD_FIRST])
		return BridgeResult.failure("unknown_graph", "no graph %s was loaded" % id)
	return update_wire(id, params)


## [method edit] without waiting: the edit goes out with the frame's other requests, in order;
## the request completes with its result (a failure on the next frame when it was refused here).
func request_edit(id: String, params: Dictionary) -> EditRequest:
	if params.is_empty():
		var why: String = "the edit of %s was refused (see above)" % id
		return _failed_request(id, BridgeResult.failure("bad_request", why))
	if not _store.has(id):
		push_error("AStarBridge: no graph %s was loaded through this node%s" % [id, LOAD_FIRST])
		var unknown: String = "no graph %s was loaded" % id
		return _failed_request(id, BridgeResult.failure("unknown_graph", unknown))
	return request_wire(id, params)


## [method update_wire] without waiting (see the autoload's request_update).
func request_wire(id: String, changes: Dictionary) -> EditRequest:
	var params: Dictionary = changes.duplicate()
	params["id"] = id
	var request: EditRequest = EditRequest.new()
	request.graph = id
	request.sent_usec = Time.get_ticks_usec()
	var on_done: Callable = _edit_answered.bind(id, params, request)
	_queue.send_call("graph.update", params, on_done, _same(), _config.load_timeout_ms, true)
	return request


# The answer of a requested edit, at once when it is dispatched (inside a synchronous call too),
# so the store folds the edits in the sidecar's order, as update_wire does; the signals and the
# request's completion wait for the frame's deferred calls (no game code runs inside a poll; the
# completion is the request's own call, so it comes even when the autoload went meanwhile).
# A loss before the answer fails it: nothing is folded, and the restart uploads the graph as the
# store has it (without this edit), as after a failed synchronous update.
func _edit_answered(
	response: Variant, id: String, params: Dictionary, request: EditRequest
) -> void:
	var map: Dictionary = response if response is Dictionary else {}
	var result: BridgeResult = BridgeResult.from_response(map)
	if result.is_ok():
		_store.updated(id, params)
		if GroundChanges.changes_ground(params):
			_emit_changes.call_deferred(id, params)
	elif _link.reports():
		push_error("AStarBridge: graph.update %s failed: %s" % [id, result.message])
	_finisher(request, result).call_deferred()


func _emit_changes(id: String, params: Dictionary) -> void:
	updated.emit(id, GroundChanges.changed_cells(params))
	applied.emit(id, params)


# A request refused before it was sent: completed in the frame's deferred calls, so a handler
# connected after the call still hears it.
static func _failed_request(id: String, result: BridgeResult) -> EditRequest:
	var request: EditRequest = EditRequest.new()
	request.graph = id
	request.sent_usec = Time.get_ticks_usec()
	_finisher(request, result).call_deferred()
	return request


# A lambda that holds the request (nothing else may: the game can drop it) and completes it.
static func _finisher(request: EditRequest, result: BridgeResult) -> Callable:
	return func() -> void: request.finish(result)


# The response map as it is (a static function's lambda: safe on the connection's thread).
static func _same() -> Callable:
	return func(response: Dictionary) -> Dictionary: return response


## Unloads graph [param id] and forgets its stored copy.
func drop(id: String) -> BridgeResult:
	var result: BridgeResult = _link.call_sync("graph.drop", {"id": id}, _config.request_timeout_ms)
	if result.is_ok() or result.code == "unknown_graph":
		_store.erase(id)
		_cell_offsets.erase(id)
		AgentOccupancy.forget_grid(id)
	return result


## The engine's coordinates of grid [param id]'s first cell (zero unless loaded from a
## TileMapLayer or an AStarGrid2D whose region does not start at (0, 0)).
func cell_offset(id: String) -> Vector2i:
	return _cell_offsets.get(id, Vector2i.ZERO)


## [param cells] in the engine's coordinates -> grid [param id]'s own (its first cell is (0, 0)).
func local_cells(id: String, cells: Array[Vector2i]) -> Array[Vector2i]:
	var offset: Vector2i = cell_offset(id)
	if offset == Vector2i.ZERO:
		return cells
	var local: Array[Vector2i] = []
	for cell: Vector2i in cells:
		local.append(cell - offset)
	return local


## [code]{"method", "params"}[/code] graph [param id] was loaded with, or {}.
func load_of(id: String) -> Dictionary:
	if not _store.has(id):
		return {}
	return {"method": _store.method_of(id), "params": _store.params_of(id)}


## Writes graph [param id]'s load parameters to [param path] as a graph file (updates are not
## included): msgpack [code]{"format": "astar-bridge-graph", "version": 1, "kind", "graph"}[/code].
func export_to(id: String, path: String) -> Error:
	if not _store.has(id):
		push_error("AStarBridge.export_graph: no graph %s was loaded through this node" % id)
		return ERR_DOES_NOT_EXIST
	return GraphFileWriter.write(_store.method_of(id), _store.params_of(id), path)


# Godot registers class_name types only when it scans the project (the editor, or --import):
# before that the autoload still works (it names its own scripts by path), but game scripts that
# name AStarBridgeAgent2D or AStarBridgePathResult fail to parse, and Godot exits 0 regardless.
static func check_project_scanned() -> void:
	for entry: Dictionary in ProjectSettings.get_global_class_list():
		if str(entry.get("class", "")) == SCANNED_CLASS:
			return
	push_error(
		(
			"AStarBridge: Godot has not scanned this project yet, so the addon's class names"
			+ " (AStarBridgeAgent2D, AStarBridgePathResult, ...) are unknown and scripts using"
			+ " them fail to parse. Run once: godot --headless --path <project folder> --import"
			+ " (or open the project in the editor)."
		)
	)
