## The path.find encoder of the asynchronous path: byte for byte the generic encoder's
## encode_request for the same params map, whatever the msgid width, graph id, endpoint form and
## options (their order included), with and without "cells": true, on first use and from its
## kept bytes, and refusing what the generic encoder refuses.
extends "res://runner/gd_test.gd"

const MsgpackEncoder = preload("res://addons/astar_bridge/msgpack/msgpack_encoder.gd")
const PathFindEncoder = preload("res://addons/astar_bridge/msgpack/path_find_encoder.gd")

const MSGIDS: Array[int] = [0, 1, 127, 128, 255, 256, 65535, 65536, 4294967295]
const GRAPHS: Array[String] = [
	"level",
	"",
	"a graph id of exactly thirty-two",
	"a much longer graph id than any cache keeps",
	"ñ地图"
]


func test_same_bytes_as_the_generic_encoder_for_every_msgid_width() -> void:
	var fast: PathFindEncoder = PathFindEncoder.new()
	for msgid: int in MSGIDS:
		_assert_same(fast, msgid, "level", Vector2(1, 2), Vector2(5.5, -3.25), {})


func test_same_bytes_for_every_endpoint_form() -> void:
	var fast: PathFindEncoder = PathFindEncoder.new()
	var ends: Array = [
		Vector2(0.1, 7.0),
		Vector2(-0.0, 123456.789),
		Vector3(1, 2, 3.5),
		Vector2i(3, 4),
		Vector3i(-1, 200, 70000),
		[1.5, 2.5],
		[3, 4],
		[1.0, 2.0, 3.0],
		17,
		-5,
		4294967296,
	]
	for start: Variant in ends:
		for goal: Variant in ends:
			_assert_same(fast, 300, "level", start, goal, {})


func test_same_bytes_for_graph_ids_and_options_in_any_order() -> void:
	var fast: PathFindEncoder = PathFindEncoder.new()
	var ab: Dictionary = {"allow_partial": true, "max_expansions": 500}
	var ba: Dictionary = {"max_expansions": 500, "allow_partial": true}
	var options: Array[Dictionary] = [
		{},
		ab,
		ba,
		{"heuristic": "octile", "navigation_layers": 4294967295, "agent": 3},
		{"hierarchical": true, "corridor": true, "ignore_agents": true, "optimal": false},
		{"nested": {"a": [1, 2.5, "x"], "b": null}},
	]
	for pass_index: int in 2:  # the second pass comes from the kept bytes
		for graph: String in GRAPHS:
			for option: Dictionary in options:
				_assert_same(fast, 40 + pass_index, graph, Vector2(1, 1), Vector2(9, 9), option)


func test_cells_flag_after_the_goal_and_kept_apart() -> void:
	var fast: PathFindEncoder = PathFindEncoder.new()
	for pass_index: int in 2:  # the second pass comes from the kept bytes
		for option: Dictionary in [{}, {"allow_partial": true}]:
			for cells: bool in [true, false]:
				_assert_same(fast, 7 + pass_index, "level", [1, 2], [8, 5], option, cells)


func test_options_changed_after_use_are_encoded_anew() -> void:
	var fast: PathFindEncoder = PathFindEncoder.new()
	var options: Dictionary = {"max_expansions": 10}
	_assert_same(fast, 1, "level", Vector2(), Vector2(1, 1), options)
	options["max_expansions"] = 20
	_assert_same(fast, 2, "level", Vector2(), Vector2(1, 1), options)
	options["allow_partial"] = true
	_assert_same(fast, 3, "level", Vector2(), Vector2(1, 1), options)
	options.clear()
	_assert_same(fast, 4, "level", Vector2(), Vector2(1, 1), options)


func test_more_graphs_than_it_keeps() -> void:
	var fast: PathFindEncoder = PathFindEncoder.new()
	for pass_index: int in 2:
		for i: int in PathFindEncoder.MAX_KEPT * 2 + 3:
			_assert_same(fast, i, "graph %d" % i, Vector2(i, 0), Vector2(0, i), {})


func test_refuses_what_the_generic_encoder_refuses_and_recovers() -> void:
	var fast: PathFindEncoder = PathFindEncoder.new()
	assert_eq(fast.encode(1, "level", Vector2(), Vector2(), {"bad": Color.RED}), PackedByteArray())
	assert_true(fast.error.contains("Color"), fast.error)
	assert_eq(fast.encode(2, "level", Color.RED, Vector2(), {}), PackedByteArray())
	assert_true(fast.error.contains("Color"), fast.error)
	_assert_same(fast, 3, "level", Vector2(), Vector2(1, 1), {})
	assert_eq(fast.error, "")


func _assert_same(
	fast: PathFindEncoder,
	msgid: int,
	graph: String,
	start: Variant,
	goal: Variant,
	options: Dictionary,
	cells: bool = false
) -> void:
	var params: Dictionary = {"graph": graph, "start": start, "goal": goal}
	if cells:
		params["cells"] = true
	if not options.is_empty():
		params["options"] = options
	var generic: MsgpackEncoder = MsgpackEncoder.new()
	var expected: PackedByteArray = generic.encode_request(msgid, "path.find", params)
	assert_eq(generic.error, "")
	var got: PackedByteArray = fast.encode(msgid, graph, start, goal, options, cells)
	assert_eq(fast.error, "")
	assert_eq(
		got.hex_encode(),
		expected.hex_encode(),
		"%d %s %s %s %s %s" % [msgid, graph, start, goal, options, cells]
	)
