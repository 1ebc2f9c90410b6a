## Memory and restart benchmark of the agents: a crowd of grid agents (tests/support/agent_crowd.gd)
## moving one cell per physics frame, so the occupancy sends a graph update every frame, for a
## given game time; prints what the bridge keeps of the graph for a restart (and the process's
## memory) when every agent is placed and at the end, then kills the sidecar and prints how long
## until it is back with the graph re-uploaded and a path found. Lines starting "BENCH " are
## JSON. Run by bench/agents_memory.py (with --fixed-fps, so game time runs faster than real):
## godot --headless --fixed-fps 60 --path tests/godot_project --script
##     <repo>/bench/godot/agents_memory.gd -- <game seconds> <agents> [restarts]
##     [--no-occupancy]
extends SceneTree

const Bridge = preload("res://addons/astar_bridge/astar_bridge.gd")
const AgentCrowd = preload("res://tests/support/agent_crowd.gd")
const SETTLED_S := 2.0
const RESTART_WAIT_MS := 20000

var _ready_usec: int = 0


func _initialize() -> void:
	_run.call_deferred()


func _run() -> void:
	var args: PackedStringArray = OS.get_cmdline_user_args()
	var seconds: float = args[0].to_float() if args.size() > 0 else 600.0
	var agents: int = args[1].to_int() if args.size() > 1 else 50
	var restarts: int = args[2].to_int() if args.size() > 2 and args[2].is_valid_int() else 1
	var bridge: Bridge = Bridge.new()
	bridge.config.extra_arguments = PackedStringArray(["--log-level", "ERROR"])
	bridge.config.connect_timeout_ms = 30000
	bridge.config.request_timeout_ms = 30000
	root.add_child(bridge)
	var crowd: AgentCrowd = AgentCrowd.new()
	crowd.count = agents
	crowd.occupy = not "--no-occupancy" in args
	root.add_child(crowd)
	if not crowd.build(bridge):
		quit(2)
		return
	var started_ms: int = Time.get_ticks_msec()
	while crowd.game_time < SETTLED_S:
		await physics_frame
	_report("start", bridge, crowd, started_ms)
	var next_minute: float = 60.0
	while crowd.game_time < seconds:
		await physics_frame
		if crowd.game_time >= next_minute:
			next_minute += 60.0
			_report("progress", bridge, crowd, started_ms)
	_report("end", bridge, crowd, started_ms)
	for i: int in restarts:
		await _restart(bridge, crowd)
		var until: float = crowd.game_time + 10.0  # the crowd walks on between kills
		while crowd.game_time < until:
			await physics_frame
	crowd.queue_free()
	bridge.stop()
	quit(0)


func _report(when: String, bridge: Bridge, crowd: AgentCrowd, started_ms: int) -> void:
	var stats: Dictionary = bridge.get_stats()
	var figures: Dictionary = {
		"when": when,
		"game_s": snappedf(crowd.game_time, 0.01),
		"frames": crowd.frames,
		"wall_s": (Time.get_ticks_msec() - started_ms) / 1000.0,
		"cell_changes": crowd.cell_changes,
		"arrivals": crowd.arrivals,
		"state_size": bridge.get_graph_state_size(AgentCrowd.GRAPH),
		"pending": stats["pending"],
		"requests": stats["requests"],
		"failures": stats["failures"],
		"static_memory_bytes": OS.get_static_memory_usage(),
		"objects": int(Performance.get_monitor(Performance.OBJECT_COUNT)),
	}
	print("BENCH %s" % JSON.stringify(figures))


## Kills the sidecar the bridge started and measures, from the kill: until sidecar_ready (the
## graph re-uploaded: its load and one merged update), and until a path is found on it.
func _restart(bridge: Bridge, crowd: AgentCrowd) -> void:
	_ready_usec = 0
	if not bridge.sidecar_ready.is_connected(_on_sidecar_ready):
		bridge.sidecar_ready.connect(_on_sidecar_ready)
	var pid: int = bridge.get_sidecar_pid()
	var killed_usec: int = Time.get_ticks_usec()
	OS.execute("kill", PackedStringArray(["-9", str(pid)]))  # a crash, from outside
	var frames: int = 0
	# When each phase of the restart was first seen, ms after the kill (where the time goes).
	var phases: Dictionary = {}
	while _ready_usec == 0 and Time.get_ticks_usec() - killed_usec < RESTART_WAIT_MS * 1000:
		frames += 1
		var phase: String = Bridge.Phase.keys()[bridge.get_phase()]
		if not phases.has(phase):
			phases[phase] = (Time.get_ticks_usec() - killed_usec) / 1000.0
		await physics_frame
	var from: Vector2 = crowd.cell_center(Vector2i(1, 1))
	var to: Vector2 = crowd.cell_center(Vector2i(AgentCrowd.SIZE - 2, AgentCrowd.SIZE - 2))
	var result: Dictionary = bridge.find_path_result(AgentCrowd.GRAPH, from, to)
	var path_usec: int = Time.get_ticks_usec()
	var figures: Dictionary = {
		"when": "restart",
		"killed_pid": pid,
		"new_pid": bridge.get_sidecar_pid(),
		"ready_ms": (_ready_usec - killed_usec) / 1000.0 if _ready_usec > 0 else -1.0,
		"path_ms": (path_usec - killed_usec) / 1000.0,
		"path_status": str(result["status"]),
		"frames_meanwhile": frames,
		"phases_ms": phases,
		"state_size": bridge.get_graph_state_size(AgentCrowd.GRAPH),
	}
	print("BENCH %s" % JSON.stringify(figures))


func _on_sidecar_ready() -> void:
	_ready_usec = Time.get_ticks_usec()
