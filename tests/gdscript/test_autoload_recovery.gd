## The autoload recovering a stuck sidecar, against a real one it launches: a sidecar frozen with
## SIGSTOP (process alive, connection open, no answer, process state stopped) is noticed by the
## heartbeat, reported once and restarted with its graphs (a busy one is kept:
## test_watchdog_busy_sidecar.gd); what is kept of a graph stays bounded after thousands of
## updates, and a restart rebuilds every graph's latest state; the token can come from the
## ASTAR_BRIDGE_TOKEN environment variable.
extends "res://runner/gd_test.gd"

const AStarBridgeNode = preload("res://addons/astar_bridge/astar_bridge.gd")
const TestBridge = preload("res://tests/support/test_bridge.gd")
const WIDTH := 32
const HEIGHT := 32
const UPDATES := 3000
const AGENTS := 5

var _bridge: AStarBridgeNode = null
var _frozen_pid: int = -1


func before_each() -> void:
	_bridge = _make_bridge()


func after_each() -> void:
	if _frozen_pid > 0:
		OS.execute("kill", PackedStringArray(["-9", str(_frozen_pid)]))
	_bridge.stop()
	_bridge.free()


func test_a_frozen_sidecar_is_noticed_restarted_and_answers_again() -> void:
	_bridge.config.heartbeat_ms = 200
	_bridge.config.unresponsive_timeout_ms = 1500
	_load_open("level")
	var stalls: Array[int] = []
	var losses: Array[String] = []
	_bridge.sidecar_unresponsive.connect(func(waited: int) -> void: stalls.append(waited))
	_bridge.sidecar_lost.connect(func(reason: String) -> void: losses.append(reason))
	_frozen_pid = _bridge.get_sidecar_pid()
	OS.execute("kill", PackedStringArray(["-STOP", str(_frozen_pid)]))
	var deadline: int = Time.get_ticks_msec() + 30000
	while (stalls.is_empty() or not _bridge.is_ready()) and Time.get_ticks_msec() < deadline:
		await _tree().process_frame
	assert_eq(stalls.size(), 1, "told once that the sidecar stopped answering")
	assert_eq(losses.size(), 1, "one loss, one restart")
	if OS.get_name() == "Linux" and not losses.is_empty():
		assert_true(losses[0].contains("stopped"), "the reason names the process's state")
	assert_true(_bridge.is_ready(), "ready again")
	assert_ne(_bridge.get_sidecar_pid(), _frozen_pid, "a new sidecar")
	var path: PackedVector2Array = _bridge.find_path("level", Vector2(0, 0), Vector2(9, 9))
	assert_eq(path.size(), 10, "the graph was uploaded again and answers")
	assert_eq(_bridge.get_stats()["restarts"], 1)


func test_an_idle_healthy_sidecar_is_left_alone() -> void:
	# Heartbeats every 50 ms for 4 s: each is answered long before the 3 s it may take.
	_bridge.config.heartbeat_ms = 50
	_bridge.config.unresponsive_timeout_ms = 3000
	_load_open("level")
	var stalls: Array[int] = []
	_bridge.sidecar_unresponsive.connect(func(waited: int) -> void: stalls.append(waited))
	var pid: int = _bridge.get_sidecar_pid()
	var until: int = Time.get_ticks_msec() + 4000
	while Time.get_ticks_msec() < until:
		await _tree().process_frame
	assert_eq(stalls.size(), 0)
	assert_eq(_bridge.get_sidecar_pid(), pid, "the same sidecar")


func test_kept_state_stays_bounded_and_a_restart_rebuilds_the_latest() -> void:
	_load_open("a")
	_load_open("b")
	var rng: RandomNumberGenerator = RandomNumberGenerator.new()
	rng.seed = 5
	var walls: Dictionary = {}  # the expected final state of "a": cell -> walkable
	var ops: Array[Dictionary] = []
	for agent: int in AGENTS:
		ops.append({"op": "place", "agent": agent, "cell": [agent, HEIGHT - 1]})
	assert_true(_bridge.update_graph("b", {"agents": ops}).is_ok())
	for i: int in UPDATES:
		var cell: Vector2i = Vector2i(rng.randi_range(1, WIDTH - 2), rng.randi_range(1, HEIGHT - 2))
		var walkable: bool = rng.randf() < 0.5
		walls[cell] = walkable
		var flat: PackedInt32Array = PackedInt32Array([cell.x, cell.y])
		var changes: Dictionary = {"cells": flat.to_byte_array(), "walkable": walkable}
		assert_true(_bridge.update_graph("a", changes).is_ok())
		var agent: int = i % AGENTS
		var move: Dictionary = {"op": "move", "agent": agent, "cell": [agent, i % HEIGHT]}
		assert_true(_bridge.update_graph("b", {"agents": [move]}).is_ok())
	assert_true(
		_bridge.get_graph_state_size("a") <= WIDTH * HEIGHT,
		"a's kept state (%d) is bounded by its cells" % _bridge.get_graph_state_size("a")
	)
	assert_eq(_bridge.get_graph_state_size("b"), AGENTS, "one entry per agent")
	var before: Array = _probe(walls)
	OS.execute("kill", PackedStringArray(["-9", str(_bridge.get_sidecar_pid())]))
	var deadline: int = Time.get_ticks_msec() + 30000
	while _bridge.get_stats()["restarts"] == 0 and Time.get_ticks_msec() < deadline:
		await _tree().process_frame
	while not _bridge.is_ready() and Time.get_ticks_msec() < deadline:
		await _tree().process_frame
	assert_true(_bridge.is_ready(), "ready again")
	assert_eq(_probe(walls), before, "the same paths after the restart")
	var info: AStarBridgeResult = _bridge.call_method("graph.info", {"id": "b"})
	var described: Dictionary = info.value if info.value is Dictionary else {}
	assert_eq(described.get("agents"), AGENTS, "every agent is back")


func test_the_token_comes_from_the_environment_first() -> void:
	_bridge.stop()
	_bridge.free()
	OS.set_environment(AStarBridgeNode.BridgeConfig.ENV_TOKEN, "env-token-93a1")
	_bridge = _make_bridge()
	OS.unset_environment(AStarBridgeNode.BridgeConfig.ENV_TOKEN)
	assert_eq(_bridge.config.token, "env-token-93a1", "the variable wins over the setting")
	_load_open("level")
	assert_true(_bridge.is_ready(), "the sidecar took the token from stdin and said hello")


# Path lengths from (0, 0) to every cell of the last row, and the walls' own answers.
func _probe(walls: Dictionary) -> Array:
	var answers: Array = []
	for x: int in WIDTH:
		var result: Dictionary = _bridge.find_path_result("a", Vector2i(0, 0), Vector2i(x, 31))
		var cost: float = result["cost"]
		answers.append([result["status"], snappedf(cost, 1e-3)])
	var blocked: int = 0
	for cell: Vector2i in walls:
		if not walls[cell]:
			var result: Dictionary = _bridge.find_path_result("a", Vector2i(0, 0), cell)
			blocked += 1 if result["status"] == "no_path" else 0
	answers.append(blocked)
	return answers


func _make_bridge() -> AStarBridgeNode:
	var bridge: AStarBridgeNode = TestBridge.made(
		PackedStringArray(["--threads", "1", "--log-level", "ERROR"])
	)
	bridge.config.report_failures = false
	_tree().root.add_child(bridge)
	return bridge


func _load_open(id: String) -> void:
	var cells: PackedByteArray = PackedByteArray()
	cells.resize(WIDTH * HEIGHT)
	cells.fill(1)
	var result: AStarBridgeResult = _bridge.load_grid(id, WIDTH, HEIGHT, cells)
	assert_true(result.is_ok(), str(result))


func _tree() -> SceneTree:
	return Engine.get_main_loop() as SceneTree
