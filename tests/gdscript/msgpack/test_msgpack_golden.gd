## The GDScript codec against the golden byte vectors the Python side checks too
## (tests/data/msgpack_golden.json; schema in tests/data/msgpack_golden.md): every entry encodes
## to exactly its bytes and decodes back to its value. float32 entries are checked by decoding
## (GDScript floats encode as float64); ints above 2^63-1 must be rejected by the decoder.
extends "res://runner/gd_test.gd"

const MsgpackEncoder = preload("res://addons/astar_bridge/msgpack/msgpack_encoder.gd")
const MsgpackDecoder = preload("res://addons/astar_bridge/msgpack/msgpack_decoder.gd")
const INT64_MAX_TEXT := "9223372036854775807"

var _entries: Array = []


func before_each() -> void:
	var path: String = (
		ProjectSettings
		. globalize_path("res://")
		. path_join("../data/msgpack_golden.json")
		. simplify_path()
	)
	var text: String = FileAccess.get_file_as_string(path)
	var parsed: Variant = JSON.parse_string(text)
	_entries = parsed if parsed is Array else []


func test_golden_file_is_there() -> void:
	assert_true(_entries.size() > 50, "msgpack_golden.json loaded with its entries")


func test_every_entry_encodes_to_its_bytes() -> void:
	var checked: int = 0
	for item: Variant in _entries:
		var entry: Dictionary = item
		var description: Dictionary = entry["value"]
		if _is_float32(description) or _beyond_int64(description):
			continue
		var encoder: MsgpackEncoder = MsgpackEncoder.new()
		var bytes: PackedByteArray = encoder.encode(_build(description))
		assert_eq(encoder.error, "", str(entry["name"]))
		assert_true(bytes.hex_encode() == _hex(entry), "%s encodes as golden" % entry["name"])
		checked += 1
	assert_true(checked > 50, "%d entries encoded" % checked)


func test_every_entry_decodes_to_its_value() -> void:
	var checked: int = 0
	for item: Variant in _entries:
		var entry: Dictionary = item
		var description: Dictionary = entry["value"]
		var decoded: Dictionary = MsgpackDecoder.unpack(_hex(entry).hex_decode())
		if _beyond_int64(description):
			assert_true(decoded.has("error"), "%s is rejected" % entry["name"])
			continue
		assert_false(decoded.has("error"), "%s: %s" % [entry["name"], decoded.get("error", "")])
		assert_true(
			_same(decoded.get("value"), _build(description)), "%s decodes as golden" % entry["name"]
		)
		checked += 1
	assert_true(checked > 50, "%d entries decoded" % checked)


func test_golden_stream_of_all_entries_fed_in_odd_chunks() -> void:
	var stream: PackedByteArray = PackedByteArray()
	var expected: Array = []
	for item: Variant in _entries:
		var entry: Dictionary = item
		var description: Dictionary = entry["value"]
		if _beyond_int64(description):
			continue
		stream.append_array(_hex(entry).hex_decode())
		expected.append(_build(description))
	var decoder: MsgpackDecoder = MsgpackDecoder.new()
	var got: Array = []
	var position: int = 0
	var chunk: int = 1
	while position < stream.size():
		decoder.feed(stream.slice(position, position + chunk))
		got.append_array(decoder.take_messages())
		position += chunk
		chunk = chunk * 3 % 1031 + 1
	assert_eq(got.size(), expected.size())
	for i: int in mini(got.size(), expected.size()):
		assert_true(_same(got[i], expected[i]), "message %d of the stream" % i)


func _hex(entry: Dictionary) -> String:
	if entry.has("hex"):
		return entry["hex"]
	var repeat: String = entry["hex_repeat"]
	var count: int = _count(entry["repeat_count"])
	return str(entry["hex_prefix"]) + repeat.repeat(count)


func _is_float32(description: Dictionary) -> bool:
	return description["type"] == "float32"


func _beyond_int64(description: Dictionary) -> bool:
	if description["type"] != "int":
		return false
	var text: String = description["value"]
	return (
		not text.begins_with("-")
		and (
			text.length() > INT64_MAX_TEXT.length()
			or (text.length() == INT64_MAX_TEXT.length() and text > INT64_MAX_TEXT)
		)
	)


func _build(description: Dictionary) -> Variant:
	var built: Variant = null
	match str(description["type"]):
		"bool":
			built = description["value"] == true
		"int":
			var text: String = description["value"]
			built = text.to_int()
		"float32", "float64":
			var real: float = description["value"]
			built = real
		"str":
			built = _build_str(description)
		"bin":
			built = _build_bin(description)
		"array":
			built = _build_array(description)
		"map":
			var map: Dictionary = {}
			for pair: Variant in description["entries"]:
				var kv: Array = pair
				var key: Dictionary = kv[0]
				var value: Dictionary = kv[1]
				map[_build(key)] = _build(value)
			built = map
	return built


func _build_str(description: Dictionary) -> String:
	if description.has("value"):
		return description["value"]
	var repeat: String = description["repeat"]
	return repeat.repeat(_count(description["count"]))


func _build_bin(description: Dictionary) -> PackedByteArray:
	if description.has("hex"):
		var hex: String = description["hex"]
		return hex.hex_decode()
	var repeat: String = description["repeat_hex"]
	return repeat.repeat(_count(description["count"])).hex_decode()


func _build_array(description: Dictionary) -> Array:
	var items: Array = []
	if description.has("items"):
		for item: Variant in description["items"]:
			var child: Dictionary = item
			items.append(_build(child))
	else:
		var repeat: Dictionary = description["repeat"]
		for i: int in _count(description["count"]):
			items.append(_build(repeat))
	return items


# JSON numbers are floats; counts are whole.
func _count(value: Variant) -> int:
	var real: float = value
	return int(real)


# Equality that also holds for float32 values widened to float (exact in the golden file).
func _same(actual: Variant, expected: Variant) -> bool:
	return typeof(actual) == typeof(expected) and actual == expected
