## The session's book of requests sent and not yet answered (rpc/rpc_client.gd holds one):
## message ids, deadlines, the transform of each answer and who gets it.
##
## A request waits here under its msgid until its answer, a failure or its deadline; then it
## leaves the book and its outcome goes to its owner: a [Callable] gets the response map (or what
## its transform made of it), the target object of a prepared request goes with that outcome to
## [member prepared_sink], and a [method RpcClient.call_sync] (an invalid [Callable]) finds its
## response map in [method take_done]. Callbacks may call back into the client (a close fails
## every request), so nothing here holds on to its tables across a callback.
extends RefCounted

const MAX_MSGID := 0xffffffff

## Gets [code](target, value)[/code] for each prepared request (see
## [method RpcClient.send_prepared]).
var prepared_sink: Callable = Callable()

var _next_msgid: int = 0
# msgid -> Callable (async), an invalid Callable (a call_sync waits for it in _done), or the
# target object of a prepared request.
var _pending: Dictionary = {}
# msgid -> deadline in Time.get_ticks_usec() units.
var _deadlines: Dictionary = {}
var _next_deadline: int = 0
# msgid -> response map, for call_sync.
var _done: Dictionary = {}
# msgid -> transform of its response (see RpcClient.request()).
var _transforms: Dictionary = {}


## The response map of a local failure.
static func error_response(code: String, message: String) -> Dictionary:
	return {"error": {"code": code, "message": message, "data": {}}, "result": null}


## [code]transform.call(response)[/code], or [param response] itself when [param transform] is
## not valid.
static func transformed(transform: Callable, response: Dictionary) -> Variant:
	return transform.call(response) if transform.is_valid() else response


## Requests waiting for their answer.
func size() -> int:
	return _pending.size()


## True while [param msgid] waits for its answer.
func has(msgid: int) -> bool:
	return _pending.has(msgid)


## A new msgid (they wrap at [constant MAX_MSGID]).
func next_id() -> int:
	_next_msgid = 0 if _next_msgid >= MAX_MSGID else _next_msgid + 1
	return _next_msgid


## Records a request as waiting (a new msgid unless [param msgid] is given); returns its msgid.
## [param on_done]: a Callable (invalid for a call_sync), or the target object of a prepared
## request.
func register(on_done: Variant, timeout_ms: int, transform: Callable, msgid: int = -1) -> int:
	if msgid < 0:  # next_id(), inline: this runs for every request
		_next_msgid = 0 if _next_msgid >= MAX_MSGID else _next_msgid + 1
		msgid = _next_msgid
	_pending[msgid] = on_done
	if transform.is_valid():
		_transforms[msgid] = transform
	var deadline: int = Time.get_ticks_usec() + timeout_ms * 1000
	_deadlines[msgid] = deadline
	if _deadlines.size() == 1 or deadline < _next_deadline:
		_next_deadline = deadline
	return msgid


## Sets the transform of the answer to [param msgid].
func set_transform(msgid: int, transform: Callable) -> void:
	_transforms[msgid] = transform


## Stops waiting for [param msgid]; its answer, if one comes, is dropped.
func forget(msgid: int) -> void:
	_pending.erase(msgid)
	_deadlines.erase(msgid)


## Forgets [param msgid] and all kept of it (a request that was never sent: its owner is told
## by the caller).
func withdraw(msgid: int) -> void:
	forget(msgid)
	_transforms.erase(msgid)
	_done.erase(msgid)


## True once the response map of [param msgid] (a call_sync) is there.
func is_done(msgid: int) -> bool:
	return _done.has(msgid)


## The response map of a call_sync's [param msgid], no longer kept; empty if none came.
func take_done(msgid: int) -> Dictionary:
	var response: Dictionary = _done.get(msgid, {})
	_done.erase(msgid)
	return response


## The answer [code][1, msgid, error, result][/code] arrived; its owner gets it now (dropped
## when the request already timed out or failed).
func answer(msgid: int, error: Variant, result: Variant) -> void:
	if _pending.has(msgid):
		var target: Variant = _pending[msgid]
		forget(msgid)
		_deliver(target, msgid, {"error": error, "result": result})


## The outcome of [param msgid] that the connection's thread already transformed; its owner gets
## it now (dropped when the request already timed out or failed).
func deliver_transformed(msgid: int, value: Variant) -> void:
	var found: Variant = _pending.get(msgid)
	if found == null:
		return  # the request already timed out or failed
	_pending.erase(msgid)
	_deadlines.erase(msgid)
	_transforms.erase(msgid)
	if found is Callable:
		var on_done: Callable = found
		if on_done.is_valid():
			on_done.call(value)
	else:
		prepared_sink.call(found, value)


## Fails [param msgid], if it still waits, with [param code] and [param message].
func fail(msgid: int, code: String, message: String) -> void:
	if _pending.has(msgid):
		var target: Variant = _pending[msgid]
		forget(msgid)
		_deliver(target, msgid, error_response(code, message))


## Fails every waiting request with [param code] and [param message] (callbacks run now).
func fail_all(code: String, message: String) -> void:
	var pending: Dictionary = _pending
	_pending = {}
	_deadlines.clear()
	for msgid: int in pending:
		_deliver(pending[msgid], msgid, error_response(code, message))
	_transforms.clear()


## Fails with [code]"timeout"[/code] the requests past their deadline.
func expire() -> void:
	if _deadlines.is_empty():
		return
	var now: int = Time.get_ticks_usec()
	if now < _next_deadline:
		return
	var expired: Array[int] = []
	var soonest: int = 0
	for msgid: int in _deadlines:
		var deadline: int = _deadlines[msgid]
		if deadline <= now:
			expired.append(msgid)
		elif soonest == 0 or deadline < soonest:
			soonest = deadline
	_next_deadline = soonest
	for msgid: int in expired:
		var target: Variant = _pending.get(msgid, Callable())
		forget(msgid)
		# A call_sync enforces its own deadline; only asynchronous requests expire here.
		_deliver(target, msgid, error_response("timeout", "no answer in time (msgid %d)" % msgid))


# [param target]: what _pending held for [param msgid].
func _deliver(target: Variant, msgid: int, response: Dictionary) -> void:
	var transform: Callable = _transforms.get(msgid, Callable())
	_transforms.erase(msgid)
	if not target is Callable:
		prepared_sink.call(target, transformed(transform, response))
		return
	var on_done: Callable = target
	if on_done.is_valid():
		on_done.call(transformed(transform, response))
	else:
		_done[msgid] = response
