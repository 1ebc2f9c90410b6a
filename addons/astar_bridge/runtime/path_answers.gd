## How the answers of the autoload's asynchronous path requests reach them: the transforms that
## turn a response into result maps (run on the connection's thread with io_thread), and the
## deferred call that completes the frame's answered requests. Static functions' lambdas: no
## [code]self[/code], safe on another thread, and still valid when the autoload (and its request
## queue) was freed before they ran, as requests do not depend on the queue.
extends RefCounted

const BridgeStats = preload("res://addons/astar_bridge/runtime/bridge_stats.gd")
const PathRequest = preload("res://addons/astar_bridge/api/path_request.gd")
const PathWire = preload("res://addons/astar_bridge/runtime/path_wire.gd")


## A path.find response -> the result map of a [param dim]-dimensional path.
static func path_transform(dim: int) -> Callable:
	return func(response: Dictionary) -> Dictionary: return PathWire.path_result(response, dim)


## A path.find_many response -> [code]{"status", "results", "error"}[/code].
static func batch_transform(dims: PackedInt32Array) -> Callable:
	return func(response: Dictionary) -> Dictionary: return PathWire.batch_result(response, dims)


## A path.find_packed response of [param count] queries -> the same.
static func packed_transform(count: int) -> Callable:
	return func(response: Dictionary) -> Dictionary: return PathWire.packed_result(response, count)


## The callback of a message of held requests: each of [param requests] gets its own result of
## the answer (or the message's failure), completed with the frame's other answers by the
## [method finisher] of [param answered] and [param answers] (see there).
static func splitter(
	requests: Array[PathRequest],
	dims: PackedInt32Array,
	answered: Array[PathRequest],
	answers: Array[Dictionary],
	counters: BridgeStats,
	usec: Array[int]
) -> Callable:
	return func(outcome: Dictionary) -> void:
		var given: Variant = outcome.get("results")
		var results: Array = given if given is Array else []
		if answered.is_empty():
			finisher(counters, answered, answers, usec).call_deferred()
		if results.size() == requests.size():  # the transforms' answer: one map a query
			answered.append_array(requests)
			answers.append_array(results)
			return
		for i: int in requests.size():
			var item: Variant = results[i] if i < results.size() else null
			var result: Dictionary = (
				item
				if item is Dictionary
				else PathWire.error_result("bad_response", "no answer for this query", dims[i])
			)
			answered.append(requests[i])
			answers.append(result)


## The deferred call that completes [param requests] with [param outcomes] and empties both (a
## request answered meanwhile goes into the next call): it runs even when the autoload was freed
## meanwhile (a handler may free it, or stop() and free() fail pending requests and go).
## [param counters] records each latency; [param usec] (a box) adds the main-thread time.
static func finisher(
	counters: BridgeStats,
	requests: Array[PathRequest],
	outcomes: Array[Dictionary],
	usec: Array[int]
) -> Callable:
	return func() -> void:
		var started: int = Time.get_ticks_usec()
		var finishing: Array[PathRequest] = requests.duplicate()
		var results: Array[Dictionary] = outcomes.duplicate()
		requests.clear()  # answers from now on go into the next call
		outcomes.clear()
		counters.record_all(started, finishing, results)
		usec[0] += Time.get_ticks_usec() - started
		for i: int in finishing.size():
			finishing[i].finish(results[i])  # emits completed
