## Headless run of the grid demo level: a fixed seed, a fixed simulated time, one line per NPC
## arrival and door change, then a summary table.
## Usage: godot --headless --fixed-fps 60 --path demo_project --script res://headless/run_demo.gd
##        -- [--short] [--seconds=S] [--npcs=N] [--seed=N]
## Simulated time only advances while no path request is in flight, so the output (apart from
## lines marked "(timing)") is the same on every run. Exit code 0 only when every NPC reached
## at least its first goal and no request failed.
extends SceneTree

const GridLevel = preload("res://levels/grid_level.gd")
const Bridge = preload("res://addons/astar_bridge/astar_bridge.gd")
const READY_TIMEOUT_MS := 30000

var _seconds: float = 60.0
var _npcs: int = 50
var _seed: int = 7
var _level: GridLevel = null
var _bridge: Bridge = null
var _started_ms: int = 0
var _phase: String = "waiting"


func _initialize() -> void:
	_parse_args(OS.get_cmdline_user_args())
	var autoload: Node = root.get_node_or_null(^"AStarBridge")
	_started_ms = Time.get_ticks_msec()
	if autoload is Bridge:
		_bridge = autoload
	else:
		printerr("run_demo: the AStarBridge autoload is missing")
		quit(2)


func _process(_delta: float) -> bool:
	match _phase:
		"waiting":
			_wait_for_sidecar()
		"running":
			_step()
	return false


func _parse_args(args: PackedStringArray) -> void:
	for arg: String in args:
		if arg == "--short":
			_seconds = 20.0
			_npcs = 20
		elif arg.begins_with("--seconds="):
			_seconds = arg.get_slice("=", 1).to_float()
		elif arg.begins_with("--npcs="):
			_npcs = arg.get_slice("=", 1).to_int()
		elif arg.begins_with("--seed="):
			_seed = arg.get_slice("=", 1).to_int()


func _wait_for_sidecar() -> void:
	if _bridge.is_ready():
		_begin()
	elif Time.get_ticks_msec() - _started_ms > READY_TIMEOUT_MS:
		printerr("run_demo: the sidecar did not get ready: %s" % _bridge.get_last_error())
		_phase = "done"
		quit(2)


func _begin() -> void:
	_phase = "starting"
	print(
		"A* Bridge demo: grid level, %d NPCs, seed %d, %.1f s simulated" % [_npcs, _seed, _seconds]
	)
	_level = GridLevel.new()
	_level.npc_count = _npcs
	_level.random_seed = _seed
	_level.npc_arrived.connect(_on_arrived)
	_level.door_changed.connect(_on_door)
	root.add_child(_level)
	if _level.build() != OK:
		_phase = "done"
		quit(2)
		return
	_bridge.reset_stats()
	_started_ms = Time.get_ticks_msec()
	_phase = "running"


func _step() -> void:
	# Hold the world still while paths are on their way: each simulated step then sees every
	# answer to the requests of the step before, whatever the sidecar's latency.
	var hold: bool = _level.any_path_pending()
	_level.process_mode = Node.PROCESS_MODE_DISABLED if hold else Node.PROCESS_MODE_INHERIT
	if _level.sim_time >= _seconds - 0.0001:
		_phase = "done"
		_summarise()


func _on_arrived(npc_index: int, goal_number: int, cell: Vector2i, time: float) -> void:
	print(
		(
			"[%6.2f s] npc %02d reached goal %d at (%d, %d)"
			% [time, npc_index, goal_number, cell.x, cell.y]
		)
	)


func _on_door(door_index: int, open: bool, time: float) -> void:
	print("[%6.2f s] door %d %s" % [time, door_index, "opened" if open else "closed"])


func _summarise() -> void:
	var stats: Dictionary = _bridge.get_stats()
	var goals: int = 0
	var at_first: int = 0
	var received: int = 0
	var failed: int = 0
	for npc: GridLevel.Npc in _level.npcs:
		goals += npc.goals_reached
		at_first += 1 if npc.goals_reached > 0 else 0
		received += npc.paths_received
		failed += npc.paths_failed
	var stat_failures: int = stats["failures"]
	var requests: int = stats["requests"]
	var p50: float = stats["latency_ms_p50"]
	var p99: float = stats["latency_ms_p99"]
	var failures: int = maxi(failed, stat_failures)
	var wall_s: float = (Time.get_ticks_msec() - _started_ms) / 1000.0
	var rows: Array[Array] = [
		["NPCs", str(_level.npcs.size())],
		["NPCs at first goal", "%d/%d" % [at_first, _level.npcs.size()]],
		["goals reached", str(goals)],
		["paths requested", str(requests)],
		["paths received", str(received)],
		["failures", str(failures)],
		["latency p50 (timing)", "%.2f ms" % p50],
		["latency p99 (timing)", "%.2f ms" % p99],
		["wall time (timing)", "%.1f s" % wall_s],
	]
	print("+-----------------------+------------+")
	for row: Array in rows:
		print("| %-21s | %10s |" % [row[0], row[1]])
	print("+-----------------------+------------+")
	var ok: bool = at_first == _level.npcs.size() and failures == 0
	print("demo %s" % ("passed" if ok else "FAILED"))
	quit(0 if ok else 1)
