## The autoload's asynchronous path requests: sent at once while the sidecar is ready and fewer
## than [code]max_in_flight[/code] are pending, else queued until it is (or failed when it
## cannot be); answers dispatched at each point of the frame the autoload sees (physics,
## process, end of frame), so a request completes in the frame its answer arrived in.
extends RefCounted

const BridgeConfig = preload("res://addons/astar_bridge/core/bridge_config.gd")
const BridgeStats = preload("res://addons/astar_bridge/bridge_stats.gd")
const PathRequest = preload("res://addons/astar_bridge/path_request.gd")
const PathResults = preload("res://addons/astar_bridge/path_results.gd")
const RpcClient = preload("res://addons/astar_bridge/rpc/rpc_client.gd")
const SidecarLink = preload("res://addons/astar_bridge/core/sidecar_link.gd")

## Main-thread time spent on asynchronous requests (encode, socket, decode, dispatch).
var main_thread_usec: int = 0
var stats: BridgeStats = BridgeStats.new()

var _config: BridgeConfig
var _link: SidecarLink
var _flush_scheduled: bool = false
# dim -> the transform of a path.find response (made once: every request shares it).
var _path_transforms: Dictionary = {}
# [method, params, on_done, queued at in ms, transform] sent once ready (requests made while
# the sidecar starts).
var _queued: Array[Array] = []
# [PathRequest, result] completed on the next frame (failures known at request time).
var _finish_later: Array[Array] = []


func _init(config: BridgeConfig, link: SidecarLink) -> void:
	_config = config
	_link = link
	_link.became_ready.connect(_flush_queue)
	_link.failed.connect(fail_all)


## Requests waiting for the sidecar or for room, plus those sent and not answered.
func pending() -> int:
	return _link.rpc.get_pending_count() + _queued.size()


## Sends one [code]path.find[/code] with wire [param params]; [param request] completes with the
## result map of a [param dim]-dimensional path.
func send_path(request: PathRequest, params: Dictionary, dim: int) -> void:
	var started: int = Time.get_ticks_usec()
	var on_done: Callable = func(outcome: Dictionary) -> void:
		stats.record(Time.get_ticks_usec() - request.sent_usec, _failed(outcome))
		# Deferred: still in this frame, but outside the autoload's own calls, so a handler may
		# free the autoload.
		request.finish.call_deferred(outcome)
	if not _path_transforms.has(dim):
		_path_transforms[dim] = _path_transform(dim)
	var transform: Callable = _path_transforms[dim]
	_send(request, "path.find", params, on_done, transform)
	main_thread_usec += Time.get_ticks_usec() - started


## Sends one [code]path.find_many[/code] of wire [param queries] with dimensions [param dims].
func send_batch(request: PathRequest, queries: Array, dims: PackedInt32Array) -> void:
	var on_done: Callable = func(outcome: Dictionary) -> void:
		var latency: int = Time.get_ticks_usec() - request.sent_usec
		for item: Dictionary in outcome["results"]:
			stats.record(latency, _failed(item))
		request.finish.call_deferred(outcome)
	_send(request, "path.find_many", {"queries": queries}, on_done, _batch_transform(dims))


## Sends any request [param method] with wire [param params] (flow fields use it): queued like a
## path request while the sidecar starts; [param on_done] gets, deferred to the frame's deferred
## calls, [code]transform.call(response)[/code] ([param transform] runs on the connection's
## thread with io_thread: a static function's lambda, no [code]self[/code]).
func send_call(method: String, params: Dictionary, on_done: Callable, transform: Callable) -> void:
	var started: int = Time.get_ticks_usec()
	var deferred: Callable = func(outcome: Variant) -> void: on_done.call_deferred(outcome)
	var phase: SidecarLink.Phase = _link.phase
	if phase == SidecarLink.Phase.IDLE and _config.autostart:
		_link.start()
		phase = _link.phase
	var room: bool = _link.rpc.get_pending_count() < _config.max_in_flight
	if _link.is_ready() and _queued.is_empty() and room:
		_link.rpc.request(method, params, deferred, _config.request_timeout_ms, true, transform)
		_schedule_flush()
	elif phase == SidecarLink.Phase.IDLE or phase == SidecarLink.Phase.FAILED:
		var why: String = "the sidecar is not running: %s" % _link.last_error
		deferred.call(transform.call(RpcClient.error_response("not_connected", why)))
	else:
		_queued.append([method, params, deferred, Time.get_ticks_msec(), transform])
	main_thread_usec += Time.get_ticks_usec() - started


## One frame's work: expire what waited too long, complete failures known at request time.
func process_frame() -> void:
	pump()
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
	if _link.phase != SidecarLink.Phase.READY:
		return
	var started: int = Time.get_ticks_usec()
	_link.rpc.poll()
	if not _queued.is_empty() and _link.is_ready():
		_flush_queue(true)
	main_thread_usec += Time.get_ticks_usec() - started


## Fails every queued request with [param code] and [param message].
func fail_all(code: String, message: String) -> void:
	var queued: Array[Array] = _queued
	_queued = []
	for item: Array in queued:
		var on_done: Callable = item[2]
		var transform: Callable = item[4]
		on_done.call(transform.call(RpcClient.error_response(code, message)))


# [param transform] turns the response map into the request's result (on the connection's
# thread with io_thread); [param on_done] gets that result on the main thread.
func _send(
	request: PathRequest, method: String, params: Dictionary, on_done: Callable, transform: Callable
) -> void:
	request.sent_usec = Time.get_ticks_usec()
	var phase: SidecarLink.Phase = _link.phase
	if phase == SidecarLink.Phase.IDLE and _config.autostart:
		_link.start()
		phase = _link.phase
	var room: bool = _link.rpc.get_pending_count() < _config.max_in_flight
	if _link.is_ready() and _queued.is_empty() and room:
		_link.rpc.request(method, params, on_done, _config.request_timeout_ms, true, transform)
		_schedule_flush()
	elif phase == SidecarLink.Phase.IDLE or phase == SidecarLink.Phase.FAILED:
		var why: String = "the sidecar is not running: %s" % _link.last_error
		var failed: Dictionary = RpcClient.error_response("not_connected", why)
		_finish_later.append([request, transform.call(failed)])
	else:
		_queued.append([method, params, on_done, Time.get_ticks_msec(), transform])


# Transforms made in static functions: lambdas without self, safe to call on another thread.
static func _path_transform(dim: int) -> Callable:
	return func(response: Dictionary) -> Dictionary: return PathResults.path_result(response, dim)


static func _batch_transform(dims: PackedInt32Array) -> Callable:
	return func(response: Dictionary) -> Dictionary: return PathResults.batch_result(response, dims)


static func _failed(result: Dictionary) -> bool:
	return str(result.get("status", "error")) == "error"


func _schedule_flush() -> void:
	if not _flush_scheduled:
		_flush_scheduled = true
		_flush.call_deferred()


# At the end of the frame (deferred): the frame's requests leave in one write, then the answers
# already there are dispatched in this frame, not the next.
func _flush() -> void:
	_flush_scheduled = false
	var started: int = Time.get_ticks_usec()
	_link.rpc.flush()
	main_thread_usec += Time.get_ticks_usec() - started
	pump()


# Sends queued requests while fewer than max_in_flight are pending; the rest keep waiting.
# [param now]: written at once (answers just made room) instead of at the end of the frame.
func _flush_queue(now: bool = false) -> void:
	var room: int = maxi(0, _config.max_in_flight - _link.rpc.get_pending_count())
	var count: int = mini(room, _queued.size())
	if count == 0:
		return
	var sending: Array[Array] = _queued.slice(0, count)
	_queued = _queued.slice(count)
	for item: Array in sending:
		var method: String = item[0]
		var params: Dictionary = item[1]
		var on_done: Callable = item[2]
		var transform: Callable = item[4]
		_link.rpc.request(method, params, on_done, _config.request_timeout_ms, true, transform)
	if now:
		_link.rpc.flush()
	else:
		_schedule_flush()


func _expire() -> void:
	if _queued.is_empty():
		return
	var oldest: int = _queued[0][3]
	if Time.get_ticks_msec() - oldest > _config.connect_timeout_ms + _config.request_timeout_ms:
		fail_all("timeout", "the sidecar did not get ready in time: %s" % _link.last_error)
