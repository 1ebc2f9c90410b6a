## One asynchronous path request of [code]AStarBridge.request_path()[/code] (or a batch of
## [code]request_paths()[/code]): [code]await[/code] its [signal completed] signal, or connect
## to it.
## [br][br]
## The result of a single request is
## [code]{"status": String, "points": PackedVector2Array or PackedVector3Array, "cost": float,
## "expanded": int, "error": Dictionary}[/code]; status is one of [code]"found"[/code],
## [code]"partial"[/code], [code]"no_path"[/code], [code]"budget_exhausted"[/code], or
## [code]"error"[/code] when the request failed, timed out or the sidecar died (then
## [code]"error"[/code] holds [code]{code, message, data}[/code], else it is empty). A batch's
## result is [code]{"status": "done" or "error", "results": Array, "error": Dictionary}[/code].
## [codeblock]
## var request: AStarBridgePathRequest = AStarBridge.request_path("level", from, to)
## var result: Dictionary = await request.completed
## if result["status"] == "found":
##     follow(result["points"])
## [/codeblock]
class_name AStarBridgePathRequest
extends RefCounted

## Emitted once, in the frame the answer (or the failure) arrived in, from the frame's deferred
## calls.
signal completed(result: Dictionary)

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
