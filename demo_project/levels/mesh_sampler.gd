## Random points on a navigation mesh, uniform by area: each polygon is split into the triangles
## of its fan (baked polygons are convex), a triangle is drawn with probability proportional to
## its area, then a point inside it. 2D meshes are held in the z = 0 plane.
## [codeblock]
## var sampler := MeshSampler.new()
## sampler.add_navigation_polygon(region.navigation_polygon, region.global_transform)
## var point: Vector2 = sampler.random_point_2d(rng)
## [/codeblock]
extends RefCounted

## Tries of [method random_point_near] before it settles for any point of the mesh.
const NEAR_TRIES := 64

# Three corners per triangle; _cumulative[i] = area of triangles 0..i (so a draw in
# [0, total) lands on triangle i with probability area_i / total).
var _corners: PackedVector3Array = PackedVector3Array()
var _cumulative: PackedFloat64Array = PackedFloat64Array()


## Adds the polygons of [param navigation_polygon], vertices mapped through [param transform].
func add_navigation_polygon(
	navigation_polygon: NavigationPolygon, transform: Transform2D = Transform2D.IDENTITY
) -> void:
	var vertices: PackedVector2Array = transform * navigation_polygon.get_vertices()
	for i: int in navigation_polygon.get_polygon_count():
		var polygon: PackedInt32Array = navigation_polygon.get_polygon(i)
		for k: int in range(1, polygon.size() - 1):
			_add_triangle(
				_flat(vertices[polygon[0]]),
				_flat(vertices[polygon[k]]),
				_flat(vertices[polygon[k + 1]])
			)


## Adds the polygons of [param navigation_mesh], vertices mapped through [param transform];
## a polygon with a vertex higher than [param max_height] (y) is left out (e.g. the tops of boxes,
## islands no path reaches).
func add_navigation_mesh(
	navigation_mesh: NavigationMesh,
	transform: Transform3D = Transform3D.IDENTITY,
	max_height: float = INF
) -> void:
	var vertices: PackedVector3Array = transform * navigation_mesh.get_vertices()
	for i: int in navigation_mesh.get_polygon_count():
		var polygon: PackedInt32Array = navigation_mesh.get_polygon(i)
		var too_high: bool = false
		for vertex: int in polygon:
			too_high = too_high or vertices[vertex].y > max_height
		if too_high:
			continue
		for k: int in range(1, polygon.size() - 1):
			_add_triangle(vertices[polygon[0]], vertices[polygon[k]], vertices[polygon[k + 1]])


## The number of triangles held.
func get_triangle_count() -> int:
	return _cumulative.size()


## A random point of the mesh (the origin when it is empty).
func random_point(rng: RandomNumberGenerator) -> Vector3:
	if _cumulative.is_empty():
		return Vector3.ZERO
	var draw: float = rng.randf() * _cumulative[_cumulative.size() - 1]
	var triangle: int = _cumulative.bsearch(draw, false)
	triangle = mini(triangle, _cumulative.size() - 1)
	var a: Vector3 = _corners[triangle * 3]
	var b: Vector3 = _corners[triangle * 3 + 1]
	var c: Vector3 = _corners[triangle * 3 + 2]
	var u: float = rng.randf()
	var v: float = rng.randf()
	if u + v > 1.0:
		# Fold the far half of the parallelogram back onto the triangle.
		u = 1.0 - u
		v = 1.0 - v
	return a + (b - a) * u + (c - a) * v


## A random point of the mesh within [param reach] of [param near] (but not within
## [param min_distance] of it); any point of the mesh when [constant NEAR_TRIES] draws miss.
func random_point_near(
	rng: RandomNumberGenerator, near: Vector3, reach: float, min_distance: float = 0.0
) -> Vector3:
	var point: Vector3 = random_point(rng)
	for _try: int in NEAR_TRIES:
		var away: float = point.distance_to(near)
		if away <= reach and away >= min_distance:
			return point
		point = random_point(rng)
	return point


## [method random_point] for a 2D mesh.
func random_point_2d(rng: RandomNumberGenerator) -> Vector2:
	var point: Vector3 = random_point(rng)
	return Vector2(point.x, point.y)


## [method random_point_near] for a 2D mesh.
func random_point_near_2d(
	rng: RandomNumberGenerator, near: Vector2, reach: float, min_distance: float = 0.0
) -> Vector2:
	var point: Vector3 = random_point_near(rng, _flat(near), reach, min_distance)
	return Vector2(point.x, point.y)


func _add_triangle(a: Vector3, b: Vector3, c: Vector3) -> void:
	var area: float = (b - a).cross(c - a).length() / 2.0
	if area <= 0.0:
		return
	var total: float = _cumulative[_cumulative.size() - 1] if not _cumulative.is_empty() else 0.0
	_corners.append_array(PackedVector3Array([a, b, c]))
	_cumulative.append(total + area)


static func _flat(point: Vector2) -> Vector3:
	return Vector3(point.x, point.y, 0.0)
