## Internal: how far a body's collision shapes reach from its origin, the radius the agents
## path for when no size or radius is set. 2D: the largest distance along x or y from the body's
## position to its shapes' bounds (a circle or capsule gives its radius and half height, a
## rectangle half its larger side), rotation, scale and offset included. 3D: the same in the
## horizontal (xz) plane (a sphere, capsule or cylinder gives its radius, a box half its larger
## horizontal side). Disabled shapes do not count; 0 when the body has none.
extends RefCounted


## The reach of [param body]'s enabled [CollisionShape2D] children (0 when none).
static func radius_2d(body: Node2D) -> float:
	var reach: float = 0.0
	var centre: Vector2 = body.global_position
	for child: Node in body.get_children():
		if not child is CollisionShape2D:
			continue
		var holder: CollisionShape2D = child
		if holder.disabled or holder.shape == null:
			continue
		var bounds: Rect2 = holder.shape.get_rect()
		var place: Transform2D = holder.global_transform
		for corner: Vector2 in [
			bounds.position,
			Vector2(bounds.end.x, bounds.position.y),
			Vector2(bounds.position.x, bounds.end.y),
			bounds.end,
		]:
			var rel: Vector2 = place * corner - centre
			reach = maxf(reach, maxf(absf(rel.x), absf(rel.y)))
	return reach


## The horizontal reach of [param body]'s enabled [CollisionShape3D] children (0 when none).
static func radius_3d(body: Node3D) -> float:
	var reach: float = 0.0
	var centre: Vector3 = body.global_position
	for child: Node in body.get_children():
		if not child is CollisionShape3D:
			continue
		var holder: CollisionShape3D = child
		if holder.disabled or holder.shape == null:
			continue
		var offset: Vector3 = holder.global_position - centre
		var scale: Vector3 = holder.global_transform.basis.get_scale().abs()
		var flat_scale: float = maxf(scale.x, scale.z)
		reach = maxf(
			reach, Vector2(offset.x, offset.z).length() + _shape_3d(holder.shape) * flat_scale
		)
	return reach


# The horizontal radius of one upright 3D shape about its own origin.
static func _shape_3d(shape: Shape3D) -> float:
	if shape is SphereShape3D:
		return (shape as SphereShape3D).radius
	if shape is CapsuleShape3D:
		return (shape as CapsuleShape3D).radius
	if shape is CylinderShape3D:
		return (shape as CylinderShape3D).radius
	if shape is BoxShape3D:
		var box: Vector3 = (shape as BoxShape3D).size
		return maxf(box.x, box.z) * 0.5
	var bounds: AABB = shape.get_debug_mesh().get_aabb()
	return maxf(
		maxf(absf(bounds.position.x), absf(bounds.end.x)),
		maxf(absf(bounds.position.z), absf(bounds.end.z))
	)
