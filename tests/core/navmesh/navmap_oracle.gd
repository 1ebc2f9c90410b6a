extends SceneTree
## Test oracle: Godot's NavigationServer2D on a map of several regions and links (from JSON).
##
## Usage: godot --headless --script navmap_oracle.gd -- <in.json> <out.json>
## The input holds "regions" ([{"vertices": [[x, y], ...], "polygons": [[i, ...], ...],
## "layers", "enter_cost", "travel_cost"}]), "links" ([{"start": [x, y], "end": [x, y],
## "bidirectional", "layers", "enter_cost", "travel_cost"}]), "edge_margin", "link_radius" and
## "queries" ([{"from": [x, y], "to": [x, y], "layers": int}]). The output holds per query the
## path as flat [x0, y0, x1, y1, ...] (query_path, no polygon cap) in "paths".

const SYNC_FRAMES: int = 600


func _initialize() -> void:
	var args: PackedStringArray = OS.get_cmdline_user_args()
	if args.size() != 2:
		push_error("usage: -- <in.json> <out.json>")
		quit(2)
		return
	_run(args[0], args[1])


func _run(in_path: String, out_path: String) -> void:
	var parsed: Variant = JSON.parse_string(FileAccess.get_file_as_string(in_path))
	if not parsed is Dictionary:
		push_error("cannot read %s" % in_path)
		quit(1)
		return
	var data: Dictionary = parsed
	var map: RID = NavigationServer2D.map_create()
	NavigationServer2D.map_set_cell_size(map, 1.0)
	NavigationServer2D.map_set_edge_connection_margin(map, float(data.get("edge_margin", 1.0)))
	NavigationServer2D.map_set_link_connection_radius(map, float(data.get("link_radius", 4.0)))
	NavigationServer2D.map_set_active(map, true)
	var owned: Array[RID] = []
	for region_data: Dictionary in data["regions"]:
		owned.append(_region(map, region_data))
	for link_data: Dictionary in data.get("links", []):
		owned.append(_link(map, link_data))
	# Regions and links join the map one iteration after it: wait for the first, then a few frames.
	var frames: int = 0
	while frames < SYNC_FRAMES and NavigationServer2D.map_get_iteration_id(map) == 0:
		await physics_frame
		frames += 1
	for _i: int in range(10):
		await physics_frame
	var paths: Array[PackedFloat32Array] = []
	for query: Dictionary in data["queries"]:
		paths.append(_query(map, query))
	var out: FileAccess = FileAccess.open(out_path, FileAccess.WRITE)
	out.store_string(JSON.stringify({"paths": paths}))
	out.close()
	for rid: RID in owned:
		NavigationServer2D.free_rid(rid)
	NavigationServer2D.free_rid(map)
	quit(0 if frames < SYNC_FRAMES else 3)


func _vec(value: Array) -> Vector2:
	var v := PackedFloat64Array(value)
	return Vector2(v[0], v[1])


func _region(map: RID, data: Dictionary) -> RID:
	var nav := NavigationPolygon.new()
	var points := PackedVector2Array()
	for vertex: Array in data["vertices"]:
		points.append(_vec(vertex))
	nav.set_vertices(points)
	for polygon: Array in data["polygons"]:
		nav.add_polygon(PackedInt32Array(polygon))
	var region: RID = NavigationServer2D.region_create()
	NavigationServer2D.region_set_navigation_layers(region, int(data.get("layers", 1)))
	NavigationServer2D.region_set_enter_cost(region, float(data.get("enter_cost", 0.0)))
	NavigationServer2D.region_set_travel_cost(region, float(data.get("travel_cost", 1.0)))
	NavigationServer2D.region_set_map(region, map)
	NavigationServer2D.region_set_navigation_polygon(region, nav)
	return region


func _link(map: RID, data: Dictionary) -> RID:
	var link: RID = NavigationServer2D.link_create()
	NavigationServer2D.link_set_start_position(link, _vec(data["start"]))
	NavigationServer2D.link_set_end_position(link, _vec(data["end"]))
	NavigationServer2D.link_set_bidirectional(link, bool(data.get("bidirectional", true)))
	NavigationServer2D.link_set_navigation_layers(link, int(data.get("layers", 1)))
	NavigationServer2D.link_set_enter_cost(link, float(data.get("enter_cost", 0.0)))
	NavigationServer2D.link_set_travel_cost(link, float(data.get("travel_cost", 1.0)))
	NavigationServer2D.link_set_map(link, map)
	return link


func _query(map: RID, query: Dictionary) -> PackedFloat32Array:
	var params := NavigationPathQueryParameters2D.new()
	params.map = map
	params.start_position = _vec(query["from"])
	params.target_position = _vec(query["to"])
	params.navigation_layers = int(query.get("layers", 1))
	params.path_search_max_polygons = 0
	var result := NavigationPathQueryResult2D.new()
	NavigationServer2D.query_path(params, result)
	var flat := PackedFloat32Array()
	for point: Vector2 in result.path:
		flat.append(point.x)
		flat.append(point.y)
	return flat
