## The Godot side of one frame's requests as a timeline (bench/navmesh_frame.py --timeline):
## named moments in unix seconds (the clock the sidecar's trace reads, bench/navmesh_trace.py),
## each frame's start as the bench script sees it, and when the requests completed. Also times
## the decoding of a recorded answer as the connection's thread does it (64 KiB reads into the
## msgpack decoder, then the packed answer split into result maps).
extends RefCounted

const MsgpackDecoder = preload("res://addons/astar_bridge/msgpack/msgpack_decoder.gd")
const PathWire = preload("res://addons/astar_bridge/runtime/path_wire.gd")
const READ_CHUNK := 65536

var events: Array[Array] = []
var frames: PackedFloat64Array = PackedFloat64Array()
var _first_done: float = 0.0
var _last_done: float = 0.0
var _done: int = 0


## Records moment [param name] now.
func note(name: String) -> void:
	events.append([name, Time.get_unix_time_from_system()])


## Records a frame's start (the bench script resumed by process_frame).
func frame() -> void:
	frames.append(Time.get_unix_time_from_system())


## Watches [param requests]: the first and the last completion are recorded.
func watch(requests: Array) -> void:
	for request: Object in requests:
		request.connect("completed", _completed)


func _completed(_result: Dictionary) -> void:
	var now: float = Time.get_unix_time_from_system()
	if _done == 0:
		_first_done = now
	_last_done = now
	_done += 1


## The record as a map for the BENCH line.
func to_map() -> Dictionary:
	var out: Dictionary = {"events": events, "frames": frames, "completed": _done}
	out["first_done"] = _first_done
	out["last_done"] = _last_done
	return out


## Milliseconds to decode the answer recorded at [param path] ([param count] queries), best of
## [param repeats]: [code]{"decode_ms", "split_ms", "bytes"}[/code], or {} without the file.
static func decode_cost(path: String, count: int, repeats: int) -> Dictionary:
	if not FileAccess.file_exists(path):
		return {}
	var bytes: PackedByteArray = FileAccess.get_file_as_bytes(path)
	var best_decode: int = 1 << 62
	var best_split: int = 1 << 62
	for _r: int in repeats:
		var decoder := MsgpackDecoder.new()
		var started: int = Time.get_ticks_usec()
		var messages: Array = []
		for at: int in range(0, bytes.size(), READ_CHUNK):
			decoder.feed(bytes.slice(at, mini(at + READ_CHUNK, bytes.size())))
			messages.append_array(decoder.take_messages())
		var decoded: int = Time.get_ticks_usec()
		if messages.size() != 1:
			return {"error": "decoded %d messages" % messages.size()}
		var parts: Array = messages[0]
		var split: Dictionary = PathWire.packed_result(
			{"error": parts[2], "result": parts[3]}, count
		)
		var ended: int = Time.get_ticks_usec()
		if str(split.get("status")) != "done":
			return {"error": "split: %s" % str(split.get("error"))}
		best_decode = mini(best_decode, decoded - started)
		best_split = mini(best_split, ended - decoded)
	return {
		"decode_ms": best_decode / 1000.0, "split_ms": best_split / 1000.0, "bytes": bytes.size()
	}
