## The socket work of one connection on a thread of its own, off the game's main thread: it
## encodes and writes the requests handed to [method send] (and the path.find requests handed as
## prepared parts to [method send_prepared]), reads and decodes what arrives, turns responses
## into their final form with the transform given for their msgid (e.g. a path.find answer into
## the API's result map), and hands the results to [method take]; the decoded messages of
## transformed responses are freed here, never on the main thread.
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
## var items: Array = reader.take()  # msgid, value (transformed), or -1, message (as decoded)
## [/codeblock]
extends RefCounted

const MsgpackEncoder = preload("res://addons/astar_bridge/msgpack/msgpack_encoder.gd")
const MsgpackDecoder = preload("res://addons/astar_bridge/msgpack/msgpack_decoder.gd")
const PathFindEncoder = preload("res://addons/astar_bridge/msgpack/path_find_encoder.gd")

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
var _path_encoder: PathFindEncoder = PathFindEncoder.new()
var _io: Mutex = null
var _lock: Mutex = Mutex.new()
var _thread: Thread = Thread.new()
# Guarded by _lock: requests to write ([msgid, method, params, transform], or a chunk of
# prepared path.find requests [msgids, [parts, start, goal...], transforms]), results to hand
# over, why the connection ended.
var _sendq: Array[Array] = []
# Prepared requests handed over since the last item of _sendq (flat: no array a request).
var _prepared_ids: PackedInt64Array = PackedInt64Array()
var _prepared: Array = []
var _prepared_transforms: Array[Callable] = []
var _adopted: Array[Array] = []
# Msgids whose answers a synchronous call read and dispatched itself: their transforms go.
var _answered: PackedInt64Array = PackedInt64Array()
# Flat pairs: msgid and its transformed value, or -1 and a message as decoded.
var _inbox: Array = []
var _failure: String = ""
# Set by release(): what was handed over is written at the next turn (until then it waits, so a
# frame's requests leave together, while the game's main thread is not running).
var _released: bool = false
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


## Hands a request to the thread, to be encoded and written at its next turn after a
## [method release]; the response's value is [code]transform.call(response)[/code] when
## [param transform] is valid.
func send(msgid: int, method: String, params: Dictionary, transform: Callable) -> void:
	_lock.lock()
	_close_chunk()
	_sendq.append([msgid, method, params, transform])
	_lock.unlock()


## Hands a path.find request to the thread as the [param parts] of a PathFindEncoder and its
## endpoints, encoded and written after every request handed before it (at the next turn after
## a [method release]);
## [param transform] as in [method send].
func send_prepared(
	msgid: int, parts: Array, from_point: Variant, to_point: Variant, transform: Callable
) -> void:
	_lock.lock()
	_prepared_ids.append(msgid)
	_prepared.append(parts)
	_prepared.append(from_point)
	_prepared.append(to_point)
	_prepared_transforms.append(transform)
	_lock.unlock()


## The bytes of the requests of a chunk of prepared ones (see [method drain]), encoded with
## [param encoder]; an error message in [param failed] for each that could not be (by msgid).
static func encode_chunk(
	chunk: Array, encoder: PathFindEncoder, failed: Dictionary
) -> PackedByteArray:
	var ids: PackedInt64Array = chunk[0]
	var args: Array = chunk[1]
	var bytes: PackedByteArray = PackedByteArray()
	for i: int in ids.size():
		var parts: Array = args[3 * i]
		var encoded: PackedByteArray = encoder.encode_parts(
			ids[i], parts, args[3 * i + 1], args[3 * i + 2]
		)
		if encoder.error.is_empty():
			bytes.append_array(encoded)
		else:
			failed[ids[i]] = encoder.error
	return bytes


## Lets the thread write, at its next turn, every request handed over so far (they wait until
## then, so that the requests of a frame leave together at its end).
func release() -> void:
	_lock.lock()
	_released = true
	_lock.unlock()


## Takes what the thread decoded since the last call, in arrival order, as flat pairs: a msgid
## and the transformed value of its response, or -1 and a message as decoded.
func take() -> Array:
	_lock.lock()
	var items: Array = _inbox
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
	_close_chunk()
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


# Under _lock: the prepared requests handed over so far become one item of _sendq (so requests
# handed later, prepared or not, are written after them).
func _close_chunk() -> void:
	if _prepared_ids.is_empty():
		return
	_sendq.append([_prepared_ids, _prepared, _prepared_transforms])
	_prepared_ids = PackedInt64Array()
	_prepared = []
	_prepared_transforms = []


func _take_sendq() -> Array[Array]:
	_lock.lock()
	var writing: Array[Array] = []
	if _released:
		_released = false
		_close_chunk()
		writing = _sendq
		_sendq = []
	for item: Array in _adopted:  # written by a synchronous call: only their transforms
		_keep_transforms(item)
	_adopted = []
	for msgid: int in _answered:  # after the adopted ones: a sync call may have read their answers
		_transforms.erase(msgid)
	_answered.clear()
	_lock.unlock()
	return writing


# The transforms of the requests of a _sendq item, kept for their answers.
func _keep_transforms(item: Array) -> void:
	if item[0] is PackedInt64Array:  # a chunk of prepared requests
		var ids: PackedInt64Array = item[0]
		var transforms: Array[Callable] = item[2]
		for i: int in ids.size():
			if transforms[i].is_valid():
				_transforms[ids[i]] = transforms[i]
	elif item[3] is Callable:
		var transform: Callable = item[3]
		if transform.is_valid():
			_transforms[item[0]] = transform


func _encode(writing: Array[Array]) -> PackedByteArray:
	var bytes: PackedByteArray = PackedByteArray()
	for item: Array in writing:
		if item[0] is PackedInt64Array:
			var failed: Dictionary = {}
			bytes.append_array(encode_chunk(item, _path_encoder, failed))
			_keep_transforms(item)
			for msgid: int in failed:
				_transforms.erase(msgid)
				var error: Dictionary = {
					"code": "encode_failed", "message": "path.find: %s" % failed[msgid], "data": {}
				}
				_hand_over([[RESPONSE, msgid, error, null]], "")
			continue
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


# A response with a transform goes over as its msgid and transformed value (the decoded message
# stays here, freed on this thread), anything else as -1 and the message.
func _hand_over(messages: Array, why: String) -> void:
	var items: Array = []
	items.resize(messages.size() * 2)
	var at: int = 0
	for message: Variant in messages:
		var parts: Array = message if message is Array else []
		var found: Variant = null
		if parts.size() == 4 and parts[0] is int and parts[0] == RESPONSE and parts[1] is int:
			found = _transforms.get(parts[1])
		if found is Callable:
			_transforms.erase(parts[1])
			var transform: Callable = found
			items[at] = parts[1]
			items[at + 1] = transform.call({"error": parts[2], "result": parts[3]})
		else:
			items[at] = -1
			items[at + 1] = message
		at += 2
	_lock.lock()
	_inbox.append_array(items)
	if not why.is_empty():
		_failure = why
	_lock.unlock()
