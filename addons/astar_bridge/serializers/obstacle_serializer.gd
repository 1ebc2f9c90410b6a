## Builds the [code]obstacles[/code] operations of a [code]graph.update[/code] (bridge/PROTOCOL.md,
## "Obstacles") from world shapes, and the ground-plane outline of each (what an agent tests its
## path against). Pure functions: nothing is sent.
##
## A 2D shape is a [PackedVector2Array] polygon (or a [Vector2] centre and a radius); a 3D one a
## [PackedVector3Array] whose x and z make the outline (or a [Vector3] centre), y of its first
## point the obstacle's base when a [param height] (> 0) limits it. A bad shape gives {} after a
## push_error saying what is wrong.
## [codeblock]
## const Serializer = preload("res://addons/astar_bridge/serializers/obstacle_serializer.gd")
## var cart := PackedVector2Array([Vector2(0, 0), Vector2(4, 0), Vector2(4, 4)])
## var shape := Serializer.polygon(7, cart)
## AStarBridge.update_graph("level", {"obstacles": [shape["op"]]})
## [/codeblock]
extends RefCounted

## Sides of the polygon that stands for a circle: the sidecar's (python_core/obstacles.py).
const CIRCLE_SIDES := 16
## Most vertices of one obstacle outline.
const MAX_VERTICES := 4096
## Outlines of up to this many vertices are checked for crossing sides here (O(n^2)); longer ones
## by the sidecar (a crossing then fails the frame's update of that graph).
const CHECKED_VERTICES := 64


## Obstacle [param id] with outline [param points] (see the class description), as
## [code]{"op": the wire's "set" operation, "outline": its ground-plane outline, "bounds": the
## outline's [Rect2], "dim": 2 or 3}[/code]; {} after a push_error for a bad id, too few or
## non-finite points, no area, crossing sides or a bad height.
static func polygon(id: int, points: Variant, height: float = INF) -> Dictionary:
	var flat: PackedVector2Array = _ground(points)
	var problem: String = _id_problem(id)
	if problem.is_empty() and not (points is PackedVector2Array or points is PackedVector3Array):
		problem = (
			"needs a PackedVector2Array or PackedVector3Array outline, got %s"
			% [type_string(typeof(points))]
		)
	if problem.is_empty():
		problem = outline_problem(flat)
	if problem.is_empty():
		problem = _height_problem(height, points is PackedVector3Array)
	if not problem.is_empty():
		push_error("AStarBridge: obstacle %d %s" % [id, problem])
		return {}
	var op: Dictionary = {"op": "set", "id": id}
	var dim: int = 2
	if points is PackedVector3Array:
		var solid: PackedVector3Array = points
		op["polygon"] = solid.to_byte_array()
		dim = 3
		if height < INF:
			op["base"] = solid[0].y
	else:
		op["polygon"] = flat.to_byte_array()
	if height < INF:
		op["height"] = height
	return {"op": op, "outline": flat, "bounds": bounds_of(flat), "dim": dim}


## Obstacle [param id]: a circle of [param radius] around [param center] ([Vector2], or
## [Vector3] whose y is the base when [param height] limits it), as [method polygon] gives it
## (its outline the 16-gon around the circle that the sidecar cuts); {} after a push_error for a
## bad id, centre, radius or height.
static func circle(id: int, center: Variant, radius: float, height: float = INF) -> Dictionary:
	var problem: String = _id_problem(id)
	var ground: Vector2 = Vector2.ZERO
	if center is Vector2:
		ground = center
	elif center is Vector3:
		var solid: Vector3 = center
		ground = Vector2(solid.x, solid.z)
	elif problem.is_empty():
		problem = "needs a Vector2 or Vector3 centre, got %s" % type_string(typeof(center))
	if problem.is_empty() and not ground.is_finite():
		problem = "has a centre that is not finite: %s" % ground
	if problem.is_empty() and not (radius > 0.0 and radius < INF):
		problem = "needs a finite radius > 0, got %s" % radius
	if problem.is_empty():
		problem = _height_problem(height, center is Vector3)
	if not problem.is_empty():
		push_error("AStarBridge: obstacle %d %s" % [id, problem])
		return {}
	var op: Dictionary = {"op": "set", "id": id, "radius": radius}
	var dim: int = 2
	if center is Vector3:
		var solid: Vector3 = center
		op["center"] = [solid.x, solid.y, solid.z]
		dim = 3
		if height < INF:
			op["base"] = solid.y
	else:
		op["center"] = [ground.x, ground.y]
	if height < INF:
		op["height"] = height
	var ring: PackedVector2Array = circle_outline(ground, radius)
	return {"op": op, "outline": ring, "bounds": bounds_of(ring), "dim": dim}


## A "remove" operation for obstacle [param id].
static func remove_op(id: int) -> Dictionary:
	return {"op": "remove", "id": id}


## The polygon the sidecar cuts for a circle: [constant CIRCLE_SIDES] vertices at
## [code]radius / cos(PI / CIRCLE_SIDES)[/code], so its sides touch the circle from outside.
static func circle_outline(center: Vector2, radius: float) -> PackedVector2Array:
	var reach: float = radius / cos(PI / CIRCLE_SIDES)
	var ring: PackedVector2Array = PackedVector2Array()
	for k: int in CIRCLE_SIDES:
		ring.append(center + Vector2.from_angle(TAU * k / CIRCLE_SIDES) * reach)
	return ring


## The smallest [Rect2] holding [param points] (a zero one at the origin for none).
static func bounds_of(points: PackedVector2Array) -> Rect2:
	if points.is_empty():
		return Rect2()
	var box: Rect2 = Rect2(points[0], Vector2.ZERO)
	for point: Vector2 in points:
		box = box.expand(point)
	return box


## Why [param points] cannot be an obstacle's outline ("" when it can): fewer than 3 or more
## than [constant MAX_VERTICES] points, a coordinate that is not finite, no area, or two sides
## that cross.
static func outline_problem(points: PackedVector2Array) -> String:
	var count: int = points.size()
	if count < 3 or count > MAX_VERTICES:
		return "needs 3 .. %d vertices, got %d" % [MAX_VERTICES, count]
	for point: Vector2 in points:
		if not point.is_finite():
			return "has a vertex that is not finite: %s" % point
	# Sides that are not neighbours must not meet (a simple polygon); small outlines only.
	for i: int in count if count <= CHECKED_VERTICES else 0:
		for j: int in range(i + 2, count):
			if i == 0 and j == count - 1:
				continue
			var a: Vector2 = points[i]
			var b: Vector2 = points[(i + 1) % count]
			var c: Vector2 = points[j]
			var d: Vector2 = points[(j + 1) % count]
			if Geometry2D.segment_intersects_segment(a, b, c, d) != null:
				return "has sides that cross (sides %d and %d): %s" % [i, j, points]
	var twice_area: float = 0.0
	for i: int in count:
		twice_area += points[i].cross(points[(i + 1) % count])
	if absf(twice_area) < 1e-12:  # collinear (tiny obstacles are still obstacles)
		return "has no area: %s" % points
	return ""


# The ground-plane points of a 2D or 3D outline (empty for any other value).
static func _ground(points: Variant) -> PackedVector2Array:
	if points is PackedVector2Array:
		return points
	var flat: PackedVector2Array = PackedVector2Array()
	if points is PackedVector3Array:
		var solid: PackedVector3Array = points
		for point: Vector3 in solid:
			flat.append(Vector2(point.x, point.z))
	return flat


static func _id_problem(id: int) -> String:
	return "" if id >= 0 else "needs an id >= 0 (it has %d)" % id


static func _height_problem(height: float, solid: bool) -> String:
	if height == INF:
		return ""
	if not solid:
		return "is 2D: a height is for 3D shapes (PackedVector3Array, Vector3), got %s" % height
	if height > 0.0 and is_finite(height):
		return ""
	return "needs a height > 0 (INF: no limit), got %s" % height
