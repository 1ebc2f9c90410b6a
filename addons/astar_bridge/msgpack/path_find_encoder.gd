## Encodes [code]path.find[/code] requests for the asynchronous path of the autoload, faster
## than the generic encoder: the bytes of the parts that repeat (the method, the params map's
## header and keys, the graph id, the options map) are made once per graph and options and kept,
## so a request writes only its msgid and its two endpoints. The bytes are exactly those of
## [code]MsgpackEncoder.encode_request(msgid, "path.find", params)[/code] for
## [code]params = {"graph": graph, "start": start, "goal": goal}[/code] (then
## [code]"cells": true[/code] for cell endpoints, and [code]"options": options[/code] last when
## it is not empty).
## [br][br]
## Endpoints: a [Vector2] or [Vector3] is written directly (float64 coordinates, as the generic
## encoder writes vectors); any other wire value through the generic encoder. [method parts_of]
## and [method encode_parts] split the work: the parts are looked up where the query is made,
## the bytes written where it is sent (the connection's thread, with io_thread).
## [codeblock]
## const PathFindEncoder = preload("res://addons/astar_bridge/msgpack/path_find_encoder.gd")
## var encoder := PathFindEncoder.new()
## var bytes: PackedByteArray = encoder.encode(7, "level", Vector2(1, 2), Vector2(5, 3), {})
## if bytes.is_empty():
##     push_error(encoder.error)
## [/codeblock]
extends RefCounted

const MsgpackEncoder = preload("res://addons/astar_bridge/msgpack/msgpack_encoder.gd")

const METHOD := "path.find"
## Graph and options combinations whose fixed bytes are kept; the cache starts over when full.
const MAX_KEPT := 64
# fixstr "goal", between the two endpoints.
const GOAL_KEY: PackedByteArray = [0xa4, 0x67, 0x6f, 0x61, 0x6c]

## Why the last [method encode] failed, or "" when it succeeded.
var error: String = ""

var _generic: MsgpackEncoder = MsgpackEncoder.new()
var _out: StreamPeerBuffer = StreamPeerBuffer.new()
# graph -> [{}, bytes up to the start's value, bytes after the goal], for queries without options.
var _plain: Dictionary = {}
# graph -> {options.hash(): [options copy, bytes up to the start's value, bytes after the goal]}
var _kept: Dictionary = {}
# The same two for queries with "cells": true.
var _plain_cells: Dictionary = {}
var _kept_cells: Dictionary = {}
var _kept_count: int = 0


func _init() -> void:
	_out.big_endian = true


## The msgpack-RPC request [code][0, msgid, "path.find", [params]][/code] of one query; empty
## bytes with [member error] set when a part cannot be encoded.
func encode(
	msgid: int,
	graph: String,
	start: Variant,
	goal: Variant,
	options: Dictionary,
	cells: bool = false
) -> PackedByteArray:
	var parts: Array = parts_of(graph, options, cells)
	if parts.is_empty():
		return PackedByteArray()
	return encode_parts(msgid, parts, start, goal)


## The fixed parts of the queries on [param graph] with [param options] (never changed once
## made, so they may be handed to another thread), or [] with [member error] set when the
## options cannot be encoded. [param cells]: the endpoints are grid cells
## ([code]"cells": true[/code]).
func parts_of(graph: String, options: Dictionary, cells: bool = false) -> Array:
	error = ""
	if options.is_empty():  # the usual case: one lookup, no call
		var plain: Variant = (_plain_cells if cells else _plain).get(graph)
		if plain != null:
			return plain
	return _parts_of(graph, options, cells)


## [method encode] from [param parts] made by [method parts_of] (of any encoder).
func encode_parts(msgid: int, parts: Array, start: Variant, goal: Variant) -> PackedByteArray:
	error = ""
	_out.clear()
	_out.put_u8(0x94)
	_out.put_u8(0)
	if msgid >= 0 and msgid < 0x80:
		_out.put_u8(msgid)
	else:
		_put_generic(msgid)
	var head: PackedByteArray = parts[1]
	_out.put_data(head)
	_put_endpoint(start)
	_out.put_data(GOAL_KEY)
	_put_endpoint(goal)
	var tail: PackedByteArray = parts[2]
	if not tail.is_empty():
		_out.put_data(tail)
	if not error.is_empty():
		return PackedByteArray()
	return _out.data_array


func _put_endpoint(value: Variant) -> void:
	var type: int = typeof(value)
	if type == TYPE_VECTOR2:
		var v2: Vector2 = value
		_out.put_u8(0x92)
		_out.put_u8(0xcb)
		_out.put_double(v2.x)
		_out.put_u8(0xcb)
		_out.put_double(v2.y)
	elif type == TYPE_VECTOR3:
		var v3: Vector3 = value
		_out.put_u8(0x93)
		_out.put_u8(0xcb)
		_out.put_double(v3.x)
		_out.put_u8(0xcb)
		_out.put_double(v3.y)
		_out.put_u8(0xcb)
		_out.put_double(v3.z)
	else:
		_put_generic(value)


func _put_generic(value: Variant) -> void:
	var bytes: PackedByteArray = _generic.encode(value)
	if not _generic.error.is_empty():
		error = _generic.error
		return
	_out.put_data(bytes)


# [options copy, head, tail] of graph and options, made on first use; [] when unencodable.
func _parts_of(graph: String, options: Dictionary, cells: bool) -> Array:
	var plains: Dictionary = _plain_cells if cells else _plain
	var kepts: Dictionary = _kept_cells if cells else _kept
	if options.is_empty():  # the usual case: one lookup
		var plain: Variant = plains.get(graph)
		if plain != null:
			return plain
	else:
		var by_options: Dictionary = kepts.get(graph, {})
		var found: Variant = by_options.get(options.hash())
		if found != null:
			var parts: Array = found
			var known: Dictionary = parts[0]
			if known == options and known.keys() == options.keys():  # same map, same order
				return parts
	var made: Array = _make_parts(graph, options, cells)
	if made.is_empty():
		return made
	if _kept_count >= MAX_KEPT:
		for kept_map: Dictionary in [_plain, _kept, _plain_cells, _kept_cells]:
			kept_map.clear()
		_kept_count = 0
	_kept_count += 1
	if options.is_empty():
		plains[graph] = made
	else:
		var kept: Dictionary = kepts.get(graph, {})
		kept[options.hash()] = made
		kepts[graph] = kept
	return made


func _make_parts(graph: String, options: Dictionary, cells: bool) -> Array:
	var head: PackedByteArray = _generic.encode(METHOD)
	head.append(0x91)  # the params array of one map
	head.append(0x83 + int(cells) + int(not options.is_empty()))  # a fixmap of 3 to 5
	head.append_array(_generic.encode("graph"))
	head.append_array(_generic.encode(graph))
	head.append_array(_generic.encode("start"))
	var tail: PackedByteArray = PackedByteArray()
	if cells:
		tail.append_array(_generic.encode("cells"))
		tail.append(0xc3)  # true
	if not options.is_empty():
		tail.append_array(_generic.encode("options"))
		var encoded: PackedByteArray = _generic.encode(options)
		if not _generic.error.is_empty():
			error = _generic.error
			return []
		tail.append_array(encoded)
	return [options.duplicate(true), head, tail]
