## The streaming msgpack decoder: every type and int width, messages split across reads (down to
## one byte at a time), several messages in one read, and malformed input at each limit, in the
## manner of msgpack-python's test_sequnpack.py and test_limits.py.
extends "res://runner/gd_test.gd"

const MsgpackEncoder = preload("res://addons/astar_bridge/msgpack/msgpack_encoder.gd")
const MsgpackDecoder = preload("res://addons/astar_bridge/msgpack/msgpack_decoder.gd")


func test_ints_of_every_width_and_boundary() -> void:
	var cases: Dictionary = {
		"00": 0,
		"7f": 127,
		"cc80": 128,
		"ccff": 255,
		"cd0100": 256,
		"cdffff": 65535,
		"ce00010000": 65536,
		"ceffffffff": 4294967295,
		"cf0000000100000000": 4294967296,
		"cf7fffffffffffffff": 9223372036854775807,
		"ff": -1,
		"e0": -32,
		"d0df": -33,
		"d080": -128,
		"d1ff7f": -129,
		"d18000": -32768,
		"d2ffff7fff": -32769,
		"d280000000": -2147483648,
		"d3ffffffff7fffffff": -2147483649,
		"d38000000000000000": -9223372036854775808,
	}
	for hex: String in cases:
		assert_eq(_one(hex), cases[hex], hex)


func test_non_minimal_int_encodings_decode_too() -> void:
	assert_eq(_one("d001"), 1, "int8 1")
	assert_eq(_one("d0ff"), -1, "int8 -1")
	assert_eq(_one("cd0001"), 1, "uint16 1")
	assert_eq(_one("d1ffff"), -1, "int16 -1")
	assert_eq(_one("d2ffffffff"), -1, "int32 -1")
	assert_eq(_one("d3ffffffffffffffff"), -1, "int64 -1")
	assert_eq(_one("cf0000000000000001"), 1, "uint64 1")


func test_uint64_above_int64_max_is_an_error() -> void:
	var decoder: MsgpackDecoder = MsgpackDecoder.new()
	decoder.feed(_bytes("cf8000000000000000"))
	assert_eq(decoder.take_messages(), [])
	assert_true(decoder.has_error())
	assert_true(decoder.error.contains("uint64"), decoder.error)


func test_float32_and_float64() -> void:
	assert_eq(_one("ca3fc00000"), 1.5)
	var widened: float = _one("ca3dcccccd")
	assert_almost(widened, 0.1, 1e-8, "float32 0.1 widened")
	assert_eq(_one("cb3fb999999999999a"), 0.1, "float64 keeps every bit")
	assert_eq(_one("cb7e37e43c8800759c"), 1e300)
	assert_eq(_one("cbc002000000000000"), -2.25)


func test_float64_split_after_four_bytes_waits_for_the_rest() -> void:
	var decoder: MsgpackDecoder = MsgpackDecoder.new()
	decoder.feed(_bytes("cb3fb99999"))
	assert_eq(decoder.take_messages(), [], "5 of 9 bytes: not a float32")
	decoder.feed(_bytes("9999999a"))
	assert_eq(decoder.take_messages(), [0.1])


func test_nil_bools_str_bin() -> void:
	assert_eq(_one("c0"), null)
	assert_eq(_one("c2"), false)
	assert_eq(_one("c3"), true)
	assert_eq(_one("a0"), "")
	assert_eq(_one("a2c3a9"), "é")
	assert_eq(_one("d903616263"), "abc", "str8")
	assert_eq(_one("da0003616263"), "abc", "str16")
	assert_eq(_one("db00000003616263"), "abc", "str32")
	assert_eq(_one("c403010203"), PackedByteArray([1, 2, 3]), "bin8")
	assert_eq(_one("c50003010203"), PackedByteArray([1, 2, 3]), "bin16")
	assert_eq(_one("c600000003010203"), PackedByteArray([1, 2, 3]), "bin32")


func test_arrays_and_maps_of_each_header() -> void:
	assert_eq(_one("90"), [])
	assert_eq(_one("80"), {})
	assert_eq(_one("dc0002c0c3"), [null, true], "array16")
	assert_eq(_one("dd00000002c0c3"), [null, true], "array32")
	assert_eq(_one("de0001a16101"), {"a": 1}, "map16")
	assert_eq(_one("df00000001a16101"), {"a": 1}, "map32")
	assert_eq(
		_one("82a1619401c0c3c2a2c3a9c40100"),
		{"a": [1, null, true, false], "é": PackedByteArray([0])}
	)


func test_long_strings_and_bins_round_trip() -> void:
	for size: int in [31, 32, 255, 256, 65535, 65536, 200000]:
		var text: String = "xy".repeat(size >> 1) + ("z" if size % 2 else "")
		assert_eq(_round_trip(text), text, "str of %d" % size)
		var bytes: PackedByteArray = text.to_utf8_buffer()
		assert_eq(_round_trip(bytes), bytes, "bin of %d" % size)


func test_round_trip_of_a_nested_rpc_response() -> void:
	var points: PackedByteArray = (
		PackedVector2Array([Vector2(1, 2), Vector2(3.5, -4)]).to_byte_array()
	)
	var message: Array = [1, 42, null, {"status": "found", "points": points, "cost": 2.5, "n": -7}]
	assert_eq(_round_trip(message), message)


func test_message_fed_one_byte_at_a_time() -> void:
	var message: Array = [0, 300, "path.find", [{"a": [1.5, -200, "é", PackedByteArray([9])]}]]
	var bytes: PackedByteArray = MsgpackEncoder.pack(message)
	var decoder: MsgpackDecoder = MsgpackDecoder.new()
	var got: Array = []
	for i: int in bytes.size():
		decoder.feed(bytes.slice(i, i + 1))
		var taken: Array = decoder.take_messages()
		if i < bytes.size() - 1:
			assert_eq(taken, [], "nothing before byte %d of %d" % [i + 1, bytes.size()])
		got.append_array(taken)
	assert_eq(got, [message])
	assert_eq(decoder.get_buffered_size(), 0)
	assert_false(decoder.has_error())


func test_several_messages_in_one_read_and_a_tail_kept() -> void:
	var first: PackedByteArray = MsgpackEncoder.pack([1, 1, null, "a"])
	var second: PackedByteArray = MsgpackEncoder.pack([2, "tick", [{}]])
	var third: PackedByteArray = MsgpackEncoder.pack([1, 2, null, "bb"])
	var stream: PackedByteArray = first + second + third.slice(0, 3)
	var decoder: MsgpackDecoder = MsgpackDecoder.new()
	decoder.feed(stream)
	assert_eq(decoder.take_messages(), [[1, 1, null, "a"], [2, "tick", [{}]]])
	assert_eq(decoder.get_buffered_size(), 3)
	decoder.feed(third.slice(3))
	assert_eq(decoder.take_messages(), [[1, 2, null, "bb"]])


func test_every_split_point_of_a_message_pair() -> void:
	var bytes: PackedByteArray = MsgpackEncoder.pack({"k": [1, 2.0]}) + MsgpackEncoder.pack("z")
	for cut: int in range(1, bytes.size()):
		var decoder: MsgpackDecoder = MsgpackDecoder.new()
		decoder.feed(bytes.slice(0, cut))
		var got: Array = decoder.take_messages()
		decoder.feed(bytes.slice(cut))
		got.append_array(decoder.take_messages())
		assert_eq(got, [{"k": [1, 2.0]}, "z"], "cut at %d" % cut)


func test_reserved_byte_c1_is_an_error_and_stays_one() -> void:
	var decoder: MsgpackDecoder = MsgpackDecoder.new()
	decoder.feed(_bytes("01c102"))
	assert_eq(decoder.take_messages(), [1], "the whole message before the bad byte comes out")
	assert_true(decoder.has_error())
	assert_true(decoder.error.contains("0xc1"), decoder.error)
	decoder.feed(PackedByteArray([3]))
	assert_eq(decoder.take_messages(), [], "nothing more after an error")
	decoder.reset()
	decoder.feed(PackedByteArray([3]))
	assert_eq(decoder.take_messages(), [3], "reset recovers")


func test_ext_types_are_rejected() -> void:
	for hex: String in [
		"d40100", "d5010000", "c70101ff", "c8000101ff", "c900000001 01ff", "d6ff00000000"
	]:
		var decoder: MsgpackDecoder = MsgpackDecoder.new()
		decoder.feed(_bytes(hex.replace(" ", "")))
		assert_eq(decoder.take_messages(), [], hex)
		assert_true(decoder.error.contains("ext"), "%s: %s" % [hex, decoder.error])


func test_lengths_at_and_past_the_limit() -> void:
	var at_limit: MsgpackDecoder = MsgpackDecoder.new(4)
	at_limit.feed(_bytes("c40401020304" + "a461626364" + "9401020304"))
	assert_eq(at_limit.take_messages().size(), 3, "exactly max_length is accepted")
	assert_false(at_limit.has_error())
	for hex: String in [
		"c405",
		"a5",
		"d905",
		"da0005",
		"db00000005",
		"c50005",
		"c600000005",
		"dc0005",
		"dd00000005",
		"de0005",
		"df00000005"
	]:
		var decoder: MsgpackDecoder = MsgpackDecoder.new(4)
		decoder.feed(_bytes(hex))
		assert_eq(decoder.take_messages(), [], hex)
		assert_true(decoder.error.contains("exceeds"), "%s: %s" % [hex, decoder.error])


func test_huge_declared_length_fails_before_waiting_for_bytes() -> void:
	var decoder: MsgpackDecoder = MsgpackDecoder.new()
	decoder.feed(_bytes("c6ffffffff"))
	assert_eq(decoder.take_messages(), [])
	assert_true(decoder.has_error(), "4 GiB bin past the 64 MiB default")


func test_nesting_at_and_past_the_depth_limit() -> void:
	var ok: MsgpackDecoder = MsgpackDecoder.new(1024, 3)
	ok.feed(_bytes("919191c0"))
	assert_eq(ok.take_messages(), [[[[null]]]])
	var deep: MsgpackDecoder = MsgpackDecoder.new(1024, 3)
	deep.feed(_bytes("91919191c0"))
	assert_eq(deep.take_messages(), [])
	assert_true(deep.error.contains("nesting"), deep.error)
	var maps: MsgpackDecoder = MsgpackDecoder.new(1024, 3)
	maps.feed(_bytes("81c081c081c081c0c0"))
	assert_eq(maps.take_messages(), [])
	assert_true(maps.has_error(), "maps count as nesting too")


func test_garbage_never_hangs_or_crashes() -> void:
	var rng: RandomNumberGenerator = RandomNumberGenerator.new()
	rng.seed = 1234
	for attempt: int in 200:
		var junk: PackedByteArray = PackedByteArray()
		junk.resize(rng.randi_range(1, 64))
		for i: int in junk.size():
			junk[i] = rng.randi_range(0, 255)
			if junk[i] >= 0xa0 and junk[i] <= 0xbf:
				junk[i] = 0xc0  # keep random str bytes out: invalid UTF-8 makes Godot print errors
		var decoder: MsgpackDecoder = MsgpackDecoder.new(1 << 16, 16)
		decoder.feed(junk)
		var messages: Array = decoder.take_messages()
		assert_true(messages.size() <= junk.size(), "at most one message per byte")


func test_unpack_helper_wants_exactly_one_value() -> void:
	assert_eq(MsgpackDecoder.unpack(PackedByteArray([0x01])), {"value": 1})
	assert_true(MsgpackDecoder.unpack(PackedByteArray([0x01, 0x02])).has("error"))
	assert_true(MsgpackDecoder.unpack(PackedByteArray([0x92, 0x01])).has("error"))


func _one(hex: String) -> Variant:
	var result: Dictionary = MsgpackDecoder.unpack(_bytes(hex))
	assert_false(result.has("error"), "%s: %s" % [hex, result.get("error", "")])
	return result.get("value")


func _round_trip(value: Variant) -> Variant:
	return _one(MsgpackEncoder.pack(value).hex_encode())


func _bytes(hex: String) -> PackedByteArray:
	return hex.hex_decode()
