## Encodes Godot values as msgpack bytes, always in the smallest form (as msgpack-python does).
##
## Types: [code]null[/code], [bool], [int] (fixint, uint8..64, int8..64: 128 is
## [code]0xcc 0x80[/code], never int8), [float] (always float64, so doubles stay doubles),
## [String] / [StringName] (str), [PackedByteArray] (bin), [Array] and the other packed arrays
## (array), [Dictionary] (map), [Vector2] / [Vector3] / [Vector2i] / [Vector3i] (an array of 2
## or 3 numbers). Anything else (objects, colors...) is an error.
## [codeblock]
## const MsgpackEncoder = preload("res://addons/astar_bridge/msgpack/msgpack_encoder.gd")
## var bytes: PackedByteArray = MsgpackEncoder.pack([0, 1, "hello", [{}]])
## var encoder := MsgpackEncoder.new()
## bytes = encoder.encode({"bad": Node})  # empty, and encoder.error says why
## [/codeblock]
extends RefCounted

## Deepest nesting of arrays/maps encoded; deeper (or cyclic) values are an error.
const MAX_DEPTH := 100
## Strings up to this many bytes have their encoding cached (keys, method names, graph ids).
const MAX_CACHED_STR := 31
## Most cached strings; the cache starts over when full.
const MAX_CACHED_STRS := 256

## Why the last [method encode] failed, or "" when it succeeded.
var error: String = ""

var _out: StreamPeerBuffer = StreamPeerBuffer.new()
# Short strings (method names, map keys, graph ids) -> their whole encoding, header included.
var _str_cache: Dictionary = {}


func _init() -> void:
	_out.big_endian = true


## Encodes [param value] with a new encoder; on failure pushes an error and returns empty bytes.
static func pack(value: Variant) -> PackedByteArray:
	var encoder: RefCounted = new()
	var bytes: PackedByteArray = encoder.call("encode", value)
	var why: String = encoder.get("error")
	if not why.is_empty():
		push_error("msgpack: %s" % why)
	return bytes


## Encodes [param value]; returns its bytes, or empty bytes with [member error] set.
func encode(value: Variant) -> PackedByteArray:
	error = ""
	_out.clear()
	_write(value, 0)
	if not error.is_empty():
		_out.clear()
		return PackedByteArray()
	return _out.data_array


## Encodes the msgpack-RPC request [code][0, msgid, method, [params]][/code] without building
## the message array; the same bytes as [code]encode([0, msgid, method, [params]])[/code].
func encode_request(msgid: int, method: String, params: Dictionary) -> PackedByteArray:
	error = ""
	_out.clear()
	_out.put_u8(0x94)
	_out.put_u8(0)
	_write_int(msgid)
	_write_string(method)
	_out.put_u8(0x91)
	_write_map(params, 1)
	if not error.is_empty():
		_out.clear()
		return PackedByteArray()
	return _out.data_array


func _write(value: Variant, depth: int) -> void:
	if not error.is_empty():
		return
	# The common types first, by plain comparisons (cheaper than a match on every value).
	var type: int = typeof(value)
	if type == TYPE_STRING or type == TYPE_STRING_NAME:
		_write_string(str(value))
	elif type == TYPE_FLOAT:
		var real: float = value
		_out.put_u8(0xcb)
		_out.put_double(real)
	elif type == TYPE_INT:
		var whole: int = value
		if whole >= 0 and whole < 0x80:
			_out.put_u8(whole)
		else:
			_write_int(whole)
	elif type == TYPE_DICTIONARY:
		var map: Dictionary = value
		_write_map(map, depth)
	elif type == TYPE_ARRAY:
		var array: Array = value
		_write_items(array, depth)
	elif type == TYPE_NIL:
		_out.put_u8(0xc0)
	elif type == TYPE_BOOL:
		_out.put_u8(0xc3 if value else 0xc2)
	elif type == TYPE_PACKED_BYTE_ARRAY:
		var bytes: PackedByteArray = value
		_write_bin(bytes)
	elif type in [TYPE_VECTOR2, TYPE_VECTOR3, TYPE_VECTOR2I, TYPE_VECTOR3I]:
		_write_vector(value)
	elif _is_packed_array(type):
		_write_array(value, depth)
	else:
		error = "cannot encode a value of type %s" % type_string(type)


func _write_int(value: int) -> void:
	if value >= 0:
		if value < 0x80:
			_out.put_u8(value)
		elif value <= 0xff:
			_out.put_u8(0xcc)
			_out.put_u8(value)
		elif value <= 0xffff:
			_out.put_u8(0xcd)
			_out.put_u16(value)
		elif value <= 0xffffffff:
			_out.put_u8(0xce)
			_out.put_u32(value)
		else:
			_out.put_u8(0xcf)
			_out.put_u64(value)
	elif value >= -32:
		_out.put_8(value)
	elif value >= -0x80:
		_out.put_u8(0xd0)
		_out.put_8(value)
	elif value >= -0x8000:
		_out.put_u8(0xd1)
		_out.put_16(value)
	elif value >= -0x80000000:
		_out.put_u8(0xd2)
		_out.put_32(value)
	else:
		_out.put_u8(0xd3)
		_out.put_64(value)


func _write_string(text: String) -> void:
	var cached: Variant = _str_cache.get(text)
	if cached != null:
		var known: PackedByteArray = cached
		_out.put_data(known)
		return
	var utf8: PackedByteArray = text.to_utf8_buffer()
	if utf8.size() > MAX_CACHED_STR:
		_write_str(utf8)
		return
	var encoded: PackedByteArray = PackedByteArray([0xa0 | utf8.size()])  # a fixstr
	encoded.append_array(utf8)
	if _str_cache.size() >= MAX_CACHED_STRS:
		_str_cache.clear()
	_str_cache[text] = encoded
	_out.put_data(encoded)


func _write_str(utf8: PackedByteArray) -> void:
	var size: int = utf8.size()
	if size < 32:
		_out.put_u8(0xa0 | size)
	elif size <= 0xff:
		_out.put_u8(0xd9)
		_out.put_u8(size)
	elif size <= 0xffff:
		_out.put_u8(0xda)
		_out.put_u16(size)
	else:
		_out.put_u8(0xdb)
		_out.put_u32(size)
	_out.put_data(utf8)


func _write_bin(bytes: PackedByteArray) -> void:
	var size: int = bytes.size()
	if size <= 0xff:
		_out.put_u8(0xc4)
		_out.put_u8(size)
	elif size <= 0xffff:
		_out.put_u8(0xc5)
		_out.put_u16(size)
	else:
		_out.put_u8(0xc6)
		_out.put_u32(size)
	_out.put_data(bytes)


func _write_array(items: Variant, depth: int) -> void:
	if depth >= MAX_DEPTH:
		error = "nesting deeper than %d (a cycle?)" % MAX_DEPTH
		return
	var array: Array = []
	for item: Variant in items:  # a packed array: its elements as plain values
		array.append(item)
	_write_items(array, depth)


func _write_items(array: Array, depth: int) -> void:
	if depth >= MAX_DEPTH:
		error = "nesting deeper than %d (a cycle?)" % MAX_DEPTH
		return
	_write_container_header(array.size(), 0x90, 0xdc, 0xdd)
	for item: Variant in array:
		_write(item, depth + 1)


func _write_map(map: Dictionary, depth: int) -> void:
	if depth >= MAX_DEPTH:
		error = "nesting deeper than %d (a cycle?)" % MAX_DEPTH
		return
	_write_container_header(map.size(), 0x80, 0xde, 0xdf)
	for key: Variant in map:
		_write(key, depth + 1)
		_write(map[key], depth + 1)


func _write_vector(vector: Variant) -> void:
	var coords: Array = []
	match typeof(vector):
		TYPE_VECTOR2:
			var v2: Vector2 = vector
			coords = [float(v2.x), float(v2.y)]
		TYPE_VECTOR3:
			var v3: Vector3 = vector
			coords = [float(v3.x), float(v3.y), float(v3.z)]
		TYPE_VECTOR2I:
			var v2i: Vector2i = vector
			coords = [v2i.x, v2i.y]
		_:
			var v3i: Vector3i = vector
			coords = [v3i.x, v3i.y, v3i.z]
	_write_array(coords, 0)


func _write_container_header(size: int, fix: int, code16: int, code32: int) -> void:
	if size < 16:
		_out.put_u8(fix | size)
	elif size <= 0xffff:
		_out.put_u8(code16)
		_out.put_u16(size)
	else:
		_out.put_u8(code32)
		_out.put_u32(size)


static func _is_packed_array(type: int) -> bool:
	return (
		type
		in [
			TYPE_PACKED_INT32_ARRAY,
			TYPE_PACKED_INT64_ARRAY,
			TYPE_PACKED_FLOAT32_ARRAY,
			TYPE_PACKED_FLOAT64_ARRAY,
			TYPE_PACKED_STRING_ARRAY,
			TYPE_PACKED_VECTOR2_ARRAY,
			TYPE_PACKED_VECTOR3_ARRAY,
		]
	)
