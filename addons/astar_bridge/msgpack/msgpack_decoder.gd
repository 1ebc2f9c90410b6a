## A streaming msgpack decoder: feed bytes as they arrive, take whole messages out.
##
## Modelled on msgpack-python's [code]Unpacker.feed()[/code]: an incomplete tail waits for the
## next [method feed]; several messages in one read all come out. Decodes every msgpack type
## except ext: [code]nil[/code], bool, all int widths, float32 / float64 (both as [float]),
## str (as [String]), bin (as [PackedByteArray]), array ([Array]), map ([Dictionary]).
## [br][br]
## Malformed input (the reserved byte [code]0xc1[/code], any ext type, a declared length over
## [member max_length], nesting deeper than [member max_depth], a uint64 above 2^63-1, which
## no GDScript [int] can hold) puts the decoder in an error state: [method has_error] is true,
## [member error] says why, and nothing more is decoded until [method reset].
## [codeblock]
## const MsgpackDecoder = preload("res://addons/astar_bridge/msgpack/msgpack_decoder.gd")
## var decoder := MsgpackDecoder.new()
## decoder.feed(PackedByteArray([0x93, 0x01]))  # first bytes of [1, 2, 3]
## assert(decoder.take_messages().is_empty())  # incomplete: waits
## decoder.feed(PackedByteArray([0x02, 0x03, 0xc0]))
## assert(decoder.take_messages() == [[1, 2, 3], null])
## [/codeblock]
extends RefCounted

## Default of [member max_length]: 64 MiB, the sidecar's own message limit.
const DEFAULT_MAX_LENGTH := 64 * 1024 * 1024
## Default of [member max_depth].
const DEFAULT_MAX_DEPTH := 64

# Strings up to this many bytes are cached (see _read_short_str), at most MAX_CACHED_STRS a length.
const CACHED_STR_BYTES := 8
const MAX_CACHED_STRS := 256

# Returned while the buffer ends inside a value; callers look at _incomplete, not at it.
const _INCOMPLETE: Variant = null

## Largest declared str/bin length and array/map count accepted.
var max_length: int = DEFAULT_MAX_LENGTH
## Deepest nesting of arrays/maps accepted (a top-level array is depth 1).
var max_depth: int = DEFAULT_MAX_DEPTH
## Why decoding stopped, or "" while the stream is healthy.
var error: String = ""

var _buffer: PackedByteArray = PackedByteArray()
var _pos: int = 0
# Buffer size needed before another parse attempt can get further (skips hopeless re-parses).
var _need: int = 0
var _incomplete: bool = false
# By length (0..8): the bytes of a short string read as an int -> the String.
var _str_cache: Array[Dictionary] = []


func _init(
	max_length_bytes: int = DEFAULT_MAX_LENGTH, max_nesting: int = DEFAULT_MAX_DEPTH
) -> void:
	max_length = max_length_bytes
	max_depth = max_nesting
	for size: int in CACHED_STR_BYTES + 1:
		_str_cache.append({})


## Decodes one complete value from [param bytes] (no stream state); returns
## [code]{"value": Variant}[/code] or [code]{"error": String}[/code] (also for trailing or
## missing bytes).
static func unpack(bytes: PackedByteArray) -> Dictionary:
	var decoder: RefCounted = new()
	decoder.call("feed", bytes)
	var messages: Array = decoder.call("take_messages")
	var why: String = decoder.get("error")
	if not why.is_empty():
		return {"error": why}
	var tail: int = decoder.call("get_buffered_size")
	if messages.size() != 1 or tail != 0:
		return {"error": "expected exactly one value, got %d (+ tail)" % messages.size()}
	return {"value": messages[0]}


## Appends [param bytes] received from the stream (ignored once in the error state).
func feed(bytes: PackedByteArray) -> void:
	if not error.is_empty() or bytes.is_empty():
		return
	if _pos >= _buffer.size():
		_buffer = bytes  # nothing left over: take the bytes as they are (no copy)
		_pos = 0
		_need = 0
	else:
		_buffer.append_array(bytes)


## Returns every message completed so far, in order (possibly none); the incomplete tail stays.
func take_messages() -> Array:
	var messages: Array = []
	while error.is_empty() and _pos < _buffer.size() and _buffer.size() >= _need:
		var start: int = _pos
		_incomplete = false
		var value: Variant = _read(0)
		if not error.is_empty():
			break
		if _incomplete:
			_pos = start
			break
		messages.append(value)
		_need = 0
	_compact()
	return messages


## True once the stream was malformed; see [member error].
func has_error() -> bool:
	return not error.is_empty()


## Bytes received but not yet decoded (the incomplete tail).
func get_buffered_size() -> int:
	return _buffer.size() - _pos


## Forgets buffered bytes and any error.
func reset() -> void:
	_buffer = PackedByteArray()
	_pos = 0
	_need = 0
	error = ""


func _compact() -> void:
	if _pos == 0:
		return
	if _pos >= _buffer.size():
		_buffer = PackedByteArray()
	else:
		_buffer = _buffer.slice(_pos)
	_need = maxi(0, _need - _pos)
	_pos = 0


# Returns false (and records how much is missing) unless [param count] more bytes are buffered.
func _has(count: int) -> bool:
	if _pos + count <= _buffer.size():
		return true
	_incomplete = true
	_need = _pos + count
	return false


func _fail(why: String) -> Variant:
	if error.is_empty():
		error = "%s (at byte %d)" % [why, _pos]
	return null


func _read(depth: int) -> Variant:
	if _pos >= _buffer.size():
		_incomplete = true
		_need = _pos + 1
		return _INCOMPLETE
	var code: int = _buffer[_pos]
	_pos += 1
	# The most frequent codes first: fixstr (map keys), small ints, bin, floats, containers.
	var value: Variant = code
	if code >= 0xa0 and code <= 0xbf:
		value = _read_str(code & 0x1f)
	elif code <= 0x7f:
		pass
	elif code >= 0xe0:
		value = code - 0x100
	elif code == 0xc4 or code == 0xc5:
		var size: int = _read_length(1 if code == 0xc4 else 2)
		value = _INCOMPLETE if size < 0 else _read_bin(size)
	elif code == 0xcb or code == 0xca:
		value = _read_float(8 if code == 0xcb else 4)
	elif code <= 0x8f:
		value = _read_map(code & 0x0f, depth)
	elif code <= 0x9f:
		value = _read_array(code & 0x0f, depth)
	else:
		value = _read_typed(code, depth)
	return value


# Every code from 0xc0 to 0xdf: one byte says the type, a big-endian header may follow.
func _read_typed(code: int, depth: int) -> Variant:
	var value: Variant = _INCOMPLETE
	match code:
		0xc0, 0xc2, 0xc3:
			if code != 0xc0:
				value = code == 0xc3
		0xc4, 0xc5, 0xc6:
			var size: int = _read_length(1 << (code - 0xc4))
			value = _INCOMPLETE if size < 0 else _read_bin(size)
		0xca, 0xcb:
			value = _read_float(4 if code == 0xca else 8)
		0xcc, 0xcd, 0xce, 0xcf:
			value = _read_uint(1 << (code - 0xcc))
		0xd0, 0xd1, 0xd2, 0xd3:
			value = _read_sint(1 << (code - 0xd0))
		0xd9, 0xda, 0xdb:
			var size: int = _read_length(1 << (code - 0xd9))
			value = _INCOMPLETE if size < 0 else _read_str(size)
		0xdc, 0xdd:
			var count: int = _read_length(2 << (code - 0xdc))
			value = _INCOMPLETE if count < 0 else _read_array(count, depth)
		0xde, 0xdf:
			var count: int = _read_length(2 << (code - 0xde))
			value = _INCOMPLETE if count < 0 else _read_map(count, depth)
		0xc1:
			_pos -= 1
			_fail("reserved byte 0xc1")
		_:
			# 0xc7..0xc9 ext8/16/32, 0xd4..0xd8 fixext1..16
			_pos -= 1
			_fail("unsupported ext type (code 0x%02x)" % code)
	return value


# Reads a big-endian unsigned length of [param width] bytes; -1 when incomplete or too long.
func _read_length(width: int) -> int:
	if not _has(width):
		return -1
	var value: int = _big_endian(width)
	if value > max_length:
		_fail("declared length %d exceeds the maximum %d" % [value, max_length])
		return -1
	return value


func _big_endian(width: int) -> int:
	var value: int = 0
	for i: int in width:
		value = (value << 8) | _buffer[_pos + i]
	_pos += width
	return value


func _read_uint(width: int) -> Variant:
	if not _has(width):
		return _INCOMPLETE
	if width == 8 and _buffer[_pos] >= 0x80:
		return _fail("uint64 above 2^63-1 does not fit a GDScript int")
	return _big_endian(width)


func _read_sint(width: int) -> Variant:
	if not _has(width):
		return _INCOMPLETE
	var value: int = _big_endian(width)
	if width < 8:
		var sign_bit: int = 1 << (width * 8 - 1)
		if value & sign_bit:
			value -= sign_bit << 1
	return value


func _read_float(width: int) -> Variant:
	if not _has(width):
		return _INCOMPLETE
	# msgpack is big-endian, decode_float/decode_double little-endian: reverse a copy.
	var swapped: PackedByteArray = _buffer.slice(_pos, _pos + width)
	swapped.reverse()
	_pos += width
	return swapped.decode_float(0) if width == 4 else swapped.decode_double(0)


func _read_str(size: int) -> Variant:
	if size > max_length:
		return _fail("declared length %d exceeds the maximum %d" % [size, max_length])
	if not _has(size):
		return _INCOMPLETE
	if size <= CACHED_STR_BYTES and _pos + 8 <= _buffer.size():
		return _read_short_str(size)
	var text: String = _buffer.slice(_pos, _pos + size).get_string_from_utf8()
	_pos += size
	return text


# Strings of up to 8 bytes (map keys, statuses, codes) come from a cache keyed by their bytes
# read as one int, so the common ones are never sliced and decoded again.
func _read_short_str(size: int) -> String:
	var key: int = _buffer.decode_s64(_pos)
	if size < 8:
		key &= (1 << (size * 8)) - 1
	var cache: Dictionary = _str_cache[size]
	var cached: Variant = cache.get(key)
	if cached != null:
		_pos += size
		var known: String = cached
		return known
	var text: String = _buffer.slice(_pos, _pos + size).get_string_from_utf8()
	_pos += size
	if cache.size() >= MAX_CACHED_STRS:
		cache.clear()
	cache[key] = text
	return text


func _read_bin(size: int) -> Variant:
	if not _has(size):
		return _INCOMPLETE
	var bytes: PackedByteArray = _buffer.slice(_pos, _pos + size)
	_pos += size
	return bytes


func _read_array(count: int, depth: int) -> Variant:
	if depth + 1 > max_depth:
		return _fail("nesting deeper than %d" % max_depth)
	var items: Array = []
	for i: int in count:
		var item: Variant = _read(depth + 1)
		if _incomplete or not error.is_empty():
			return _INCOMPLETE
		items.append(item)
	return items


func _read_map(count: int, depth: int) -> Variant:
	if depth + 1 > max_depth:
		return _fail("nesting deeper than %d" % max_depth)
	var map: Dictionary = {}
	for i: int in count:
		var key: Variant = null
		var code: int = _buffer[_pos] if _pos < _buffer.size() else 0
		if code >= 0xa0 and code <= 0xa0 + CACHED_STR_BYTES and _pos + 9 <= _buffer.size():
			_pos += 1  # a short fixstr key, the usual case: straight from the cache
			key = _read_short_str(code & 0x1f)
		else:
			key = _read(depth + 1)
			if _incomplete or not error.is_empty():
				return _INCOMPLETE
		var value: Variant = _read(depth + 1)
		if _incomplete or not error.is_empty():
			return _INCOMPLETE
		map[key] = value
	return map
