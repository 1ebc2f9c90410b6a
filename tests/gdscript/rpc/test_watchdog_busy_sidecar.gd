## The autoload's watchdog against a real sidecar that another client keeps busy for 10 s: flow
## fields on a 2048 x 2048 grid, each with a field.tiles behind it (the issue 37 scenario: each
## field.tiles held the sidecar's event loop while its field built, so the sidecar answered
## nobody for seconds while its process worked). The addon stays on the same
## sidecar through it and its graph answers after it; a SIGSTOPped sidecar is still restarted.
extends "res://runner/gd_test.gd"

const AStarBridgeNode = preload("res://addons/astar_bridge/astar_bridge.gd")
const RpcClient = preload("res://addons/astar_bridge/rpc/rpc_client.gd")
const TestBridge = preload("res://tests/support/test_bridge.gd")

const TOKEN := "watchdog-busy-test"
const BIG := 2048
const START_STEP := 64
# The other client's work goes on, field after field, at least this long.
const WORK_MS := 10000
# Lets a field's build start on the sidecar's field thread before the field.tiles behind it.
const TILES_AFTER_MS := 500
const WORK_TIMEOUT_MS := 120000

var _bridge: AStarBridgeNode = null
var _other: RpcClient = null
var _frozen_pid: int = -1


func before_each() -> void:
	_bridge = TestBridge.made(PackedStringArray(["--threads", "1", "--log-level", "ERROR"]))
	_bridge.config.report_failures = false
	_bridge.config.token = TOKEN
	# Short, so the old watchdog (silence alone) restarted this sidecar within each field build.
	_bridge.config.heartbeat_ms = 200
	_bridge.config.unresponsive_timeout_ms = 1000
	_tree().root.add_child(_bridge)


func after_each() -> void:
	if _other != null:
		_other.close()
	if _frozen_pid > 0:
		OS.execute("kill", PackedStringArray(["-9", str(_frozen_pid)]))
	_bridge.stop()
	_bridge.free()


func test_a_busy_sidecar_is_kept_and_a_stopped_one_restarted() -> void:
	var cells: PackedByteArray = PackedByteArray()
	cells.resize(100)
	cells.fill(1)
	var loaded: AStarBridgeResult = _bridge.load_grid("level", 10, 10, cells)
	assert_true(loaded.is_ok(), "the addon's own graph: %s" % str(loaded))
	var pid: int = _bridge.get_sidecar_pid()
	var stalls: Array[int] = []
	var losses: Array[String] = []
	_bridge.sidecar_unresponsive.connect(func(waited: int) -> void: stalls.append(waited))
	_bridge.sidecar_lost.connect(func(reason: String) -> void: losses.append(reason))
	# How often the watchdog saw a silence past its timeout from a working sidecar: printed,
	# not asserted (a sidecar whose event loop never waits answers the heartbeat throughout).
	var busy_seen: Array[int] = []
	var link: Variant = _bridge.get("_link")
	if link is AStarBridgeNode.SidecarLink:
		var sidecar_link: AStarBridgeNode.SidecarLink = link
		sidecar_link.busy.connect(func(waited: int) -> void: busy_seen.append(waited))
	if not _connect_other():
		return
	var began: int = Time.get_ticks_msec()
	var number: int = 0
	while Time.get_ticks_msec() - began < WORK_MS:
		if not await _build_field_with_tiles_behind(number):
			return
		number += 1
	var worked_ms: int = Time.get_ticks_msec() - began
	print(
		(
			"    the other client's work: %d fields in %d ms; silences of a working sidecar: %d"
			% [number, worked_ms, busy_seen.size()]
		)
	)
	assert_eq(losses, [] as Array[String], "no restart while the sidecar worked")
	assert_eq(stalls, [] as Array[int], "not reported unresponsive")
	assert_eq(_bridge.get_sidecar_pid(), pid, "the same sidecar process")
	assert_eq(_bridge.get_stats()["restarts"], 0)
	var path: PackedVector2Array = _bridge.find_path("level", Vector2(0, 0), Vector2(9, 9))
	assert_eq(path.size(), 10, "the addon's graph still answers")
	_other.close()
	_other = null
	# A sidecar that cannot run at all is still restarted, with its graph.
	_frozen_pid = pid
	OS.execute("kill", PackedStringArray(["-STOP", str(pid)]))
	var deadline: int = Time.get_ticks_msec() + 30000
	while (stalls.is_empty() or not _bridge.is_ready()) and Time.get_ticks_msec() < deadline:
		await _tree().process_frame
	assert_eq(stalls.size(), 1, "told once that the stopped sidecar answered nothing")
	assert_true(_bridge.is_ready(), "ready again")
	assert_ne(_bridge.get_sidecar_pid(), pid, "a new sidecar")
	path = _bridge.find_path("level", Vector2(0, 0), Vector2(9, 9))
	assert_eq(path.size(), 10, "the graph was uploaded again and answers")


# A second client of the addon's sidecar (the addon knows its port and token) with its big grid.
func _connect_other() -> bool:
	_other = RpcClient.new()
	_other.connect_to("127.0.0.1", _bridge.get_sidecar_port())
	if _other.wait_connected(10000) != OK:
		fail("the second client cannot connect")
		return false
	var hello: Dictionary = {"token": TOKEN, "client": "busy-other", "protocol": 1}
	if _other.call_sync("hello", hello, 10000)["error"] != null:
		fail("the second client's hello was refused")
		return false
	var cells: PackedByteArray = PackedByteArray()
	cells.resize(BIG * BIG)
	cells.fill(1)
	var grid: Dictionary = {
		"id": "big", "width": BIG, "height": BIG, "cells": cells, "diagonal": "never"
	}
	var loaded: Dictionary = _other.call_sync("graph.load_grid", grid, WORK_TIMEOUT_MS)
	if loaded["error"] != null:
		fail("the big grid did not load: %s" % str(loaded["error"]))
		return false
	return true


# One flow field toward a goal of its own covering the whole map (starts every 64 cells), and
# a field.tiles sent while it builds; true once both are answered and the field built.
func _build_field_with_tiles_behind(number: int) -> bool:
	var starts: PackedInt32Array = PackedInt32Array()
	for y: int in range(0, BIG, START_STEP):
		for x: int in range(0, BIG, START_STEP):
			starts.append_array([x, y])
	var goal: PackedInt32Array = PackedInt32Array([(BIG >> 1) + number, BIG >> 1])
	var built: Array[Dictionary] = []
	var fetched: Array[Dictionary] = []
	var field: Dictionary = {
		"graph": "big", "goals": goal.to_byte_array(), "starts": starts.to_byte_array()
	}
	_other.request("field.request", field, built.append, WORK_TIMEOUT_MS)
	var tiles_at: int = Time.get_ticks_msec() + TILES_AFTER_MS
	while Time.get_ticks_msec() < tiles_at:
		_other.poll()
		await _tree().process_frame
	var tiles: Dictionary = {"field": "not-a-field-%d" % number, "tiles": [0]}
	_other.request("field.tiles", tiles, fetched.append, WORK_TIMEOUT_MS)
	var deadline: int = Time.get_ticks_msec() + WORK_TIMEOUT_MS
	while built.size() + fetched.size() < 2 and Time.get_ticks_msec() < deadline:
		if not _other.is_open():
			break
		_other.poll()
		await _tree().process_frame
	if built.size() + fetched.size() < 2:
		fail("field %d: the other client's work was not answered" % number)
		return false
	assert_eq(built[0]["error"], null, "field %d was built" % number)
	return built[0]["error"] == null


func _tree() -> SceneTree:
	return Engine.get_main_loop() as SceneTree
