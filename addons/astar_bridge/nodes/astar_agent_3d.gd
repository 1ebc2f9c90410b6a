@tool
class_name AStarBridgeAgent3D
extends Node
## Follows paths from the A* Bridge sidecar, in the manner of [NavigationAgent3D].
##
## Add it as a child of a [Node3D] (typically a [CharacterBody3D]), set [member graph_id] and
## [member target_position], then each physics frame move the parent towards
## [method get_next_path_position] until [method is_navigation_finished]. Paths are requested
## with [code]AStarBridge.request_path[/code] (asynchronous: a frame never waits for the
## sidecar); a new request is made when the target changes, when the graph is reloaded or
## updated ([method notify_graph_changed]) and, if [member repath_interval] > 0, periodically.
## Grids are 2D: this agent paths on 3D navmeshes and 3D waypoint graphs, so it has no
## [code]agent_id[/code] (see [code]AStarBridgeAgent2D[/code]).
## [codeblock]
## func _physics_process(_delta: float) -> void:
##     if $Agent.is_navigation_finished():
##         return
##     velocity = global_position.direction_to($Agent.get_next_path_position()) * 4.0
##     move_and_slide()
## [/codeblock]

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
## Where to go, in global coordinates. Setting a different value requests a new path.
@export var target_position: Vector3 = Vector3.ZERO:
	set = set_target_position
## Distance at which a path point counts as reached and the next one is targeted.
@export_range(0.1, 100.0, 0.1, "or_greater", "suffix:m") var path_desired_distance: float = 0.5
## Distance to [member target_position] at which the target counts as reached.
@export_range(0.1, 100.0, 0.1, "or_greater", "suffix:m") var target_desired_distance: float = 0.5
## Seconds between automatic re-paths while navigating (0 = only on target or graph changes).
## Also the retry delay after a failed or blocked request.
@export_range(0.0, 10.0, 0.05, "or_greater", "suffix:s") var repath_interval: float = 0.0
## Extra query options merged into every request (e.g. {"allow_partial": true}).
@export var path_options: Dictionary = {}

## The bridge used for requests; defaults to the [code]AStarBridge[/code] autoload. Any node with
## [code]request_path[/code] works.
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
	if not get_parent() is Node3D:
		warnings.append("AStarBridgeAgent3D moves nothing by itself: make it a child of a Node3D.")
	return warnings


## Sets [member target_position]; a different value starts navigating there (a new path is
## requested on the next physics frame).
func set_target_position(value: Vector3) -> void:
	if value == target_position and _active and not _finished:
		return
	target_position = value
	_active = true
	_finished = false
	_reached = false
	_wanted = true


## The path point the parent should move towards now (its own position when there is no path).
## Calling it also advances along the path, emitting [signal waypoint_reached] and the arrival
## signals, as [method NavigationAgent3D.get_next_path_position] does.
func get_next_path_position() -> Vector3:
	_advance()
	if _path.is_empty() or _index >= _path.size():
		return _origin()
	return _path[_index]


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


## The current path (global coordinates), the target appended when the path reaches it.
func get_current_navigation_path() -> PackedVector3Array:
	return _path


## Index of the path point [method get_next_path_position] returns.
func get_current_navigation_path_index() -> int:
	return _index


## The last path result: {"status", "points", "cost", "expanded", "error"} ({} before any).
func get_current_navigation_result() -> Dictionary:
	return _last_result


## The last point of the current path (the parent's position when there is none).
func get_final_position() -> Vector3:
	return _path[_path.size() - 1] if not _path.is_empty() else _origin()


## Straight-line distance from the parent to [member target_position].
func distance_to_target() -> float:
	return _origin().distance_to(target_position)


## Asks for a new path on the next physics frame (call it after changing the graph yourself).
func notify_graph_changed() -> void:
	if _active:
		_wanted = true


## Stops navigating: the path is cleared and [method is_navigation_finished] becomes true.
func stop() -> void:
	_active = false
	_finished = true
	_wanted = false
	_path = PackedVector3Array()
	_index = 0
	_serial += 1
	_pending = null


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
	var options: Dictionary = path_options.duplicate()
	var request: Object = bridge.call("request_path", graph_id, _origin(), target_position, options)
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
	var points: PackedVector3Array = _points_of(result.get("points"))
	if status == "found" and not points.is_empty():
		if points[points.size() - 1].distance_to(target_position) > 0.001:
			points.append(target_position)
	_path = points
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
		_path = PackedVector3Array()
		_finish()


## Skips the path's first point (the start cell's centre) when the parent is already between it
## and the second point, so a re-path does not step back.
func _first_index(points: PackedVector3Array) -> int:
	if points.size() < 2:
		return 0
	var here: Vector3 = _origin()
	if here.distance_to(points[1]) <= points[0].distance_to(points[1]):
		return 1
	return 0


func _advance() -> void:
	if _finished or _path.is_empty():
		return
	var here: Vector3 = _origin()
	while _index < _path.size():
		var last: bool = _index == _path.size() - 1
		var reach: float = target_desired_distance if last else path_desired_distance
		if here.distance_to(_path[_index]) > reach:
			break
		waypoint_reached.emit({"position": _path[_index], "index": _index})
		_index += 1
	if not _reached and here.distance_to(target_position) <= target_desired_distance:
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


func _origin() -> Vector3:
	var parent: Node = get_parent()
	if parent is Node3D:
		return (parent as Node3D).global_position
	return Vector3.ZERO


static func _points_of(value: Variant) -> PackedVector3Array:
	if value is PackedVector3Array:
		return value
	if value is PackedByteArray:
		var raw: PackedByteArray = value
		return raw.to_vector3_array()
	if value is Array:
		var points := PackedVector3Array()
		for item: Variant in value:
			if item is Vector3:
				var point: Vector3 = item
				points.append(point)
		return points
	return PackedVector3Array()
