## navmap_serializer.gd: a scene's regions and links -> one graph.load_navmesh map.
extends "res://runner/gd_test.gd"

const NavmapSerializer = preload("res://addons/astar_bridge/serializers/navmap_serializer.gd")


func test_scene_2d_regions_links_layers_and_costs() -> void:
	var root := Node2D.new()
	var first := _region_2d(Vector2(0, 0), 1)
	var second := _region_2d(Vector2(10, 0), 2)
	second.enter_cost = 3.0
	second.travel_cost = 2.0
	root.add_child(first)
	root.add_child(second)
	var link := NavigationLink2D.new()
	link.position = Vector2(100, 0)
	link.start_position = Vector2(1, 2)
	link.end_position = Vector2(5, 2)
	link.bidirectional = false
	link.navigation_layers = 4
	second.add_child(link)
	var tree: SceneTree = Engine.get_main_loop()
	tree.root.add_child(root)  # in the tree: global frames and the world map's margins
	var params: Dictionary = NavmapSerializer.from_scene_2d(root, "level")
	tree.root.remove_child(root)
	assert_eq(params["id"], "level")
	assert_eq(params["dim"], 2)
	assert_eq(params["edge_margin"], NavmapSerializer.DEFAULT_EDGE_MARGIN_2D)
	var regions: Array = params["regions"]
	assert_eq(regions.size(), 2)
	var moved: Dictionary = regions[1]
	assert_eq(moved["id"], 1)
	assert_eq(moved["layers"], 2)
	assert_eq(moved["enter_cost"], 3.0)
	assert_eq(moved["travel_cost"], 2.0)
	var vertices: PackedByteArray = moved["vertices"]
	assert_eq(vertices.to_float32_array()[0], 10.0)  # in the root's frame
	var links: Array = params["links"]
	assert_eq(links.size(), 1)
	var wire: Dictionary = links[0]
	assert_eq(wire["start"], [111.0, 2.0])  # the link's frame is the region's plus its own
	assert_eq(wire["bidirectional"], false)
	assert_eq(wire["layers"], 4)
	assert_eq(NavmapSerializer.region_ids(root)[second], 1)
	assert_eq(NavmapSerializer.link_ids(root)[link], 0)
	assert_eq(NavmapSerializer.link_enabled_update(0, false), {"op": "disable", "id": 0})
	assert_eq(NavmapSerializer.region_layers_update(1, 6), {"op": "layers", "id": 1, "layers": 6})
	root.free()


func test_scene_3d_has_up_axis_and_3d_link_ends() -> void:
	var root := Node3D.new()
	var region := NavigationRegion3D.new()
	var mesh := NavigationMesh.new()
	mesh.vertices = PackedVector3Array([Vector3(0, 0, 0), Vector3(4, 0, 0), Vector3(4, 0, 4)])
	mesh.add_polygon(PackedInt32Array([0, 1, 2]))
	region.navigation_mesh = mesh
	root.add_child(region)
	var link := NavigationLink3D.new()
	link.start_position = Vector3(1, 0, 1)
	link.end_position = Vector3(3, 1, 1)
	root.add_child(link)
	var params: Dictionary = NavmapSerializer.from_scene_3d(root, "m")
	assert_eq(params["dim"], 3)
	assert_eq(params["up_axis"], "y")
	assert_eq(params["link_radius"], NavmapSerializer.DEFAULT_LINK_RADIUS_3D)
	var links: Array = params["links"]
	var wire: Dictionary = links[0]
	assert_eq(wire["end"], [3.0, 1.0, 1.0])
	root.free()


func _region_2d(at: Vector2, layers: int) -> NavigationRegion2D:
	var nav := NavigationPolygon.new()
	nav.vertices = PackedVector2Array(
		[Vector2(0, 0), Vector2(10, 0), Vector2(10, 10), Vector2(0, 10)]
	)
	nav.add_polygon(PackedInt32Array([0, 1, 2, 3]))
	var region := NavigationRegion2D.new()
	region.navigation_polygon = nav
	region.position = at
	region.navigation_layers = layers
	return region
