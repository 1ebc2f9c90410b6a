# gdlint: disable=max-public-methods
## The A* Bridge autoload ([code]AStarBridge[/code]): uploads graphs to the Python sidecar and
## asks it for paths, synchronously ([method find_path]) or asynchronously ([method request_path]).
##
## With [code]astar_bridge/sidecar/autostart[/code] on (the default) it launches
## [code]<python> -m bridge serve[/code], reads the sidecar's announcement, connects and says
## [code]hello[/code]; otherwise it connects to [code]astar_bridge/sidecar/host:port[/code]. When
## the connection drops or the process dies, pending requests fail with status
## [code]"error"[/code] at once, the sidecar is restarted (or reconnected), the graphs loaded
## through this node are uploaded again in their current state (the load and one merged update
## each, one call a frame), and [signal sidecar_lost] then [signal sidecar_ready] are emitted.
## A sidecar that stops answering while its process runs and its connection stays open is
## noticed by a heartbeat ([member heartbeat_ms], [member unresponsive_timeout_ms]), reported
## once ([signal sidecar_unresponsive]) and restarted the same way. The process it started is
## killed on exit.
## [br][br]
## The program it launches, in order: the [code]ASTAR_BRIDGE_PYTHON[/code] environment variable;
## the self-contained sidecar [code]astar-bridge-sidecar/astar-bridge-sidecar[/code] beside the
## game's executable (or beside its main pack), put there by the export plugin
## (docs/shipping.md); else [code]astar_bridge/sidecar/python_executable[/code] (the editor's
## case). When it cannot be started at all, the reason is pushed once
## ([method get_last_error] keeps it), [method get_phase] is [code]FAILED[/code], and every call
## fails at once instead of waiting for the connect timeout: [method find_path] returns an empty
## array, [method find_path_result] and the requests' results have status [code]"error"[/code]
## with code [code]"not_connected"[/code], [method load_graph] and [method call_method] return a
## failed [code]AStarBridgeResult[/code] of that code. [method start] tries again.
## [br][br]
## Positions: [method find_path] takes and returns what the graph uses. On a grid loaded without
## [code]cell_size[/code]/[code]origin[/code], [param from]/[param to] are cells (whole numbers)
## and points are cell coordinates; with them, both are world positions. On waypoint graphs a
## position means the closest point ([method find_path_ids] takes ids).
## [br][br]
## Tests may instantiate it without the plugin ([code]load(<this script>).new()[/code]).
## [codeblock]
## func _ready() -> void:
##     var cells := PackedByteArray()
##     cells.resize(16 * 16)
##     cells.fill(1)  # every cell walkable
##     AStarBridge.load_grid("level", 16, 16, cells)
##     var path: PackedVector2Array = AStarBridge.find_path("level", Vector2(0, 0), Vector2(5, 3))
## [/codeblock]
extends Node

## The sidecar answered [code]hello[/code] and every owned graph is uploaded: requests work.
signal sidecar_ready
## The connection or the sidecar process was lost (or could not be started); [param reason]
## says why. Pending requests have already failed.
signal sidecar_lost(reason: String)
## A graph was loaded (or reloaded) under [param id] by [method load_graph].
signal graph_loaded(id: String)
## The sidecar is building the hierarchy (HPA*) of grid [param id]: [param done] of [param total]
## clusters. Emitted while a [method load_grid] with [code]extra = {"hierarchy": {...}}[/code] (or
## a [code]graph.build_hierarchy[/code] call) waits, at most every 1 % / 100 ms, last with
## [code]done == total[/code]. Connect a progress bar to it.
signal graph_progress(id: String, done: int, total: int)
## Emitted after each successful update of graph [param id] that changed its ground (cells,
## weights, waypoint points): [param cells] lists the grid cells whose walkability or weight
## changed; an empty array means any part of the graph may have changed (whole weight arrays,
## waypoint points, other fields). Updates that only move agents do not emit it.
signal graph_updated(id: String, cells: Array[Vector2i])
## The wire parameters of a successful [code]graph.update[/code] that changed graph [param id]'s
## ground (for tools such as the debug drawing, which fold it into their copy).
signal graph_update_applied(id: String, update: Dictionary)
## The sidecar stopped answering: its process runs and the connection is open, but nothing came
## back within [member unresponsive_timeout_ms] of a request or a heartbeat. Emitted once (with a
## warning), then the sidecar is killed and restarted as after a loss ([signal sidecar_lost]).
signal sidecar_unresponsive(waited_ms: int)

## Where the connection stands; see [method get_phase].
enum Phase { IDLE, LAUNCHING, CONNECTING, GREETING, UPLOADING, READY, WAITING_RESTART, FAILED }

const BridgeResult = preload("res://addons/astar_bridge/bridge_result.gd")
const PathRequest = preload("res://addons/astar_bridge/path_request.gd")
const BridgeStats = preload("res://addons/astar_bridge/bridge_stats.gd")
const GraphStore = preload("res://addons/astar_bridge/graph_store.gd")
const PathResults = preload("res://addons/astar_bridge/path_results.gd")
const GraphFileWriter = preload("res://addons/astar_bridge/export/graph_file_writer.gd")
const RpcClient = preload("res://addons/astar_bridge/rpc/rpc_client.gd")
const SidecarProcess = preload("res://addons/astar_bridge/rpc/sidecar_process.gd")
const Watchdog = preload("res://addons/astar_bridge/rpc/watchdog.gd")
const GroundChanges = preload("res://addons/astar_bridge/ground_changes.gd")
const AgentOccupancy = preload("res://addons/astar_bridge/nodes/agent_occupancy.gd")

const SettingsTable = preload("res://addons/astar_bridge/settings_table.gd")
const DebugHooks = preload("res://addons/astar_bridge/debug/debug_hooks.gd")
## Environment variable that overrides the python executable setting.
const ENV_PYTHON := "ASTAR_BRIDGE_PYTHON"
## Environment variable that overrides the token setting (so the token need not be committed in
## project.godot).
const ENV_TOKEN := "ASTAR_BRIDGE_TOKEN"

## The protocol version this client speaks.
const PROTOCOL_VERSION := 1
const CLIENT_NAME := "astar-bridge-godot"
## A class name of the addon's, present in the global class list once Godot has scanned the project.
const SCANNED_CLASS := "AStarBridgeAgent2D"
const LOAD_METHODS: Array[String] = [
	"graph.load_grid", "graph.load_waypoints", "graph.load_navmesh"
]
## Delays before successive restarts (the last one repeats); reset after a steady connection.
const RESTART_DELAYS_MS: Array[int] = [0, 250, 1000, 2000, 5000]
const STEADY_MS := 5000
const PROCESS_CHECK_MS := 200

## Launch the sidecar (true) or connect to [member host]:[member port] (false).
var autostart: bool = true
## The python executable ([code]ASTAR_BRIDGE_PYTHON[/code] wins); a relative path with a slash is
## resolved against the project folder.
var python_executable: String = "python3"
## Host to connect to (autostart: the address the sidecar binds).
var host: String = "127.0.0.1"
## Port to connect to (autostart: 0 lets the sidecar pick).
var port: int = 0
## Token for [code]hello[/code] (autostart: written to the sidecar's stdin, never put on its
## command line where every local user can read it; "" lets the sidecar pick one). Read from the
## [code]ASTAR_BRIDGE_TOKEN[/code] environment variable when it is set (it wins over the
## [code]astar_bridge/sidecar/token[/code] setting, so a token need not live in project.godot),
## else from the setting.
var token: String = ""
## Extra command-line arguments for [code]bridge serve[/code], e.g.
## [code]["--workers", "1"][/code].
var extra_arguments: PackedStringArray = PackedStringArray()
## Timeout of one request, in milliseconds.
var request_timeout_ms: int = 2000
## Timeout of launching + connecting + hello, in milliseconds.
var connect_timeout_ms: int = 5000
## Timeout of a graph upload or update (they can be large), in milliseconds.
var load_timeout_ms: int = 30000
## Most asynchronous requests in flight at once; more wait in a queue and leave as answers come
## back (the sidecar refuses more than 256 pending requests per connection by default: the
## rest of that room is for synchronous calls and the heartbeat).
var max_in_flight: int = 240
## While ready, a heartbeat request ([code]graph.list[/code], any answer counts) is sent when
## nothing was heard from the sidecar for this long, in milliseconds (0: no heartbeat).
var heartbeat_ms: int = 2000
## A sidecar that answers nothing for this long, in milliseconds, while a request or heartbeat
## waits is taken as stuck (process alive, connection open): [signal sidecar_unresponsive], then
## it is killed and restarted with its graphs (0: never).
var unresponsive_timeout_ms: int = 5000
## Asynchronous requests are encoded, sent, read and decoded on a thread of the connection's
## own, so the main thread only dispatches finished results (set before [method start]).
var io_thread: bool = true
## Restart / reconnect after a loss.
var auto_restart: bool = true
## Report failed calls with push_error / push_warning (turn off where failures are expected).
var report_failures: bool = true

var _phase: Phase = Phase.IDLE
var _rpc: RpcClient = RpcClient.new()
var _sidecar: SidecarProcess = SidecarProcess.new()
var _stats: BridgeStats = BridgeStats.new()
var _phase_deadline_ms: int = 0
var _session_token: String = ""
var _last_error: String = ""
var _sidecar_port: int = 0
var _restart_at_ms: int = 0
var _restarts: int = 0
var _ready_since_ms: int = 0
var _next_process_check_ms: int = 0
var _watchdog: Watchdog = Watchdog.new()
# dim -> the transform of a path.find response (made once: every request shares it).
var _path_transforms: Dictionary = {}
# Main-thread time spent by the node on asynchronous requests (encode, socket, decode, dispatch).
var _main_thread_usec: int = 0
var _flush_scheduled: bool = false
# Ready at least once since start(): later losses restart, a failed first start gives up.
var _was_ready: bool = false
var _start_failed: bool = false
var _store: GraphStore = GraphStore.new()
# [method, params] still to send while re-uploading after a restart, one per frame.
var _replay: Array[Array] = []
# [method, params, on_done, queued at in ms, transform] sent once ready (requests made while
# the sidecar starts).
var _queued: Array[Array] = []
# [PathRequest, result] completed on the next frame (failures known at request time).
var _finish_later: Array[Array] = []


func _init() -> void:
	autostart = SettingsTable.value("astar_bridge/sidecar/autostart")
	python_executable = SettingsTable.value("astar_bridge/sidecar/python_executable")
	host = SettingsTable.value("astar_bridge/sidecar/host")
	port = SettingsTable.value("astar_bridge/sidecar/port")
	token = SettingsTable.value("astar_bridge/sidecar/token")
	if not OS.get_environment(ENV_TOKEN).is_empty():
		token = OS.get_environment(ENV_TOKEN)
	var arguments: Array = SettingsTable.value("astar_bridge/sidecar/extra_arguments")
	extra_arguments = PackedStringArray(arguments)
	request_timeout_ms = SettingsTable.value("astar_bridge/timeouts/request_ms")
	connect_timeout_ms = SettingsTable.value("astar_bridge/timeouts/connect_ms")
	load_timeout_ms = SettingsTable.value("astar_bridge/timeouts/load_ms")
	heartbeat_ms = SettingsTable.value("astar_bridge/timeouts/heartbeat_ms")
	unresponsive_timeout_ms = SettingsTable.value("astar_bridge/timeouts/unresponsive_ms")
	_rpc.disconnected.connect(_on_rpc_disconnected)
	_rpc.notification_received.connect(_on_rpc_notification)


func _ready() -> void:
	_check_project_scanned()
	DebugHooks.attach(self)
	if autostart:
		start()


func _process(_delta: float) -> void:
	_advance()
	_pump()
	var now: int = Time.get_ticks_msec()
	if _sidecar.pid > 0:
		_sidecar.drain_stderr()
	if _sidecar.pid > 0 and now >= _next_process_check_ms:
		_next_process_check_ms = now + PROCESS_CHECK_MS
		if not _sidecar.is_running() and _phase != Phase.WAITING_RESTART:
			_lose("the sidecar process exited: %s" % " | ".join(_sidecar.stderr_tail))
	_watch(now)
	_expire_queue()
	if not _finish_later.is_empty():
		var due: Array[Array] = _finish_later
		_finish_later = []
		for item: Array in due:
			var request: PathRequest = item[0]
			var outcome: Dictionary = item[1]
			request.finish(outcome)


func _physics_process(_delta: float) -> void:
	_pump()


func _exit_tree() -> void:
	stop()


func _notification(what: int) -> void:
	if what == NOTIFICATION_WM_CLOSE_REQUEST or what == NOTIFICATION_PREDELETE:
		stop()


## Connects now: launches the sidecar when [member autostart] is on, else connects to
## [member host]:[member port]. Progress continues frame by frame (or inside a synchronous
## call, which waits for it); [signal sidecar_ready] tells when it is done. Idempotent: OK when
## already started. Returns the error of the launch or connect attempt.
## [codeblock]
## AStarBridge.autostart = false
## AStarBridge.port = 7777
## AStarBridge.token = "secret"
## AStarBridge.start()
## await AStarBridge.sidecar_ready
## [/codeblock]
func start() -> Error:
	if _phase != Phase.IDLE and _phase != Phase.FAILED:
		return OK
	_restarts = 0
	_was_ready = false
	_start_failed = false
	return _begin()


## Stops: fails pending requests, closes the connection and kills the sidecar it started.
## Owned graphs are kept (a later [method start] uploads them again).
func stop() -> void:
	_phase = Phase.IDLE
	_rpc.close("stopped")
	_sidecar.stop()
	_fail_queue("disconnected", "the bridge was stopped")


## True when requests can be answered now.
func is_ready() -> bool:
	return _phase == Phase.READY and _rpc.is_open()


## Where the connection stands: [enum Phase].
func get_phase() -> Phase:
	return _phase


## Why the last start, restart or call failed (or "").
func get_last_error() -> String:
	return _last_error


## Process id of the sidecar this node started, or -1.
func get_sidecar_pid() -> int:
	return _sidecar.pid


## The port of the sidecar this node talks to (the one it started, or [member port]), or 0
## before it is known: for tools that connect beside the game.
func get_sidecar_port() -> int:
	return _sidecar_port


## The ids of the graphs this node loaded (and re-uploads after a restart).
func get_graph_ids() -> PackedStringArray:
	return _store.ids()


## [code]{"method", "params"}[/code] graph [param id] was loaded with ({} if unknown), for tools.
func get_graph_load(id: String) -> Dictionary:
	if not _store.has(id):
		return {}
	return {"method": _store.method_of(id), "params": _store.params_of(id)}


## How much this node keeps of graph [param id] beyond its load parameters (bounded by the
## graph's size: updates are folded into its current state). 0 for an unknown id.
func get_graph_state_size(id: String) -> int:
	return _store.state_size(id)


## Uploads a graph: [param method] is [code]"graph.load_grid"[/code],
## [code]"graph.load_waypoints"[/code] or [code]"graph.load_navmesh"[/code] and [param params] its
## parameter map (with [code]"id"[/code]), as built by the serializers. Synchronous (waits up to
## the request timeout, and for the sidecar to start). The parameters are kept so the graph can
## be uploaded again after a restart. On failure the previous graph of that id stays, an error
## is pushed and the result says why.
## [codeblock]
## var result := AStarBridge.load_graph("graph.load_waypoints", {
##     "id": "roads", "dim": 2, "ids": PackedInt32Array([1, 2]).to_byte_array(),
##     "positions": PackedVector2Array([Vector2(0, 0), Vector2(4, 0)]).to_byte_array(),
##     "edges": PackedInt32Array([1, 2]).to_byte_array(), "bidirectional": true,
## })
## [/codeblock]
func load_graph(method: String, params: Dictionary) -> BridgeResult:
	if not method in LOAD_METHODS:
		push_error("AStarBridge.load_graph: %s is not one of %s" % [method, LOAD_METHODS])
		return BridgeResult.failure("bad_request", "unknown load method %s" % method)
	var raw_id: Variant = params.get("id")
	var id: String = raw_id if raw_id is String else ""
	if id.is_empty():
		push_error('AStarBridge.load_graph: params need a non-empty String "id"')
		return BridgeResult.failure("bad_request", "params need a non-empty String id")
	var result: BridgeResult = _call(method, params, load_timeout_ms)
	if result.is_ok():
		_store.loaded(method, params)
		if method == "graph.load_grid":
			AgentOccupancy.register_grid(params)
		else:
			AgentOccupancy.forget_grid(id)
		graph_loaded.emit(id)
	elif _reports():
		push_error("AStarBridge: %s %s failed: %s" % [method, id, result.message])
	return result


## Uploads a grid of [param width] x [param height] cells, one byte each in row-major order
## ([code]0[/code] = blocked). [param diagonal] is [code]"always"[/code], [code]"never"[/code],
## [code]"at_least_one_walkable"[/code] or [code]"only_if_no_obstacles"[/code];
## [param extra] adds optional fields ([code]weights[/code], [code]cell_size[/code],
## [code]origin[/code], [code]hierarchy[/code]). See [method load_graph].
## [br][br]
## [code]"hierarchy": {"cluster_size": 32}[/code] has the sidecar build HPA* for the grid too
## ([signal graph_progress] reports the build; the call returns when it is built, so raise
## [member load_timeout_ms] for very large maps). Queries then take
## [code]{"hierarchical": true}[/code] (and [code]"corridor": true[/code]) in their options
## for fast near-optimal paths; without it they stay exact. [code]path.reachable[/code]
## ([method call_method]) answers "is the goal reachable at all?" without a search. On the
## largest maps (4096 x 4096) add [code]"levels": 2[/code] (regions of
## [code]"region_clusters"[/code] x [code]"region_clusters"[/code] clusters, default 16).
## Short hierarchical paths that may be detours are checked against the exact search
## ([code]"exact_check"[/code]: up to that many cluster sides long, default 4; 0 never checks).
## On weighted ground a smaller [code]"long_entrance"[/code] (default 6: entrances longer than
## that get more than one transition) gives closer paths for a bigger abstract graph.
## [code]"repair_ms"[/code] (default 1.0) caps what a cell update spends on the hierarchy's
## all-pairs table; the sidecar finishes the table between requests, and queries meanwhile
## stay correct (a little slower where they start near the change, and maybe on another path of
## the same bounds: for paths that never depend on timing, as replays and lockstep need, give a
## [code]"repair_ms"[/code] longer than any repair, e.g. 1000). After its first hierarchy
## the sidecar loads the HPA* query and update kernels once (under a second when the
## project's set-up has filled numba's cache), so requests sent at that moment wait for it.
## [codeblock]
## var cells := PackedByteArray()
## cells.resize(8 * 8)
## cells.fill(1)
## cells[3 * 8 + 4] = 0  # cell (4, 3) is a wall
## AStarBridge.load_grid("level", 8, 8, cells, "never", {"cell_size": [16, 16]})
## AStarBridge.load_grid("big", 8, 8, cells, "never", {"hierarchy": {"cluster_size": 8}})
## AStarBridge.find_path("big", Vector2(0, 0), Vector2(7, 7), {"hierarchical": true})
## [/codeblock]
func load_grid(
	id: String,
	width: int,
	height: int,
	cells: PackedByteArray,
	diagonal: String = "only_if_no_obstacles",
	extra: Dictionary = {}
) -> BridgeResult:
	var params: Dictionary = extra.duplicate()
	params.merge(
		{"id": id, "width": width, "height": height, "cells": cells, "diagonal": diagonal}, true
	)
	return load_graph("graph.load_grid", params)


## Applies [param changes] ([code]graph.update[/code] fields without [code]"id"[/code]: cells +
## walkable, weight_cells + weights, agents, points + disabled) to graph [param id]. Synchronous.
## Successful updates are folded into what this node keeps of the graph (each cell's last
## value, each agent's last cell, each point's last flag; see
## [method get_graph_state_size]), which a re-upload after a restart sends as the load and one
## merged update, one call a frame.
## [codeblock]
## AStarBridge.update_graph("level", {
##     "cells": PackedInt32Array([4, 3]).to_byte_array(), "walkable": true,
## })
## [/codeblock]
func update_graph(id: String, changes: Dictionary) -> BridgeResult:
	var params: Dictionary = changes.duplicate()
	params["id"] = id
	var result: BridgeResult = _call("graph.update", params, load_timeout_ms)
	if result.is_ok():
		_store.updated(id, params)
		if GroundChanges.changes_ground(params):
			graph_updated.emit(id, GroundChanges.changed_cells(params))
			graph_update_applied.emit(id, params)
	elif result.is_error() and _reports():
		push_error("AStarBridge: graph.update %s failed: %s" % [id, result.message])
	return result


## Unloads graph [param id] (and forgets its stored copy). Synchronous.
func drop_graph(id: String) -> BridgeResult:
	var result: BridgeResult = call_method("graph.drop", {"id": id})
	if result.is_ok() or result.code == "unknown_graph":
		_store.erase(id)
		AgentOccupancy.forget_grid(id)
	return result


## Calls any protocol [param method] with [param params] and waits for the answer (up to the
## request timeout, and for the sidecar to start). The escape hatch for methods without a helper.
## [codeblock]
## var info := AStarBridge.call_method("graph.info", {"id": "level"})
## if info.is_ok():
##     print(info.value)
## [/codeblock]
func call_method(method: String, params: Dictionary) -> BridgeResult:
	return _call(method, params, request_timeout_ms)


## The path from [param from] to [param to] on graph [param graph] (2D), or an empty array (and a
## warning with the status) when there is none. Synchronous: sends the query, then reads the
## socket in a tight loop (it never sleeps) until the answer, up to the request timeout. A
## [code]"partial"[/code] path (with [code]allow_partial[/code]) is returned too.
## [param options]: [code]heuristic[/code], [code]allow_partial[/code],
## [code]max_expansions[/code], [code]agent[/code], [code]ignore_agents[/code].
## [codeblock]
## var path := AStarBridge.find_path("level", Vector2(1, 1), Vector2(6, 2), {"heuristic": "octile"})
## for point in path:
##     print(point)
## [/codeblock]
func find_path(
	graph: String, from: Vector2, to: Vector2, options: Dictionary = {}
) -> PackedVector2Array:
	var result: Dictionary = find_path_result(graph, from, to, options)
	var points: Variant = result["points"]
	if points is PackedVector2Array:
		return points
	return PackedVector2Array()


## The 3D form of [method find_path] (3D waypoint graphs and navmeshes).
func find_path_3d(
	graph: String, from: Vector3, to: Vector3, options: Dictionary = {}
) -> PackedVector3Array:
	var result: Dictionary = find_path_result(graph, from, to, options)
	var points: Variant = result["points"]
	if points is PackedVector3Array:
		return points
	return PackedVector3Array()


## The path between waypoint ids [param from_id] and [param to_id], as the full result map
## (ids as well as positions, like [code]AStar2D.get_id_path()[/code] +
## [code]get_point_path()[/code]): [code]{"status", "points": PackedVector2Array or
## PackedVector3Array (by the graph's dim), "ids": PackedInt64Array, "cost", "expanded",
## "error"}[/code]. Synchronous.
## [codeblock]
## var result := AStarBridge.find_path_ids("roads", 1, 2)
## if result["status"] == "found":
##     print(result["ids"], result["points"])
## [/codeblock]
func find_path_ids(graph: String, from_id: int, to_id: int, options: Dictionary = {}) -> Dictionary:
	return find_path_result(graph, from_id, to_id, options)


## The full result map of one synchronous query ([method find_path] returns only its points):
## [code]{"status", "points", "ids", "cost", "expanded", "error"}[/code]. [param from] and
## [param to] are Vector2/Vector2i, Vector3/Vector3i or waypoint ids (int).
func find_path_result(
	graph: String, from: Variant, to: Variant, options: Dictionary = {}
) -> Dictionary:
	var dim: int = _dim_of(graph, from)
	var started: int = Time.get_ticks_usec()
	var result: Dictionary = {}
	if not _wait_ready():
		result = PathResults.error_result(
			"not_connected", "the sidecar is not ready: %s" % _last_error, dim
		)
	else:
		var params: Dictionary = _query(graph, from, to, options)
		result = PathResults.path_result(
			_rpc.call_sync("path.find", params, request_timeout_ms), dim
		)
	_stats.record(Time.get_ticks_usec() - started, str(result["status"]) == "error")
	if result["status"] != "found" and result["status"] != "partial" and _reports():
		var why: Dictionary = result["error"]
		push_warning(
			(
				"AStarBridge: no path on %s from %s to %s: %s %s"
				% [graph, from, to, result["status"], why.get("message", "")]
			)
		)
	return result


## Asks for a path without waiting: the returned request emits [signal
## AStarBridgePathRequest.completed] with [code]{"status", "points", "ids", "cost", "expanded",
## "error"}[/code] from a later frame (status [code]"error"[/code] when the request failed,
## timed out or the sidecar died; never never). Many NPCs may request in the same frame. With
## [member io_thread] (the default) the connection's thread encodes and writes the requests,
## reads and decodes the answers into result maps; the main thread only hands them out, at each
## point of the frame this node sees (physics, process, end of frame), so each answer completes
## its request in the frame it arrived in (from the frame's deferred calls). Without it the
## frame's requests leave in one write at the end of the frame and the main thread decodes.
## Requests past [member max_in_flight] wait and leave as soon as answers make room. Requests
## made while the sidecar starts wait for it.
## [codeblock]
## var request := AStarBridge.request_path("level", Vector2(0, 0), Vector2(9, 9))
## var result: Dictionary = await request.completed
## if result["status"] == "found":
##     $Agent.follow(result["points"])
## [/codeblock]
func request_path(
	graph: String, from: Variant, to: Variant, options: Dictionary = {}
) -> PathRequest:
	var started: int = Time.get_ticks_usec()
	var request: PathRequest = PathRequest.new()
	var dim: int = _dim_of(graph, from)
	var params: Dictionary = _query(graph, from, to, options)
	var on_done: Callable = func(outcome: Dictionary) -> void:
		_stats.record(Time.get_ticks_usec() - request.sent_usec, _failed(outcome))
		# Deferred: still in this frame, but outside this node's own calls, so a handler may
		# free this node.
		request.finish.call_deferred(outcome)
	if not _path_transforms.has(dim):
		_path_transforms[dim] = _path_transform(dim)
	var transform: Callable = _path_transforms[dim]
	_send_async(request, "path.find", params, on_done, transform)
	_main_thread_usec += Time.get_ticks_usec() - started
	return request


## Asks for many paths in one [code]path.find_many[/code] message. Each query is a map with
## [code]"graph"[/code], [code]"from"[/code] and [code]"to"[/code] (as in [method request_path];
## [code]"start"[/code]/[code]"goal"[/code] in wire form work too) and optional
## [code]"options"[/code]. [signal AStarBridgePathRequest.completed] gets
## [code]{"status": "done" or "error", "results": Array (one result map per query, in order),
## "error"}[/code].
## [codeblock]
## var queries: Array[Dictionary] = []
## for npc in npcs:
##     queries.append({"graph": "level", "from": npc.cell, "to": goal})
## var batch: Dictionary = await AStarBridge.request_paths(queries).completed
## for i in batch["results"].size():
##     npcs[i].follow(batch["results"][i]["points"])
## [/codeblock]
func request_paths(queries: Array[Dictionary]) -> PathRequest:
	var request: PathRequest = PathRequest.new()
	var wire: Array = []
	var dims: PackedInt32Array = PackedInt32Array()
	for query: Dictionary in queries:
		var graph: String = str(query.get("graph", ""))
		var from: Variant = query.get("from", query.get("start"))
		var to: Variant = query.get("to", query.get("goal"))
		dims.append(_dim_of(graph, from))
		wire.append(_query(graph, from, to, query.get("options", {})))
	var on_done: Callable = func(outcome: Dictionary) -> void:
		var latency: int = Time.get_ticks_usec() - request.sent_usec
		for item: Dictionary in outcome["results"]:
			_stats.record(latency, _failed(item))
		request.finish.call_deferred(outcome)
	_send_async(request, "path.find_many", {"queries": wire}, on_done, _batch_transform(dims))
	return request


## Writes the stored load parameters of graph [param id] to [param path] as a graph file
## python_core can read ([code]python_core.formats.graph_file[/code]): msgpack
## [code]{"format": "astar-bridge-graph", "version": 1, "kind", "graph"}[/code], where
## [code]graph[/code] is the load map without [code]"id"[/code]. Updates are not included.
## [codeblock]
## AStarBridge.export_graph("level", "user://level.graph")
## [/codeblock]
func export_graph(id: String, path: String) -> Error:
	if not _store.has(id):
		push_error("AStarBridge.export_graph: no graph %s was loaded through this node" % id)
		return ERR_DOES_NOT_EXIST
	return GraphFileWriter.write(_store.method_of(id), _store.params_of(id), path)


## Counters for a HUD: [code]{"requests", "failures", "latency_ms_mean", "latency_ms_p50",
## "latency_ms_p99", "paths_per_second"}[/code] over path requests (the latency percentiles over
## the last 1024, paths per second over the last second), plus [code]"pending"[/code],
## [code]"restarts"[/code] and [code]"main_thread_ms"[/code], the main-thread time this node
## spent on asynchronous requests (asking, writing, reading, decoding, dispatching; the
## handlers of [signal AStarBridgePathRequest.completed] run inside it too).
func get_stats() -> Dictionary:
	var stats: Dictionary = _stats.snapshot()
	stats["pending"] = _rpc.get_pending_count() + _queued.size()
	stats["restarts"] = _restarts
	stats["main_thread_ms"] = _main_thread_usec / 1000.0
	return stats


## Clears the counters of [method get_stats].
func reset_stats() -> void:
	_stats.reset()
	_main_thread_usec = 0


func _call(method: String, params: Dictionary, timeout_ms: int) -> BridgeResult:
	if not _wait_ready():
		return BridgeResult.failure("not_connected", "the sidecar is not ready: %s" % _last_error)
	var response: Dictionary = _rpc.call_sync(method, params, timeout_ms)
	var result: BridgeResult = BridgeResult.from_response(response)
	if result.is_error():
		_last_error = "%s: %s" % [method, result.message]
	return result


# A sidecar that answers nothing while something waits is told once, killed and restarted.
func _watch(now: int) -> void:
	if _phase != Phase.READY or not _rpc.is_open():
		_watchdog.reset()
		return
	_watchdog.heartbeat_ms = heartbeat_ms
	_watchdog.unresponsive_timeout_ms = unresponsive_timeout_ms
	var silent: int = _watchdog.check(_rpc, now, _ready_since_ms)
	if silent > 0:
		var reason: String = "the sidecar answered nothing for %d ms" % silent
		if report_failures:
			push_warning("AStarBridge: %s (process alive, connection open); restarting" % reason)
		sidecar_unresponsive.emit(silent)
		_lose(reason)


func _begin() -> Error:
	_last_error = ""
	_phase_deadline_ms = Time.get_ticks_msec() + connect_timeout_ms
	if not autostart:
		_session_token = token
		_sidecar_port = port
		_rpc.threaded = io_thread
		var err: Error = _rpc.connect_to(host, port)
		if err != OK:
			_fail_start("cannot connect to %s:%d (%s)" % [host, port, error_string(err)])
			return err
		_phase = Phase.CONNECTING
		return OK
	var command: PackedStringArray = _sidecar_command()
	var python: String = command[0]
	var args: PackedStringArray = command.slice(1)
	args.append_array(["serve", "--host", host])
	if port != 0:
		args.append_array(["--port", str(port)])
	if not token.is_empty():
		# On stdin, not the command line: `ps` shows every process's arguments to every user.
		args.append("--token-stdin")
	args.append_array(extra_arguments)
	var launched: Error = _sidecar.launch(python, args)
	if launched != OK:
		_fail_start(_sidecar.error)
		return launched
	if not token.is_empty() and _sidecar.write_line(token) != OK:
		_fail_start("cannot write the token to the sidecar's stdin")
		return ERR_CANT_CREATE
	_next_process_check_ms = Time.get_ticks_msec() + PROCESS_CHECK_MS
	_phase = Phase.LAUNCHING
	return OK


# One step of the connection state machine; never blocks (except on Godot 4.3's blocking pipe).
func _advance() -> void:
	match _phase:
		Phase.LAUNCHING:
			var announcement: Dictionary = _sidecar.poll()
			if not _sidecar.error.is_empty():
				_fail_start(_sidecar.error)
			elif not announcement.is_empty():
				_session_token = str(announcement.get("token", token))
				var bound: String = str(announcement.get("host", host))
				_sidecar_port = PathResults.int_of(announcement["port"], 0)
				_rpc.threaded = io_thread
				var err: Error = _rpc.connect_to(bound, _sidecar_port)
				if err != OK:
					_fail_start("cannot connect to the sidecar (%s)" % error_string(err))
				else:
					_phase = Phase.CONNECTING
		Phase.CONNECTING:
			_rpc.poll()
			if _rpc.is_open():
				_phase = Phase.GREETING
				var hello: Dictionary = {
					"token": _session_token, "client": CLIENT_NAME, "protocol": PROTOCOL_VERSION
				}
				_rpc.request("hello", hello, _on_hello, connect_timeout_ms)
		Phase.GREETING:
			_rpc.poll()
		Phase.UPLOADING:
			_reupload()
		Phase.WAITING_RESTART:
			if Time.get_ticks_msec() >= _restart_at_ms:
				_begin()
	var starting: bool = _phase in [Phase.LAUNCHING, Phase.CONNECTING, Phase.GREETING]
	if starting and Time.get_ticks_msec() > _phase_deadline_ms:
		_fail_start("the sidecar did not get ready within %d ms" % connect_timeout_ms)


func _on_hello(response: Dictionary) -> void:
	if _phase != Phase.GREETING:
		return
	var result: BridgeResult = BridgeResult.from_response(response)
	if result.is_error():
		_fail_start("hello refused: %s (%s)" % [result.message, result.code])
		return
	_replay = []
	for id: String in _store.ids():
		_replay.append_array(_store.replay_steps(id))
	_phase = Phase.UPLOADING  # the upload runs from _advance, outside this poll's dispatch


# One step of the re-upload a frame (a graph's load, or its merged update), so a restart never
# freezes the game for all graphs at once; ready when the last one is done.
func _reupload() -> void:
	if not _replay.is_empty():
		var step: Array = _replay.pop_front()
		var method: String = step[0]
		var params: Dictionary = step[1]
		var response: Dictionary = _rpc.call_sync(method, params, load_timeout_ms)
		var result: BridgeResult = BridgeResult.from_response(response)
		if not _rpc.is_open():
			return  # lost again: _lose already ran and scheduled the next attempt
		if result.is_error() and report_failures:
			push_error(
				"AStarBridge: re-uploading %s failed: %s" % [params.get("id"), result.message]
			)
		return
	_phase = Phase.READY
	_ready_since_ms = Time.get_ticks_msec()
	_was_ready = true
	_flush_queue()
	sidecar_ready.emit()


func _on_rpc_notification(method: String, params: Array) -> void:
	if method != "graph.progress" or params.is_empty() or not params[0] is Dictionary:
		return
	var report: Dictionary = params[0]
	var id: Variant = report.get("id")
	var done: Variant = report.get("done")
	var total: Variant = report.get("total")
	if id is String and done is int and total is int:
		graph_progress.emit(id, done, total)


func _on_rpc_disconnected(reason: String) -> void:
	if _phase == Phase.IDLE or _phase == Phase.LAUNCHING:
		return
	_lose("connection lost: %s" % reason)


# The sidecar or the connection went away: fail everything pending, then restart (or not).
func _lose(reason: String) -> void:
	if _phase == Phase.IDLE or _phase == Phase.WAITING_RESTART or _phase == Phase.FAILED:
		return
	var was_steady: bool = (
		_phase == Phase.READY and Time.get_ticks_msec() - _ready_since_ms >= STEADY_MS
	)
	if was_steady:
		_restarts = 0
	_last_error = reason
	_phase = Phase.WAITING_RESTART if auto_restart else Phase.FAILED
	_rpc.close(reason)
	_sidecar.stop()
	var delay: int = RESTART_DELAYS_MS[mini(_restarts, RESTART_DELAYS_MS.size() - 1)]
	_restart_at_ms = Time.get_ticks_msec() + delay
	_restarts += 1
	if not auto_restart:
		_fail_queue("disconnected", reason)
	sidecar_lost.emit(reason)


func _fail_start(reason: String) -> void:
	if autostart and not _was_ready:
		_give_up(reason)
		return
	var first_attempt: bool = _restarts == 0
	_phase = Phase.READY  # lets _lose run its full course from any starting phase
	_ready_since_ms = Time.get_ticks_msec()
	_lose(reason)
	if first_attempt and report_failures:
		push_error("AStarBridge: %s" % reason)
	if _restarts >= RESTART_DELAYS_MS.size():
		_fail_queue("not_connected", reason)


# The sidecar this node launches could not be started: say why once, fail everything at once
# from now on (no restarts, no waiting) until start() is called again.
func _give_up(reason: String) -> void:
	_phase = Phase.FAILED
	_start_failed = true
	_last_error = reason
	_rpc.close(reason)
	_sidecar.stop()
	if report_failures:
		push_error(
			(
				(
					"AStarBridge: cannot start the sidecar (%s): %s. Calls fail at once (code"
					+ " not_connected) until start() is called again; see docs/shipping.md."
				)
				% [" ".join(_sidecar_command()), reason]
			)
		)
	_fail_queue("not_connected", reason)
	sidecar_lost.emit(reason)


# Per-call failure reports, except after a failed start (its reason was pushed once already).
func _reports() -> bool:
	return report_failures and not _start_failed


# Waits (polling, sleeping 100 us between polls) until ready, up to connect_timeout_ms.
func _wait_ready() -> bool:
	if _phase == Phase.IDLE:
		start()
	var deadline: int = Time.get_ticks_msec() + connect_timeout_ms
	while not is_ready() and Time.get_ticks_msec() < deadline:
		if _phase == Phase.FAILED or _phase == Phase.IDLE:
			return false
		_advance()
		if not is_ready():
			OS.delay_usec(100)
	return is_ready()


# [param transform] turns the response map into the request's result (on the connection's
# thread when [member io_thread]); [param on_done] gets that result on the main thread.
func _send_async(
	request: PathRequest, method: String, params: Dictionary, on_done: Callable, transform: Callable
) -> void:
	request.sent_usec = Time.get_ticks_usec()
	if _phase == Phase.IDLE and autostart:
		start()
	if is_ready() and _queued.is_empty() and _rpc.get_pending_count() < max_in_flight:
		_rpc.request(method, params, on_done, request_timeout_ms, true, transform)
		_schedule_flush()
	elif _phase == Phase.IDLE or _phase == Phase.FAILED:
		var why: String = "the sidecar is not running: %s" % _last_error
		var failed: Dictionary = RpcClient.error_response("not_connected", why)
		_finish_later.append([request, transform.call(failed)])
	else:
		_queued.append([method, params, on_done, Time.get_ticks_msec(), transform])


# Transforms made in static functions: lambdas without self, safe to call on another thread.
static func _path_transform(dim: int) -> Callable:
	return func(response: Dictionary) -> Dictionary: return PathResults.path_result(response, dim)


static func _batch_transform(dims: PackedInt32Array) -> Callable:
	return func(response: Dictionary) -> Dictionary: return PathResults.batch_result(response, dims)


func _schedule_flush() -> void:
	if not _flush_scheduled:
		_flush_scheduled = true
		_flush.call_deferred()


# At the end of the frame (deferred): the frame's requests leave in one write, then the answers
# already there are dispatched in this frame, not the next.
func _flush() -> void:
	_flush_scheduled = false
	var started: int = Time.get_ticks_usec()
	_rpc.flush()
	_main_thread_usec += Time.get_ticks_usec() - started
	_pump()


# Dispatches the answers that arrived and sends queued requests into the room they left; runs
# at each point of the frame the node sees (physics, process, end of frame).
func _pump() -> void:
	if _phase != Phase.READY:
		return
	var started: int = Time.get_ticks_usec()
	_rpc.poll()
	if not _queued.is_empty() and is_ready():
		_flush_queue(true)
	_main_thread_usec += Time.get_ticks_usec() - started


# Sends queued requests while fewer than max_in_flight are pending; the rest keep waiting.
# [param now]: written at once (answers just made room) instead of at the end of the frame.
func _flush_queue(now: bool = false) -> void:
	var room: int = maxi(0, max_in_flight - _rpc.get_pending_count())
	var count: int = mini(room, _queued.size())
	if count == 0:
		return
	var sending: Array[Array] = _queued.slice(0, count)
	_queued = _queued.slice(count)
	for item: Array in sending:
		var method: String = item[0]
		var params: Dictionary = item[1]
		var on_done: Callable = item[2]
		var transform: Callable = item[4]
		_rpc.request(method, params, on_done, request_timeout_ms, true, transform)
	if now:
		_rpc.flush()
	else:
		_schedule_flush()


func _fail_queue(code: String, message: String) -> void:
	var queued: Array[Array] = _queued
	_queued = []
	for item: Array in queued:
		var on_done: Callable = item[2]
		var transform: Callable = item[4]
		on_done.call(transform.call(RpcClient.error_response(code, message)))


func _expire_queue() -> void:
	if _queued.is_empty():
		return
	var oldest: int = _queued[0][3]
	if Time.get_ticks_msec() - oldest > connect_timeout_ms + request_timeout_ms:
		_fail_queue("timeout", "the sidecar did not get ready in time: %s" % _last_error)


func _query(graph: String, from: Variant, to: Variant, options: Variant) -> Dictionary:
	var query: Dictionary = {
		"graph": graph, "start": PathResults.endpoint(from), "goal": PathResults.endpoint(to)
	}
	var extra: Dictionary = options if options is Dictionary else {}
	if not extra.is_empty():
		query["options"] = extra
	return query


func _dim_of(graph: String, endpoint: Variant) -> int:
	if endpoint is Vector3 or endpoint is Vector3i:
		return 3
	if endpoint is Array:
		var coords: Array = endpoint
		if coords.size() == 3:
			return 3
	if _store.has(graph):
		return PathResults.int_of(_store.params_of(graph).get("dim", 2), 2)
	return 2


# Godot registers class_name types only when it scans the project (the editor, or --import):
# before that this node still works (it names its own scripts by path), but game scripts that
# name AStarBridgeAgent2D or AStarBridgeResult fail to parse, and Godot exits 0 regardless.
func _check_project_scanned() -> void:
	for entry: Dictionary in ProjectSettings.get_global_class_list():
		if str(entry.get("class", "")) == SCANNED_CLASS:
			return
	push_error(
		(
			"AStarBridge: Godot has not scanned this project yet, so the addon's class names"
			+ " (AStarBridgeAgent2D, AStarBridgeResult, ...) are unknown and scripts using them"
			+ " fail to parse. Run once: godot --headless --path <project folder> --import"
			+ " (or open the project in the editor)."
		)
	)


# The program and its first arguments: [python, "-m", "bridge"] or [bundled sidecar].
func _sidecar_command() -> PackedStringArray:
	return SidecarProcess.command(OS.get_environment(ENV_PYTHON), python_executable)


static func _failed(result: Dictionary) -> bool:
	return str(result.get("status", "error")) == "error"
