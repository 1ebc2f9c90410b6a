@tool
extends "path_requester.gd"
## Internal: the path following shared by [code]AStarBridgeAgent2D[/code] and
## [code]AStarBridgeAgent3D[/code], which extend this script by path: targets, the path being
## walked, arrival. Its bases ask for the paths ([code]path_requester.gd[/code]) and avoid others
## ([code]avoiding_agent.gd[/code]). It walks the path point by point, emitting the
## [NavigationAgent2D]-style signals. It works in 3D space: the 2D agent puts its plane at z = 0,
## where a [Vector3]'s distance is the same float sum as its [Vector2]'s, so both agents follow a
## path with the same code and the same results.
## [br][br]
## An agent lives a whole game, as [NavigationAgent2D] does: a new target after an arrival (or a
## [method stop]) resets the result (no path, not finished, not reached, reachable until an
## answer says otherwise) and asks for a path; while navigating, a new target keeps the body on
## its current path until the next one comes (a target moved every frame never stops it). A
## target that moved no farther than [member repath_distance] from the one the path was made for
## (also just after an arrival) asks nothing: the path's last point moves to it. Arrival is
## never faked: [signal navigation_finished] and [signal target_reached] only within
## [code]target_desired_distance[/code] of the current target; a target no path reaches gives
## [signal target_unreachable] and [method is_target_reachable] false, and the agent keeps trying
## (on ground changes, on [code]repath_interval[/code]) without ever reporting arrival.

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

## The group every agent joins while in the tree (debug drawing finds them there).
const GROUP := &"astar_bridge_agents"

## A moving target: while navigating or just arrived, a new [code]target_position[/code] no
## farther than this from the target the current path was asked for asks for no new path (nor
## resets the result): the path's last point moves to it (so the last leg goes straight: keep
## this under the thickness of the level's walls). Farther, a new path is asked for. 0: every
## change asks (at most one request is in flight: a target set every frame is asked for again
## once the last answer came, the body following the last path meanwhile). In the agent's
## units (pixels in 2D, metres in 3D).
@export_range(0.0, 1000.0, 0.01, "or_greater") var repath_distance: float = 0.0

var _path: PackedVector3Array = PackedVector3Array()
var _index: int = 0
# The target the current path was asked for (the current target, or one the target moved from).
var _path_target: Vector3 = Vector3.ZERO
var _finished: bool = true
var _reached: bool = false
var _reachable: bool = true
var _active: bool = false
# Counts new navigations and stops, so a walk notices a signal handler that started one.
var _generation: int = 0


func _enter_tree() -> void:
	super()
	if not Engine.is_editor_hint():
		add_to_group(GROUP)


func _physics_process(delta: float) -> void:
	super(delta)
	if not Engine.is_editor_hint():
		_advance()


## True once the agent arrived (within [code]target_desired_distance[/code] of the current
## target), and while it has no target. False while navigating, while a path is on its way, and
## while the target cannot be reached ([method is_target_reachable]): arrival is never faked. A
## new target makes it false again, as [method NavigationAgent2D.set_target_position] does.
func is_navigation_finished() -> bool:
	_advance()
	return _finished


## True once the parent came within [code]target_desired_distance[/code] of the current target
## (false again after a new target).
func is_target_reached() -> bool:
	return _reached


## False once the latest path result for the current target does not reach it (no path, a
## partial path, the budget ran out); true while its first path is on its way and when a path
## reaches it.
func is_target_reachable() -> bool:
	return _reachable


## Index of the path point [method get_next_path_position] returns.
func get_current_navigation_path_index() -> int:
	return _index


## Straight-line distance from the parent to [code]target_position[/code].
func distance_to_target() -> float:
	return _parent_position().distance_to(_target_point())


## Stops navigating: the path is cleared and [method is_navigation_finished] becomes true.
func stop() -> void:
	_generation += 1
	_active = false
	_finished = true
	_wanted = false
	_reachable = true
	_set_path(PackedVector3Array())
	_index = 0
	_drop_request()


## Called by the agent's [code]target_position[/code] setter (after the new value is set):
## [param unchanged] when it equals the old one, which changes nothing while navigating.
func _retarget(unchanged: bool) -> void:
	if unchanged and _active and not _finished:
		return
	_reached = false
	if _finished and _active_path_still_serves():
		# Caught up with a moving target that moved on a little: the same path, no request.
		_active = true
		_finished = false
		_move_path_end()
		return
	if not _active or _finished:
		_begin()
		return
	if not _path.is_empty() and _near_path_target():
		_move_path_end()  # the same target for this path: no request
		return
	_reachable = true
	if _pending == null:
		_wanted = true  # else its answer is checked against the new target


## A new navigation, as [method NavigationAgent2D.set_target_position] resets its result: no
## path (the body stands until the first one comes), an answer still on its way dropped.
func _begin() -> void:
	_generation += 1
	_active = true
	_finished = false
	_reachable = true
	_wanted = true
	_last_result = {}
	_set_path(PackedVector3Array())
	_index = 0
	_drop_request()


## True when the target is no farther than [member repath_distance] from [param point].
func _near_target(point: Vector3) -> bool:
	return point.distance_to(_target_point()) <= repath_distance


func _near_path_target() -> bool:
	return _near_target(_path_target)


## After an arrival: with a [member repath_distance], a path that reached its target still
## serves a target within that distance of the one it was asked for.
func _active_path_still_serves() -> bool:
	return repath_distance > 0.0 and _reachable and not _path.is_empty() and _near_path_target()


## The path point to move towards now (the parent's position when there is none); advances first.
func _next_point() -> Vector3:
	_advance()
	if _path.is_empty() or _index >= _path.size():
		return _final_point() if not _path.is_empty() else _parent_position()
	return _path[_index]


## The last point of the current path (the parent's position when there is none).
func _final_point() -> Vector3:
	return _path[_path.size() - 1] if not _path.is_empty() else _parent_position()


func _is_navigating() -> bool:
	return _active and not _finished


## Any change of the ground when the target is unreachable (it may have opened a way), or names
## no cells, or there is no path yet; else a changed cell on or next to the rest of the path.
func _affected_by(cells: Array[Vector2i]) -> bool:
	if cells.is_empty() or not _reachable or _path.is_empty():
		return true
	return _path_touches(_path.slice(_index), cells)


## Any obstacle change when the target is unreachable (it may have opened a way) or there is no
## path; else an outline, grown by [method _obstacle_margin], that the rest of the path (from
## the parent) crosses.
func _blocked_by(outlines: Array[PackedVector2Array], bounds: Array[Rect2]) -> bool:
	if not _reachable or _path.is_empty():
		return true
	var line := PackedVector2Array([_ground_point(_parent_position())])
	for i: int in range(_index, _path.size()):
		line.append(_ground_point(_path[i]))
	var margin: float = _obstacle_margin()
	var reach: Rect2 = Rect2(line[0], Vector2.ZERO)
	for point: Vector2 in line:
		reach = reach.expand(point)
	reach = reach.grow(margin)
	for i: int in outlines.size():
		if not bounds[i].intersects(reach, true):
			continue  # the common case: one box test per obstacle
		var outline: PackedVector2Array = outlines[i]
		# A square join reaches at least the margin everywhere (a superset of the round one).
		var grown: Array[PackedVector2Array] = [outline]
		if margin > 0.0:
			grown = Geometry2D.offset_polygon(outline, margin, Geometry2D.JOIN_SQUARE)
		for piece: PackedVector2Array in grown:
			if not Geometry2D.intersect_polyline_with_polygon(line, piece).is_empty():
				return true
	return false


func _on_path_answer(result: Dictionary, target: Vector3) -> void:
	var status: String = str(result.get("status", ""))
	var points: PackedVector3Array = _decode_points(result.get("points"))
	var reaches: bool = status == "found" and not points.is_empty()
	if reaches and points[points.size() - 1].distance_to(target) > 0.001:
		points.append(target)
	if not _near_target(target):
		# The target moved on since: ask for it, and walk a path to where it was meanwhile (an
		# old target's no-path says nothing about the new one).
		_wanted = true
		if reaches:
			_take_path(points, target)
		return
	_last_result = result
	var was_reachable: bool = _reachable
	_reachable = reaches
	_take_path(points, target)
	_move_path_end()
	if not reaches and was_reachable:
		target_unreachable.emit()  # once per target until a path reaches it
	_advance()


func _take_path(points: PackedVector3Array, target: Vector3) -> void:
	_set_path(points)
	_path_target = target
	_index = _first_index(points)
	path_changed.emit()


## A path that reaches its target ends at it: a target that moved within [member repath_distance]
## of the one asked for moves that end (the last leg goes straight to it).
func _move_path_end() -> void:
	if not _reachable or _path.is_empty() or _path[_path.size() - 1] == _target_point():
		return
	var points: PackedVector3Array = _path.duplicate()
	points[points.size() - 1] = _target_point()
	_set_path(points)
	_index = mini(_index, points.size() - 1)


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
	# A signal handler may set a new target (or stop): then this walk is over.
	var generation: int = _generation
	var here: Vector3 = _parent_position()
	while _index < _path.size():
		var last: bool = _index == _path.size() - 1
		var reach: float = _target_reach() if last else _path_reach()
		if here.distance_to(_path[_index]) > reach:
			break
		waypoint_reached.emit({"position": _to_agent_space(_path[_index]), "index": _index})
		if generation != _generation:
			return
		_index += 1
	if not _reached and here.distance_to(_target_point()) <= _target_reach():
		_reached = true
		target_reached.emit()
		if generation != _generation:
			return
	if _reached:
		_finish()
	elif _reachable and _index >= _path.size() and _pending == null:
		if _path_target == _target_point():
			_finish()  # the path's end is the target (within its last point's reach)
		else:
			_wanted = true  # the target moved since this path was asked for: one to it now


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


## Hook: the crowd mode's arrival check, in place of walking a path.
func _advance_on_field() -> void:
	pass


## Hook: whether a change of [param cells] may block [param points] (the rest of the path).
## True when the agent cannot tell (no grid geometry).
func _path_touches(_points: PackedVector3Array, _cells: Array[Vector2i]) -> bool:
	return true


## Hook: [param point] on the ground plane obstacles are cut in (x, y in 2D; x, z in 3D).
func _ground_point(point: Vector3) -> Vector2:
	return Vector2(point.x, point.y)


## Hook: how far from an obstacle's outline the unit's path must keep for the obstacle not to
## block it (its radius, or on a grid its footprint's reach).
func _obstacle_margin() -> float:
	return 0.0


## Hook: a result's "points" in the follower's 3D space (empty for a value of another type).
func _decode_points(_value: Variant) -> PackedVector3Array:
	return PackedVector3Array()


## Hook: [code]path_desired_distance[/code].
func _path_reach() -> float:
	return 0.0


## Hook: [code]target_desired_distance[/code].
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
