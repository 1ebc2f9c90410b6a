## The msgpack encoder: smallest encodings at every int width boundary, floats, str/bin/array/map
## headers at their size boundaries, and values it must refuse. Expected bytes come from
## msgpack-python 1.x (packb with default options).
extends "res://runner/gd_test.gd"

const MsgpackEncoder = preload("res://addons/astar_bridge/msgpack/msgpack_encoder.gd")

# [value, expected hex] at each boundary of every int width.
const INT_VECTORS: Array = [
	[0, "00"],
	[127, "7f"],
	[128, "cc80"],
	[255, "ccff"],
	[256, "cd0100"],
	[65535, "cdffff"],
	[65536, "ce00010000"],
	[4294967295, "ceffffffff"],
	[4294967296, "cf0000000100000000"],
	[9223372036854775807, "cf7fffffffffffffff"],
	[-1, "ff"],
	[-32, "e0"],
	[-33, "d0df"],
	[-128, "d080"],
	[-129, "d1ff7f"],
	[-32768, "d18000"],
	[-32769, "d2ffff7fff"],
	[-2147483648, "d280000000"],
	[-2147483649, "d3ffffffff7fffffff"],
	[-9223372036854775808, "d38000000000000000"],
]


func test_ints_use_the_smallest_encoding_at_every_boundary() -> void:
	for vector: Array in INT_VECTORS:
		assert_eq(_hex(vector[0]), vector[1], "int %d" % vector[0])


func test_128_is_uint8_not_int8() -> void:
	assert_eq(_hex(128), "cc80")


func test_floats_are_float64() -> void:
	assert_eq(_hex(0.0), "cb0000000000000000")
	assert_eq(_hex(1.5), "cb3ff8000000000000")
	assert_eq(_hex(-2.25), "cbc002000000000000")
	assert_eq(_hex(1e300), "cb7e37e43c8800759c")
	assert_eq(_hex(0.1), "cb3fb999999999999a", "a double keeps all its bits")


func test_nil_and_bools() -> void:
	assert_eq(_hex(null), "c0")
	assert_eq(_hex(false), "c2")
	assert_eq(_hex(true), "c3")


func test_str_headers_at_each_size_boundary() -> void:
	var expected: Dictionary = {
		0: "a0",
		31: "bf61",
		32: "d92061",
		255: "d9ff61",
		256: "da010061",
		65535: "daffff61",
		65536: "db0001000061",
	}
	for size: int in expected:
		var bytes: PackedByteArray = MsgpackEncoder.pack("a".repeat(size))
		var head: String = expected[size]
		assert_eq(bytes.hex_encode().left(head.length()), head, "str of %d" % size)
		assert_eq(bytes.size(), size + (head.length() >> 1) - (1 if size > 0 else 0))


func test_str_is_utf8_and_string_name_is_str() -> void:
	assert_eq(_hex("é"), "a2c3a9")
	assert_eq(_hex(&"hello"), "a568656c6c6f")


func test_bin_headers_at_each_size_boundary() -> void:
	var expected: Dictionary = {
		0: "c400",
		255: "c4ff",
		256: "c50100",
		65535: "c5ffff",
		65536: "c600010000",
	}
	for size: int in expected:
		var payload: PackedByteArray = PackedByteArray()
		payload.resize(size)
		payload.fill(7)
		var bytes: PackedByteArray = MsgpackEncoder.pack(payload)
		var head: String = expected[size]
		assert_eq(bytes.hex_encode().left(head.length()), head, "bin of %d" % size)
		assert_eq(bytes.size(), size + (head.length() >> 1))
		assert_eq(bytes.slice(head.length() >> 1), payload)


func test_array_and_map_headers_at_each_size_boundary() -> void:
	var expected: Dictionary = {
		15: ["9f", "8f"],
		16: ["dc0010", "de0010"],
		65535: ["dcffff", "deffff"],
		65536: ["dd00010000", "df00010000"],
	}
	for size: int in expected:
		var array: Array = []
		array.resize(size)
		array.fill(1)
		var map: Dictionary = {}
		for i: int in size:
			map[i] = 0
		var heads: Array = expected[size]
		var array_head: String = heads[0]
		var map_head: String = heads[1]
		assert_eq(_hex(array).left(array_head.length()), array_head, "array of %d" % size)
		assert_eq(_hex(map).left(map_head.length()), map_head, "map of %d" % size)


func test_nested_message_matches_msgpack_python() -> void:
	var request: Array = [0, 7, "path.find", [{"graph": "g", "start": [1, 2]}]]
	assert_eq(_hex(request), "940007a9706174682e66696e649182a56772617068a167a57374617274920102")
	assert_eq(
		_hex({"a": [1, null, true, false], "é": PackedByteArray([0])}),
		"82a1619401c0c3c2a2c3a9c40100"
	)


func test_vectors_and_packed_arrays_become_arrays() -> void:
	assert_eq(_hex(Vector2(1, 2)), "92cb3ff0000000000000cb4000000000000000")
	assert_eq(_hex(Vector2i(1, 2)), "920102")
	assert_eq(_hex(Vector3i(1, 2, 3)), "93010203")
	assert_eq(_hex(PackedInt32Array([1, 128])), "9201cc80")
	assert_eq(_hex(PackedStringArray(["a"])), "91a161")


func test_unsupported_values_fail_with_a_reason() -> void:
	var encoder: MsgpackEncoder = MsgpackEncoder.new()
	assert_eq(encoder.encode([1, Color.RED]), PackedByteArray())
	assert_true(encoder.error.contains("Color"), encoder.error)
	assert_eq(encoder.encode(1), PackedByteArray([1]), "the encoder is reusable after an error")
	assert_eq(encoder.error, "")


func test_cycles_fail_instead_of_recursing_forever() -> void:
	var cyclic: Array = []
	cyclic.append(cyclic)
	var encoder: MsgpackEncoder = MsgpackEncoder.new()
	assert_eq(encoder.encode(cyclic), PackedByteArray())
	assert_true(encoder.error.contains("nesting"), encoder.error)
	cyclic.clear()  # break the reference cycle, or the array leaks


func _hex(value: Variant) -> String:
	var encoder: MsgpackEncoder = MsgpackEncoder.new()
	var bytes: PackedByteArray = encoder.encode(value)
	assert_eq(encoder.error, "")
	return bytes.hex_encode()
