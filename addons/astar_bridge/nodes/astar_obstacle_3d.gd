@tool
@icon("res://addons/astar_bridge/icons/obstacle_3d.svg")
class_name AStarBridgeObstacle3D
extends Node3D
## An obstacle that paths go around on a 3D navigation mesh loaded into [code]AStarBridge[/code]:
## a prism over an outline in the xz plane ([member vertices], y ignored) or a cylinder
## ([member radius]), from this node's height up by [member height]. Unlike
## [NavigationObstacle3D], which only steers avoidance, it cuts the polygons it stands on (those
## whose height lies within it), so paths go around it.
## [br][br]
## Placed when it enters the tree (on a graph loaded later, with that load), sent again when its
## global transform or shape changes, removed when it leaves; every obstacle change of a frame
## leaves as one [code]graph.update[/code] per graph at the frame's end. Agents whose remaining
## path crosses it re-path; the others keep theirs. With [member use_engine_obstacle] the shape
## is the [NavigationObstacle3D] child (or sibling) a game already has.
## [codeblock]
## var crate := AStarBridgeObstacle3D.new()
## crate.graph_id = &"level"
## crate.radius = 0.8
## crate.height = 2.0
## add_child(crate)  # paths on "level" go around it from the end of this frame
## [/codeblock]

const ObstacleLink = preload("obstacle_link.gd")
const ObstacleSerializer = preload("../serializers/obstacle_serializer.gd")

## Id of the 3D navmesh (as loaded into AStarBridge) the obstacle stands on.
@export var graph_id: StringName = &"":
	set(value):
		graph_id = value
		_changed()
## The outline in this node's local space, y ignored (as [member NavigationObstacle3D.vertices]):
## 3 or more points, a simple polygon in xz. When empty, the obstacle is the cylinder of
## [member radius].
@export var vertices: PackedVector3Array = PackedVector3Array():
	set(value):
		vertices = value
		_changed()
## The cylinder's radius (scaled with the node) when [member vertices] is empty.
@export_range(0.0, 100.0, 0.01, "or_greater", "suffix:m") var radius: float = 0.0:
	set(value):
		radius = value
		_changed()
## How far up from this node the obstacle reaches: it cuts the polygons whose height lies in
## [code][y, y + height][/code]. 0: no limit (every polygon under the outline, any floor).
@export_range(0.0, 100.0, 0.01, "or_greater", "suffix:m") var height: float = 0.0:
	set(value):
		height = value
		_changed()
## Takes the shape (vertices, else radius; height) from the [NavigationObstacle3D] child, or
## else sibling, and follows it: a game that already has the engine's obstacles flags them.
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
		warnings.append("Set graph_id to the id of a 3D navmesh loaded into AStarBridge.")
	if use_engine_obstacle and _engine_obstacle() == null:
		warnings.append("use_engine_obstacle needs a NavigationObstacle3D child or sibling.")
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


## The outline as the sidecar cuts it, in global x and z (a cylinder's 16-gon around it); empty
## when there is no shape.
func get_global_outline() -> PackedVector2Array:
	var shape: Array = _shape()
	if shape.is_empty():
		return PackedVector2Array()
	if shape[0] is Vector3:
		var center: Vector3 = shape[0]
		var reach: float = shape[1]
		return ObstacleSerializer.circle_outline(Vector2(center.x, center.z), reach)
	var placed: PackedVector3Array = shape[0]
	var flat := PackedVector2Array()
	for point: Vector3 in placed:
		flat.append(Vector2(point.x, point.z))
	return flat


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
	var limit: float = shape[2]
	_link.place(str(graph_id), shape[0], reach, limit)


# [outline in global positions (every y the base), 0.0, height] or [global centre, global
# radius, height] (height INF: no limit); [] without a shape.
func _shape() -> Array:
	var source: Node3D = self
	var points: PackedVector3Array = vertices
	var reach: float = radius
	var up: float = height
	if use_engine_obstacle:
		var engine: NavigationObstacle3D = _engine_obstacle()
		_engine_seen = _engine_state()
		if engine == null:
			return []
		source = engine
		points = engine.vertices
		reach = engine.radius
		up = engine.height
	var xform: Transform3D = source.global_transform
	var limit: float = up * absf(xform.basis.get_scale().y) if up > 0.0 else INF
	var base: float = xform.origin.y
	if points.size() >= 3:
		var placed: PackedVector3Array = xform * points
		for i: int in placed.size():
			placed[i].y = base  # the outline lies in xz; its base is the node's height
		return [placed, 0.0, limit]
	if reach > 0.0:
		var stretch: Vector3 = xform.basis.get_scale().abs()
		return [xform.origin, reach * maxf(stretch.x, stretch.z), limit]
	return []


func _engine_obstacle() -> NavigationObstacle3D:
	for child: Node in get_children():
		if child is NavigationObstacle3D:
			return child
	var parent: Node = get_parent()
	if parent != null:
		for sibling: Node in parent.get_children():
			if sibling is NavigationObstacle3D:
				return sibling
	return null


func _engine_state() -> Array:
	var engine: NavigationObstacle3D = _engine_obstacle()
	if engine == null:
		return []
	return [engine.global_transform, engine.vertices, engine.radius, engine.height]
