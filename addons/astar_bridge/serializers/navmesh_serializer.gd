## Turns a [NavigationPolygon] or [NavigationMesh] (or a baked [NavigationRegion2D] /
## [NavigationRegion3D]) into [code]graph.load_navmesh[/code] parameters.
##
## Pure functions: nothing is sent and nothing is baked. Vertices travel as float32 pairs (2D) or
## triples (3D) after [param transform]; polygons as one flat int32 index list plus one int32 size
## per polygon, in the resource's polygon order.
## [codeblock]
## const NavmeshSerializer = preload("res://addons/astar_bridge/serializers/navmesh_serializer.gd")
## var params := NavmeshSerializer.from_navigation_region_2d($NavigationRegion2D, "floor")
## AStarBridge.load_graph(NavmeshSerializer.METHOD, params)
## [/codeblock]
extends RefCounted

## The protocol method these parameters are for.
const METHOD := "graph.load_navmesh"
## The up axis of Godot's 3D navigation meshes.
const UP_AXIS := "y"


## Navmesh parameters ([code]dim = 2[/code]) for the polygons of [param navigation_polygon],
## vertices mapped through [param transform]. An unbaked resource (no polygons) gives a valid
## but empty mesh: bake it first (e.g. [method NavigationServer2D.bake_from_source_geometry_data]).
static func from_navigation_polygon(
	navigation_polygon: NavigationPolygon, id: String, transform: Transform2D = Transform2D.IDENTITY
) -> Dictionary:
	var vertices: PackedVector2Array = transform * navigation_polygon.get_vertices()
	var indices := PackedInt32Array()
	var sizes := PackedInt32Array()
	for i: int in navigation_polygon.get_polygon_count():
		var polygon: PackedInt32Array = navigation_polygon.get_polygon(i)
		indices.append_array(polygon)
		sizes.append(polygon.size())
	return {
		"id": id,
		"dim": 2,
		"vertices": vertices.to_byte_array(),
		"indices": indices.to_byte_array(),
		"sizes": sizes.to_byte_array(),
	}


## Navmesh parameters ([code]dim = 3[/code], up axis y) for the polygons of
## [param navigation_mesh], vertices mapped through [param transform].
static func from_navigation_mesh(
	navigation_mesh: NavigationMesh, id: String, transform: Transform3D = Transform3D.IDENTITY
) -> Dictionary:
	var vertices: PackedVector3Array = transform * navigation_mesh.get_vertices()
	var indices := PackedInt32Array()
	var sizes := PackedInt32Array()
	for i: int in navigation_mesh.get_polygon_count():
		var polygon: PackedInt32Array = navigation_mesh.get_polygon(i)
		indices.append_array(polygon)
		sizes.append(polygon.size())
	return {
		"id": id,
		"dim": 3,
		"vertices": vertices.to_byte_array(),
		"indices": indices.to_byte_array(),
		"sizes": sizes.to_byte_array(),
		"up_axis": UP_AXIS,
	}


## Navmesh parameters for the baked polygon of [param region], in global coordinates (the
## region's local transform when it is outside the tree). Returns {} with an error when the
## region has no [NavigationPolygon].
static func from_navigation_region_2d(region: NavigationRegion2D, id: String) -> Dictionary:
	if region.navigation_polygon == null:
		push_error(
			(
				(
					"from_navigation_region_2d: %s has no navigation_polygon: give it a"
					+ " NavigationPolygon and bake it"
				)
				% region.name
			)
		)
		return {}
	var frame: Transform2D = region.transform
	if region.is_inside_tree():
		frame = region.get_global_transform()
	return from_navigation_polygon(region.navigation_polygon, id, frame)


## Navmesh parameters for the baked mesh of [param region], in global coordinates (the region's
## local transform when it is outside the tree). Returns {} with an error when the region has
## no [NavigationMesh].
static func from_navigation_region_3d(region: NavigationRegion3D, id: String) -> Dictionary:
	if region.navigation_mesh == null:
		push_error(
			(
				(
					"from_navigation_region_3d: %s has no navigation_mesh: give it a NavigationMesh"
					+ " and bake it"
				)
				% region.name
			)
		)
		return {}
	var frame: Transform3D = region.transform
	if region.is_inside_tree():
		frame = region.global_transform
	return from_navigation_mesh(region.navigation_mesh, id, frame)
