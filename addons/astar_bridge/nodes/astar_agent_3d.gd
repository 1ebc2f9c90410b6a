@tool
@icon("res://addons/astar_bridge/icons/agent_3d.svg")
class_name AStarBridgeAgent3D
extends "path_follower.gd"
## Follows paths from the A* Bridge sidecar, in the manner of [NavigationAgent3D].
##
## Add it as a child of a [Node3D] (typically a [CharacterBody3D]), set [member graph_id] and
## [member target_position], then each physics frame move the parent towards
## [method get_next_path_position] until [method is_navigation_finished]. Paths are requested
## with [code]AStarBridge.request_path[/code] (asynchronous: a frame never waits for the
## sidecar); a new one when the target changes, when the graph is updated, reloaded or the
## sidecar restarted and, if [member repath_interval] > 0, periodically.
## [signal navigation_finished] means arrival only; an unreachable target gives
## [signal target_unreachable] and [method is_target_reachable] false instead. A new target
## after an arrival resets the result as [method NavigationAgent3D.set_target_position] does (a
## patrol sets the next point from [signal navigation_finished]); a target set every frame is
## followed, re-pathed when it moved farther than [member repath_distance]. With
## [member avoidance_enabled], [method set_velocity] is answered by [signal velocity_computed]
## with a velocity that keeps clear of other avoiding agents (Godot's own RVO avoidance, on the
## XZ plane). Grids are 2D: this agent paths on 3D navmeshes and 3D waypoint graphs, so it has no
## [code]agent_id[/code] nor [code]size[/code] (see [code]AStarBridgeAgent2D[/code]).
## A unit wider than the agent radius the navmesh was baked for sets [member path_radius] (the
## extra radius): its paths then keep that far from every wall, on the same loaded map as the
## narrow units' ([method get_body_radius] measures the body; nothing is sent while it is 0).
## [codeblock]
## func _physics_process(_delta: float) -> void:
##     if $Agent.is_navigation_finished():
##         return
##     velocity = global_position.direction_to($Agent.get_next_path_position()) * 4.0
##     move_and_slide()
## [/codeblock]

## Emitted after [method set_velocity] with the velocity to move at: the same one without
## avoidance (at once), a safe one with [member avoidance_enabled] (after the avoidance step).
signal velocity_computed(safe_velocity: Vector3)

const BodyExtent = preload("body_extent.gd")

## Where to go, in global coordinates. Setting a different value requests a new path, and after
## an arrival any value does (but one within [member repath_distance]: a moving target).
@export var target_position: Vector3 = Vector3.ZERO:
	set = set_target_position
## Distance at which a path point counts as reached and the next one is targeted.
@export_range(0.1, 100.0, 0.1, "or_greater", "suffix:m") var path_desired_distance: float = 0.5
## Distance to [member target_position] at which the target counts as reached.
@export_range(0.1, 100.0, 0.1, "or_greater", "suffix:m") var target_desired_distance: float = 0.5

@export_group("Avoidance")
## The agent's avoidance radius.
@export_range(0.01, 100.0, 0.01, "or_greater", "suffix:m") var radius: float = 0.5:
	set(value):
		radius = value
		_configure_avoidance()
## The fastest the avoidance may make the agent go.
@export_range(0.01, 10000.0, 0.01, "or_greater", "suffix:m/s") var max_speed: float = 10.0:
	set(value):
		max_speed = value
		_configure_avoidance()
## How far other agents are considered by the avoidance.
@export_range(0.1, 10000.0, 0.01, "or_greater", "suffix:m") var neighbor_distance: float = 50.0:
	set(value):
		neighbor_distance = value
		_configure_avoidance()


## Sets [member target_position]; a different value starts navigating there (a new path is
## requested on the next physics frame), as does any value once the agent arrived or stopped.
func set_target_position(value: Vector3) -> void:
	var unchanged: bool = value == target_position
	target_position = value
	_retarget(unchanged)


## The path point the parent should move towards now (its own position when there is no path).
## Calling it also advances along the path, emitting [signal waypoint_reached] and the arrival
## signals, as [method NavigationAgent3D.get_next_path_position] does.
func get_next_path_position() -> Vector3:
	return _next_point()


## The velocity the parent wants to move at; [signal velocity_computed] answers with the one
## to use (see [member avoidance_enabled]). Call it once per physics frame while moving.
func set_velocity(velocity: Vector3) -> void:
	_submit_velocity(velocity)


## The current path (global coordinates), the target appended when the path reaches it.
func get_current_navigation_path() -> PackedVector3Array:
	return _path


## The last point of the current path (the parent's position when there is none).
func get_final_position() -> Vector3:
	return _final_point()


## How far the parent body's enabled [CollisionShape3D]s reach from its position in the
## horizontal plane (a sphere's, capsule's or cylinder's radius, half a box's larger horizontal
## side; 0 without shapes). For a wide unit: [code]path_radius = get_body_radius() - baked[/code].
func get_body_radius() -> float:
	var parent: Node = get_parent()
	if parent is Node3D:
		return BodyExtent.radius_3d(parent as Node3D)
	return 0.0


func _dimensions() -> int:
	return 3


func _navigation_map() -> RID:
	var parent: Node = get_parent()
	if parent is Node3D:
		return (parent as Node3D).get_world_3d().navigation_map
	return RID()


func _radius() -> float:
	return radius


func _max_speed() -> float:
	return max_speed


func _neighbor_distance() -> float:
	return neighbor_distance


func _emit_velocity(velocity: Vector3) -> void:
	velocity_computed.emit(velocity)


# Obstacles are cut in the xz plane, the cut mesh keeping the unit's radius from them.
func _ground_point(point: Vector3) -> Vector2:
	return Vector2(point.x, point.z)


func _obstacle_margin() -> float:
	return maxf(path_radius, radius)


func _parent_warning() -> String:
	if get_parent() is Node3D:
		return ""
	return "AStarBridgeAgent3D moves nothing by itself: make it a child of a Node3D."


func _parent_position() -> Vector3:
	var parent: Node = get_parent()
	if parent is Node3D:
		return (parent as Node3D).global_position
	return Vector3.ZERO


func _target_point() -> Vector3:
	return target_position


func _decode_points(value: Variant) -> PackedVector3Array:
	if value is PackedVector3Array:
		return value
	if value is PackedByteArray:
		var raw: PackedByteArray = value
		return raw.to_vector3_array()
	return PackedVector3Array(_items_of_type(value, TYPE_VECTOR3))


func _path_reach() -> float:
	return path_desired_distance


func _target_reach() -> float:
	return target_desired_distance
