@tool
extends Node
## Internal: the path following shared by [code]AStarBridgeAgent2D[/code] and
## [code]AStarBridgeAgent3D[/code], which extend this script by path.
##
## It requests paths from the bridge (at most one in flight), asks again when the target
## changes, when a [code]graph_updated[/code] change touches the rest of its path, when the graph
## is reloaded or the sidecar restarted, and on [member repath_interval]; it walks the path point
## by point, emitting the [NavigationAgent2D]-style signals, and hands velocities to Godot's own
## avoidance ([member avoidance_enabled]). It works in 3D space: the 2D agent puts its plane at
## z = 0, where a [Vector3]'s distance is the same float sum as its [Vector2]'s, so both agents
## follow a path with the same code and the same results. Each agent keeps its typed API
## (properties, returns and [code]velocity_computed[/code] in its own vector type) and overrides
## the hooks at the end of this script.
## [br][br]
## Arrival and unreachable targets are told apart: [signal navigation_finished] and
## [signal target_reached] only on arrival; a target no path reaches gives
## [signal target_unreachable] and [method is_target_reachable] false, and the agent keeps trying
## (on ground changes, on [member repath_interval]) without ever reporting arrival.
## No [code]class_name[/code]: the agents extend it by path, so it parses in a fresh clone,
## before the editor has scanned the project for global classes.

## Emitted when a new path arrived (also an empty one: see [method is_target_reachable]).
signal path_changed
## Emitted when a path point is reached; [param details] holds "position" and "index".
signal waypoint_reached(details: Dictionary)
## Emitted once when the parent came within [member target_desired_distance] of the target.
signal target_reached
## Emitted once on arrival: the end of a path that reaches the target (or the target itself).
## Never when the target cannot be reached (see [signal target_unreachable]).
signal navigation_finished
## Emitted when a path result shows the target cannot be reached (no path; a partial path, which
## is still followed; the search budget ran out). Once per target until a path reaches it.
signal target_unreachable
## Emitted when a path request failed (status "error"); [param result] is the request's result.
## The agent keeps its path and tries again (see [member repath_interval]).
signal path_failed(result: Dictionary)

## The group every agent joins while in the tree (debug drawing finds them there).
const GROUP := &"astar_bridge_agents"
## Seconds before a failed request is tried again when [member repath_interval] is 0.
const RETRY_S := 1.0
const _BRIDGE_PATH := ^"/root/AStarBridge"
const AgentAvoidance = preload("agent_avoidance.gd")

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

@export_group("Avoidance")
## Uses Godot's own RVO avoidance ([NavigationServer2D] / [NavigationServer3D] agents on the
## parent's world map): [method set_velocity] is answered by [code]velocity_computed[/code] with a
## velocity that keeps clear of other avoiding agents.
@export var avoidance_enabled: bool = false:
	set(value):
		avoidance_enabled = value
		_update_avoidance()
## How many other agents are considered at once.
@export_range(1, 100, 1) var max_neighbors: int = 10:
	set(value):
		max_neighbors = value
		_configure_avoidance()
## Seconds ahead the avoidance looks for collisions with other agents.
@export_range(0.01, 10.0, 0.01, "or_greater", "suffix:s") var time_horizon_agents: float = 1.0:
	set(value):
		time_horizon_agents = value
		_configure_avoidance()
## Avoidance layers this agent is on.
@export_flags_avoidance var avoidance_layers: int = 1:
	set(value):
		avoidance_layers = value
		_configure_avoidance()
## Avoidance layers of the agents this one avoids.
@export_flags_avoidance var avoidance_mask: int = 1:
	set(value):
		avoidance_mask = value
		_configure_avoidance()

## The bridge used for requests; defaults to the [code]AStarBridge[/code] autoload. Any node with
## [code]request_path[/code] works (the 2D agent with an agent id also needs
## [code]update_graph[/code]).
var bridge: Node = null

var _path: PackedVector3Array = PackedVector3Array()
var _index: int = 0
var _last_result: Dictionary = {}
var _finished: bool = true
var _reached: bool = false
var _reachable: bool = true
var _active: bool = false
var _wanted: bool = false
var _pending: Object = null
var _serial: int = 0
var _since_request: float = 0.0
var _retry_after: float = -1.0
var _avoidance: AgentAvoidance = null
var _velocity_submitted: bool = false


func _enter_tree() -> void:
	if Engine.is_editor_hint():
		return
	add_to_group(GROUP)
	_update_avoidance.call_deferred()


func _exit_tree() -> void:
	if _avoidance != null:
		_avoidance.free_agent()


func _ready() -> void:
	if Engine.is_editor_hint():
		return
	if bridge == null:
		bridge = get_node_or_null(_BRIDGE_PATH)
	_connect_bridge()


func _physics_process(delta: float) -> void:
	if Engine.is_editor_hint():
		return
	if _avoidance != null and _avoidance.is_active():
		_avoidance.set_position(_parent_position())
		if not _velocity_submitted:
			# Nothing asked this frame: stand still for the others rather than keep the old wish.
			_avoidance.set_velocity(Vector3.ZERO)
	if _follows_field():
		_advance()
		return
	if bridge == null:
		return
	_since_request += delta
	if _active and not _finished:
		if repath_interval > 0.0 and _since_request >= repath_interval:
			_wanted = true
		if _retry_after >= 0.0 and _since_request >= _retry_after:
			_wanted = true
	if _wanted and _pending == null:
		_request()
	_advance()


func _get_configuration_warnings() -> PackedStringArray:
	var warnings := PackedStringArray()
	if graph_id.is_empty():
		warnings.append("Set graph_id to the id of a graph loaded into AStarBridge.")
	var parent_warning: String = _parent_warning()
	if not parent_warning.is_empty():
		warnings.append(parent_warning)
	return warnings


## True once the agent arrived (the end of a path reaching the target, or the target itself),
## and while it has no target. False while navigating, while a first path is on its way, and
## while the target cannot be reached ([method is_target_reachable]): arrival is never faked.
func is_navigation_finished() -> bool:
	_advance()
	return _finished


## True once the parent came within [member target_desired_distance] of the target.
func is_target_reached() -> bool:
	return _reached


## False once the latest path result for the current target does not reach it (no path, a
## partial path, the budget ran out); true while its first path is on its way and when a path
## reaches it.
func is_target_reachable() -> bool:
	return _reachable


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


## Asks for a new path on the next physics frame (call it after changing the graph yourself by
## other means than [code]AStarBridge.update_graph[/code], which agents follow on their own).
func notify_graph_changed() -> void:
	if _active and not _finished:
		_wanted = true


## Stops navigating: the path is cleared and [method is_navigation_finished] becomes true.
func stop() -> void:
	_active = false
	_finished = true
	_wanted = false
	_reachable = true
	_retry_after = -1.0
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
	_reachable = true
	_wanted = true


## The path point to move towards now (the parent's position when there is none); advances first.
func _next_point() -> Vector3:
	_advance()
	if _path.is_empty() or _index >= _path.size():
		return _final_point() if not _path.is_empty() else _parent_position()
	return _path[_index]


## The last point of the current path (the parent's position when there is none).
func _final_point() -> Vector3:
	return _path[_path.size() - 1] if not _path.is_empty() else _parent_position()


## Called by the agent's [code]set_velocity[/code]: the velocity the parent wants, answered by
## [method _emit_velocity] (after the server's avoidance step, or at once without avoidance).
func _submit_velocity(velocity: Vector3) -> void:
	if _avoidance == null or not _avoidance.is_active():
		_emit_velocity(velocity)
		return
	_velocity_submitted = true
	_avoidance.set_position(_parent_position())
	_avoidance.set_velocity(velocity)


func _on_safe_velocity(safe: Vector3) -> void:
	if not _velocity_submitted:
		return  # the server answers every step; only answer what was asked
	_velocity_submitted = false
	_emit_velocity(safe)


func _update_avoidance() -> void:
	if Engine.is_editor_hint() or not is_inside_tree():
		return
	if not avoidance_enabled:
		if _avoidance != null:
			_avoidance.free_agent()
		_velocity_submitted = false
		return
	if _avoidance == null:
		_avoidance = AgentAvoidance.new(_dimensions())
		_avoidance.on_safe_velocity = _on_safe_velocity
	_avoidance.create(_navigation_map())
	_configure_avoidance()
	_avoidance.set_position(_parent_position())


func _configure_avoidance() -> void:
	if _avoidance == null:
		return
	_avoidance.configure(
		_radius(),
		_max_speed(),
		_neighbor_distance(),
		max_neighbors,
		time_horizon_agents,
		avoidance_layers,
		avoidance_mask
	)


func _connect_bridge() -> void:
	if bridge == null:
		return
	if bridge.has_signal("graph_loaded"):
		bridge.connect("graph_loaded", _on_graph_loaded)
	if bridge.has_signal("graph_updated"):
		bridge.connect("graph_updated", _on_graph_updated)
	if bridge.has_signal("sidecar_ready"):
		bridge.connect("sidecar_ready", notify_graph_changed)


func _on_graph_loaded(changed_id: String) -> void:
	if changed_id == graph_id:
		notify_graph_changed()


## Re-paths only when the change may matter to this agent: a changed cell on or next to the rest
## of its path, any change when the target is unreachable (it may have opened a way) or when the
## change names no cells, and when a request is on its way (its answer may predate the change).
func _on_graph_updated(changed_id: String, cells: Array[Vector2i]) -> void:
	if changed_id != graph_id or not _active or _finished:
		return
	if cells.is_empty() or not _reachable or _pending != null or _path.is_empty():
		_wanted = true
	elif _path_touches(_path.slice(_index), cells):
		_wanted = true


func _request() -> void:
	_wanted = false
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
		return  # A newer request (or stop()) superseded this one.
	_pending = null
	if not _active:
		return
	var status: String = str(result.get("status", "error"))
	if status == "error":
		_fail(result)
		return
	if target != _target_point():
		_wanted = true  # an answer for an older target: ask again for the current one
		return
	_last_result = result
	var points: PackedVector3Array = _decode_points(result.get("points"))
	var reaches: bool = status == "found" and not points.is_empty()
	if reaches and points[points.size() - 1].distance_to(target) > 0.001:
		points.append(target)
	_set_path(points)
	_index = _first_index(points)
	var was_reachable: bool = _reachable
	_reachable = reaches
	path_changed.emit()
	if not reaches and was_reachable:
		target_unreachable.emit()  # once per target until a path reaches it
	_advance()


func _fail(result: Dictionary) -> void:
	_pending = null
	_last_result = result
	_retry_after = repath_interval if repath_interval > 0.0 else RETRY_S
	path_failed.emit(result)


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
	if _follows_field():
		_advance_on_field()
		return
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
		target_reached.emit()
	if _reached or (_reachable and _index >= _path.size() and _pending == null):
		_finish()


func _finish() -> void:
	if _finished:
		return
	_finished = true
	_active = false
	_wanted = false
	_retry_after = -1.0
	navigation_finished.emit()


## Replaces the path; the one place it changes, so an agent can mirror it in its own type.
func _set_path(points: PackedVector3Array) -> void:
	_path = points


## Hook: true while the agent follows a flow field instead of asking paths (the 2D agent's crowd
## mode): no requests, and arrival is the field's to tell ([method _advance_on_field]).
func _follows_field() -> bool:
	return false


## Hook: the crowd mode's arrival check, in place of walking a path.
func _advance_on_field() -> void:
	pass


## Hook: 2 or 3, the agent's space (for the avoidance server).
func _dimensions() -> int:
	return 3


## Hook: the navigation map the avoidance agent joins (the parent's world map).
func _navigation_map() -> RID:
	return RID()


## Hook: the agent's avoidance radius.
func _radius() -> float:
	return 0.5


## Hook: the agent's top speed for avoidance.
func _max_speed() -> float:
	return 10.0


## Hook: how far other agents are considered by avoidance.
func _neighbor_distance() -> float:
	return 50.0


## Hook: emits the agent's typed [code]velocity_computed[/code] with [param velocity].
func _emit_velocity(_velocity: Vector3) -> void:
	pass


## Hook: whether a change of [param cells] may block [param points] (the rest of the path).
## True when the agent cannot tell (no grid geometry).
func _path_touches(_points: PackedVector3Array, _cells: Array[Vector2i]) -> bool:
	return true


## Hook: why the parent cannot be moved ("" when it can), for the editor's warnings.
func _parent_warning() -> String:
	return ""


## Hook: the options of the next request (the agent adds its own, e.g. its obstacle id).
func _query_options() -> Dictionary:
	var options: Dictionary = path_options.duplicate()
	if not options.has("navigation_layers"):
		options["navigation_layers"] = navigation_layers
	if optimal and not options.has("optimal"):
		options["optimal"] = true
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
