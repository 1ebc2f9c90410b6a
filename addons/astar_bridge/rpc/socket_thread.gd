## The socket work of one connection on a thread of its own, off the game's main thread: it
## encodes and writes the requests handed to [method send], reads and decodes what arrives,
## turns responses into their final form with the transform given for their msgid (e.g. a
## path.find answer into the API's result map), and hands the results to [method take].
##
## Every read or write of the socket and the decoder happens under the I/O mutex given to
## [method start], which a synchronous call of the main thread holds while it reads the socket
## itself (after writing, with [method drain], the requests the thread has not written yet).
## [method stop] (under that mutex) makes the thread end at its next turn, without touching the
## socket again; [method join] waits for it.
## [codeblock]
## var reader := SocketThread.new()
## reader.start(tcp, decoder, io_mutex)
## reader.send(1, "path.find", params, transform)
## var items: Array = reader.take()  # [[message, value, transformed]...]
## [/codeblock]
extends RefCounted

const MsgpackEncoder = preload("res://addons/astar_bridge/msgpack/msgpack_encoder.gd")
const MsgpackDecoder = preload("res://addons/astar_bridge/msgpack/msgpack_decoder.gd")

const READ_CHUNK := 65536
## Pause of an idle turn, in microseconds, while answers are awaited: the thread's, never the
## game's.
const IDLE_USEC := 200
## Pause of an idle turn when no request it sent waits for an answer.
const QUIET_USEC := 1000
const REQUEST := 0
const RESPONSE := 1

## [method Time.get_ticks_msec] when the server last sent anything.
var last_received_ms: int = 0

var _tcp: StreamPeerTCP = null
var _decoder: MsgpackDecoder = null
var _encoder: MsgpackEncoder = MsgpackEncoder.new()
var _io: Mutex = null
var _lock: Mutex = Mutex.new()
var _thread: Thread = Thread.new()
# Guarded by _lock: requests to write, results to hand over, why the connection ended.
var _sendq: Array[Array] = []
var _adopted: Array[Array] = []
# Msgids whose answers a synchronous call read and dispatched itself: their transforms go.
var _answered: PackedInt64Array = PackedInt64Array()
var _inbox: Array[Array] = []
var _failure: String = ""
# Guarded by _io: the thread ends at its next turn.
var _stopped: bool = false
# The thread's own: msgid -> transform of the response.
var _transforms: Dictionary = {}


## Starts the thread on the open connection [param tcp], decoding with [param decoder]; both
## are used only under [param io].
func start(tcp: StreamPeerTCP, decoder: MsgpackDecoder, io: Mutex) -> void:
	_tcp = tcp
	_decoder = decoder
	_io = io
	last_received_ms = Time.get_ticks_msec()
	_thread.start(_run)


## Hands a request to the thread, to be encoded and written at its next turn; the response's
## value is [code]transform.call(response)[/code] when [param transform] is valid.
func send(msgid: int, method: String, params: Dictionary, transform: Callable) -> void:
	_lock.lock()
	_sendq.append([msgid, method, params, transform])
	_lock.unlock()


## Takes what the thread decoded since the last call: [code][message, value, transformed][/code]
## items, in arrival order.
func take() -> Array[Array]:
	_lock.lock()
	var items: Array[Array] = _inbox
	_inbox = []
	_lock.unlock()
	return items


## Why the connection ended, as seen by the thread ("" while it is fine).
func failure() -> String:
	_lock.lock()
	var why: String = _failure
	_lock.unlock()
	return why


## Tells the thread that the answer of [param msgid] was read by a synchronous call (holding the
## I/O mutex) and dispatched there, so the thread forgets its transform (else one entry a request
## would stay, and the thread would poll as if an answer were still due).
func answered(msgid: int) -> void:
	_lock.lock()
	_answered.append(msgid)
	_lock.unlock()


## Makes the thread end at its next turn (it will not touch the socket again). Call it with the
## I/O mutex available: it takes it.
func stop() -> void:
	_io.lock()
	_stopped = true
	_io.unlock()


## Waits for the thread to end (after [method stop]).
func join() -> void:
	if _thread.is_started():
		_thread.wait_to_finish()


## Takes the requests not written yet, for a synchronous call holding the I/O mutex to write
## them before its own (the stream keeps the order the requests were made in); their
## transforms stay known to the thread, which may still read their answers.
func drain() -> Array[Array]:
	_lock.lock()
	var writing: Array[Array] = _sendq
	_sendq = []
	for item: Array in writing:
		_adopted.append(item)
	_lock.unlock()
	return writing


func _run() -> void:
	while true:
		_io.lock()
		if _stopped:
			_io.unlock()
			return
		# Taken under the I/O mutex: a synchronous call either writes them first, or finds
		# them written.
		var writing: Array[Array] = _take_sendq()
		var bytes: PackedByteArray = _encode(writing)
		var why: String = _write(bytes)
		var messages: Array = []
		if why.is_empty():
			why = _read(messages)
		_io.unlock()
		if not messages.is_empty() or not why.is_empty():
			_hand_over(messages, why)
		if not why.is_empty():
			return
		if messages.is_empty() and writing.is_empty():
			OS.delay_usec(IDLE_USEC if not _transforms.is_empty() else QUIET_USEC)


func _take_sendq() -> Array[Array]:
	_lock.lock()
	var writing: Array[Array] = _sendq
	_sendq = []
	for item: Array in _adopted:  # written by a synchronous call: only their transforms
		var transform: Callable = item[3]
		if transform.is_valid():
			_transforms[item[0]] = transform
	_adopted = []
	for msgid: int in _answered:  # after the adopted ones: a sync call may have read their answers
		_transforms.erase(msgid)
	_answered.clear()
	_lock.unlock()
	return writing


func _encode(writing: Array[Array]) -> PackedByteArray:
	var bytes: PackedByteArray = PackedByteArray()
	for item: Array in writing:
		var msgid: int = item[0]
		var method: String = item[1]
		var params: Dictionary = item[2]
		var encoded: PackedByteArray = _encoder.encode_request(msgid, method, params)
		if not _encoder.error.is_empty():
			var error: Dictionary = {"code": "encode_failed", "message": _encoder.error, "data": {}}
			var failed: Array = [RESPONSE, msgid, error, null]
			_hand_over([failed], "")
			continue
		var transform: Callable = item[3]
		if transform.is_valid():
			_transforms[msgid] = transform
		bytes.append_array(encoded)
	return bytes


# Under _io. Returns why the connection failed, or "".
func _write(bytes: PackedByteArray) -> String:
	if bytes.is_empty():
		return ""
	var err: Error = _tcp.put_data(bytes)
	return "" if err == OK else "send failed: %s" % error_string(err)


# Under _io: reads what the socket has into [param messages]; returns why it failed, or "".
func _read(messages: Array) -> String:
	_tcp.poll()
	if _tcp.get_status() != StreamPeerTCP.STATUS_CONNECTED:
		return "connection closed by the server"
	var available: int = _tcp.get_available_bytes()
	while available > 0:
		var got: Array = _tcp.get_partial_data(mini(available, READ_CHUNK))
		var data: PackedByteArray = got[1]
		if got[0] != OK or data.is_empty():
			break
		last_received_ms = Time.get_ticks_msec()
		_decoder.feed(data)
		messages.append_array(_decoder.take_messages())
		if _decoder.has_error():
			return "undecodable stream from the server: %s" % _decoder.error
		available = _tcp.get_available_bytes()
	return ""


func _hand_over(messages: Array, why: String) -> void:
	var items: Array[Array] = []
	for message: Variant in messages:
		items.append(_item(message))
	_lock.lock()
	_inbox.append_array(items)
	if not why.is_empty():
		_failure = why
	_lock.unlock()


# [message, value, transformed]: a response with a transform comes out already transformed.
func _item(message: Variant) -> Array:
	var parts: Array = message if message is Array else []
	if parts.size() == 4 and parts[0] is int and parts[0] == RESPONSE and parts[1] is int:
		var found: Variant = _transforms.get(parts[1])
		if found is Callable:
			_transforms.erase(parts[1])
			var transform: Callable = found
			var response: Dictionary = {"error": parts[2], "result": parts[3]}
			return [message, transform.call(response), true]
	return [message, null, false]
