## A msgpack-RPC client over [StreamPeerTCP]: message ids, pending requests, dispatch by type.
##
## The session layer of the addon (the transport is the socket, the stream the msgpack codec).
## Requests are matched to responses by msgid (the book of those waiting is
## rpc/pending_requests.gd), so responses may come back in any order. An
## asynchronous [method request] calls its callback from [method poll] with
## [code]{"error": null or {code, message, data}, "result": Variant}[/code]; [method call_sync]
## polls until its own response arrives. Local failures use the same error map with the codes
## [code]"timeout"[/code], [code]"disconnected"[/code], [code]"not_connected"[/code] and
## [code]"encode_failed"[/code]. When the connection drops every pending request fails at once.
## [codeblock]
## const RpcClient = preload("res://addons/astar_bridge/rpc/rpc_client.gd")
## var rpc := RpcClient.new()
## rpc.connect_to("127.0.0.1", 4711)
## rpc.wait_connected(5000)
## var reply: Dictionary = rpc.call_sync("hello", {"token": "t", "protocol": 1}, 2000)
## if reply["error"] != null:
##     push_error(reply["error"]["message"])
## [/codeblock]
extends RefCounted

## A notification [code][2, method, params][/code] arrived from the server.
signal notification_received(method: String, params: Array)
## The connection closed (by the peer, an error or [method close]); pending requests failed.
signal disconnected(reason: String)

enum State { CLOSED, CONNECTING, OPEN }

const MsgpackEncoder = preload("res://addons/astar_bridge/msgpack/msgpack_encoder.gd")
const MsgpackDecoder = preload("res://addons/astar_bridge/msgpack/msgpack_decoder.gd")
const SocketThread = preload("res://addons/astar_bridge/rpc/socket_thread.gd")
const PathFindEncoder = preload("res://addons/astar_bridge/msgpack/path_find_encoder.gd")
const PendingRequests = preload("res://addons/astar_bridge/rpc/pending_requests.gd")

const REQUEST := 0
const RESPONSE := 1
const NOTIFICATION := 2
const READ_CHUNK := 65536

## [method Time.get_ticks_msec] when the server last sent anything (or the connection opened).
var last_received_ms: int = 0
## Set before [method connect_to]: asynchronous requests are encoded, written, read, decoded
## and transformed on a thread of the connection's own (rpc/socket_thread.gd), so the main
## thread only dispatches finished results; [method call_sync] still reads the socket itself
## (the thread waits meanwhile).
var threaded: bool = false
## Called with the method name at the start of each [method call_sync], before its request is
## written: a caller that holds requests back (the autoload's frame batches) sends them first,
## so the stream keeps the order in which requests were made.
var before_sync: Callable = Callable()
## Gets [code](target, value)[/code] for each request of [method send_prepared]: one callable for
## all of them, so a request needs no callable of its own.
var prepared_sink: Callable:
	get:
		return _requests.prepared_sink
	set(value):
		_requests.prepared_sink = value

var _tcp: StreamPeerTCP = StreamPeerTCP.new()
var _state: State = State.CLOSED
var _encoder: MsgpackEncoder = MsgpackEncoder.new()
var _decoder: MsgpackDecoder = MsgpackDecoder.new()
var _path_encoder: PathFindEncoder = PathFindEncoder.new()
# Requests sent and not answered yet: msgids, deadlines, transforms, who gets each answer.
var _requests: PendingRequests = PendingRequests.new()
# The response map of the last request that could not be sent.
var _last_send_failure: Dictionary = {}
# Encoded requests not yet written (see request(..., buffered)); flush() writes them at once.
var _outbox: PackedByteArray = PackedByteArray()
# Every use of _tcp and _decoder is under _io (the connection's thread uses them too).
var _io: Mutex = Mutex.new()
var _reader: SocketThread = null
# call_sync calls running (a callback inside one may close the connection).
var _in_sync: int = 0
# Threads of closed connections, joined once they ended.
var _retired: Array[SocketThread] = []


func _notification(what: int) -> void:
	# No method of this script can run here: the threads are stopped and joined inline.
	if what == NOTIFICATION_PREDELETE:
		if _reader != null:
			_reader.stop()
			_reader.join()
		for reader: SocketThread in _retired:
			reader.join()


## Starts connecting to [param host]:[param port]; finish with [method poll] or
## [method wait_connected]. Returns the error of [method StreamPeerTCP.connect_to_host].
func connect_to(host: String, port: int) -> Error:
	close("reconnecting")
	_join_retired()
	_tcp = StreamPeerTCP.new()
	_decoder.reset()
	var err: Error = _tcp.connect_to_host(host, port)
	_state = State.CONNECTING if err == OK else State.CLOSED
	return err


## Polls until connected, for at most [param timeout_ms]; OK, ERR_TIMEOUT or
## ERR_CANT_CONNECT.
func wait_connected(timeout_ms: int) -> Error:
	var deadline: int = Time.get_ticks_msec() + timeout_ms
	while _state == State.CONNECTING and Time.get_ticks_msec() < deadline:
		poll()
		if _state == State.CONNECTING:
			OS.delay_usec(200)
	if _state == State.OPEN:
		return OK
	return ERR_TIMEOUT if _state == State.CONNECTING else ERR_CANT_CONNECT


## True once connected and until the connection closes.
func is_open() -> bool:
	return _state == State.OPEN


## Requests sent and not yet answered, failed or timed out.
func get_pending_count() -> int:
	return _requests.size()


## True while the request [param msgid] waits for its answer.
func is_pending(msgid: int) -> bool:
	return _requests.has(msgid)


## Sends a request; [param on_done] gets the response map from [method poll] (or at once, when
## the request cannot be sent), or [code]transform.call(response)[/code] when [param transform]
## is valid (on the connection's thread when [member threaded], for local failures too). With
## [param buffered] the bytes wait for [method flush] (or the next [method call_sync]), so many
## requests of one frame go out in one write. Returns the msgid, or -1 when it could not be sent.
func request(
	method: String,
	params: Dictionary,
	on_done: Callable,
	timeout_ms: int,
	buffered: bool = false,
	transform: Callable = Callable()
) -> int:
	var msgid: int = -1
	if threaded and _reader != null and _state == State.OPEN:
		msgid = _requests.register(on_done, timeout_ms, transform)
		_reader.send(msgid, method, params, transform)
		if not buffered:
			_reader.release()
		return msgid
	msgid = _send_request(method, params, on_done, timeout_ms, buffered)
	if msgid < 0 and on_done.is_valid():
		on_done.call(PendingRequests.transformed(transform, _last_send_failure))
	elif msgid >= 0 and transform.is_valid():
		_requests.set_transform(msgid, transform)
	return msgid


## Sends a [code]path.find[/code] given as the [param parts] of msgpack/path_find_encoder.gd
## ([method PathFindEncoder.parts_of]) and its wire endpoints: otherwise like [method request]
## with [param buffered] (written by [method flush]; encoded and written by the connection's
## thread when [member threaded], so the main thread does not encode it), except that its
## outcome goes to [code]prepared_sink.call(target, transform.call(response))[/code]. Returns
## the msgid, or -1 when it could not be sent (the sink then got the failure).
func send_prepared(
	parts: Array,
	start: Variant,
	goal: Variant,
	target: Object,
	timeout_ms: int,
	transform: Callable
) -> int:
	if _state != State.OPEN:
		var closed: Dictionary = error_response("not_connected", "path.find: not connected")
		prepared_sink.call(target, transform.call(closed))
		return -1
	var msgid: int = _requests.register(target, timeout_ms, transform)
	if threaded and _reader != null:
		_reader.send_prepared(msgid, parts, start, goal, transform)
		return msgid
	var bytes: PackedByteArray = _path_encoder.encode_parts(msgid, parts, start, goal)
	if not _path_encoder.error.is_empty():
		_requests.withdraw(msgid)
		var why: String = "path.find: %s" % _path_encoder.error
		prepared_sink.call(target, transform.call(error_response("encode_failed", why)))
		return -1
	_outbox.append_array(bytes)
	return msgid


## Sends a request and waits for its response, a disconnect or [param timeout_ms]; returns the
## response map. It never sleeps: it polls the socket in a tight loop until the answer is there
## (a sleep between polls costs more than the round trip itself on loopback). Answers of
## asynchronous requests that arrive meanwhile are dispatched as usual.
func call_sync(method: String, params: Dictionary, timeout_ms: int) -> Dictionary:
	if before_sync.is_valid():
		before_sync.call(method)
	_io.lock()  # the connection's thread waits meanwhile: this call reads the socket itself
	_in_sync += 1
	_poll_reader()
	_write_drained()
	var msgid: int = _send_request(method, params, Callable(), timeout_ms, false)
	if msgid < 0:
		_in_sync -= 1
		_io.unlock()
		return _last_send_failure
	var deadline: int = Time.get_ticks_usec() + timeout_ms * 1000
	var timed_out: bool = false
	while not _requests.is_done(msgid) and _state == State.OPEN:
		if _read_socket() == 0 and Time.get_ticks_usec() >= deadline:
			_requests.forget(msgid)
			timed_out = true
			break
	_in_sync -= 1
	_io.unlock()
	if _in_sync == 0:
		_join_retired()
	if timed_out:
		return error_response("timeout", "%s: no answer within %d ms" % [method, timeout_ms])
	if not _requests.is_done(msgid):
		return error_response("disconnected", "%s: the connection closed" % method)
	return _requests.take_done(msgid)


## Writes the buffered requests (see [method request]; with [member threaded], lets the
## connection's thread write them); OK, or the error (the connection closes).
func flush() -> Error:
	if _reader != null:
		_reader.release()  # the connection's thread writes what it was handed
	if _outbox.is_empty() or _state != State.OPEN:
		return OK
	var bytes: PackedByteArray = _outbox
	_outbox = PackedByteArray()
	_io.lock()
	var err: Error = _tcp.put_data(bytes)
	_io.unlock()
	if err != OK:
		close("send failed: %s" % error_string(err))
	return err


## Sends a notification [code][2, method, [params]][/code] (no answer). Returns OK or the error.
func notify(method: String, params: Dictionary) -> Error:
	if _state != State.OPEN:
		return ERR_CONNECTION_ERROR
	return _write([NOTIFICATION, method, [params]])


## Reads what the socket has (or takes what the connection's thread read), dispatches whole
## messages, fails requests past their deadline. Returns the number of messages handled. Never
## blocks.
func poll() -> int:
	if _state == State.CLOSED:
		return 0
	if _state == State.CONNECTING:
		_tcp.poll()
		var status: StreamPeerTCP.Status = _tcp.get_status()
		if status == StreamPeerTCP.STATUS_CONNECTED:
			_state = State.OPEN
			_tcp.set_no_delay(true)
			last_received_ms = Time.get_ticks_msec()
			if threaded:
				_reader = SocketThread.new()
				_reader.start(_tcp, _decoder, _io)
		elif status != StreamPeerTCP.STATUS_CONNECTING:
			close("cannot connect")
		return 0
	var handled: int = _poll_reader() if _reader != null else 0
	if _reader == null and _state == State.OPEN:
		_io.lock()
		handled += _read_socket()
		_io.unlock()
	_requests.expire()
	return handled


## Closes the connection and fails every pending request with [code]"disconnected"[/code].
func close(reason: String = "closed") -> void:
	var was_open: bool = _state != State.CLOSED
	_state = State.CLOSED
	_outbox = PackedByteArray()
	_retire_reader()
	_io.lock()
	_tcp.disconnect_from_host()
	_io.unlock()
	fail_pending("disconnected", reason)
	if was_open:
		disconnected.emit(reason)


## Fails every pending request with [param code] and [param message] (callbacks run now).
func fail_pending(code: String, message: String) -> void:
	_requests.fail_all(code, message)


## The response map of a local failure.
static func error_response(code: String, message: String) -> Dictionary:
	return PendingRequests.error_response(code, message)


func _send_request(
	method: String, params: Dictionary, on_done: Callable, timeout_ms: int, buffered: bool
) -> int:
	if _state != State.OPEN:
		_last_send_failure = error_response("not_connected", "%s: not connected" % method)
		return -1
	var msgid: int = _requests.next_id()
	var bytes: PackedByteArray = _encoder.encode_request(msgid, method, params)
	if not _encoder.error.is_empty():
		_last_send_failure = error_response("encode_failed", "%s: %s" % [method, _encoder.error])
		return -1
	_requests.register(on_done, timeout_ms, Callable(), msgid)
	if buffered:
		_outbox.append_array(bytes)
		return msgid
	_outbox.append_array(bytes)
	var err: Error = flush()
	if err != OK:
		# close() failed it already; this caller learns it from the return
		_requests.withdraw(msgid)
		_last_send_failure = error_response(
			"disconnected", "%s: send failed (%s)" % [method, error_string(err)]
		)
		return -1
	return msgid


# Under _io: reads what the socket has and dispatches it; the number of messages handled.
func _read_socket() -> int:
	_tcp.poll()
	if _tcp.get_status() != StreamPeerTCP.STATUS_CONNECTED:
		close("connection closed by the server")
		return 0
	var handled: int = 0
	var available: int = _tcp.get_available_bytes()
	while available > 0:
		var got: Array = _tcp.get_partial_data(mini(available, READ_CHUNK))
		var data: PackedByteArray = got[1]
		if got[0] != OK or data.is_empty():
			break
		last_received_ms = Time.get_ticks_msec()
		_decoder.feed(data)
		for message: Variant in _decoder.take_messages():
			_dispatch(message)
			handled += 1
		if _decoder.has_error():
			close("undecodable stream from the server: %s" % _decoder.error)
			return handled
		available = _tcp.get_available_bytes() if _state == State.OPEN else 0
	return handled


# Dispatches what the connection's thread decoded; closes when it saw the connection end.
func _poll_reader() -> int:
	if _reader == null:
		return 0
	last_received_ms = maxi(last_received_ms, _reader.last_received_ms)
	var items: Array = _reader.take()
	var count: int = items.size()
	for at: int in range(0, count, 2):
		var msgid: int = items[at]
		if msgid >= 0:
			_requests.deliver_transformed(msgid, items[at + 1])
		else:
			_dispatch(items[at + 1])
	var why: String = _reader.failure() if _reader != null else ""
	if not why.is_empty():
		close(why)
	return count >> 1


# Under _io: the requests handed to the connection's thread and not written yet go into the
# outbox first, so the stream keeps the order in which requests were made.
func _write_drained() -> void:
	if _reader == null:
		return
	for item: Array in _reader.drain():
		if item[0] is PackedInt64Array:  # prepared path.find requests (send_prepared)
			var failed: Dictionary = {}
			_outbox.append_array(SocketThread.encode_chunk(item, _path_encoder, failed))
			for msgid: int in failed:
				_fail_unsent(msgid, "path.find: %s" % failed[msgid])
			continue
		var msgid: int = item[0]
		var method: String = item[1]
		var params: Dictionary = item[2]
		var bytes: PackedByteArray = _encoder.encode_request(msgid, method, params)
		if _encoder.error.is_empty():
			_outbox.append_array(bytes)
		else:
			_fail_unsent(msgid, _encoder.error)


# A drained request that could not be encoded fails with "encode_failed".
func _fail_unsent(msgid: int, why: String) -> void:
	_reader.answered(msgid)  # the thread adopted its transform: it forgets it
	_requests.fail(msgid, "encode_failed", why)


# Stops the connection's thread; it is joined at once unless a call_sync (which holds the I/O
# mutex the thread may wait for) is running, else when that call returns.
func _retire_reader() -> void:
	if _reader != null:
		_reader.stop()
		_retired.append(_reader)
		_reader = null
	if _in_sync == 0:
		_join_retired()


func _join_retired() -> void:
	for reader: SocketThread in _retired:
		reader.join()  # stopped: it ends within one turn
	_retired.clear()


func _write(message: Array) -> Error:
	var bytes: PackedByteArray = _encoder.encode(message)
	if not _encoder.error.is_empty():
		return ERR_INVALID_DATA
	_outbox.append_array(bytes)  # after any buffered requests: the stream keeps its order
	return flush()


func _dispatch(message: Variant) -> void:
	var parts: Array = message if message is Array else []
	if parts.is_empty():
		close("not a msgpack-RPC message: %s" % str(message).left(80))
		return
	var kind: Variant = parts[0]
	if kind is int and kind == RESPONSE and parts.size() == 4 and parts[1] is int:
		var msgid: int = parts[1]
		if _reader != null:
			_reader.answered(msgid)  # read here, not by the connection's thread
		_requests.answer(msgid, parts[2], parts[3])  # dropped if it already timed out
	elif kind is int and kind == NOTIFICATION and parts.size() == 3 and parts[1] is String:
		var args: Array = parts[2] if parts[2] is Array else [parts[2]]
		notification_received.emit(parts[1], args)
	elif kind is int and kind == REQUEST and parts.size() == 4:
		var error: Dictionary = {
			"code": "unknown_method", "message": "the client serves no methods"
		}
		_write([RESPONSE, parts[1], error, null])
	else:
		close("not a msgpack-RPC message: %s" % str(message).left(80))
