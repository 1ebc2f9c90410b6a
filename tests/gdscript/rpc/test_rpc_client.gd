## The RPC client against a scripted msgpack-RPC peer in this process (a TCPServer): responses
## matched by msgid in any order, notifications, timeouts, a dropped connection failing every
## pending request, and garbage from the server closing the stream.
extends "res://runner/gd_test.gd"

const RpcClient = preload("res://addons/astar_bridge/rpc/rpc_client.gd")
const MsgpackEncoder = preload("res://addons/astar_bridge/msgpack/msgpack_encoder.gd")
const MsgpackDecoder = preload("res://addons/astar_bridge/msgpack/msgpack_decoder.gd")

var _server: TCPServer = null
var _peer: StreamPeerTCP = null
var _client: RpcClient = null
var _inbox: MsgpackDecoder = MsgpackDecoder.new()


func before_each() -> void:
	_server = TCPServer.new()
	_server.listen(0, "127.0.0.1")
	_client = RpcClient.new()
	_client.connect_to("127.0.0.1", _server.get_local_port())
	var deadline: int = Time.get_ticks_msec() + 2000
	while (_peer == null or not _client.is_open()) and Time.get_ticks_msec() < deadline:
		_client.poll()
		if _peer == null and _server.is_connection_available():
			_peer = _server.take_connection()
		OS.delay_usec(200)


func after_each() -> void:
	_client.close()
	if _peer != null:
		_peer.disconnect_from_host()
	_server.stop()


func test_connects_to_the_scripted_server() -> void:
	assert_true(_client.is_open())
	assert_true(_peer != null)


func test_out_of_order_responses_reach_their_own_callbacks() -> void:
	var seen: Dictionary = {}
	var first: int = _client.request("a", {}, func(r: Dictionary) -> void: seen["a"] = r, 2000)
	var second: int = _client.request("b", {}, func(r: Dictionary) -> void: seen["b"] = r, 2000)
	var requests: Array = _receive(2)
	assert_eq(requests[0], [0, first, "a", [{}]])
	assert_eq(requests[1], [0, second, "b", [{}]])
	_send([1, second, null, "answer b"])
	_send([1, first, null, "answer a"])
	_pump(func() -> bool: return seen.size() == 2)
	var answer_a: Dictionary = seen.get("a", {})
	var answer_b: Dictionary = seen.get("b", {})
	assert_eq(answer_a.get("result"), "answer a")
	assert_eq(answer_b.get("result"), "answer b")
	assert_eq(_client.get_pending_count(), 0)


func test_error_responses_carry_the_error_map() -> void:
	var seen: Array = []
	var msgid: int = _client.request("x", {}, func(r: Dictionary) -> void: seen.append(r), 2000)
	_receive(1)
	var error: Dictionary = {"code": "unknown_graph", "message": "no graph g", "data": {}}
	_send([1, msgid, error, null])
	_pump(func() -> bool: return not seen.is_empty())
	assert_eq(seen[0]["error"], error)


func test_notifications_are_emitted() -> void:
	var got: Array = []
	_client.notification_received.connect(
		func(method: String, params: Array) -> void: got.append([method, params])
	)
	_send([2, "log", [{"level": "info"}]])
	_pump(func() -> bool: return not got.is_empty())
	assert_eq(got, [["log", [{"level": "info"}]]])


func test_split_and_coalesced_responses() -> void:
	var seen: Dictionary = {}
	var ids: Array[int] = []
	for i: int in 3:
		var key: int = i
		ids.append(_client.request("m", {}, func(r: Dictionary) -> void: seen[key] = r, 2000))
	_receive(3)
	var bytes: PackedByteArray = PackedByteArray()
	for i: int in 3:
		bytes.append_array(MsgpackEncoder.pack([1, ids[i], null, i * 1000]))
	_peer.put_data(bytes.slice(0, 3))
	_pump(func() -> bool: return false, 50)
	assert_eq(seen.size(), 0, "half a message is not a response")
	_peer.put_data(bytes.slice(3))
	_pump(func() -> bool: return seen.size() == 3)
	assert_eq(seen[2]["result"], 2000)


func test_call_sync_returns_its_own_response_and_keeps_others_dispatched() -> void:
	var late: Array = []
	var other: int = _client.request("late", {}, func(r: Dictionary) -> void: late.append(r), 2000)
	_receive(1)
	# Answers sent before the call: call_sync (which never returns to the loop) polls them in.
	_send([1, other, null, "late"])
	_send([1, other + 1, null, "sync"])
	var reply: Dictionary = _client.call_sync("now", {"k": 1}, 2000)
	assert_eq(reply["result"], "sync")
	assert_eq(late.size(), 1, "the async response was dispatched during the sync wait")


func test_call_sync_times_out_instead_of_hanging() -> void:
	_client.request("filler", {}, Callable(), 2000, true)  # buffered until the next write
	var started: int = Time.get_ticks_msec()
	var reply: Dictionary = _client.call_sync("now", {"k": 1}, 100)
	assert_eq(reply["error"]["code"], "timeout")
	assert_true(Time.get_ticks_msec() - started < 1000)
	var requests: Array = _receive(2)
	assert_eq(requests[0][2], "filler", "the buffered request went out before the sync one")
	assert_eq(requests[1][2], "now")


func test_async_requests_time_out() -> void:
	var seen: Array = []
	_client.request("slow", {}, func(r: Dictionary) -> void: seen.append(r), 30)
	_pump(func() -> bool: return not seen.is_empty(), 1000)
	assert_eq(seen.size(), 1)
	assert_eq(seen[0]["error"]["code"], "timeout")
	assert_eq(_client.get_pending_count(), 0)


func test_late_answer_after_a_timeout_is_dropped() -> void:
	var seen: Array = []
	var msgid: int = _client.request("slow", {}, func(r: Dictionary) -> void: seen.append(r), 20)
	_pump(func() -> bool: return not seen.is_empty(), 1000)
	_send([1, msgid, null, "too late"])
	_pump(func() -> bool: return false, 50)
	assert_eq(seen.size(), 1, "the callback ran once, with the timeout")


func test_dropped_connection_fails_every_pending_request_at_once() -> void:
	var seen: Array = []
	var reasons: Array = []
	_client.disconnected.connect(func(reason: String) -> void: reasons.append(reason))
	for i: int in 5:
		_client.request("p", {}, func(r: Dictionary) -> void: seen.append(r), 60000)
	_receive(5)
	_peer.disconnect_from_host()
	_pump(func() -> bool: return seen.size() == 5, 2000)
	assert_eq(seen.size(), 5)
	for response: Dictionary in seen:
		assert_eq(response["error"]["code"], "disconnected")
	assert_false(_client.is_open())
	assert_eq(reasons.size(), 1)


func test_garbage_from_the_server_closes_the_stream() -> void:
	var seen: Array = []
	_client.request("p", {}, func(r: Dictionary) -> void: seen.append(r), 60000)
	_peer.put_data(PackedByteArray([0xc1]))
	_pump(func() -> bool: return not seen.is_empty(), 2000)
	assert_eq(seen[0]["error"]["code"], "disconnected")
	assert_false(_client.is_open())


func test_requests_without_a_connection_fail_at_once() -> void:
	var closed: RpcClient = RpcClient.new()
	var seen: Array = []
	assert_eq(closed.request("p", {}, func(r: Dictionary) -> void: seen.append(r), 100), -1)
	assert_eq(seen[0]["error"]["code"], "not_connected")
	assert_eq(closed.call_sync("p", {}, 100)["error"]["code"], "not_connected")


func test_unencodable_params_fail_without_sending() -> void:
	var reply: Dictionary = _client.call_sync("p", {"bad": Color.RED}, 100)
	assert_eq(reply["error"]["code"], "encode_failed")
	assert_true(_client.is_open())


# Reads [param count] messages from the client (polling up to 2 s).
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


func _send(message: Array) -> void:
	_peer.put_data(MsgpackEncoder.pack(message))


# Polls the client until [param done] returns true or [param timeout_ms] passes.
func _pump(done: Callable, timeout_ms: int = 2000) -> void:
	var deadline: int = Time.get_ticks_msec() + timeout_ms
	while Time.get_ticks_msec() < deadline:
		_client.poll()
		if done.call():
			return
		OS.delay_usec(200)


func test_an_answer_a_sync_call_reads_leaves_nothing_in_the_threads_table() -> void:
	var client := RpcClient.new()
	client.threaded = true
	client.connect_to("127.0.0.1", _server.get_local_port())
	var peer: StreamPeerTCP = null
	var deadline: int = Time.get_ticks_msec() + 2000
	while (peer == null or client._reader == null) and Time.get_ticks_msec() < deadline:
		client.poll()
		if peer == null and _server.is_connection_available():
			peer = _server.take_connection()
		OS.delay_usec(200)
	var late: Array = []
	var same: Callable = func(response: Dictionary) -> Dictionary: return response
	var other: int = client.request(
		"late", {}, func(r: Dictionary) -> void: late.append(r), 2000, true, same
	)
	client.flush()  # buffered: the thread writes it once released
	var decoder := MsgpackDecoder.new()
	while decoder.take_messages().is_empty() and Time.get_ticks_msec() < deadline:
		peer.poll()  # the thread wrote it, so it knows the answer's transform
		if peer.get_available_bytes() > 0:
			var chunk: Array = peer.get_partial_data(peer.get_available_bytes())
			var bytes: PackedByteArray = chunk[1]
			decoder.feed(bytes)
		OS.delay_usec(200)
	# Hold the I/O mutex (recursive) so that the sync call, not the thread, reads both answers.
	client._io.lock()
	peer.put_data(MsgpackEncoder.pack([1, other, null, "late"]))
	peer.put_data(MsgpackEncoder.pack([1, other + 1, null, "sync"]))
	var reply: Dictionary = client.call_sync("now", {}, 2000)
	client._io.unlock()
	OS.delay_usec(20000)  # a few turns of the thread
	assert_eq(reply["result"], "sync")
	assert_eq(late.size(), 1, "the async answer was dispatched by the sync call")
	assert_eq(client._reader._transforms.size(), 0, "and its transform forgotten by the thread")
	client.close()
	peer.disconnect_from_host()
