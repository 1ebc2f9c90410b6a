## The engine's navigation objects and edits turned into the wire's load and update maps, for
## the autoload's [code]load_*[/code] and [code]set_*[/code] methods: game code names a
## [TileMapLayer], an [AStarGrid2D], an [AStar2D]/[AStar3D] or navigation regions, and cells as
## [Vector2i]; this file knows the bytes. Each function returns [code]{}[/code] after a
## [code]push_error[/code] when its input cannot be turned into a graph.
extends RefCounted

const GraphUpdates = preload("res://addons/astar_bridge/serializers/graph_updates.gd")
const GridSerializer = preload("res://addons/astar_bridge/serializers/grid_serializer.gd")
const NavmapSerializer = preload("res://addons/astar_bridge/serializers/navmap_serializer.gd")
const NavmeshSerializer = preload("res://addons/astar_bridge/serializers/navmesh_serializer.gd")
const WaypointSerializer = preload("res://addons/astar_bridge/serializers/waypoint_serializer.gd")


## The grid load map of graph [param id] from [param layer]'s used rect (or
## [code]options.region[/code]): GridSerializer.from_tile_map_layer, plus
## [code]options.hierarchy[/code] (HPA*, docs/hpa.md) when given.
static func tile_map_layer(id: String, layer: TileMapLayer, options: Dictionary) -> Dictionary:
	if layer == null:
		push_error("AStarBridge.load_tile_map_layer: the layer is null")
		return {}
	var params: Dictionary = GridSerializer.from_tile_map_layer(layer, id, options)
	if not params.is_empty() and options.has("hierarchy"):
		params["hierarchy"] = options["hierarchy"]
	return params


## The engine's coordinates of the first cell of the grid [method tile_map_layer] makes.
static func tile_map_offset(layer: TileMapLayer, options: Dictionary) -> Vector2i:
	if layer == null:
		return Vector2i.ZERO
	var region: Rect2i = options.get("region", layer.get_used_rect())
	return region.position


## The grid load map of graph [param id] from [param grid]: GridSerializer.from_astar_grid_2d.
static func astar_grid_2d(id: String, grid: AStarGrid2D) -> Dictionary:
	if grid == null:
		push_error("AStarBridge.load_astar_grid_2d: the grid is null")
		return {}
	return GridSerializer.from_astar_grid_2d(grid, id)


## The waypoint load map of graph [param id] from [param astar].
static func astar_2d(id: String, astar: AStar2D) -> Dictionary:
	if astar == null:
		push_error("AStarBridge.load_astar_2d: the graph is null")
		return {}
	return WaypointSerializer.from_astar_2d(astar, id)


## The waypoint load map of graph [param id] from [param astar] (3D).
static func astar_3d(id: String, astar: AStar3D) -> Dictionary:
	if astar == null:
		push_error("AStarBridge.load_astar_3d: the graph is null")
		return {}
	return WaypointSerializer.from_astar_3d(astar, id)


## The load map of graph [param id] from several [NavigationRegion2D] or (all)
## [NavigationRegion3D] nodes, joined into one mesh in global coordinates.
static func navigation_regions(id: String, regions: Array[Node]) -> Dictionary:
	if regions.is_empty():
		push_error("AStarBridge.load_navigation_region: no regions given for %s" % id)
		return {}
	var parts: Array[Dictionary] = []
	for region: Node in regions:
		var part: Dictionary = {}
		if region is NavigationRegion2D:
			part = NavmeshSerializer.from_navigation_region_2d(region as NavigationRegion2D, id)
		elif region is NavigationRegion3D:
			part = NavmeshSerializer.from_navigation_region_3d(region as NavigationRegion3D, id)
		else:
			push_error(
				(
					(
						"AStarBridge.load_navigation_region: %s is not a navigation region (give"
						+ " NavigationRegion2D or NavigationRegion3D nodes)"
					)
					% region
				)
			)
			return {}
		if part.is_empty():
			return {}
		var sizes: PackedByteArray = part["sizes"]
		if sizes.is_empty():
			push_error(
				(
					(
						"AStarBridge.load_navigation_region: the region %s has no polygons: bake it"
						+ " first (the editor's Bake button, or bake_navigation_polygon() /"
						+ " bake_navigation_mesh() and wait for bake_finished)"
					)
					% region.name
				)
			)
			return {}
		if not parts.is_empty() and part["dim"] != parts[0]["dim"]:
			push_error("AStarBridge.load_navigation_region: 2D and 3D regions cannot share a map")
			return {}
		parts.append(part)
	return _joined(parts)


## The load map of graph [param id] from every navigation region and link under [param root]
## (3D when it holds a [NavigationRegion3D], else 2D), with their layers and costs.
static func navigation_scene(id: String, root: Node) -> Dictionary:
	if root == null:
		push_error("AStarBridge.load_navigation_scene: the root is null")
		return {}
	var three_d: bool = root is NavigationRegion3D
	three_d = three_d or not root.find_children("*", "NavigationRegion3D", true, false).is_empty()
	if three_d:
		return NavmapSerializer.from_scene_3d(root, id)
	return NavmapSerializer.from_scene_2d(root, id)


## The update map setting [param cells] solid (or walkable again).
static func cells_solid(id: String, cells: Array[Vector2i], solid: bool) -> Dictionary:
	return GraphUpdates.cells_walkable(id, cells, not solid)


## The update map giving every cell of [param cells] the weight [param weight] (> 0).
static func cells_weight(id: String, cells: Array[Vector2i], weight: float) -> Dictionary:
	if not weight > 0.0 or is_inf(weight):
		push_error(
			"AStarBridge.set_cells_weight: weight must be a finite number > 0, got %s" % weight
		)
		return {}
	return GraphUpdates.cells_weighted(id, cells, weight)


## The update map disabling waypoint [param point] (or enabling it again).
static func point_disabled(id: String, point: int, disabled: bool) -> Dictionary:
	return GraphUpdates.points_disabled(id, PackedInt64Array([point]), disabled)


## The protocol's name of a [enum AStarGrid2D.DiagonalMode].
static func diagonal_name(mode: AStarGrid2D.DiagonalMode) -> String:
	return GridSerializer.diagonal_name(mode)


# Meshes of several regions as one: vertices appended, each part's indices shifted past the
# vertices before it.
static func _joined(parts: Array[Dictionary]) -> Dictionary:
	var joined: Dictionary = parts[0].duplicate()
	var vertices := PackedByteArray()
	var indices := PackedInt32Array()
	var sizes := PackedInt32Array()
	var dim: int = parts[0]["dim"]
	var width: int = 4 * dim
	for part: Dictionary in parts:
		@warning_ignore("integer_division")
		var offset: int = vertices.size() / width
		var part_vertices: PackedByteArray = part["vertices"]
		var part_indices: PackedByteArray = part["indices"]
		var part_sizes: PackedByteArray = part["sizes"]
		vertices.append_array(part_vertices)
		for index: int in part_indices.to_int32_array():
			indices.append(index + offset)
		sizes.append_array(part_sizes.to_int32_array())
	joined["vertices"] = vertices
	joined["indices"] = indices.to_byte_array()
	joined["sizes"] = sizes.to_byte_array()
	return joined
