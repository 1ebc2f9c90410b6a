# gdlint: disable=max-public-methods
## The A* Bridge autoload ([code]AStarBridge[/code]): uploads the game's navigation data to the
## Python sidecar and asks it for paths, in the engine's terms.
## [br][br]
## Graphs: [method load_tile_map_layer], [method load_astar_grid_2d], [method load_astar_2d],
## [method load_astar_3d], [method load_navigation_region] (several regions as one map); edits:
## [method set_cells_solid], [method set_cells_weight], [method set_point_disabled], and without
## waiting [method request_cells_solid], [method request_cells_weight],
## [method request_point_disabled], [method request_update]. Paths:
## [method find_path] (the one-liner), [method query_path] with an [AStarBridgePathQuery] and an
## [AStarBridgePathResult] (like [method NavigationServer2D.query_path]), and without waiting
## [method request_path] / [method request_query]: [code]await request.wait()[/code] is safe
## whether or not the request already finished.
## [br][br]
## Positions: on a grid loaded without [code]cell_size[/code]/[code]origin[/code] (a
## [TileMapLayer] or [AStarGrid2D] gives them), endpoints and points are cells; with them, world
## positions ([Vector2i] endpoints are always cells). On waypoint graphs a position means the
## closest point; an [int] is a point id. The sidecar starts with the game (or connects to
## [member BridgeConfig.host] when [code]autostart[/code] is off: see [member config]); after a
## loss it restarts and re-uploads every graph in its current state. The wire underneath
## ([method load_graph], [method update_graph], [method call_method]) stays open to power users.
## [br][br]
## Path costs are in the points' units: world units on a placed grid (a straight step of a 16 px
## tile costs 16; [AStarGrid2D] counts cells). Every method's return and failure values:
## docs/api.md.
## [codeblock]
## func _ready() -> void:
##     AStarBridge.load_astar_grid_2d("level", $Level.astar)
##     var path: PackedVector2Array = AStarBridge.find_path("level", Vector2i(0, 0), Vector2i(5, 3))
##     AStarBridge.set_cells_solid("level", [Vector2i(2, 2)], true)
## [/codeblock]
extends Node

## Emitted when requests can be answered (after a start, or a restart and its re-upload).
signal sidecar_ready
## Emitted when the sidecar or the connection went away; a restart follows unless it gave up.
signal sidecar_lost(reason: String)
## Emitted after a graph was loaded.
signal graph_loaded(id: String)
## Emitted while the sidecar builds a graph's hierarchy ([code]graph.progress[/code]).
signal graph_progress(id: String, done: int, total: int)
## Emitted after each successful update of graph [param id] that changed its ground (cells,
## weights, waypoint points): [param cells] lists the grid cells whose walkability or weight
## changed; an empty array means any part of the graph may have changed. Updates that only move
## agents do not emit it.
signal graph_updated(id: String, cells: Array[Vector2i])
## The wire parameters of each successful update that changed graph [param id]'s ground (for
## tools such as the debug drawing, which fold it into their copy).
signal graph_update_applied(id: String, update: Dictionary)
## Emitted once when a running sidecar answered nothing for [param waited_ms] and its process was
## stopped, idle or past the busy limit (then restarted).
signal sidecar_unresponsive(waited_ms: int)
## Emitted when a frame's obstacle changes of graph [param id] were sent: [param outlines] are
## the ground-plane outlines placed or moved, [param bounds] their boxes (agents re-path on them).
signal obstacles_changed(id: String, outlines: Array[PackedVector2Array], bounds: Array[Rect2])
## Emitted once a silence when the sidecar answered nothing for [param waited_ms] but its process
## is working; it is kept (up to config.busy_limit_ms).
signal sidecar_busy(waited_ms: int)

const BridgeConfig = preload("res://addons/astar_bridge/runtime/bridge_config.gd")
const DebugHooks = preload("res://addons/astar_bridge/debug/debug_hooks.gd")
const FieldCalls = preload("res://addons/astar_bridge/runtime/field_calls.gd")
const FlowField = preload("res://addons/astar_bridge/api/flow_field.gd")
const BridgeResult = preload("res://addons/astar_bridge/api/bridge_result.gd")
const EditRequest = preload("res://addons/astar_bridge/api/edit_request.gd")
const GraphCalls = preload("res://addons/astar_bridge/runtime/graph_calls.gd")
const GraphSources = preload("res://addons/astar_bridge/runtime/graph_sources.gd")
const GraphStore = preload("res://addons/astar_bridge/runtime/graph_store.gd")
const ObstacleChanges = preload("res://addons/astar_bridge/runtime/obstacle_changes.gd")
const PathCalls = preload("res://addons/astar_bridge/runtime/path_calls.gd")
const PathQuery = preload("res://addons/astar_bridge/api/path_query.gd")
const PathRequest = preload("res://addons/astar_bridge/api/path_request.gd")
const PathResult = preload("res://addons/astar_bridge/api/path_result.gd")
const RequestQueue = preload("res://addons/astar_bridge/runtime/request_queue.gd")
const SidecarLink = preload("res://addons/astar_bridge/runtime/sidecar_link.gd")
# gdlint: ignore=constant-name
const Phase = SidecarLink.Phase
const WAYPOINTS := "graph.load_waypoints"
const NAVMESH := "graph.load_navmesh"

## How this node reaches its sidecar (defaults from the [code]astar_bridge/...[/code] project
## settings): python_executable, autostart, host, port, token, extra_arguments, the timeouts,
## max_in_flight, io_thread, auto_restart, report_failures. Change before [method start].
var config: BridgeConfig = BridgeConfig.new()

var _store: GraphStore = GraphStore.new()
var _link: SidecarLink = SidecarLink.new(config, _store)
var _queue: RequestQueue = RequestQueue.new(config, _link)
var _graphs: GraphCalls = GraphCalls.new(config, _link, _store, _queue)
var _paths: PathCalls = PathCalls.new(config, _link, _queue, _graphs, _store)
var _fields: FieldCalls = FieldCalls.new(_link, _queue, _graphs, _store)
var _obstacles: ObstacleChanges = ObstacleChanges.new(_graphs, _store)


func _init() -> void:
	config.load_settings()
	_link.became_ready.connect(sidecar_ready.emit)
	_link.lost.connect(sidecar_lost.emit)
	_link.unresponsive.connect(sidecar_unresponsive.emit)
	_link.busy.connect(sidecar_busy.emit)
	_link.progress.connect(graph_progress.emit)
	_graphs.loaded.connect(graph_loaded.emit)
	_graphs.updated.connect(graph_updated.emit)
	_graphs.applied.connect(graph_update_applied.emit)
	_obstacles.sent.connect(obstacles_changed.emit)


func _ready() -> void:
	GraphCalls.check_project_scanned()
	DebugHooks.attach(self)
	if config.autostart:
		start()


func _process(_delta: float) -> void:
	_link.process_frame()
	_queue.process_frame()


func _physics_process(_delta: float) -> void:
	_queue.pump()


func _exit_tree() -> void:
	stop()


func _notification(what: int) -> void:
	if what == NOTIFICATION_WM_CLOSE_REQUEST or what == NOTIFICATION_PREDELETE:
		stop()


## Connects now (launches the sidecar, or connects to [code]config.host:port[/code]);
## [signal sidecar_ready] tells when it is done. OK when it began or was already started; on
## failure the launcher's error (ERR_CANT_CREATE), [method get_last_error] says why, and calls
## fail with not_connected until start() is called again.
func start() -> Error:
	return _link.start()


## Fails pending requests, closes the connection and kills the sidecar this node started. The
## graphs are kept: a later [method start] uploads them again.
func stop() -> void:
	_link.stop()
	_queue.fail_all("disconnected", "the bridge was stopped")


## True when requests can be answered now.
func is_ready() -> bool:
	return _link.is_ready()


## Where the connection stands (a [code]AStarBridge.Phase[/code]: READY when it answers,
## FAILED when it gave up).
func get_phase() -> SidecarLink.Phase:
	return _link.phase


## Why the last start, restart or call failed (or "").
func get_last_error() -> String:
	return _link.last_error


## The process id of the sidecar this node started, or -1.
func get_sidecar_pid() -> int:
	return _link.sidecar_pid()


## The port of the sidecar this node talks to, or 0 before it is known.
func get_sidecar_port() -> int:
	return _link.sidecar_port


## Loads [param layer]'s used rect as grid [param id], in the layer's world positions and in
## the shape its [TileSet] draws (square, isometric, half-offset or hexagonal: a cell's
## neighbours are the engine's [method TileMapLayer.get_surrounding_cells]).
## Walkable: a tile whose bool custom data layer "walkable" is true (or navigation / physics
## polygons); cells without a tile are walls; diagonals only past no wall (not [AStarGrid2D]'s
## default). [param options]: source, walkable_layer, weight_layer, navigation_layer,
## physics_layer, empty_walkable, region, diagonal, global, hierarchy (docs/api.md). Like every
## load: synchronous; returns a result whose value is [code]{"id", "nodes"}[/code]; on failure
## (bad_request with a push_error saying what to change, or the sidecar's code) the old graph of
## that id stays.
func load_tile_map_layer(id: String, layer: TileMapLayer, options: Dictionary = {}) -> BridgeResult:
	var params: Dictionary = GraphSources.tile_map_layer(id, layer, options)
	return _graphs.load_engine_grid(id, params, GraphSources.tile_map_offset(layer, options))


## Loads an [AStarGrid2D] (its region, solid points, weights, diagonal mode, cell size, offset,
## cell shape: the diamond shapes keep the square neighbours and costs, only the points move).
## Failure: as [method load_tile_map_layer].
func load_astar_grid_2d(id: String, grid: AStarGrid2D) -> BridgeResult:
	var params: Dictionary = GraphSources.astar_grid_2d(id, grid)
	return _graphs.load_engine_grid(
		id, params, grid.region.position if grid != null else Vector2i()
	)


## Loads an [AStar2D] waypoint graph (points, connections, weights, disabled points). Failure:
## as [method load_tile_map_layer].
func load_astar_2d(id: String, astar: AStar2D) -> BridgeResult:
	return _graphs.load_source(id, WAYPOINTS, GraphSources.astar_2d(id, astar))


## Loads an [AStar3D] waypoint graph. Failure: as [method load_tile_map_layer].
func load_astar_3d(id: String, astar: AStar3D) -> BridgeResult:
	return _graphs.load_source(id, WAYPOINTS, GraphSources.astar_3d(id, astar))


## Loads the baked meshes of [param regions] ([NavigationRegion2D] or [NavigationRegion3D]
## nodes) as one navigation mesh [param id], in global coordinates. Failure: as
## [method load_tile_map_layer].
func load_navigation_region(id: String, regions: Array[Node]) -> BridgeResult:
	return _graphs.load_source(id, NAVMESH, GraphSources.navigation_regions(id, regions))


## Loads every navigation region and [NavigationLink2D]/[NavigationLink3D] under [param root]
## as one map [param id], with their navigation layers and enter/travel costs (docs/navmesh.md).
## Failure: as [method load_tile_map_layer].
func load_navigation_scene(id: String, root: Node) -> BridgeResult:
	return _graphs.load_source(id, NAVMESH, GraphSources.navigation_scene(id, root))


## Loads a grid of [param width] x [param height] cells, one byte each, row-major (0 = solid).
## [param extra]: weights, cell_size, origin, hierarchy (HPA*: docs/hpa.md). Failure: as
## [method load_tile_map_layer].
func load_grid(
	id: String,
	width: int,
	height: int,
	cells: PackedByteArray,
	diagonal: AStarGrid2D.DiagonalMode = AStarGrid2D.DIAGONAL_MODE_ONLY_IF_NO_OBSTACLES,
	extra: Dictionary = {}
) -> BridgeResult:
	return _graphs.load_grid(id, width, height, cells, diagonal, extra)


## Makes [param cells] of grid [param id] solid (or walkable again), like
## [method AStarGrid2D.set_point_solid]. Synchronous; [signal graph_updated] follows a success
## (value [code]{"id", "version"}[/code]). On failure nothing changes: bad_request (refused,
## with a push_error), unknown_graph, out_of_bounds, not_connected or timeout.
func set_cells_solid(id: String, cells: Array[Vector2i], solid: bool = true) -> BridgeResult:
	return _graphs.edit(id, GraphSources.cells_solid(id, _graphs.local_cells(id, cells), solid))


## Gives [param cells] of grid [param id] the weight [param weight] (> 0), like
## [method AStarGrid2D.set_point_weight_scale]. Failure: as [method set_cells_solid].
func set_cells_weight(id: String, cells: Array[Vector2i], weight: float) -> BridgeResult:
	return _graphs.edit(id, GraphSources.cells_weight(id, _graphs.local_cells(id, cells), weight))


## Disables waypoint [param point] of graph [param id] (or enables it again), like
## [method AStar2D.set_point_disabled]. Failure: as [method set_cells_solid].
func set_point_disabled(id: String, point: int, disabled: bool = true) -> BridgeResult:
	return _graphs.edit(id, GraphSources.point_disabled(id, point, disabled))


## [method set_cells_solid] without waiting: the frame goes on while the sidecar applies the edit
## (and repairs the grid's flow fields). Edits and path or field requests take effect in the
## order they were made, in one frame too. [code]await request.wait()[/code] gives the
## [AStarBridgeResult]; [signal graph_updated] comes just before it completes. Bad input or an
## unknown graph: a push_error and a request that completes failed, as the synchronous call.
func request_cells_solid(id: String, cells: Array[Vector2i], solid: bool = true) -> EditRequest:
	var params: Dictionary = GraphSources.cells_solid(id, _graphs.local_cells(id, cells), solid)
	return _graphs.request_edit(id, params)


## [method set_cells_weight] without waiting (see [method request_cells_solid]).
func request_cells_weight(id: String, cells: Array[Vector2i], weight: float) -> EditRequest:
	var params: Dictionary = GraphSources.cells_weight(id, _graphs.local_cells(id, cells), weight)
	return _graphs.request_edit(id, params)


## [method set_point_disabled] without waiting (see [method request_cells_solid]).
func request_point_disabled(id: String, point: int, disabled: bool = true) -> EditRequest:
	return _graphs.request_edit(id, GraphSources.point_disabled(id, point, disabled))


## Places (or moves) obstacle [param id] (>= 0; 2^40 and up are the obstacle nodes') on grid or
## navmesh [param graph_id] at the frame's end, in one update with the frame's other changes.
## [param shape]: an outline in world positions ([PackedVector2Array]; 3D [PackedVector3Array],
## x and z) or a centre ([Vector2], [Vector3]) with [param radius]; 3D: [param height] above the
## first point's or centre's y. OK, or ERR_INVALID_PARAMETER after a push_error (docs/addon.md).
func set_obstacle(
	graph_id: String, id: int, shape: Variant, radius: float = 0.0, height: float = INF
) -> Error:
	return _obstacles.set_shape(graph_id, id, shape, radius, height)


## Removes obstacle [param id] of [param graph_id] at the frame's end; ERR_DOES_NOT_EXIST (and a
## push_error) when it has none of that id.
func remove_obstacle(graph_id: String, id: int) -> Error:
	return _obstacles.remove(graph_id, id)


## Power users: [method update_graph] without waiting (see [method request_cells_solid]).
func request_update(id: String, changes: Dictionary) -> EditRequest:
	return _graphs.request_wire(id, changes)


## Unloads graph [param id] and forgets it. Fails with unknown_graph when the sidecar had none
## (it is forgotten anyway).
func drop_graph(id: String) -> BridgeResult:
	return _graphs.drop(id)


## The ids of the graphs this node loaded (and re-uploads after a restart).
func get_graph_ids() -> PackedStringArray:
	return _store.ids()


## [code]{"method", "params"}[/code] graph [param id] was loaded with ({} if unknown), for tools.
func get_graph_load(id: String) -> Dictionary:
	return _graphs.load_of(id)


## How much this node keeps of graph [param id] beyond its load parameters (bounded by the
## graph's size: updates are folded into its current state). 0 for an unknown id.
func get_graph_state_size(id: String) -> int:
	return _store.state_size(id)


## Writes graph [param id]'s load parameters to [param path] as a graph file python_core reads.
## OK, or ERR_DOES_NOT_EXIST (unknown id) or the file's error after a push_error.
func export_graph(id: String, path: String) -> Error:
	return _graphs.export_to(id, path)


## The path from [param from] to [param to] on 2D graph [param graph]: world positions on a
## placed grid, else cells. An empty array when there is none, the call failed or the graph is
## 3D ([method find_path_result] tells them apart; no path prints nothing unless the setting
## astar_bridge/debug/report_no_path is on). Synchronous: waits for the answer, never sleeping.
## [param options] maps [AStarBridgePathQuery]'s property names to values (power users).
func find_path(
	graph: String, from: Variant, to: Variant, options: Dictionary = {}
) -> PackedVector2Array:
	var points: Variant = _paths.find(graph, from, to, options)["points"]
	return points if points is PackedVector2Array else PackedVector2Array()


## The 3D form of [method find_path] (3D waypoint graphs and navigation meshes); an empty array
## likewise.
func find_path_3d(
	graph: String, from: Variant, to: Variant, options: Dictionary = {}
) -> PackedVector3Array:
	var points: Variant = _paths.find(graph, from, to, options)["points"]
	return points if points is PackedVector3Array else PackedVector3Array()


## Answers [param query] into [param result] (synchronous), like
## [method NavigationServer2D.query_path]. On failure [code]result.status[/code] is ERROR and
## [code]result.error_code[/code] says why (bad_request, with a push_error, for a bad query).
func query_path(query: PathQuery, result: PathResult) -> void:
	result.fill(_paths.find_query(query))


## Asks for [param query]'s path without waiting: [code]await request.wait()[/code] gives the
## [AStarBridgePathResult] (many NPCs may ask in one frame; answers complete in their frame).
## Never null: a failure completes the request with status ERROR. The requests of a frame leave
## together at its end, one message per graph and options map (config.batch_requests, on by
## default); each completes with its own result, and a bad one fails alone.
func request_query(query: PathQuery) -> PathRequest:
	return _paths.request_query(query)


## [method request_query] with the graph, endpoints and an options map.
func request_path(
	graph: String, from: Variant, to: Variant, options: Dictionary = PathCalls.NO_OPTIONS
) -> PathRequest:
	return _paths.request(graph, from, to, options)


## Many paths in one message: each query is [code]{"graph", "from", "to", "options"}[/code];
## [code]await request.wait_all()[/code] gives one result per query, in order. Queries that share
## one grid and one options map (a crowd asking at once) go as one [code]path.find_packed[/code],
## endpoints and answers as arrays; any other batch as one [code]path.find_many[/code].
func request_paths(queries: Array[Dictionary]) -> PathRequest:
	return _paths.request_many(queries)


## The result map of one synchronous query ([code]{"status", "points", "ids", "cost",
## "expanded", "error"}[/code]); [param from]/[param to] may be waypoint ids. Status "found",
## "partial", "no_path", "budget_exhausted", or "error" with [code]error = {code, message,
## data}[/code] on failure.
func find_path_result(
	graph: String, from: Variant, to: Variant, options: Dictionary = {}
) -> Dictionary:
	return _paths.find(graph, from, to, options)


## [method find_path_result] between waypoint ids (like [method AStar2D.get_id_path]); failure
## as there.
func find_path_ids(graph: String, from_id: int, to_id: int, options: Dictionary = {}) -> Dictionary:
	return _paths.find(graph, from_id, to_id, options)


## A flow field of grid [param graph_id] toward [param goals] ([Vector2i] cells in the engine's
## coordinates, as [method set_cells_solid], or [Vector2] world positions), shared by every unit
## heading there: units sample it locally each frame ([method AStarBridgeFlowField.direction_at],
## [method AStarBridgeFlowField.next_waypoint]). Returned at once; its tiles arrive as units reach
## them ([signal AStarBridgeFlowField.ready_changed] when the first do). [param options]:
## [code]starts[/code] (cells or positions to cover at once), [code]agents_block[/code] (cells
## with agents are not entered), [code]costs[/code] (fetch costs for
## [method AStarBridgeFlowField.cost_at]). Returns null after a push_error for an unknown graph,
## a graph that is not a grid, no goals, a goal or start outside the grid or of another type, or
## an unknown option. See docs/flowfield.md.
func request_flow_field(graph_id: String, goals: Array, options: Dictionary = {}) -> FlowField:
	return _fields.request(graph_id, goals, options)


## The flow fields made by [method request_flow_field] that something still holds (for tools
## such as the debug drawing).
func get_flow_fields() -> Array[FlowField]:
	return _fields.live_fields()


## Power users: uploads a graph with wire [param method] (graph.load_grid, graph.load_waypoints,
## graph.load_navmesh) and its parameter map (with "id"), as the serializers build them.
## bad_request (and a push_error) for another method or no id; else as the other loads.
func load_graph(method: String, params: Dictionary) -> BridgeResult:
	return _graphs.load_wire(method, params)


## Power users: applies wire [code]graph.update[/code] fields [param changes] to graph [param id].
## Failure: as [method set_cells_solid].
func update_graph(id: String, changes: Dictionary) -> BridgeResult:
	return _graphs.update_wire(id, changes)


## Power users: calls any protocol [param method] and waits for the answer; on failure the
## protocol's code, or not_connected / timeout.
func call_method(method: String, params: Dictionary) -> BridgeResult:
	return _link.call_sync(method, params, config.request_timeout_ms)


## Counters for a HUD: requests, failures, latency (mean, p50, p99, max in ms), paths a second,
## messages (asynchronous requests sent: a frame's batched paths count once), pending, restarts,
## main-thread time on asynchronous requests, frame_wait_ms (frames' ends asleep for answers).
func get_stats() -> Dictionary:
	var stats: Dictionary = _queue.stats.snapshot()
	stats["pending"] = _queue.pending()
	stats["restarts"] = _link.restarts
	stats["main_thread_ms"] = _queue.main_thread_time_usec() / 1000.0
	return stats


## Clears the counters of [method get_stats].
func reset_stats() -> void:
	_queue.stats.reset()
	_queue.reset_main_thread_time()
