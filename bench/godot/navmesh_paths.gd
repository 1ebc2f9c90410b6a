extends SceneTree
## Runs NavigationServer2D.map_get_path on a mesh and queries from a JSON file (bench helper).
##
## Usage: godot --headless --script navmesh_paths.gd -- <in.json> <out.json>
## The input holds "vertices" ([[x, y], ...]), "polygons" ([[i, j, k, ...], ...]), "queries"
## ([[sx, sy, gx, gy], ...]) and optionally "unlimited" (true: no cap on searched polygons).
## The output holds per query "lengths" (-1 for an empty path), "usec" (wall time of the query)
## and "paths" (waypoints as flat [x0, y0, x1, y1, ...]).

const MAX_SYNC_FRAMES: int = 1200


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
	var unlimited: bool = data.get("unlimited", false)
	var region: RID = NavigationServer2D.region_create()
	var vertices: Array = data["vertices"]
	var polygons: Array = data["polygons"]
	var map: RID = _make_map(region, _navigation_polygon(vertices, polygons))
	var probe: Vector2 = _first_vertex(vertices)
	# Map and region synchronise asynchronously (the region joins one iteration after the map):
	# wait until a query at a mesh vertex lands on our region.
	var frames: int = 0
	while frames < MAX_SYNC_FRAMES:
		if NavigationServer2D.map_get_iteration_id(map) > 0:
			if NavigationServer2D.map_get_closest_point_owner(map, probe) == region:
				break
		await physics_frame
		frames += 1
	print("navigation map synced after %d physics frames" % frames)
	var lengths: Array[float] = []
	var usec: Array[int] = []
	var paths: Array[PackedFloat32Array] = []
	var queries: Array = data["queries"]
	for query: Array in queries:
		var q := PackedFloat64Array(query)
		var from := Vector2(q[0], q[1])
		var to := Vector2(q[2], q[3])
		var t0: int = Time.get_ticks_usec()
		var path: PackedVector2Array = _query(map, from, to, unlimited)
		usec.append(Time.get_ticks_usec() - t0)
		lengths.append(_length(path))
		paths.append(_flatten(path))
	var out: FileAccess = FileAccess.open(out_path, FileAccess.WRITE)
	out.store_string(JSON.stringify({"lengths": lengths, "usec": usec, "paths": paths}))
	out.close()
	NavigationServer2D.free_rid(region)
	NavigationServer2D.free_rid(map)
	quit(0 if frames < MAX_SYNC_FRAMES else 3)


## map_get_path as is, or query_path without the default cap on searched polygons
## (path_search_max_polygons = 0), past which Godot returns a path to the closest polygon so far.
func _query(map: RID, from: Vector2, to: Vector2, unlimited: bool) -> PackedVector2Array:
	if not unlimited:
		return NavigationServer2D.map_get_path(map, from, to, true)
	var params := NavigationPathQueryParameters2D.new()
	params.map = map
	params.start_position = from
	params.target_position = to
	params.path_search_max_polygons = 0
	var result := NavigationPathQueryResult2D.new()
	NavigationServer2D.query_path(params, result)
	return result.path


func _navigation_polygon(vertices: Array, polygons: Array) -> NavigationPolygon:
	var points := PackedVector2Array()
	for vertex: Array in vertices:
		var v := PackedFloat64Array(vertex)
		points.append(Vector2(v[0], v[1]))
	var nav := NavigationPolygon.new()
	nav.set_vertices(points)
	for polygon: Array in polygons:
		nav.add_polygon(PackedInt32Array(polygon))
	return nav


func _first_vertex(vertices: Array) -> Vector2:
	var first: Array = vertices[0]
	var v := PackedFloat64Array(first)
	return Vector2(v[0], v[1])


func _make_map(region: RID, nav: NavigationPolygon) -> RID:
	var map: RID = NavigationServer2D.map_create()
	NavigationServer2D.map_set_cell_size(map, nav.cell_size)
	NavigationServer2D.map_set_active(map, true)
	NavigationServer2D.region_set_map(region, map)
	NavigationServer2D.region_set_navigation_polygon(region, nav)
	return map


func _length(path: PackedVector2Array) -> float:
	if path.is_empty():
		return -1.0
	var total: float = 0.0
	for i: int in range(1, path.size()):
		total += path[i - 1].distance_to(path[i])
	return total


func _flatten(path: PackedVector2Array) -> PackedFloat32Array:
	var flat := PackedFloat32Array()
	for point: Vector2 in path:
		flat.append(point.x)
		flat.append(point.y)
	return flat
