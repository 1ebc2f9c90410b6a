## A short soak of 50 grid agents against a real sidecar, each moving one cell per physics frame
## (so the occupancy sends an update every frame): what the bridge keeps of the graph for a
## restart stays the same size once every agent is placed, however many updates follow.
## bench/agents_memory.py runs the same crowd for 10 minutes of game time and restarts the sidecar.
extends "res://runner/gd_test.gd"

const Bridge = preload("res://addons/astar_bridge/astar_bridge.gd")
const AgentCrowd = preload("res://tests/support/agent_crowd.gd")
const AgentOccupancy = preload("res://addons/astar_bridge/runtime/agent_occupancy.gd")
const TestBridge = preload("res://tests/support/test_bridge.gd")
const AGENTS := 50
## Game time of the soak, and when the first measure is taken (every agent has moved by then).
const SOAK_S := 20.0
const SETTLED_S := 4.0
## Twice the game time per physics frame: 20 s of game time in about 10 s.
const TIME_SCALE := 2.0

var _tree: SceneTree = Engine.get_main_loop() as SceneTree
var _bridge: Bridge = null
var _crowd: AgentCrowd = null
var _time_scale: float = 1.0


func before_each() -> void:
	_time_scale = Engine.time_scale
	_bridge = TestBridge.made(PackedStringArray(["--log-level", "ERROR"]))
	_tree.root.add_child(_bridge)


func after_each() -> void:
	Engine.time_scale = _time_scale
	if _crowd != null:
		_crowd.free()
	AgentOccupancy.forget_grid(AgentCrowd.GRAPH)
	_bridge.stop()
	_bridge.free()


func test_stored_state_stays_flat_while_50_agents_move_every_frame() -> void:
	_crowd = AgentCrowd.new()
	_crowd.count = AGENTS
	_tree.root.add_child(_crowd)
	assert_true(_crowd.build(_bridge), "the crowd's grid loaded")
	Engine.time_scale = TIME_SCALE
	while _crowd.game_time < SETTLED_S:
		await _tree.physics_frame
	var settled: int = _bridge.get_graph_state_size(AgentCrowd.GRAPH)
	var changes_then: int = _crowd.cell_changes
	while _crowd.game_time < SOAK_S:
		await _tree.physics_frame
	var final: int = _bridge.get_graph_state_size(AgentCrowd.GRAPH)
	var moves: int = _crowd.cell_changes - changes_then
	print(
		(
			"    %d frames, %.1f s game time, %d cell changes, state %d -> %d entries"
			% [_crowd.frames, _crowd.game_time, _crowd.cell_changes, settled, final]
		)
	)
	assert_eq(AgentOccupancy.placed_agents(AgentCrowd.GRAPH).size(), AGENTS, "all placed")
	assert_eq(settled, AGENTS, "one entry per agent (no ground change was made)")
	assert_eq(final, settled, "no growth over %d more cell changes" % moves)
	assert_true(moves > AGENTS * 100, "the agents kept moving (%d cell changes)" % moves)
	assert_true(_crowd.arrivals > AGENTS, "and kept reaching goals (%d)" % _crowd.arrivals)


func test_agents_keep_their_cells_through_a_sidecar_restart() -> void:
	_crowd = AgentCrowd.new()
	_crowd.count = 10
	_tree.root.add_child(_crowd)
	assert_true(_crowd.build(_bridge), "the crowd's grid loaded")
	while _crowd.game_time < 1.0:
		await _tree.physics_frame
	_bridge.config.report_failures = false  # the update in flight at the crash fails, as it should
	var restarted: Array[bool] = [false]
	_bridge.sidecar_ready.connect(func() -> void: restarted[0] = true)
	OS.execute("kill", PackedStringArray(["-9", str(_bridge.get_sidecar_pid())]))
	var deadline: int = Time.get_ticks_msec() + 30000
	while not restarted[0] and Time.get_ticks_msec() < deadline:
		await _tree.physics_frame
	assert_true(restarted[0], "the sidecar came back: %s" % _bridge.get_last_error())
	var moved_then: int = _crowd.cell_changes
	var goals_then: int = _crowd.arrivals
	var until: float = _crowd.game_time + 2.0
	while _crowd.game_time < until:
		await _tree.physics_frame
	assert_true(_crowd.cell_changes > moved_then, "the agents walk on")
	assert_true(_crowd.arrivals > goals_then, "and reach goals with new paths")
	await _tree.physics_frame
	for mover: Node2D in _crowd.movers:
		var agent: AStarBridgeAgent2D = mover.get_node("Agent")
		assert_eq(
			AgentOccupancy.confirmed_cell(AgentCrowd.GRAPH, agent.agent_id),
			AgentOccupancy.cell_of(AgentCrowd.GRAPH, mover.position),
			"the restarted sidecar holds agent %d where it stands" % agent.agent_id
		)
	assert_eq(_bridge.get_graph_state_size(AgentCrowd.GRAPH), 10, "still one entry per agent")
