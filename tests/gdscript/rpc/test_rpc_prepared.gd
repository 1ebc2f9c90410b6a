## The RPC client's lane for path.find requests given as prepared parts (send_prepared), with and
## without the connection's thread, against a scripted msgpack-RPC peer in this process: they
## leave in the order made among generic requests, as the bytes of the generic encoder; answers,
## timeouts and encode failures reach the prepared sink with their target, through the request's
## transform.
extends "res://runner/gd_test.gd"

const RpcClient = preload("res://addons/astar_bridge/rpc/rpc_client.gd")
const MsgpackEncoder = preload("res://addons/astar_bridge/msgpack/msgpack_encoder.gd")
const MsgpackDecoder = preload("res://addons/astar_bridge/msgpack/msgpack_decoder.gd")
const PathFindEncoder = preload("res://addons/astar_bridge/msgpack/path_find_encoder.gd")

var _server: TCPServer = null
var _peer: StreamPeerTCP = null
var _client: RpcClient = null
var _inbox: MsgpackDecoder = MsgpackDecoder.new()
var _bytes: PackedByteArray = PackedByteArray()
var _parts: PathFindEncoder = PathFindEncoder.new()
# The prepared sink's deliveries: target's "key" meta -> value.
var _seen: Dictionary = {}


func before_each() -> void:
	_server = TCPServer.new()
	_server.listen(0, "127.0.0.1")
	_peer = null
	_client = null
	_inbox = MsgpackDecoder.new()
	_bytes = PackedByteArray()
	_seen = {}


func after_each() -> void:
	if _client != null:
		_client.close()
	if _peer != null:
		_peer.disconnect_from_host()
	_server.stop()


func test_prepared_and_generic_requests_leave_in_order_as_the_generic_bytes() -> void:
	for threaded: bool in [true, false]:
		_connect(threaded)
		var seen: Dictionary = _seen
		var ids: Array[int] = []
		for i: int in 6:
			var on_done: Callable = func(r: Variant) -> void: seen[i] = r
			if i % 3 == 1:
				ids.append(_client.request("graph.info", {"id": "g%d" % i}, on_done, 2000, true))
			else:
				var options: Dictionary = {} if i < 3 else {"allow_partial": true}
				var parts: Array = _parts.parts_of("level", options)
				ids.append(
					_client.send_prepared(
						parts, Vector2(i, 1), Vector2(7, 7.5), _target(i), 2000, _tagged("path")
					)
				)
		_client.flush()
		var received: PackedByteArray = _receive_bytes(6)
		var expected: PackedByteArray = PackedByteArray()
		var generic: MsgpackEncoder = MsgpackEncoder.new()
		for i: int in 6:
			if i % 3 == 1:
				expected.append_array(
					generic.encode_request(ids[i], "graph.info", {"id": "g%d" % i})
				)
			else:
				var params: Dictionary = {
					"graph": "level", "start": [float(i), 1.0], "goal": [7.0, 7.5]
				}
				if i >= 3:
					params["options"] = {"allow_partial": true}
				expected.append_array(generic.encode_request(ids[i], "path.find", params))
		assert_eq(received.hex_encode(), expected.hex_encode(), "threaded %s" % threaded)
		for i: int in range(5, -1, -1):  # answered in reverse order
			_peer.put_data(MsgpackEncoder.pack([1, ids[i], null, "answer %d" % i]))
		_pump(func() -> bool: return seen.size() == 6)
		for i: int in 6:
			if i % 3 == 1:
				assert_eq(seen[i]["result"], "answer %d" % i, "a generic answer as it came")
			else:
				assert_eq(seen[i], ["path", "answer %d" % i], "a prepared answer, transformed")
		assert_eq(_client.get_pending_count(), 0)
		after_each()
		before_each()


func test_prepared_requests_time_out_through_their_transform() -> void:
	for threaded: bool in [true, false]:
		_connect(threaded)
		var parts: Array = _parts.parts_of("level", {})
		_client.send_prepared(parts, Vector2(), Vector2(1, 1), _target("slow"), 30, _tagged("path"))
		_client.flush()
		_pump(func() -> bool: return not _seen.is_empty(), 1000)
		assert_eq(_seen, {"slow": ["path", "timeout"]}, "threaded %s" % threaded)
		assert_eq(_client.get_pending_count(), 0)
		after_each()
		before_each()


func test_an_unencodable_endpoint_fails_with_encode_failed_and_the_stream_goes_on() -> void:
	for threaded: bool in [true, false]:
		_connect(threaded)
		var seen: Dictionary = _seen
		var parts: Array = _parts.parts_of("level", {})
		_client.send_prepared(parts, Color.RED, Vector2(), _target("bad"), 2000, _tagged("path"))
		var good: int = _client.send_prepared(
			parts, Vector2(), Vector2(2, 2), _target("good"), 2000, _tagged("path")
		)
		_client.flush()
		_pump(func() -> bool: return seen.has("bad"), 1000)
		assert_eq(seen.get("bad"), ["path", "encode_failed"], "threaded %s" % threaded)
		var received: Array = _receive(1)
		assert_eq(received[0][1], good, "the next request still went out")
		_peer.put_data(MsgpackEncoder.pack([1, good, null, "ok"]))
		_pump(func() -> bool: return seen.has("good"))
		assert_eq(seen.get("good"), ["path", "ok"])
		assert_true(_client.is_open())
		after_each()
		before_each()


# A target of a prepared request, known to the sink by [param key].
func _target(key: Variant) -> RefCounted:
	var target: RefCounted = RefCounted.new()
	target.set_meta("key", key)
	return target


# A transform that tags what it saw: the result, or the error code of a failure.
static func _tagged(tag: String) -> Callable:
	return func(response: Dictionary) -> Array:
		var error: Variant = response["error"]
		return [tag, response["result"] if error == null else error["code"]]


func _connect(threaded: bool) -> void:
	_client = RpcClient.new()
	_client.prepared_sink = func(target: Object, value: Variant) -> void:
		_seen[target.get_meta("key")] = value
	_client.threaded = threaded
	_client.connect_to("127.0.0.1", _server.get_local_port())
	var deadline: int = Time.get_ticks_msec() + 2000
	while (_peer == null or not _client.is_open()) and Time.get_ticks_msec() < deadline:
		_client.poll()
		if _peer == null and _server.is_connection_available():
			_peer = _server.take_connection()
		OS.delay_usec(200)
	assert_true(_client.is_open(), "connected")


# The raw bytes of [param count] messages from the client (polling up to 2 s).
func _receive_bytes(count: int) -> PackedByteArray:
	var got: int = 0
	var deadline: int = Time.get_ticks_msec() + 2000
	while got < count and Time.get_ticks_msec() < deadline:
		_client.poll()
		_peer.poll()
		var available: int = _peer.get_available_bytes()
		if available > 0:
			var chunk: Array = _peer.get_partial_data(available)
			var bytes: PackedByteArray = chunk[1]
			_bytes.append_array(bytes)
			_inbox.feed(bytes)
			got += _inbox.take_messages().size()
		else:
			OS.delay_usec(200)
	assert_eq(got, count, "messages the server received")
	return _bytes


# [param count] messages from the client, decoded (polling up to 2 s).
func _receive(count: int) -> Array:
	var got: Array = []
	var deadline: int = Time.get_ticks_msec() + 2000
	while got.size() < count and Time.get_ticks_msec() < deadline:
		_client.poll()
		_peer.poll()
		var available: int = _peer.get_available_bytes()
		if available > 0:
			var chunk: Array = _peer.get_partial_data(available)
			var bytes: PackedByteArray = chunk[1]
			_inbox.feed(bytes)
			got.append_array(_inbox.take_messages())
		else:
			OS.delay_usec(200)
	assert_eq(got.size(), count, "messages the server received")
	return got


# Polls the client until [param done] returns true or [param timeout_ms] passes.
func _pump(done: Callable, timeout_ms: int = 2000) -> void:
	var deadline: int = Time.get_ticks_msec() + timeout_ms
	while Time.get_ticks_msec() < deadline:
		_client.poll()
		if done.call():
			return
		OS.delay_usec(200)
