## Turns the [NavigationRegion2D] / [NavigationRegion3D] and [NavigationLink2D] /
## [NavigationLink3D] nodes of a scene into ONE [code]graph.load_navmesh[/code] map: each region
## with its [code]navigation_layers[/code], [code]enter_cost[/code] and
## [code]travel_cost[/code], each link with its ends, direction, costs and layers. The sidecar joins
## the regions as Godot's NavigationServer does (shared edges, overlapping edges within the
## map's [code]edge_connection_margin[/code]) and attaches the links within its
## [code]link_connection_radius[/code]; both are read from the scene's navigation map when the
## root is in the tree.
##
## Pure functions: nothing is sent. Region and link ids are their order in a breadth-first walk
## of the tree, which [method region_ids] and [method link_ids] give back to address updates.
## Queries choose layers with [code]{"navigation_layers": mask}[/code] in their options.
## [codeblock]
## const NavmapSerializer = preload("res://addons/astar_bridge/serializers/navmap_serializer.gd")
## AStarBridge.load_graph(NavmapSerializer.METHOD, NavmapSerializer.from_scene_2d($Level, "level"))
## var path := AStarBridge.find_path("level", from, to, {"navigation_layers": 1})
## [/codeblock]
extends RefCounted

const NavmeshSerializer = preload("res://addons/astar_bridge/serializers/navmesh_serializer.gd")

## The protocol method these parameters are for.
const METHOD := "graph.load_navmesh"
## Godot's default [code]edge_connection_margin[/code] and [code]link_connection_radius[/code]
## in 2D and 3D, used when the root is outside the tree.
const DEFAULT_EDGE_MARGIN_2D := 1.0
const DEFAULT_LINK_RADIUS_2D := 4.0
const DEFAULT_EDGE_MARGIN_3D := 0.25
const DEFAULT_LINK_RADIUS_3D := 1.0


## Load parameters ([code]dim = 2[/code]) for every [NavigationRegion2D] and [NavigationLink2D]
## under [param root] (itself included). Regions without a [NavigationPolygon] are skipped with
## an error; returns {} with an error when no region is left.
static func from_scene_2d(root: Node, id: String) -> Dictionary:
	var regions: Array[Dictionary] = []
	for node: Node in _all(root):
		if node is NavigationRegion2D:
			var region: NavigationRegion2D = node
			var params: Dictionary = NavmeshSerializer.from_navigation_region_2d(region, id)
			if not params.is_empty():
				regions.append(
					_region(
						params,
						regions.size(),
						region.navigation_layers,
						region.enter_cost,
						region.travel_cost
					)
				)
	var links: Array[Dictionary] = []
	for node: Node in _all(root):
		if node is NavigationLink2D:
			var link: NavigationLink2D = node
			links.append(link_2d(link, links.size()))
	var margin: float = DEFAULT_EDGE_MARGIN_2D
	var radius: float = DEFAULT_LINK_RADIUS_2D
	if root is CanvasItem and root.is_inside_tree():
		var map: RID = (root as CanvasItem).get_world_2d().navigation_map
		margin = NavigationServer2D.map_get_edge_connection_margin(map)
		radius = NavigationServer2D.map_get_link_connection_radius(map)
	return _map(id, 2, regions, links, margin, radius)


## Load parameters ([code]dim = 3[/code], up axis y) for every [NavigationRegion3D] and
## [NavigationLink3D] under [param root] (itself included); as [method from_scene_2d].
static func from_scene_3d(root: Node, id: String) -> Dictionary:
	var regions: Array[Dictionary] = []
	for node: Node in _all(root):
		if node is NavigationRegion3D:
			var region: NavigationRegion3D = node
			var params: Dictionary = NavmeshSerializer.from_navigation_region_3d(region, id)
			if not params.is_empty():
				regions.append(
					_region(
						params,
						regions.size(),
						region.navigation_layers,
						region.enter_cost,
						region.travel_cost
					)
				)
	var links: Array[Dictionary] = []
	for node: Node in _all(root):
		if node is NavigationLink3D:
			var link: NavigationLink3D = node
			links.append(link_3d(link, links.size()))
	var margin: float = DEFAULT_EDGE_MARGIN_3D
	var radius: float = DEFAULT_LINK_RADIUS_3D
	if root is Node3D and root.is_inside_tree():
		var map: RID = (root as Node3D).get_world_3d().navigation_map
		margin = NavigationServer3D.map_get_edge_connection_margin(map)
		radius = NavigationServer3D.map_get_link_connection_radius(map)
	var out: Dictionary = _map(id, 3, regions, links, margin, radius)
	if not out.is_empty():
		out["up_axis"] = NavmeshSerializer.UP_AXIS
	return out


## The wire map of [param link] (global ends) under [param link_id].
static func link_2d(link: NavigationLink2D, link_id: int) -> Dictionary:
	var start: Vector2 = link.start_position
	var end: Vector2 = link.end_position
	if link.is_inside_tree():
		start = link.get_global_start_position()
		end = link.get_global_end_position()
	else:
		start = link.transform * start
		end = link.transform * end
	var wire: Dictionary = _link(link_id, [start.x, start.y], [end.x, end.y], link.bidirectional)
	return _link_costs(
		wire, link.enter_cost, link.travel_cost, link.navigation_layers, link.enabled
	)


## The wire map of [param link] (global ends) under [param link_id].
static func link_3d(link: NavigationLink3D, link_id: int) -> Dictionary:
	var start: Vector3 = link.start_position
	var end: Vector3 = link.end_position
	if link.is_inside_tree():
		start = link.get_global_start_position()
		end = link.get_global_end_position()
	else:
		start = link.transform * start
		end = link.transform * end
	var wire: Dictionary = _link(
		link_id, [start.x, start.y, start.z], [end.x, end.y, end.z], link.bidirectional
	)
	return _link_costs(
		wire, link.enter_cost, link.travel_cost, link.navigation_layers, link.enabled
	)


## The region ids [method from_scene_2d] / [method from_scene_3d] give, by node.
static func region_ids(root: Node) -> Dictionary:
	var ids: Dictionary = {}
	for node: Node in _all(root):
		if node is NavigationRegion2D or node is NavigationRegion3D:
			var has_mesh: bool = (
				node.get("navigation_polygon") != null or node.get("navigation_mesh") != null
			)
			if has_mesh:
				ids[node] = ids.size()
	return ids


## The link ids [method from_scene_2d] / [method from_scene_3d] give, by node.
static func link_ids(root: Node) -> Dictionary:
	var ids: Dictionary = {}
	for node: Node in _all(root):
		if node is NavigationLink2D or node is NavigationLink3D:
			ids[node] = ids.size()
	return ids


## [code]graph.update[/code] item: give region [param region_id] the layer mask [param layers].
static func region_layers_update(region_id: int, layers: int) -> Dictionary:
	return {"op": "layers", "id": region_id, "layers": layers}


## [code]graph.update[/code] item: enable or disable link [param link_id].
static func link_enabled_update(link_id: int, enabled: bool) -> Dictionary:
	return {"op": "enable" if enabled else "disable", "id": link_id}


static func _all(root: Node) -> Array[Node]:
	var out: Array[Node] = [root]
	var index: int = 0
	while index < out.size():
		for child: Node in out[index].get_children():
			out.append(child)
		index += 1
	return out


static func _region(
	params: Dictionary, region_id: int, layers: int, enter_cost: float, travel_cost: float
) -> Dictionary:
	return {
		"id": region_id,
		"vertices": params["vertices"],
		"indices": params["indices"],
		"sizes": params["sizes"],
		"layers": layers,
		"enter_cost": enter_cost,
		"travel_cost": travel_cost,
	}


static func _link(link_id: int, start: Array, end: Array, bidirectional: bool) -> Dictionary:
	return {"id": link_id, "start": start, "end": end, "bidirectional": bidirectional}


static func _link_costs(
	wire: Dictionary, enter_cost: float, travel_cost: float, layers: int, enabled: bool
) -> Dictionary:
	wire["enter_cost"] = enter_cost
	wire["travel_cost"] = travel_cost
	wire["layers"] = layers
	wire["enabled"] = enabled
	return wire


static func _map(
	id: String,
	dim: int,
	regions: Array[Dictionary],
	links: Array[Dictionary],
	margin: float,
	radius: float
) -> Dictionary:
	if regions.is_empty():
		push_error(
			(
				"navmap_serializer: no navigation region with a baked mesh under the root: add a"
				+ " NavigationRegion2D/3D below it and bake it before loading"
			)
		)
		return {}
	return {
		"id": id,
		"dim": dim,
		"regions": regions,
		"links": links,
		"edge_margin": margin,
		"link_radius": radius,
	}
