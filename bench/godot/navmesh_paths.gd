extends SceneTree
## Runs NavigationServer2D.map_get_path on a mesh and queries from a JSON file (bench helper).
##
## Usage: godot --headless --script navmesh_paths.gd -- <in.json> <out.json>
## The input holds "vertices" ([[x, y], ...]), "polygons" ([[i, j, k, ...], ...]), "queries"
## ([[sx, sy, gx, gy], ...]) and optionally "unlimited" (true: no cap on searched polygons),
## "cell_size" (the map's and mesh's, default 1) and "dim": 3, which runs NavigationServer3D on
## the same mesh laid flat (x, 0, y) with 3D queries, paths flattened back to (x, y).
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
	if int(data.get("dim", 2)) == 3:
		_run_3d(data, out_path)
		return
	var unlimited: bool = data.get("unlimited", false)
	var region: RID = NavigationServer2D.region_create()
	var vertices: Array = data["vertices"]
	var polygons: Array = data["polygons"]
	var nav: NavigationPolygon = _navigation_polygon(vertices, polygons)
	nav.cell_size = float(data.get("cell_size", 1.0))
	var map: RID = _make_map(region, nav)
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


## The same run on NavigationServer3D (query_path, no polygon cap), the mesh at height 0.
func _run_3d(data: Dictionary, out_path: String) -> void:
	# A script run (no main scene) leaves the 3D server inactive: its maps would never sync.
	NavigationServer3D.set_active(true)
	var cell: float = float(data.get("cell_size", 0.25))
	var mesh := NavigationMesh.new()
	mesh.cell_size = cell
	mesh.cell_height = cell
	var points := PackedVector3Array()
	for vertex: Array in data["vertices"]:
		var v := PackedFloat64Array(vertex)
		points.append(Vector3(v[0], 0.0, v[1]))
	mesh.set_vertices(points)
	for polygon: Array in data["polygons"]:
		mesh.add_polygon(PackedInt32Array(polygon))
	var map: RID = NavigationServer3D.map_create()
	NavigationServer3D.map_set_cell_size(map, cell)
	NavigationServer3D.map_set_cell_height(map, cell)
	NavigationServer3D.map_set_active(map, true)
	var region: RID = NavigationServer3D.region_create()
	NavigationServer3D.region_set_map(region, map)
	NavigationServer3D.region_set_navigation_mesh(region, mesh)
	var probe: Vector3 = points[0]
	var frames: int = 0
	while frames < MAX_SYNC_FRAMES:
		if NavigationServer3D.map_get_iteration_id(map) > 0:
			if NavigationServer3D.map_get_closest_point_owner(map, probe) == region:
				break
		await physics_frame
		frames += 1
	var lengths: Array[float] = []
	var usec: Array[int] = []
	var paths: Array[PackedFloat32Array] = []
	var params := NavigationPathQueryParameters3D.new()
	params.map = map
	params.path_search_max_polygons = 0
	var result := NavigationPathQueryResult3D.new()
	for query: Array in data["queries"]:
		var q := PackedFloat64Array(query)
		params.start_position = Vector3(q[0], 0.0, q[1])
		params.target_position = Vector3(q[2], 0.0, q[3])
		var t0: int = Time.get_ticks_usec()
		NavigationServer3D.query_path(params, result)
		usec.append(Time.get_ticks_usec() - t0)
		var flat := PackedFloat32Array()
		var total: float = 0.0
		var path: PackedVector3Array = result.path
		for i: int in range(path.size()):
			flat.append(path[i].x)
			flat.append(path[i].z)
			if i > 0:
				total += path[i - 1].distance_to(path[i])
		lengths.append(total if not path.is_empty() else -1.0)
		paths.append(flat)
	var out: FileAccess = FileAccess.open(out_path, FileAccess.WRITE)
	out.store_string(JSON.stringify({"lengths": lengths, "usec": usec, "paths": paths}))
	out.close()
	NavigationServer3D.free_rid(region)
	NavigationServer3D.free_rid(map)
	quit(0 if frames < MAX_SYNC_FRAMES else 3)
