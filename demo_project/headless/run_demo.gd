## Headless run of the demo levels, one after another: the grid, navmesh, 3D, big (HPA*), unit
## sizes, hex and obstacles levels, each for a fixed simulated time with a fixed seed, then the
## crowd level
## (flow fields) until every unit has arrived; one line per NPC arrival and door change, then a
## summary table with a section per level.
## Usage: godot --headless --fixed-fps 60 --path demo_project --script res://headless/run_demo.gd
##        -- [--short] [--seconds=S] [--npcs=N] [--navmesh-npcs=N] [--npcs-3d=N] [--big-npcs=N]
##           [--sizes-npcs=N] [--hex-npcs=N] [--obstacles-npcs=N] [--crowd-units=N]
##           [--crowd-limit=S] [--seed=N]
##           [--levels=grid,...]
## NPCs go from goal to goal; at the level's time they get no new goal and walk to their last
## one (within LAST_GOALS_S more simulated seconds). Simulated time only advances while no path
## request (on the crowd level: no field tile the units wait for) is in flight, so the output
## (apart from lines marked "(timing)") is the same on every run; nothing waits on a wall-clock
## timeout but a sidecar that stops answering (HOLD_LIMIT_MS). Exit code 0 only when every NPC of
## every level reached every goal it was given (each arrival at its goal), every crowd unit its
## goal within the crowd's limit, and no request failed.
extends SceneTree

const GridLevel = preload("res://levels/grid_level.gd")
const NavmeshLevel2D = preload("res://levels/navmesh_level_2d.gd")
const Level3D = preload("res://levels/level_3d.gd")
const BigLevel = preload("res://levels/big_level.gd")
const SizesLevel = preload("res://levels/sizes_level.gd")
const HexLevel = preload("res://levels/hex_level.gd")
const ObstaclesLevel = preload("res://levels/obstacles_level.gd")
const CrowdLevel = preload("res://levels/crowd_level.gd")
const Crowd = preload("res://npc/crowd.gd")
const Bridge = preload("res://addons/astar_bridge/astar_bridge.gd")
const DemoOptions = preload("res://headless/demo_options.gd")
const READY_TIMEOUT_MS := 30000
## Wall-clock ms a level may wait for answers at a stretch, and the requests' timeout: simulated
## time holds still meanwhile, so only a sidecar that stopped answering may fail the run, not a
## slow answer on a loaded machine (the default 2 s did: "field 2 request failed ...: timeout").
const HOLD_LIMIT_MS := 60000
## Simulated seconds the NPCs get, after the level's time, to reach their last goals.
const LAST_GOALS_S := 60.0
const RULE := "+-----------------------+------------+"

var _opts: DemoOptions = DemoOptions.new()
var _stage: int = -1
var _level: Node = null
var _bridge: Bridge = null
var _started_ms: int = 0
var _phase: String = "waiting"
var _rows: Array[Array] = []
var _all_ok: bool = true
var _held_since_ms: int = -1
var _finishing: bool = false


func _initialize() -> void:
	_opts.parse(OS.get_cmdline_user_args())
	var autoload: Node = root.get_node_or_null(^"AStarBridge")
	_started_ms = Time.get_ticks_msec()
	if autoload is Bridge:
		_bridge = autoload
	else:
		printerr("run_demo: the AStarBridge autoload is missing (did its script fail to parse?)")
		_phase = "done"
		quit(2)


func _process(_delta: float) -> bool:
	match _phase:
		"waiting":
			_wait_for_sidecar()
		"running":
			_step()
	return false


func _wait_for_sidecar() -> void:
	if _bridge.is_ready():
		_bridge.config.request_timeout_ms = HOLD_LIMIT_MS
		_next_level()
	elif _bridge.get_phase() == Bridge.Phase.FAILED:
		# The sidecar could not be started at all: no point waiting out the timeout.
		printerr("run_demo: the sidecar could not start: %s" % _bridge.get_last_error())
		_phase = "done"
		quit(2)
	elif Time.get_ticks_msec() - _started_ms > READY_TIMEOUT_MS:
		printerr("run_demo: the sidecar did not get ready: %s" % _bridge.get_last_error())
		_phase = "done"
		quit(2)


func _next_level() -> void:
	_phase = "starting"
	if _level != null:
		# Free the finished level first: its colliders would stand in the next level's way.
		_level.queue_free()
		await process_frame
		_level = null
	_stage += 1
	if _stage >= _opts.levels.size():
		_phase = "done"
		_print_table()
		return
	_level = _make_level(_opts.levels[_stage])
	if _level == null:
		_phase = "done"
		quit(2)
		return
	# Still until the first _step() decides: a physics tick between this frame and that decision
	# would move (or count) a step the other runs may not take.
	_level.process_mode = Node.PROCESS_MODE_DISABLED
	root.add_child(_level)
	var built: Error = _level.call("build")
	if built != OK:
		_phase = "done"
		quit(2)
		return
	if _level is BigLevel:
		var big: BigLevel = _level
		print(big.describe_hierarchy())
		print("upload and hierarchy build took %.0f ms (timing)" % big.load_ms)
	if _level is CrowdLevel:
		var crowd: CrowdLevel = _level
		print(
			(
				"512x512 cells, %d doors, %d units to 4 goal rooms, one flow field each"
				% [crowd.map.doors.size(), _opts.crowd_units]
			)
		)
		print(
			(
				"map generated in %.0f ms, upload and hierarchy build %.0f ms (timing)"
				% [crowd.generate_ms, crowd.load_ms]
			)
		)
	_bridge.reset_stats()
	_started_ms = Time.get_ticks_msec()
	_held_since_ms = -1
	_finishing = false
	_phase = "running"


func _make_level(kind: String) -> Node:
	match kind:
		"grid":
			return _grid_level(GridLevel.new(), _opts.npcs, "", "grid level")
		"navmesh":
			_announce("navmesh level", _opts.navmesh_npcs)
			var navmesh := NavmeshLevel2D.new()
			navmesh.npc_count = _opts.navmesh_npcs
			navmesh.random_seed = _opts.random_seed
			navmesh.npc_arrived.connect(_on_navmesh_arrived)
			return navmesh
		"3d":
			_announce("3D level", _opts.npcs_3d)
			var level_3d := Level3D.new()
			level_3d.npc_count = _opts.npcs_3d
			level_3d.random_seed = _opts.random_seed
			level_3d.npc_arrived.connect(_on_3d_arrived)
			return level_3d
		"big":
			return _grid_level(BigLevel.new(), _opts.big_npcs, "big ", "big level (HPA*)")
		"sizes":
			return _grid_level(SizesLevel.new(), _opts.sizes_npcs, "sizes ", "unit sizes level")
		"hex":
			return _grid_level(HexLevel.new(), _opts.hex_npcs, "hex ", "hex level")
		"obstacles":
			var carts := ObstaclesLevel.new()
			return _grid_level(carts, _opts.obstacles_npcs, "obstacles ", "obstacles level")
		"crowd":
			print(
				(
					"A* Bridge demo: crowd level (flow fields), %d units, seed %d, %.0f s limit"
					% [_opts.crowd_units, _opts.random_seed, _opts.crowd_limit]
				)
			)
			var crowd := CrowdLevel.new()
			crowd.unit_count = _opts.crowd_units
			crowd.random_seed = _opts.random_seed
			crowd.time_limit_s = _opts.crowd_limit
			crowd.doors_changed.connect(_on_crowd_doors.bind(crowd))
			return crowd
	printerr(
		"run_demo: unknown level %s (grid, navmesh, 3d, big, sizes, hex, obstacles, crowd)" % kind
	)
	# gdlint: ignore=max-returns
	return null


func _announce(level: String, npcs: int) -> void:
	print(
		(
			"A* Bridge demo: %s, %d NPCs, seed %d, %.1f s simulated"
			% [level, npcs, _opts.random_seed, _opts.seconds]
		)
	)


## [param level] (a grid level) with [param npcs] NPCs, announced as [param title], its lines
## printed after [param prefix].
func _grid_level(level: GridLevel, npcs: int, prefix: String, title: String) -> GridLevel:
	_announce(title, npcs)
	level.npc_count = npcs
	level.random_seed = _opts.random_seed
	level.npc_arrived.connect(_on_arrived.bind(prefix))
	level.door_changed.connect(_on_door.bind(prefix))
	return level


func _step() -> void:
	# Hold the world still while paths are on their way: each simulated step then sees every
	# answer to the requests of the step before, whatever the sidecar's latency.
	var hold: bool = _level.call("any_path_pending")
	_level.process_mode = Node.PROCESS_MODE_DISABLED if hold else Node.PROCESS_MODE_INHERIT
	if not hold:
		_held_since_ms = -1
	elif _held_since_ms < 0:
		_held_since_ms = Time.get_ticks_msec()
	# A sidecar that never answers must not hang the run.
	var stuck: bool = hold and Time.get_ticks_msec() - _held_since_ms > HOLD_LIMIT_MS
	if stuck:
		print(
			"%s FAILED: waited %.0f s for answers" % [_opts.levels[_stage], HOLD_LIMIT_MS / 1000.0]
		)
		_all_ok = false
	if _level is CrowdLevel:
		var crowd: CrowdLevel = _level
		if (crowd.is_over() and not hold) or stuck:
			_summarise_crowd(crowd)
			_next_level()
		return
	var sim_time: float = _level.get("sim_time")
	if sim_time >= _opts.seconds - 0.0001 and not _finishing and not hold:
		_finishing = true
		_level.call("finish_up")
		print("[%6.2f s] no new goals: every NPC walks to its last one" % sim_time)
	var last_goals_over: bool = sim_time >= _opts.seconds + LAST_GOALS_S - 0.0001
	# Summarise only once every request has come back: the counts then cover exactly this level's
	# requests, and none completes after the next level has reset the statistics.
	var settled: bool = _finishing and (_level.call("all_done") or last_goals_over)
	if (settled and not hold) or stuck:
		_summarise(_opts.levels[_stage])
		_next_level()


## [param prefix] names the level ("" for the grid level, "big ").
func _on_arrived(
	npc_index: int, goal_number: int, cell: Vector2i, time: float, prefix: String
) -> void:
	print(
		(
			"[%6.2f s] %snpc %02d reached goal %d at (%d, %d)"
			% [time, prefix, npc_index, goal_number, cell.x, cell.y]
		)
	)


func _on_navmesh_arrived(npc_index: int, goal_number: int, point: Vector2, time: float) -> void:
	print(
		(
			"[%6.2f s] navmesh npc %02d reached goal %d at (%.1f, %.1f)"
			% [time, npc_index, goal_number, point.x, point.y]
		)
	)


func _on_3d_arrived(npc_index: int, goal_number: int, point: Vector3, time: float) -> void:
	print(
		(
			"[%6.2f s] 3d npc %02d reached goal %d at (%.2f, %.2f, %.2f)"
			% [time, npc_index, goal_number, point.x, point.y, point.z]
		)
	)


func _on_door(door_index: int, open: bool, time: float, prefix: String) -> void:
	print("[%6.2f s] %sdoor %d %s" % [time, prefix, door_index, "opened" if open else "closed"])


func _on_crowd_doors(closed: int, opened: int, time: float, level: CrowdLevel) -> void:
	print(
		(
			"[%6.2f s] crowd doors: %d closed, %d opened; %d/%d units arrived"
			% [time, closed, opened, level.crowd.arrived, level.unit_count]
		)
	)


## Adds the crowd level's section to the table: arrivals, steps, the fields' tiles.
func _summarise_crowd(level: CrowdLevel) -> void:
	var crowd: Crowd = level.crowd
	var requests: int = 0
	for field: AStarBridgeFlowField in level.fields:
		requests += field.requests_sent if field != null else 0
	var wall_s: float = (Time.get_ticks_msec() - _started_ms) / 1000.0
	var door_ms: Array = Array(level.door_update_ms)
	door_ms.sort()
	var slowest: float = door_ms.back() if not door_ms.is_empty() else 0.0
	var median: float = door_ms[door_ms.size() >> 1] if not door_ms.is_empty() else 0.0
	# Door edits do not block: whether two edits' field.changed come in one frame (one fetch) or
	# in two decides how often a tile is fetched again, so that count is a timing too.
	var answer_ms: Array = Array(level.door_answer_ms)
	answer_ms.sort()
	var answer_median: float = answer_ms[answer_ms.size() >> 1] if not answer_ms.is_empty() else 0.0
	if not _rows.is_empty():
		_rows.append([])
	(
		_rows
		. append_array(
			[
				["level", "crowd"],
				["units", str(level.unit_count)],
				["units arrived", "%d/%d" % [crowd.arrived, level.unit_count]],
				["per goal", "/".join(Array(crowd.arrived_per_goal).map(str))],
				["simulated", "%.2f s" % level.sim_time],
				["steps", str(crowd.steps)],
				["first unit moved", "step %d" % crowd.first_move_step],
				["field requests", str(requests)],
				["tiles fetched", str(level.tiles_fetched)],
				["tiles re-fetched (timing)", str(level.tiles_refetched)],
				["door changes", str(level.door_changes)],
				["door median (timing)", "%.1f ms" % median],
				["door max (timing)", "%.1f ms" % slowest],
				["door answer median (timing)", "%.1f ms" % answer_median],
				["door update failures", str(level.failures)],
				["field retry (timing)", str(level.field_failures)],
				["wall time (timing)", "%.1f s" % wall_s],
			]
		)
	)
	if not level.passed():
		print(
			(
				"crowd level FAILED: %d of %d units did not reach their goal within %.0f s"
				% [level.unit_count - crowd.arrived, level.unit_count, level.time_limit_s]
			)
		)
	_all_ok = _all_ok and level.passed() and level.failures == 0


## Adds the finished level's section to the table: its NPCs' counts and the bridge's stats
## (reset when the level started).
func _summarise(kind: String) -> void:
	var stats: Dictionary = _bridge.get_stats()
	var npcs: Array = _level.get("npcs")
	var given: int = 0
	var reached: int = 0
	var at_every: int = 0
	var fewest: int = -1
	var received: int = 0
	var failed: int = 0
	var missed: int = 0
	var off_goal: int = 0
	for npc: Object in npcs:
		var npc_given: int = npc.get("goals_given")
		var npc_reached: int = npc.get("goals_reached")
		var npc_received: int = npc.get("paths_received")
		var npc_failed: int = npc.get("paths_failed")
		var npc_off_goal: int = npc.get("arrivals_off_goal")
		off_goal += npc_off_goal
		given += npc_given
		reached += npc_reached
		at_every += 1 if npc_reached == npc_given else 0
		fewest = npc_reached if fewest < 0 else mini(fewest, npc_reached)
		received += npc_received
		failed += npc_failed
		# Grid NPCs re-path until they arrive; navmesh NPCs give a goal up (no path).
		var npc_missed: Variant = npc.get("goals_missed")
		if npc_missed is int:
			var count: int = npc_missed
			missed += count
	var stat_failures: int = stats["failures"]
	var requests: int = stats["requests"]
	var p50: float = stats["latency_ms_p50"]
	var p99: float = stats["latency_ms_p99"]
	var failures: int = maxi(failed, stat_failures)
	var wall_s: float = (Time.get_ticks_msec() - _started_ms) / 1000.0
	var sim_time: float = _level.get("sim_time")
	if not _rows.is_empty():
		_rows.append([])
	(
		_rows
		. append_array(
			[
				["level", kind],
				["NPCs", str(npcs.size())],
				["goals given", str(given)],
				["goals reached", str(reached)],
				["NPCs at every goal", "%d/%d" % [at_every, npcs.size()]],
				["fewest goals an NPC", str(maxi(fewest, 0))],
				["goals missed", str(missed)],
				["arrivals off the goal", str(off_goal)],
				["simulated", "%.2f s" % sim_time],
				["paths requested", str(requests)],
				["paths received", str(received)],
				["failures", str(failures)],
				["latency p50 (timing)", "%.2f ms" % p50],
				["latency p99 (timing)", "%.2f ms" % p99],
				["wall time (timing)", "%.1f s" % wall_s],
			]
		)
	)
	if _level is GridLevel:
		var doors: PackedFloat64Array = (_level as GridLevel).door_update_ms
		_rows.append(["door updates", str(doors.size())])
		if not doors.is_empty():
			var slowest: float = Array(doors).max()
			_rows.append(["door max (timing)", "%.2f ms" % slowest])
	if _level is SizesLevel:  # its rows, and its rule: no large unit in a one-cell door
		_all_ok = (_level as SizesLevel).add_rows(_rows) and _all_ok
	if _level is ObstaclesLevel:  # its rows, and its rule: no NPC ever inside a cart
		_all_ok = (_level as ObstaclesLevel).add_rows(_rows) and _all_ok
	if at_every != npcs.size():
		print(
			(
				"%s level FAILED: %d of %d NPCs did not reach every goal given (%d of %d reached)"
				% [kind, npcs.size() - at_every, npcs.size(), reached, given]
			)
		)
	if off_goal > 0:
		print("%s level FAILED: %d arrivals away from their goal" % [kind, off_goal])
	_all_ok = _all_ok and at_every == npcs.size() and off_goal == 0 and failures == 0


func _print_table() -> void:
	print(RULE)
	for row: Array in _rows:
		if row.is_empty():
			print(RULE)
		else:
			print("| %-21s | %10s |" % [row[0], row[1]])
	print(RULE)
	var ok: bool = _all_ok and not _rows.is_empty()
	print("demo %s" % ("passed" if ok else "FAILED"))
	quit(0 if ok else 1)
