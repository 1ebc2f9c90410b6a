## Navmesh paths and obstacles as a game at 60 fps sees them (issue 40), beside Godot's
## NavigationServer2D in the same run. Sections (spec keys):
## "frame": per mesh, its queries as request_path calls in ONE frame (they leave as one
## path.find_packed): frames until all answered, and the main thread's CPU from the first call
## until every request was seen done, minus as many idle frames of the same run, against the CPU
## of Godot's blocking query_path (no polygon cap) for the same queries.
## "obstacles": AStarBridgeObstacle2D nodes moved every frame for a number of frames on a mesh:
## sidecar CPU per update (/proc of its pid), main-thread CPU per frame (idle frames subtracted),
## messages per frame, and paths asked afterwards checked against the obstacles' outlines.
## "region": a map of the mesh plus a small region; the small region moved (graph.update regions
## move): the update's wall time, and the longest graph.list round trip of a second connection
## meanwhile (the event loop's stall).
## Prints one line "BENCH {json}". Run by bench/navmesh_frame.py:
## godot --headless --path tests/godot_project --script <repo>/bench/godot/navmesh_frame_bench.gd
##     -- <spec.json>
extends SceneTree

const AStarBridgeNode = preload("res://addons/astar_bridge/astar_bridge.gd")
const NavmapSerializer = preload("res://addons/astar_bridge/serializers/navmap_serializer.gd")
const NavmeshSerializer = preload("res://addons/astar_bridge/serializers/navmesh_serializer.gd")
const ProcessProbe = preload("res://addons/astar_bridge/rpc/process_probe.gd")
const Obstacle2D = preload("res://addons/astar_bridge/nodes/astar_obstacle_2d.gd")
const FrameTimeline = preload("frame_timeline.gd")
const GAME_FPS := 60
const FRAME_RUNS := 5
const MAX_SYNC_FRAMES := 1200

# spec "timeline": each frame run's moments (frame_timeline.gd); "answer": a recorded answer to
# time the decoding of; "runs": frame runs per mesh; "ids_both": runs alternate without and with
# config.navmesh_ids (the polygons in each answer), the same run's figures before and after.
var _timeline: bool = false
var _frame_runs: int = FRAME_RUNS
var _ids_both: bool = false


func _initialize() -> void:
	_run.call_deferred()


func _run() -> void:
	var spec: Dictionary = JSON.parse_string(
		FileAccess.get_file_as_string(OS.get_cmdline_user_args()[0])
	)
	_timeline = spec.get("timeline", false)
	_frame_runs = spec.get("runs", FRAME_RUNS)
	_ids_both = spec.get("ids_both", false)
	var bridge: AStarBridgeNode = await _make_bridge("AStarBridge")
	var report: Dictionary = {"frame": [], "machine_cores": OS.get_processor_count()}
	var meshes: Dictionary = spec["meshes"]
	var polygons: Dictionary = {}
	var maps: Dictionary = {}
	for name: String in meshes:
		polygons[name] = _navigation_polygon(meshes[name])
		maps[name] = await _godot_map(polygons[name])
	var frames: Array = report["frame"]
	for name: String in spec.get("frame", []):
		frames.append(await _bench_frame(bridge, name, meshes[name], polygons[name], maps[name]))
	if spec.has("answer"):
		report["decode"] = FrameTimeline.decode_cost(spec["answer"], spec["answer_queries"], 5)
	if spec.has("obstacles"):
		var setup: Dictionary = spec["obstacles"]
		var name: String = setup["mesh"]
		report["obstacles"] = await _bench_obstacles(
			bridge, name, meshes[name], polygons[name], setup
		)
	if spec.has("region"):
		var setup: Dictionary = spec["region"]
		report["region"] = await _bench_region(bridge, polygons[setup["mesh"]], setup)
	bridge.stop()
	print("BENCH %s" % JSON.stringify(report))
	quit(0)


func _make_bridge(name: String) -> AStarBridgeNode:
	var bridge: AStarBridgeNode = AStarBridgeNode.new()
	bridge.name = name  # the obstacle nodes find the autoload at /root/AStarBridge
	bridge.config.autostart = false
	bridge.config.host = "127.0.0.1"
	bridge.config.port = OS.get_environment("BENCH_SIDECAR_PORT").to_int()
	bridge.config.token = OS.get_environment("BENCH_SIDECAR_TOKEN")
	bridge.config.report_failures = false
	bridge.config.connect_timeout_ms = 30000
	bridge.config.request_timeout_ms = 120000
	bridge.config.load_timeout_ms = 600000
	bridge.config.heartbeat_ms = 0
	bridge.config.unresponsive_timeout_ms = 600000  # a long rebuild is measured, not restarted
	root.add_child(bridge)
	bridge.start()
	while not bridge.is_ready():
		await process_frame
	return bridge


# The mesh on a navigation map of its own (Godot's side), once the map synced it.
func _godot_map(nav: NavigationPolygon) -> RID:
	var map: RID = NavigationServer2D.map_create()
	NavigationServer2D.map_set_cell_size(map, nav.cell_size)
	NavigationServer2D.map_set_active(map, true)
	var region: RID = NavigationServer2D.region_create()
	NavigationServer2D.region_set_map(region, map)
	NavigationServer2D.region_set_navigation_polygon(region, nav)
	var first: Vector2 = nav.get_vertices()[0]
	for _i: int in MAX_SYNC_FRAMES:
		await physics_frame
		if NavigationServer2D.map_get_closest_point_owner(map, first) == region:
			break
	return map


func _navigation_polygon(mesh: Dictionary) -> NavigationPolygon:
	var nav := NavigationPolygon.new()
	var flat: PackedFloat64Array = PackedFloat64Array(mesh["vertices"])
	var points := PackedVector2Array()
	for i: int in range(0, flat.size(), 2):
		points.append(Vector2(flat[i], flat[i + 1]))
	nav.set_vertices(points)
	for polygon: Array in mesh["polygons"]:
		nav.add_polygon(PackedInt32Array(polygon))
	return nav


# Loads the mesh as graph [param name] (as load_navigation_region does, without a node).
func _load(bridge: AStarBridgeNode, name: String, nav: NavigationPolygon) -> AStarBridgeResult:
	return bridge.load_graph(
		NavmeshSerializer.METHOD, NavmeshSerializer.from_navigation_polygon(nav, name)
	)


func _queries(mesh: Dictionary) -> Array[Vector2]:
	var ends: Array[Vector2] = []
	for query: Array in mesh["queries"]:
		var q := PackedFloat64Array(query)
		ends.append(Vector2(q[0], q[1]))
		ends.append(Vector2(q[2], q[3]))
	return ends


# (a), (b): the mesh's queries asked in one frame, _frame_runs times (one warm-up run first).
func _bench_frame(
	bridge: AStarBridgeNode, name: String, mesh: Dictionary, nav: NavigationPolygon, map: RID
) -> Dictionary:
	var loaded: AStarBridgeResult = _load(bridge, name, nav)
	if not loaded.is_ok():
		return {"mesh": name, "error": loaded.message}
	var ends: Array[Vector2] = _queries(mesh)
	var count: int = ends.size() >> 1
	var params := NavigationPathQueryParameters2D.new()
	params.map = map
	params.path_search_max_polygons = 0  # no cap: Godot finishes every path, as ours do
	var result := NavigationPathQueryResult2D.new()
	var godot_cpu: int = _main_thread_cpu_ns()
	for i: int in count:
		params.start_position = ends[2 * i]
		params.target_position = ends[2 * i + 1]
		NavigationServer2D.query_path(params, result)
	var godot_cpu_ms: float = (_main_thread_cpu_ns() - godot_cpu) / 1e6
	Engine.max_fps = GAME_FPS
	var runs: Array[Dictionary] = []
	for run: int in _frame_runs + 1:
		bridge.config.navmesh_ids = _ids_both and run % 2 == 0
		await process_frame
		bridge.reset_stats()
		var requests: Array[AStarBridgePathRequest] = []
		var line: FrameTimeline = FrameTimeline.new() if _timeline else null
		if line != null:
			line.note("issue")
		var cpu: int = _main_thread_cpu_ns()
		var issued: int = Time.get_ticks_usec()
		for i: int in count:
			requests.append(bridge.request_path(name, ends[2 * i], ends[2 * i + 1]))
		if line != null:
			line.note("calls_done")
			line.watch(requests)
		var frames: int = 0
		while _pending(requests) > 0:
			await process_frame
			frames += 1
			if line != null:
				line.frame()
		var wall_ms: float = (Time.get_ticks_usec() - issued) / 1000.0
		var cpu_ms: float = (_main_thread_cpu_ns() - cpu) / 1e6
		var stats: Dictionary = bridge.get_stats()
		var idle: int = _main_thread_cpu_ns()
		_pending(requests)
		for _frame: int in frames:
			await process_frame
			_pending(requests)
		var idle_cpu_ms: float = (_main_thread_cpu_ns() - idle) / 1e6
		var found: int = 0
		for request: AStarBridgePathRequest in requests:
			found += 1 if str(request.result.get("status", "")) == "found" else 0
		requests.clear()
		if run > 0:
			(
				runs
				. append(
					{
						"frames": frames,
						"wall_ms": wall_ms,
						"cpu_ms": cpu_ms,
						"idle_cpu_ms": idle_cpu_ms,
						"messages": stats.get("messages", -1),
						"failures": stats.get("failures", -1),
						"found": found,
						"ids": bridge.config.navmesh_ids,
						"timeline": line.to_map() if line != null else {},
					}
				)
			)
	Engine.max_fps = 0
	bridge.drop_graph(name)
	return {
		"mesh": name,
		"queries": count,
		"polygons": (mesh["polygons"] as Array).size(),
		"godot_cpu_ms": godot_cpu_ms,
		"runs": runs,
	}


# (c): moving obstacle nodes on the mesh, each moved every frame.
func _bench_obstacles(
	bridge: AStarBridgeNode,
	name: String,
	mesh: Dictionary,
	nav: NavigationPolygon,
	setup: Dictionary
) -> Dictionary:
	var loaded: AStarBridgeResult = _load(bridge, name, nav)
	if not loaded.is_ok():
		return {"error": loaded.message}
	var ends: Array[Vector2] = _queries(mesh)
	var count: int = setup["count"]
	var half: float = setup["half_side"]
	var updates: int = setup["frames"]
	var holder := Node2D.new()
	root.add_child(holder)
	var obstacles: Array[Obstacle2D] = []
	var square := PackedVector2Array(
		[Vector2(-half, -half), Vector2(half, -half), Vector2(half, half), Vector2(-half, half)]
	)
	for i: int in count:
		var node: Obstacle2D = Obstacle2D.new()
		node.graph_id = name
		node.vertices = square
		node.position = ends[(2 * i + 1) % ends.size()]
		holder.add_child(node)
		obstacles.append(node)
	await _settle(bridge)
	var pid: int = OS.get_environment("BENCH_SIDECAR_PID").to_int()
	Engine.max_fps = GAME_FPS
	bridge.reset_stats()
	var side_cpu: int = ProcessProbe.sample(pid).get("cpu_ms", 0)
	var cpu: int = _main_thread_cpu_ns()
	var started: int = Time.get_ticks_usec()
	for frame: int in updates:
		var step := Vector2(cos(frame * 0.2), sin(frame * 0.2)) * half * 0.25
		for node: Obstacle2D in obstacles:
			node.position += step
		await process_frame
	var cpu_ms: float = (_main_thread_cpu_ns() - cpu) / 1e6
	await _settle(bridge)
	var wall_ms: float = (Time.get_ticks_usec() - started) / 1000.0
	var side_ms: int = ProcessProbe.sample(pid).get("cpu_ms", 0) - side_cpu
	var stats: Dictionary = bridge.get_stats()
	var idle: int = _main_thread_cpu_ns()
	for _frame: int in updates:
		await process_frame
	var idle_cpu_ms: float = (_main_thread_cpu_ns() - idle) / 1e6
	Engine.max_fps = 0
	var info: AStarBridgeResult = bridge.call_method("graph.info", {"id": name})
	var held: int = (info.value as Dictionary).get("obstacles", -1) if info.is_ok() else -1
	var checked: Dictionary = await _check_paths(bridge, name, ends, obstacles)
	holder.free()
	bridge.drop_graph(name)
	return {
		"mesh": name,
		"obstacles": count,
		"updates": updates,
		"messages": stats.get("messages", -1),
		"failures": stats.get("failures", -1),
		"sidecar_cpu_ms": side_ms,
		"main_cpu_ms": cpu_ms,
		"idle_cpu_ms": idle_cpu_ms,
		"wall_ms": wall_ms,
		"held_after": held,
		"paths": checked,
	}


# Paths asked after the last move: none may run inside an obstacle (its outline shrunk by a
# hair: a path may touch it).
func _check_paths(
	bridge: AStarBridgeNode, name: String, ends: Array[Vector2], obstacles: Array[Obstacle2D]
) -> Dictionary:
	var outlines: Array[PackedVector2Array] = []
	for node: Obstacle2D in obstacles:
		outlines.append_array(Geometry2D.offset_polygon(node.get_global_outline(), -1e-3))
	var requests: Array[AStarBridgePathRequest] = []
	for i: int in ends.size() >> 1:
		requests.append(bridge.request_path(name, ends[2 * i], ends[2 * i + 1]))
	while _pending(requests) > 0:
		await process_frame
	var found: int = 0
	var crossing: int = 0
	for request: AStarBridgePathRequest in requests:
		if str(request.result.get("status", "")) != "found":
			continue
		found += 1
		var points: PackedVector2Array = request.result["points"]
		for outline: PackedVector2Array in outlines:
			if not Geometry2D.intersect_polyline_with_polygon(points, outline).is_empty():
				crossing += 1
				break
	return {"asked": requests.size(), "found": found, "crossing": crossing}


# (d): the mesh as one region of a map beside a small square region; the square moved, each
# move once synchronously (its wall time) and once without waiting while a second connection
# asks graph.list (the longest of those round trips: how long the event loop stalled).
func _bench_region(
	bridge: AStarBridgeNode, big: NavigationPolygon, setup: Dictionary
) -> Dictionary:
	var scene := Node2D.new()
	root.add_child(scene)
	var idle_map: RID = NavigationServer2D.map_create()  # never active: Godot merges nothing
	var whole := NavigationRegion2D.new()
	whole.navigation_polygon = big
	scene.add_child(whole)
	whole.set_navigation_map(idle_map)
	var side: float = setup["side"]
	var nav := NavigationPolygon.new()
	nav.set_vertices(
		PackedVector2Array([Vector2(0, 0), Vector2(side, 0), Vector2(side, side), Vector2(0, side)])
	)
	nav.add_polygon(PackedInt32Array([0, 1, 2, 3]))
	var small := NavigationRegion2D.new()
	small.navigation_polygon = nav
	var at := PackedFloat64Array(setup["at"])
	small.position = Vector2(at[0], at[1])
	scene.add_child(small)
	small.set_navigation_map(idle_map)
	var started: int = Time.get_ticks_usec()
	var loaded: AStarBridgeResult = bridge.load_navigation_scene("regions", scene)
	var load_ms: float = (Time.get_ticks_usec() - started) / 1000.0
	if not loaded.is_ok():
		return {"error": loaded.message}
	var small_id: int = NavmapSerializer.region_ids(scene)[small]
	var probe: AStarBridgeNode = await _make_bridge("Probe")
	var moves: Array[Dictionary] = []
	var step: float = setup["step"]
	for k: int in setup["moves"]:
		var xform := [1.0, 0.0, 0.0, 1.0, at[0] + step * (2 * k + 1), at[1]]
		var op: Dictionary = {"op": "move", "id": small_id, "transform": xform}
		started = Time.get_ticks_usec()
		var done: AStarBridgeResult = bridge.update_graph("regions", {"regions": [op]})
		var sync_ms: float = (Time.get_ticks_usec() - started) / 1000.0
		var back: Dictionary = op.duplicate(true)
		back["transform"][4] = at[0] + step * (2 * k + 2)
		var request: AStarBridgeEditRequest = bridge.request_update("regions", {"regions": [back]})
		await process_frame  # the frame's end wrote it
		var worst_ms: float = 0.0
		var probes: int = 0
		while not request.is_done():
			var asked: int = Time.get_ticks_usec()
			probe.call_method("graph.list", {})
			worst_ms = maxf(worst_ms, (Time.get_ticks_usec() - asked) / 1000.0)
			probes += 1
			await process_frame
		var later: AStarBridgeResult = await request.wait()
		(
			moves
			. append(
				{
					"sync_ms": sync_ms,
					"ok": done.is_ok() and later.is_ok(),
					"error": done.message + later.message,
					"probe_worst_ms": worst_ms,
					"probes": probes,
				}
			)
		)
	probe.stop()
	scene.free()
	bridge.drop_graph("regions")
	return {"load_ms": load_ms, "polygons": big.get_polygon_count() + 1, "moves": moves}


# Frames until nothing is pending (every update sent and answered).
func _settle(bridge: AStarBridgeNode) -> void:
	for _i: int in 3:
		await process_frame
	while bridge.get_stats()["pending"] > 0:
		await process_frame


# CPU time the main thread has run, in nanoseconds (Linux schedstat), as find_path_bench.gd.
func _main_thread_cpu_ns() -> int:
	OS.delay_usec(1)
	var pid: int = OS.get_process_id()
	var file: FileAccess = FileAccess.open(
		"/proc/%d/task/%d/schedstat" % [pid, pid], FileAccess.READ
	)
	if file == null:
		return 0
	var fields: PackedStringArray = file.get_buffer(256).get_string_from_ascii().split(" ")
	return fields[0].to_int()


func _pending(requests: Array[AStarBridgePathRequest]) -> int:
	var count: int = 0
	for request: AStarBridgePathRequest in requests:
		if not request.is_done():
			count += 1
	return count
