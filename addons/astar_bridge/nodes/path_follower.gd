@tool
extends Node
## Internal: the path following shared by [code]AStarBridgeAgent2D[/code] and
## [code]AStarBridgeAgent3D[/code], which extend this script by path.
##
## It requests paths from the bridge (at most one in flight), asks again when the target, the
## graph or the timer says so, and walks the path point by point, emitting the
## [NavigationAgent2D]-style signals. It works in 3D space: the 2D agent puts its plane at z = 0,
## where a [Vector3]'s distance is the same float sum as its [Vector2]'s, so both agents follow a
## path with the same code and the same results. Each agent keeps its typed API (properties and
## returns in its own vector type) and overrides the hooks at the end of this script.
## No [code]class_name[/code]: the agents extend it by path, so it parses in a fresh clone,
## before the editor has scanned the project for global classes.

## Emitted when a new path arrived (also an empty one: see [method is_target_reachable]).
signal path_changed
## Emitted when a path point is reached; [param details] holds "position" and "index".
signal waypoint_reached(details: Dictionary)
## Emitted once when the end of the path is reached (or the target, or no path exists).
signal navigation_finished
## Emitted once when the parent is within [member target_desired_distance] of the target.
signal target_reached
## Emitted when a path request failed (status "error"); [param result] is the request's result.
signal path_failed(result: Dictionary)

const _BRIDGE_PATH := ^"/root/AStarBridge"

## Id of the graph (as loaded into the sidecar) to path on.
@export var graph_id: String = "":
	set(value):
		graph_id = value
		update_configuration_warnings()
## Seconds between automatic re-paths while navigating (0 = only on target or graph changes).
## Also the retry delay after a failed or blocked request.
@export_range(0.0, 10.0, 0.05, "or_greater", "suffix:s") var repath_interval: float = 0.0
## Extra query options merged into every request (e.g. {"allow_partial": true}).
@export var path_options: Dictionary = {}
## Navigation layers the paths may use on a navmesh (as NavigationAgent2D's):
## polygons and links of regions sharing no bit are avoided. Sent with every request; a
## [code]"navigation_layers"[/code] key in [member path_options] takes precedence.
@export_flags_2d_navigation var navigation_layers: int = 1

## The bridge used for requests; defaults to the [code]AStarBridge[/code] autoload. Any node with
## [code]request_path[/code] works (the 2D agent with an agent id also needs
## [code]update_graph[/code]).
var bridge: Node = null

var _path: PackedVector3Array = PackedVector3Array()
var _index: int = 0
var _last_result: Dictionary = {}
var _finished: bool = true
var _reached: bool = false
var _active: bool = false
var _wanted: bool = false
var _pending: Object = null
var _serial: int = 0
var _since_request: float = 0.0


func _ready() -> void:
	if Engine.is_editor_hint():
		return
	if bridge == null:
		bridge = get_node_or_null(_BRIDGE_PATH)
	_connect_bridge()


func _physics_process(delta: float) -> void:
	if Engine.is_editor_hint() or bridge == null:
		return
	_since_request += delta
	if _active and repath_interval > 0.0 and _since_request >= repath_interval:
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


## True when there is nothing left to follow: the target is reached, the path's end is reached,
## or no path exists. False while a first path is still on its way.
func is_navigation_finished() -> bool:
	_advance()
	return _finished


## True once the parent came within [member target_desired_distance] of the target.
func is_target_reached() -> bool:
	return _reached


## True when the last path found reaches the target (status "found").
func is_target_reachable() -> bool:
	return str(_last_result.get("status", "")) == "found"


## True while a path request is on its way (at most one is in flight per agent).
func is_path_pending() -> bool:
	return _pending != null


## Index of the path point [method get_next_path_position] returns.
func get_current_navigation_path_index() -> int:
	return _index


## The last path result: {"status", "points", "cost", "expanded", "error"} ({} before any).
func get_current_navigation_result() -> Dictionary:
	return _last_result


## Straight-line distance from the parent to [member target_position].
func distance_to_target() -> float:
	return _parent_position().distance_to(_target_point())


## Asks for a new path on the next physics frame (call it after changing the graph yourself).
func notify_graph_changed() -> void:
	if _active:
		_wanted = true


## Stops navigating: the path is cleared and [method is_navigation_finished] becomes true.
func stop() -> void:
	_active = false
	_finished = true
	_wanted = false
	_set_path(PackedVector3Array())
	_index = 0
	_serial += 1
	_pending = null


## Called by the agent's [member target_position] setter: starts navigating to the target (a path
## is requested on the next physics frame) unless it is [param unchanged] and being followed.
func _retarget(unchanged: bool) -> void:
	if unchanged and _active and not _finished:
		return
	_active = true
	_finished = false
	_reached = false
	_wanted = true


## The path point to move towards now (the parent's position when there is none); advances first.
func _next_point() -> Vector3:
	_advance()
	if _path.is_empty() or _index >= _path.size():
		return _parent_position()
	return _path[_index]


## The last point of the current path (the parent's position when there is none).
func _final_point() -> Vector3:
	return _path[_path.size() - 1] if not _path.is_empty() else _parent_position()


func _connect_bridge() -> void:
	if bridge == null:
		return
	for signal_name: String in ["graph_loaded", "graph_updated"]:
		if bridge.has_signal(signal_name):
			bridge.connect(signal_name, _on_graph_changed)
	if bridge.has_signal("sidecar_ready"):
		bridge.connect("sidecar_ready", notify_graph_changed)


func _on_graph_changed(changed_id: Variant, _extra: Variant = null) -> void:
	if str(changed_id) != graph_id:
		return
	notify_graph_changed()


func _request() -> void:
	_wanted = false
	_since_request = 0.0
	_serial += 1
	var options: Dictionary = _query_options()
	var from: Variant = _to_agent_space(_parent_position())
	var to: Variant = _to_agent_space(_target_point())
	var request: Object = bridge.call("request_path", graph_id, from, to, options)
	if request == null:
		_fail({"status": "error", "error": {"code": "no_request", "message": "no request made"}})
		return
	_pending = request
	request.connect("completed", _on_completed.bind(_serial), CONNECT_ONE_SHOT)


func _on_completed(result: Dictionary, serial: int) -> void:
	if serial != _serial:
		return  # A newer request (or stop()) superseded this one.
	_pending = null
	if not _active:
		return
	var status: String = str(result.get("status", "error"))
	if status == "error":
		_fail(result)
		return
	_last_result = result
	var points: PackedVector3Array = _decode_points(result.get("points"))
	var target: Vector3 = _target_point()
	if status == "found" and not points.is_empty():
		if points[points.size() - 1].distance_to(target) > 0.001:
			points.append(target)
	_set_path(points)
	_index = _first_index(points)
	_finished = false
	path_changed.emit()
	if points.is_empty():
		_finish()
	else:
		_advance()


func _fail(result: Dictionary) -> void:
	_pending = null
	_last_result = result
	path_failed.emit(result)
	if repath_interval <= 0.0:
		_set_path(PackedVector3Array())
		_finish()


## Skips the path's first point (the start cell's centre) when the parent is already between it
## and the second point, so a re-path does not step back.
func _first_index(points: PackedVector3Array) -> int:
	if points.size() < 2:
		return 0
	var here: Vector3 = _parent_position()
	if here.distance_to(points[1]) <= points[0].distance_to(points[1]):
		return 1
	return 0


func _advance() -> void:
	if _finished or _path.is_empty():
		return
	var here: Vector3 = _parent_position()
	while _index < _path.size():
		var last: bool = _index == _path.size() - 1
		var reach: float = _target_reach() if last else _path_reach()
		if here.distance_to(_path[_index]) > reach:
			break
		waypoint_reached.emit({"position": _to_agent_space(_path[_index]), "index": _index})
		_index += 1
	# Read after the signals: a handler may have set a new target.
	if not _reached and here.distance_to(_target_point()) <= _target_reach():
		_reached = true
		_wanted = false
		target_reached.emit()
	if _index >= _path.size() or _reached:
		_finish()


func _finish() -> void:
	if _finished:
		return
	_finished = true
	if _reached:
		_active = false
	navigation_finished.emit()


## Replaces the path; the one place it changes, so an agent can mirror it in its own type.
func _set_path(points: PackedVector3Array) -> void:
	_path = points


## Hook: why the parent cannot be moved ("" when it can), for the editor's warnings.
func _parent_warning() -> String:
	return ""


## Hook: the options of the next request (the agent adds its own, e.g. its obstacle id).
func _query_options() -> Dictionary:
	var options: Dictionary = path_options.duplicate()
	if not options.has("navigation_layers"):
		options["navigation_layers"] = navigation_layers
	return options


## Hook: the parent's global position in the follower's 3D space.
func _parent_position() -> Vector3:
	return Vector3.ZERO


## Hook: [member target_position] in the follower's 3D space.
func _target_point() -> Vector3:
	return Vector3.ZERO


## Hook: [param point] as the agent's own vector type, for the bridge and the signals.
func _to_agent_space(point: Vector3) -> Variant:
	return point


## Hook: a result's "points" in the follower's 3D space (empty for a value of another type).
func _decode_points(_value: Variant) -> PackedVector3Array:
	return PackedVector3Array()


## Hook: [member path_desired_distance].
func _path_reach() -> float:
	return 0.0


## Hook: [member target_desired_distance].
func _target_reach() -> float:
	return 0.0


## The Vector2 / Vector3 items of an untyped [Array] of points, in order ([param type] is
## [constant TYPE_VECTOR2] or [constant TYPE_VECTOR3]); empty for any other value.
static func _items_of_type(value: Variant, type: Variant.Type) -> Array:
	var items: Array = []
	if value is Array:
		var raw: Array = value
		for item: Variant in raw:
			if typeof(item) == type:
				items.append(item)
	return items
