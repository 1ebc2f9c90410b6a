## navmesh_serializer.gd: NavigationPolygon / NavigationMesh (and regions) -> graph.load_navmesh.
extends "res://runner/gd_test.gd"

const NavmeshSerializer = preload("res://addons/astar_bridge/serializers/navmesh_serializer.gd")


func test_navigation_polygon_vertices_indices_and_sizes() -> void:
	var params: Dictionary = NavmeshSerializer.from_navigation_polygon(_two_polygons(), "n")
	assert_eq(params["id"], "n")
	assert_eq(params["dim"], 2)
	assert_eq(_floats(params["vertices"]), PackedFloat32Array([0, 0, 10, 0, 10, 10, 0, 10, 20, 5]))
	assert_eq(_ints(params["indices"]), PackedInt32Array([0, 1, 2, 3, 1, 4, 2]))
	assert_eq(_ints(params["sizes"]), PackedInt32Array([4, 3]))
	assert_false(params.has("up_axis"))


func test_navigation_polygon_transform_moves_vertices() -> void:
	var params: Dictionary = NavmeshSerializer.from_navigation_polygon(
		_two_polygons(), "n", Transform2D(0.0, Vector2(100, 50))
	)
	var vertices: PackedFloat32Array = _floats(params["vertices"])
	assert_eq(vertices[0], 100.0)
	assert_eq(vertices[1], 50.0)
	assert_eq(vertices[8], 120.0)


func test_navigation_region_2d_uses_its_transform() -> void:
	var region := NavigationRegion2D.new()
	region.navigation_polygon = _two_polygons()
	region.position = Vector2(-5, 3)
	var params: Dictionary = NavmeshSerializer.from_navigation_region_2d(region, "n")
	var vertices: PackedFloat32Array = _floats(params["vertices"])
	assert_eq(vertices[0], -5.0)
	assert_eq(vertices[1], 3.0)
	region.free()


func test_navigation_mesh_triples_and_up_axis() -> void:
	var mesh := NavigationMesh.new()
	mesh.vertices = PackedVector3Array([Vector3(0, 0, 0), Vector3(4, 0, 0), Vector3(4, 0, 4)])
	mesh.add_polygon(PackedInt32Array([0, 1, 2]))
	var region := NavigationRegion3D.new()
	region.navigation_mesh = mesh
	region.position = Vector3(1, 2, 3)
	var params: Dictionary = NavmeshSerializer.from_navigation_region_3d(region, "m")
	assert_eq(params["dim"], 3)
	assert_eq(params["up_axis"], "y")
	assert_eq(_floats(params["vertices"]), PackedFloat32Array([1, 2, 3, 5, 2, 3, 5, 2, 7]))
	assert_eq(_ints(params["indices"]), PackedInt32Array([0, 1, 2]))
	assert_eq(_ints(params["sizes"]), PackedInt32Array([3]))
	region.free()


## A square (0..10) and a triangle sharing its right edge.
func _two_polygons() -> NavigationPolygon:
	var nav := NavigationPolygon.new()
	nav.vertices = PackedVector2Array(
		[Vector2(0, 0), Vector2(10, 0), Vector2(10, 10), Vector2(0, 10), Vector2(20, 5)]
	)
	nav.add_polygon(PackedInt32Array([0, 1, 2, 3]))
	nav.add_polygon(PackedInt32Array([1, 4, 2]))
	return nav


func _ints(bytes: Variant) -> PackedInt32Array:
	var raw: PackedByteArray = bytes
	return raw.to_int32_array()


func _floats(bytes: Variant) -> PackedFloat32Array:
	var raw: PackedByteArray = bytes
	return raw.to_float32_array()
