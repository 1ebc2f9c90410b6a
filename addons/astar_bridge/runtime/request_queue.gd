## The autoload's asynchronous path requests: sent at once while the sidecar is ready and fewer
## than [code]max_in_flight[/code] are pending, else queued until it is (or failed when it
## cannot be); answers dispatched at each point of the frame the autoload sees (physics,
## process, end of frame), so a request completes in the frame its answer arrived in.
##
## With [code]batch_requests[/code] (the default) the path requests of a frame are held until
## its end and leave as one message per grid and options map (runtime/frame_batches.gd); each
## completes with its own result. Any other request (an edit, a flow field, a synchronous call
## other than a path) sends the held ones first, so the sidecar sees them in the order made.
##
## With [code]answers_in_frame[/code] (the default) the frame's end waits, asleep, for the answers
## of the paths it sent while the frame has time to spare (runtime/frame_wait.gd), so quick
## answers complete in the frame they were asked in.
##
## The main thread's work per [code]path.find[/code] is kept small: the request is encoded by
## msgpack/path_find_encoder.gd (its fixed bytes made once per graph and options) and handed to
## the connection's thread as bytes; the answer comes back decoded and turned into the result map
## on that thread; the answers of a frame complete in one deferred call.
extends RefCounted

const BridgeConfig = preload("res://addons/astar_bridge/runtime/bridge_config.gd")
const BridgeStats = preload("res://addons/astar_bridge/runtime/bridge_stats.gd")
const FrameBatches = preload("res://addons/astar_bridge/runtime/frame_batches.gd")
const FrameWait = preload("res://addons/astar_bridge/runtime/frame_wait.gd")
const PathAnswers = preload("res://addons/astar_bridge/runtime/path_answers.gd")
const PathFindEncoder = preload("res://addons/astar_bridge/msgpack/path_find_encoder.gd")
const PathRequest = preload("res://addons/astar_bridge/api/path_request.gd")
const PathWire = preload("res://addons/astar_bridge/runtime/path_wire.gd")
const RpcClient = preload("res://addons/astar_bridge/rpc/rpc_client.gd")
const SidecarLink = preload("res://addons/astar_bridge/runtime/sidecar_link.gd")
const PATH_FIND := "path.find"

## Main-thread time spent on asynchronous requests (asking, encode, socket, decode, dispatch,
## completion); the autoload's path calls add their own part.
var main_thread_usec: int = 0
var stats: BridgeStats = BridgeStats.new()

var _config: BridgeConfig
var _link: SidecarLink
var _flush_scheduled: bool = false
var _encoder: PathFindEncoder = PathFindEncoder.new()
# The frame's path requests, sent at its end (or before any other request).
var _held: FrameBatches = FrameBatches.new()
var _frame_wait: FrameWait = FrameWait.new()
# dim -> the transform of a path.find response (made once: every request shares it).
var _path_transforms: Dictionary = {}
# [method, args (see _hold), on_done, queued at in ms, transform(, timeout in ms)] sent once
# ready and there is room (requests made while the sidecar starts, or beyond max_in_flight).
var _queued: Array[Array] = []
# [PathRequest, result] completed on the next frame (failures known at request time).
var _finish_later: Array[Array] = []
# Path requests answered (or failed) and their results, completed in one deferred call (which
# empties these arrays: while they hold something, that call is scheduled).
var _answered: Array[PathRequest] = []
var _answers: Array[Dictionary] = []
# Main-thread time of those deferred calls (a box they share: they do not hold this queue).
var _finish_usec: Array[int] = [0]


func _init(config: BridgeConfig, link: SidecarLink) -> void:
	_config = config
	_link = link
	_link.became_ready.connect(_flush_queue)
	_link.failed.connect(fail_all)
	_link.rpc.prepared_sink = _path_answered
	_link.rpc.before_sync = _before_sync
	if not FrameWait.ends_after_scripts():
		RenderingServer.frame_post_draw.connect(_end_of_frame)


## [member main_thread_usec] plus the time spent completing answered path requests.
func main_thread_time_usec() -> int:
	return main_thread_usec + _finish_usec[0]


## Sets [method main_thread_time_usec] back to 0.
func reset_main_thread_time() -> void:
	main_thread_usec = 0
	_finish_usec[0] = 0


## Requests waiting for the sidecar or for room, plus those sent and not answered.
func pending() -> int:
	return _link.rpc.get_pending_count() + _queued.size() + _held.size()


## Holds [param request] (made at [code]request.sent_usec[/code]) until the end of the frame, with
## the other requests on grid [param graph] with [param options]: endpoints [param start] and
## [param goal] are int32 cells when [param cells], else world positions.
func hold_grid(
	request: PathRequest,
	graph: String,
	options: Dictionary,
	cells: bool,
	start: Vector2,
	goal: Vector2
) -> void:
	_held.add_grid(request, graph, options, cells, start, goal)
	if not _flush_scheduled:  # once a frame: no call a request of a crowd
		_schedule_flush()


## Holds [param request] until the end of the frame as one query of a path.find_many:
## [param query] its path.find params, [param dim] its result's dimension.
func hold_query(request: PathRequest, query: Dictionary, dim: int) -> void:
	_held.add_query(request, query, dim)
	_schedule_flush()


## Sends the held path requests now: a message per grid and options map, the rest as one
## path.find_many (queued like any request while the sidecar is not ready).
func send_held() -> void:
	if _held.is_empty():
		return
	var started: int = Time.get_ticks_usec()
	for message: Array in _held.take(_config.navmesh_ids):
		var kind: FrameBatches.Kind = message[0]
		var requests: Array[PathRequest] = message[2]
		var dims: PackedInt32Array = message[3]
		if kind == FrameBatches.Kind.SINGLE:
			var query: Dictionary = message[1]
			var first: PathRequest = requests[0]
			var options: Dictionary = query.get("options", {})
			var cells: bool = query.get("cells", false)
			var graph: String = str(query["graph"])
			var at: int = first.sent_usec
			send_path(first, graph, query["start"], query["goal"], options, dims[0], at, cells)
			continue
		var params: Dictionary = message[1]
		var packed: bool = kind == FrameBatches.Kind.PACKED
		var method: String = "path.find_packed" if packed else "path.find_many"
		var transform: Callable = (
			PathAnswers.packed_transform(requests.size())
			if packed
			else PathAnswers.batch_transform(dims)
		)
		var on_done: Callable = PathAnswers.splitter(
			requests, dims, _answered, _answers, stats, _finish_usec
		)
		if _can_send_now():
			var timeout: int = _config.request_timeout_ms
			_frame_wait.sent(_link.rpc.request(method, params, on_done, timeout, true, transform))
			stats.messages += 1
		elif _link.phase == SidecarLink.Phase.IDLE or _link.phase == SidecarLink.Phase.FAILED:
			var why: String = "the sidecar is not running: %s" % _link.last_error
			on_done.call(transform.call(RpcClient.error_response("not_connected", why)))
		else:
			_queued.append([method, [params], on_done, Time.get_ticks_msec(), transform])
	main_thread_usec += Time.get_ticks_usec() - started


## Sends one [code]path.find[/code] from wire endpoints [param start] to [param goal] (a
## [Vector2] or [Vector3] as it is) on [param graph]; [param request] completes with the result
## map of a [param dim]-dimensional path. [param now_usec]: Time.get_ticks_usec() of the call.
## [param cells]: the endpoints are grid cells even on a grid placed in the world.
func send_path(
	request: PathRequest,
	graph: String,
	start: Variant,
	goal: Variant,
	options: Dictionary,
	dim: int,
	now_usec: int,
	cells: bool = false
) -> void:
	request.sent_usec = now_usec
	var transform: Callable = _path_transforms.get(dim, Callable())
	if not transform.is_valid():
		transform = PathAnswers.path_transform(dim)
		_path_transforms[dim] = transform
	var parts: Array = _encoder.parts_of(graph, options, cells)
	if parts.is_empty():
		var why: String = "path.find: %s" % _encoder.error
		var failed: Dictionary = transform.call(RpcClient.error_response("encode_failed", why))
		_path_answered(request, failed)
	elif _can_send_now():
		var timeout: int = _config.request_timeout_ms
		_frame_wait.sent(_link.rpc.send_prepared(parts, start, goal, request, timeout, transform))
		stats.messages += 1
		if not _flush_scheduled:
			_schedule_flush()
	else:
		_hold(request, PATH_FIND, [parts, start, goal], request, transform)


## Sends one [code]path.find_many[/code] of wire [param queries] with dimensions [param dims].
func send_batch(request: PathRequest, queries: Array, dims: PackedInt32Array) -> void:
	var on_done: Callable = _batch_done(request)
	_send(
		request, "path.find_many", {"queries": queries}, on_done, PathAnswers.batch_transform(dims)
	)


## Sends one [code]path.find_packed[/code] of [param params] (one grid's [param count] queries).
func send_packed(request: PathRequest, params: Dictionary, count: int) -> void:
	_send(
		request,
		"path.find_packed",
		params,
		_batch_done(request),
		PathAnswers.packed_transform(count)
	)


func _batch_done(request: PathRequest) -> Callable:
	return func(outcome: Dictionary) -> void:
		var latency: int = Time.get_ticks_usec() - request.sent_usec
		for item: Dictionary in outcome["results"]:
			stats.record(latency, _failed(item))
		request.finish.call_deferred(outcome)


## Sends any request [param method] with wire [param params] (flow fields and graph edits use
## it): queued like a path request while the sidecar starts, and sent in the order of the
## frame's other requests; [param on_done] gets [code]transform.call(response)[/code] (the
## transform runs on the connection's thread with io_thread: a static function's lambda, no
## [code]self[/code]), deferred to the frame's deferred calls, or with [param at_arrival] at once
## when the answer is dispatched on the main thread (even inside a synchronous call, so the
## caller sees answers in the order the sidecar gave them; failures known now come at once).
## [param timeout_ms]: 0 for [code]request_timeout_ms[/code].
func send_call(
	method: String,
	params: Dictionary,
	on_done: Callable,
	transform: Callable,
	timeout_ms: int = 0,
	at_arrival: bool = false
) -> void:
	send_held()  # the frame's paths were asked first
	var started: int = Time.get_ticks_usec()
	var deferred: Callable = on_done
	if not at_arrival:
		deferred = func(outcome: Variant) -> void: on_done.call_deferred(outcome)
	var timeout: int = timeout_ms if timeout_ms > 0 else _config.request_timeout_ms
	var phase: SidecarLink.Phase = _link.phase
	if phase == SidecarLink.Phase.IDLE and _config.autostart:
		_link.start()
		phase = _link.phase
	var room: bool = _link.rpc.get_pending_count() < _config.max_in_flight
	if _link.is_ready() and _queued.is_empty() and room:
		_link.rpc.request(method, params, deferred, timeout, true, transform)
		stats.messages += 1
		_schedule_flush()
	elif phase == SidecarLink.Phase.IDLE or phase == SidecarLink.Phase.FAILED:
		var why: String = "the sidecar is not running: %s" % _link.last_error
		deferred.call(transform.call(RpcClient.error_response("not_connected", why)))
	else:
		_queued.append([method, [params], deferred, Time.get_ticks_msec(), transform, timeout])
	main_thread_usec += Time.get_ticks_usec() - started


## One frame's work: expire what waited too long, complete failures known at request time;
## paths asked last frame and still unanswered are waited for at this frame's end.
func process_frame() -> void:
	_frame_wait.note_process()
	pump()
	if _config.answers_in_frame and _frame_wait.has_waiting(_link.rpc):
		_schedule_flush()
	_expire()
	if not _finish_later.is_empty():
		var due: Array[Array] = _finish_later
		_finish_later = []
		for item: Array in due:
			var request: PathRequest = item[0]
			var outcome: Dictionary = item[1]
			request.finish(outcome)


# Dispatches the answers that arrived and sends queued requests into the room they left.
func pump() -> void:
	_frame_wait.note_frame()
	if _link.phase != SidecarLink.Phase.READY:
		return
	var started: int = Time.get_ticks_usec()
	_link.rpc.poll()
	if not _queued.is_empty() and _link.is_ready():
		_flush_queue(true)
	main_thread_usec += Time.get_ticks_usec() - started


## Fails every held and queued request with [param code] and [param message].
func fail_all(code: String, message: String) -> void:
	for held: Array in _held.take():
		var requests: Array[PathRequest] = held[2]
		var dims: PackedInt32Array = held[3]
		for i: int in requests.size():
			_path_answered(requests[i], PathWire.error_result(code, message, dims[i]))
	var queued: Array[Array] = _queued
	_queued = []
	for item: Array in queued:
		var transform: Callable = item[4]
		var failed: Variant = transform.call(RpcClient.error_response(code, message))
		if item[2] is Callable:
			var on_done: Callable = item[2]
			on_done.call(failed)
		else:
			var request: PathRequest = item[2]
			var outcome: Dictionary = failed
			_path_answered(request, outcome)


# [param transform] turns the response map into the request's result (on the connection's
# thread with io_thread); [param on_done] gets that result on the main thread.
func _send(
	request: PathRequest, method: String, params: Dictionary, on_done: Callable, transform: Callable
) -> void:
	request.sent_usec = Time.get_ticks_usec()
	if _can_send_now():
		var timeout: int = _config.request_timeout_ms
		_frame_wait.sent(_link.rpc.request(method, params, on_done, timeout, true, transform))
		stats.messages += 1
		_schedule_flush()
	else:
		_hold(request, method, [params], on_done, transform)


# True when a request can be sent now (ready, nothing queued before it, fewer than max_in_flight
# pending); starts the sidecar first when it is idle and autostart is on.
func _can_send_now() -> bool:
	var phase: SidecarLink.Phase = _link.phase
	if phase == SidecarLink.Phase.READY:
		var rpc: RpcClient = _link.rpc
		return (
			_queued.is_empty() and rpc.get_pending_count() < _config.max_in_flight and rpc.is_open()
		)
	if phase == SidecarLink.Phase.IDLE and _config.autostart:
		_link.start()
	return (
		_link.is_ready()
		and _queued.is_empty()
		and _link.rpc.get_pending_count() < _config.max_in_flight
	)


# A request that cannot be sent now: failed on the next frame when the sidecar is not running,
# else queued until it is ready and there is room. [param args]: [params] of [param method], or
# [parts, start, goal] of a prepared path.find; [param on_done]: its callback, or for a path.find
# the request itself (see _path_answered).
func _hold(
	request: PathRequest, method: String, args: Array, on_done: Variant, transform: Callable
) -> void:
	var phase: SidecarLink.Phase = _link.phase
	if phase == SidecarLink.Phase.IDLE or phase == SidecarLink.Phase.FAILED:
		var why: String = "the sidecar is not running: %s" % _link.last_error
		var failed: Dictionary = RpcClient.error_response("not_connected", why)
		_finish_later.append([request, transform.call(failed)])
	else:
		_queued.append([method, args, on_done, Time.get_ticks_msec(), transform])


static func _failed(result: Dictionary) -> bool:
	return str(result.get("status", "error")) == "error"


# Before a synchronous call other than a path (a load, an edit) writes its request: the frame's
# held paths go first, as they were asked first.
func _before_sync(method: String) -> void:
	if not method.begins_with("path."):
		send_held()


# The answer (or failure) of one path.find (the connection's prepared_sink): completed with the
# frame's others in one deferred call (still in this frame, but outside the autoload's own calls).
func _path_answered(request: PathRequest, outcome: Dictionary) -> void:
	if _answered.is_empty():
		PathAnswers.finisher(stats, _answered, _answers, _finish_usec).call_deferred()
	_answered.append(request)
	_answers.append(outcome)


func _schedule_flush() -> void:
	if not _flush_scheduled:
		_flush_scheduled = true
		_flush.call_deferred()


# At the end of the frame's scripts (deferred): the frame's requests leave in one write, then the
# answers already there are dispatched in this frame, not the next; when nothing is drawn, the
# frame's end is here once the process step's scripts have run (frame_wait.gd).
func _flush() -> void:
	send_held()
	_flush_scheduled = false
	var started: int = Time.get_ticks_usec()
	_link.rpc.flush()
	main_thread_usec += Time.get_ticks_usec() - started
	pump()
	if FrameWait.ends_after_scripts() and _frame_wait.after_scripts():
		_end_of_frame()


# The frame's end: asleep while it has time to spare, the answers of the paths sent in it (or
# the last) are awaited, then every answer there completes now, in this frame.
func _end_of_frame() -> void:
	if not _config.answers_in_frame or not _link.is_ready():
		return
	var started: int = Time.get_ticks_usec()
	var slept: int = _frame_wait.wait(_link.rpc)
	stats.waited_usec += slept
	main_thread_usec += Time.get_ticks_usec() - started - slept
	if slept > 0:
		pump()
	if not _answered.is_empty():
		PathAnswers.finisher(stats, _answered, _answers, _finish_usec).call()


# Sends queued requests while fewer than max_in_flight are pending; the rest keep waiting.
# [param now]: written at once (answers just made room) instead of at the end of the frame.
func _flush_queue(now: bool = false) -> void:
	var room: int = maxi(0, _config.max_in_flight - _link.rpc.get_pending_count())
	var count: int = mini(room, _queued.size())
	if count == 0:
		return
	var sending: Array[Array] = _queued.slice(0, count)
	_queued = _queued.slice(count)
	var default_timeout: int = _config.request_timeout_ms
	for item: Array in sending:
		var method: String = item[0]
		var args: Array = item[1]
		var transform: Callable = item[4]
		var timeout: int = item[5] if item.size() > 5 else default_timeout
		if method == PATH_FIND:
			var request: PathRequest = item[2]
			var parts: Array = args[0]
			_link.rpc.send_prepared(parts, args[1], args[2], request, timeout, transform)
		else:
			var on_done: Callable = item[2]
			var params: Dictionary = args[0]
			_link.rpc.request(method, params, on_done, timeout, true, transform)
		stats.messages += 1
	if now:
		_link.rpc.flush()
	else:
		_schedule_flush()


func _expire() -> void:
	if _queued.is_empty():
		return
	var oldest: int = _queued[0][3]
	# A launched sidecar may take start_timeout_ms to announce itself (a release zip's sidecar
	# unpacks on its first start); a failed start fails the queue sooner by itself.
	var start_ms: int = _config.start_timeout_ms if _config.autostart else 0
	var budget: int = start_ms + _config.connect_timeout_ms + _config.request_timeout_ms
	if Time.get_ticks_msec() - oldest > budget:
		fail_all("timeout", "the sidecar did not get ready in time: %s" % _link.last_error)
