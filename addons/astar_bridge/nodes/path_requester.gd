@tool
extends "avoiding_agent.gd"
## Internal: the requesting half of the agents' path following (the base of
## [code]path_follower.gd[/code]): it asks the bridge for paths, at most one in flight, when the
## follower wants one ([member _wanted]), on [member repath_interval], after a failure, when a
## [code]graph_updated[/code] change may touch the rest of the path, when an obstacle placed or
## moved crosses it ([code]obstacles_changed[/code]), when the graph is reloaded and when the
## sidecar restarted; it hands each answer to [method _on_path_answer]. What a path
## means (targets, walking, arrival) is the follower's.
## No [code]class_name[/code]: the agents extend it by path, so it parses in a fresh clone.

## Emitted when a path request failed (status "error"); [param result] is the request's result.
## The agent keeps its path and tries again (see [member repath_interval]).
signal path_failed(result: Dictionary)

## Seconds before a failed request is tried again when [member repath_interval] is 0.
const RETRY_S := 1.0
const _BRIDGE_PATH := ^"/root/AStarBridge"

## Id of the graph (as loaded into the sidecar) to path on.
@export var graph_id: String = "":
	set(value):
		graph_id = value
		update_configuration_warnings()
## Seconds between automatic re-paths while navigating (0 = only when the target, the ground
## under the path or the graph changes). Also the retry delay after a failed request.
@export_range(0.0, 10.0, 0.05, "or_greater", "suffix:s") var repath_interval: float = 0.0
## Extra query options merged into every request (e.g. {"allow_partial": true}).
@export var path_options: Dictionary = {}
## Navigation layers the paths may use on a navmesh (as NavigationAgent2D's):
## polygons and links of regions sharing no bit are avoided. Sent with every request; a
## [code]"navigation_layers"[/code] key in [member path_options] takes precedence.
@export_flags_2d_navigation var navigation_layers: int = 1
## On a navmesh: the exactly shortest path (Polyanya, the query option [code]"optimal"[/code])
## instead of the corridor + funnel; refused on maps with links or uneven region costs.
@export var optimal: bool = false
## The unit's radius in world units (0: not set). On a navigation mesh the walkable area is
## shrunk by it (the query option [code]"radius"[/code]), so the path keeps that far from every
## wall: the region's navmesh was baked for its own [code]agent_radius[/code] already, so give
## the unit's radius beyond that one. On a grid (the 2D agent) it chooses the footprint (see
## the 2D agent's [code]size[/code]). A [code]"size"[/code] or [code]"radius"[/code] key in
## [member path_options] takes precedence. A negative, infinite or NaN value is refused
## (push_error, the value is kept).
@export_range(0.0, 100.0, 0.01, "or_greater") var path_radius: float = 0.0:
	set(value):
		if is_nan(value) or is_inf(value) or value < 0.0:
			push_error("AStarBridge: path_radius must be 0 (not set) or more, got %s" % value)
			return
		path_radius = value

## The bridge used for requests; defaults to the [code]AStarBridge[/code] autoload. Any node with
## [code]request_path[/code] works (the 2D agent with an agent id also needs
## [code]update_graph[/code]).
var bridge: Node = null

var _last_result: Dictionary = {}
# A path is to be asked for at the next physics frame (when none is in flight).
var _wanted: bool = false
var _pending: Object = null
var _serial: int = 0
var _since_request: float = 0.0
var _retry_after: float = -1.0
# Obstacle outlines placed while a request was on its way: its answer may predate them, so the
# path it brings is checked against them.
var _unseen_outlines: Array[PackedVector2Array] = []
var _unseen_bounds: Array[Rect2] = []


func _ready() -> void:
	if Engine.is_editor_hint():
		return
	if bridge == null:
		bridge = get_node_or_null(_BRIDGE_PATH)
	_connect_bridge()


func _physics_process(delta: float) -> void:
	super(delta)
	if Engine.is_editor_hint() or _follows_field() or bridge == null:
		return
	_since_request += delta
	if _is_navigating():
		if repath_interval > 0.0 and _since_request >= repath_interval:
			_wanted = true
		if _retry_after >= 0.0 and _since_request >= _retry_after:
			_wanted = true
	if _wanted and _pending == null:
		_request()


func _get_configuration_warnings() -> PackedStringArray:
	var warnings := PackedStringArray()
	if graph_id.is_empty():
		warnings.append("Set graph_id to the id of a graph loaded into AStarBridge.")
	var parent_warning: String = _parent_warning()
	if not parent_warning.is_empty():
		warnings.append(parent_warning)
	return warnings


## True while a path request is on its way (at most one is in flight per agent).
func is_path_pending() -> bool:
	return _pending != null


## The last path result: {"status", "points", "cost", "expanded", "error"} ({} before any, and
## after a new target once the agent had arrived or stopped).
func get_current_navigation_result() -> Dictionary:
	return _last_result


## Asks for a new path on the next physics frame (call it after changing the graph yourself by
## other means than [code]AStarBridge.update_graph[/code], which agents follow on their own).
func notify_graph_changed() -> void:
	if _is_navigating():
		_wanted = true


## Forgets the request in flight (its answer will be ignored) and any wish or retry.
func _drop_request() -> void:
	_serial += 1
	_pending = null
	_retry_after = -1.0
	_unseen_outlines.clear()
	_unseen_bounds.clear()


func _connect_bridge() -> void:
	if bridge == null:
		return
	if bridge.has_signal("graph_loaded"):
		bridge.connect("graph_loaded", _on_graph_loaded)
	if bridge.has_signal("graph_updated"):
		bridge.connect("graph_updated", _on_graph_updated)
	if bridge.has_signal("obstacles_changed"):
		bridge.connect("obstacles_changed", _on_obstacles_changed)
	if bridge.has_signal("sidecar_ready"):
		bridge.connect("sidecar_ready", notify_graph_changed)


func _on_graph_loaded(changed_id: String) -> void:
	if changed_id == graph_id:
		notify_graph_changed()


## Re-paths only when the change may matter to this agent ([method _affected_by]), and always
## when a request is on its way (its answer may predate the change).
func _on_graph_updated(changed_id: String, cells: Array[Vector2i]) -> void:
	if changed_id != graph_id or not _is_navigating():
		return
	if _pending != null or _affected_by(cells):
		_wanted = true


## Re-paths when an obstacle placed or moved may block the rest of the path
## ([method _blocked_by]); an answer on its way is checked against [param outlines] when it comes.
func _on_obstacles_changed(
	changed_id: String, outlines: Array[PackedVector2Array], bounds: Array[Rect2]
) -> void:
	if changed_id != graph_id or not _is_navigating():
		return
	if _pending != null:
		_unseen_outlines.append_array(outlines)
		_unseen_bounds.append_array(bounds)
	elif _blocked_by(outlines, bounds):
		_wanted = true


func _request() -> void:
	_wanted = false
	_unseen_outlines.clear()  # this request is sent after every obstacle update sent so far
	_unseen_bounds.clear()
	_since_request = 0.0
	_retry_after = -1.0
	_serial += 1
	var options: Dictionary = _query_options()
	var from: Variant = _to_agent_space(_parent_position())
	var to: Variant = _to_agent_space(_target_point())
	var request: Object = bridge.call("request_path", graph_id, from, to, options)
	if request == null:
		_fail({"status": "error", "error": {"code": "no_request", "message": "no request made"}})
		return
	_pending = request
	var target: Vector3 = _target_point()
	var done: Variant = request.get("result")
	if request.has_method("is_done") and request.call("is_done") == true and done is Dictionary:
		_on_completed.call_deferred(done, _serial, target)  # finished before we could listen
	else:
		request.connect("completed", _on_completed.bind(_serial, target), CONNECT_ONE_SHOT)


func _on_completed(result: Dictionary, serial: int, target: Vector3) -> void:
	if serial != _serial:
		return  # A newer request (or stop(), or a new navigation) superseded this one.
	_pending = null
	if not _is_navigating():
		return
	if str(result.get("status", "error")) == "error":
		_fail(result)
		return
	_on_path_answer(result, target)
	if not _unseen_outlines.is_empty():
		var unseen: Array[PackedVector2Array] = _unseen_outlines.duplicate()
		var boxes: Array[Rect2] = _unseen_bounds.duplicate()
		_unseen_outlines.clear()
		_unseen_bounds.clear()
		if _is_navigating() and _blocked_by(unseen, boxes):
			_wanted = true


func _fail(result: Dictionary) -> void:
	_pending = null
	_last_result = result
	_retry_after = repath_interval if repath_interval > 0.0 else RETRY_S
	path_failed.emit(result)


## Hook: the options of the next request (the agent adds its own, e.g. its obstacle id).
func _query_options() -> Dictionary:
	var options: Dictionary = path_options.duplicate()
	if not options.has("navigation_layers"):
		options["navigation_layers"] = navigation_layers
	if optimal and not options.has("optimal"):
		options["optimal"] = true
	if not options.has("size") and not options.has("radius"):
		options.merge(_unit_options())
	return options


## Hook: the unit's size options ({"size": k} or {"radius": r}, {} for a unit of one cell).
func _unit_options() -> Dictionary:
	return {"radius": path_radius} if path_radius > 0.0 else {}


## Hook: true while the agent navigates (has a target it has not reached, and did not stop).
func _is_navigating() -> bool:
	return false


## Hook: whether a change of [param cells] (empty: any) may matter to the rest of the path.
func _affected_by(_cells: Array[Vector2i]) -> bool:
	return true


## Hook: whether obstacles of ground-plane [param _outlines] (boxes [param _bounds]) may block
## the rest of the path.
func _blocked_by(_outlines: Array[PackedVector2Array], _bounds: Array[Rect2]) -> bool:
	return true


## Hook: a path answer (status other than "error") to a request for [param target].
func _on_path_answer(_result: Dictionary, _target: Vector3) -> void:
	pass


## Hook: true while the agent follows a flow field instead of asking paths (the 2D agent's crowd
## mode): no requests, and arrival is the field's to tell.
func _follows_field() -> bool:
	return false


## Hook: why the parent cannot be moved ("" when it can), for the editor's warnings.
func _parent_warning() -> String:
	return ""


## Hook: [code]target_position[/code] in the agent's 3D space.
func _target_point() -> Vector3:
	return Vector3.ZERO


## Hook: [param point] as the agent's own vector type, for the bridge and the signals.
func _to_agent_space(point: Vector3) -> Variant:
	return point
