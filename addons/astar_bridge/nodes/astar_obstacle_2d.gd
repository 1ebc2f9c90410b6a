@tool
@icon("res://addons/astar_bridge/icons/obstacle_2d.svg")
class_name AStarBridgeObstacle2D
extends Node2D
## An obstacle that paths go around, on a grid or a 2D navigation mesh loaded into
## [code]AStarBridge[/code]: a polygon ([member vertices]) or a circle ([member radius]), static
## or moving. Unlike [NavigationObstacle2D], which only steers avoidance, it changes the paths
## themselves: a grid blocks the cells under it, a navmesh is cut around it.
## [br][br]
## Placed when it enters the tree (on a graph loaded later, with that load), sent again when its
## global transform or shape changes, removed when it leaves; every obstacle change of a frame
## leaves as one [code]graph.update[/code] per graph at the frame's end. Agents whose remaining
## path crosses it re-path; the others keep theirs. With [member use_engine_obstacle] the shape
## is the [NavigationObstacle2D] child (or sibling) a game already has.
## [codeblock]
## var cart := AStarBridgeObstacle2D.new()
## cart.graph_id = &"level"
## cart.vertices = PackedVector2Array([Vector2(-8, -8), Vector2(8, -8), Vector2(0, 8)])
## add_child(cart)  # paths on "level" go around it from the end of this frame
## [/codeblock]

const ObstacleLink = preload("obstacle_link.gd")
const ObstacleSerializer = preload("../serializers/obstacle_serializer.gd")

## Id of the graph (grid or 2D navmesh, as loaded into AStarBridge) the obstacle stands on.
@export var graph_id: StringName = &"":
	set(value):
		graph_id = value
		_changed()
## The outline in this node's local space (as [member NavigationObstacle2D.vertices]): 3 or more
## points, a simple polygon. When empty, the obstacle is the circle of [member radius].
@export var vertices: PackedVector2Array = PackedVector2Array():
	set(value):
		vertices = value
		_changed()
## The circle's radius (in local units; scaled with the node) when [member vertices] is empty.
@export_range(0.0, 1000.0, 0.01, "or_greater", "suffix:px") var radius: float = 0.0:
	set(value):
		radius = value
		_changed()
## Takes the shape (vertices, else radius) from the [NavigationObstacle2D] child, or else
## sibling, and follows it: a game that already has the engine's obstacles flags them.
@export var use_engine_obstacle: bool = false:
	set(value):
		use_engine_obstacle = value
		_changed()

var _link: ObstacleLink = ObstacleLink.new()
# The engine obstacle's transform and shape last sent (use_engine_obstacle).
var _engine_seen: Array = []


func _enter_tree() -> void:
	if Engine.is_editor_hint():
		return
	set_notify_transform(true)
	_link.attach(self)
	_changed()


func _exit_tree() -> void:
	if not Engine.is_editor_hint():
		_link.leave()


func _physics_process(_delta: float) -> void:
	# The engine's obstacle tells nothing when it changes: its shape is compared each frame.
	if use_engine_obstacle and not Engine.is_editor_hint() and _engine_state() != _engine_seen:
		_changed()


func _notification(what: int) -> void:
	if what == NOTIFICATION_TRANSFORM_CHANGED and not Engine.is_editor_hint():
		_changed()


func _get_configuration_warnings() -> PackedStringArray:
	var warnings := PackedStringArray()
	if graph_id.is_empty():
		warnings.append("Set graph_id to the id of a grid or navmesh loaded into AStarBridge.")
	if use_engine_obstacle and _engine_obstacle() == null:
		warnings.append("use_engine_obstacle needs a NavigationObstacle2D child or sibling.")
	elif not use_engine_obstacle and vertices.size() < 3 and not radius > 0.0:
		warnings.append("Give vertices (3 or more) or a radius > 0.")
	return warnings


## This obstacle's id on its graph (AStarBridge.set_obstacle's; unique in the running game).
func get_obstacle_id() -> int:
	return _link.id


## The bridge the obstacle is sent to (the [code]AStarBridge[/code] autoload unless set before
## the node enters the tree).
func set_bridge(node: Node) -> void:
	_link.bridge = node


## The outline as the sidecar cuts it, in global positions (a circle's 16-gon around it);
## empty when there is no shape.
func get_global_outline() -> PackedVector2Array:
	var shape: Array = _shape()
	if shape.is_empty():
		return PackedVector2Array()
	var reach: float = shape[1]
	if shape[0] is Vector2:
		var center: Vector2 = shape[0]
		return ObstacleSerializer.circle_outline(center, reach)
	var outline: PackedVector2Array = shape[0]
	return outline


func _changed() -> void:
	if Engine.is_editor_hint():
		update_configuration_warnings()
	elif is_inside_tree():
		_link.schedule(_send)


func _send() -> void:
	if not is_inside_tree():
		return
	var shape: Array = _shape()
	if shape.is_empty():
		_link.leave()  # no shape (yet): not an obstacle
		return
	var reach: float = shape[1]
	_link.place(str(graph_id), shape[0], reach, INF)


# [outline in global positions, 0.0] or [global centre, global radius]; [] without a shape.
func _shape() -> Array:
	var source: Node2D = self
	var points: PackedVector2Array = vertices
	var reach: float = radius
	if use_engine_obstacle:
		var engine: NavigationObstacle2D = _engine_obstacle()
		_engine_seen = _engine_state()
		if engine == null:
			return []
		source = engine
		points = engine.vertices
		reach = engine.radius
	var xform: Transform2D = source.global_transform
	if points.size() >= 3:
		return [xform * points, 0.0]
	if reach > 0.0:
		return [xform.origin, reach * maxf(absf(xform.get_scale().x), absf(xform.get_scale().y))]
	return []


func _engine_obstacle() -> NavigationObstacle2D:
	for child: Node in get_children():
		if child is NavigationObstacle2D:
			return child
	var parent: Node = get_parent()
	if parent != null:
		for sibling: Node in parent.get_children():
			if sibling is NavigationObstacle2D:
				return sibling
	return null


func _engine_state() -> Array:
	var engine: NavigationObstacle2D = _engine_obstacle()
	if engine == null:
		return []
	return [engine.global_transform, engine.vertices, engine.radius]
