## One asynchronous path request of [code]AStarBridge.request_path()[/code] /
## [code]request_query()[/code] (or a batch of [code]request_paths()[/code]):
## [code]await request.wait()[/code] (a typed [code]AStarBridgePathResult[/code]; for a batch,
## [code]await request.wait_all()[/code]), which is safe whether or not the request already
## finished, or connect to [signal completed]. Do not [code]await request.completed[/code] on a
## request that may have finished already: a signal that fired before the await is never seen.
## [br][br]
## The result of a single request is
## [code]{"status": String, "points": PackedVector2Array or PackedVector3Array, "cost": float,
## "expanded": int, "error": Dictionary}[/code]; status is one of [code]"found"[/code],
## [code]"partial"[/code], [code]"no_path"[/code], [code]"budget_exhausted"[/code], or
## [code]"error"[/code] when the request failed, timed out or the sidecar died (then
## [code]"error"[/code] holds [code]{code, message, data}[/code], else it is empty). A batch's
## result is [code]{"status": "done" or "error", "results": Array, "error": Dictionary}[/code].
## [codeblock]
## var requests: Array[AStarBridgePathRequest] = []
## for npc in npcs:
##     requests.append(AStarBridge.request_path("level", npc.cell, goal))
## for i in requests.size():
##     var result: AStarBridgePathResult = await requests[i].wait()
##     if result.has_path():
##         npcs[i].follow(result.path)
## [/codeblock]
class_name AStarBridgePathRequest
extends RefCounted

## Emitted once, in the frame the answer (or the failure) arrived in, from the frame's deferred
## calls.
signal completed(result: Dictionary)

const PathResult = preload("res://addons/astar_bridge/api/path_result.gd")

## The result once [signal completed] was emitted, else empty.
var result: Dictionary = {}
## Time.get_ticks_usec() when the request was sent.
var sent_usec: int = 0


## True once the request completed (the result is in [member result]).
func is_done() -> bool:
	return not result.is_empty()


## Completes the request with [param outcome] (called by the autoload; only the first call counts).
func finish(outcome: Dictionary) -> void:
	if is_done():
		return
	result = outcome
	completed.emit(outcome)


## Gives up on the request (an NPC freed or with a new goal): it completes at once with status
## [code]"error"[/code] and error code [code]"cancelled"[/code], and its answer, if one comes, is
## ignored. One not sent yet (held until the end of the frame) is never sent. Does nothing when it
## already completed.
func cancel() -> void:
	finish(
		{
			"status": "error",
			"points": PackedVector2Array(),
			"ids": PackedInt64Array(),
			"cost": 0.0,
			"expanded": 0,
			"error": {"code": "cancelled", "message": "the request was cancelled", "data": {}},
		}
	)


## The result as a typed [code]AStarBridgePathResult[/code], once the request completed: at once
## when it already did, else after [signal completed]. Use with [code]await[/code].
func wait() -> PathResult:
	if not is_done():
		await completed
	return PathResult.new().fill(result)


## The results of a batch ([code]request_paths()[/code]), one typed result per query in order,
## once it completed (at once when it already did). Use with [code]await[/code].
func wait_all() -> Array[PathResult]:
	if not is_done():
		await completed
	var typed: Array[PathResult] = []
	var items: Variant = result.get("results", [])
	if items is Array:
		for item: Variant in items:
			var map: Dictionary = item if item is Dictionary else {}
			typed.append(PathResult.new().fill(map))
	return typed
