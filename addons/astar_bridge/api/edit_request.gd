## One asynchronous graph edit of [code]AStarBridge.request_cells_solid()[/code],
## [code]request_cells_weight()[/code], [code]request_point_disabled()[/code] or
## [code]request_update()[/code]: the game's frame goes on while the sidecar applies it (and
## repairs the grid's flow fields). [code]await request.wait()[/code] gives its
## [code]AStarBridgeResult[/code], and is safe whether or not the request already finished; or
## connect to [signal completed]. Requests on one graph take effect in the order they were made,
## before any path or field request made after them (in the same frame too).
## [br][br]
## The edit counts once it succeeded: then the autoload keeps it for a restart and emits
## [code]graph_updated[/code] / [code]graph_update_applied[/code] just before [signal completed].
## A failed edit (bad input, an unknown graph, the sidecar lost before it answered) changes
## nothing the autoload keeps; after a restart the graph is uploaded without it.
## [codeblock]
## var edit: AStarBridgeEditRequest = AStarBridge.request_cells_solid("level", [door], true)
## var result: AStarBridgeResult = await edit.wait()
## if not result.is_ok():
##     print(result.code, ": ", result.message)
## [/codeblock]
class_name AStarBridgeEditRequest
extends RefCounted

## Emitted once, from the deferred calls of the frame the answer (or the failure) arrived in.
signal completed(result: RefCounted)

# The script by path: the global class name is known only after Godot scanned the project.
const BridgeResult = preload("res://addons/astar_bridge/api/bridge_result.gd")

## The graph edited.
var graph: String = ""
## The result once [signal completed] was emitted, else null.
var result: BridgeResult = null
## Time.get_ticks_usec() when the edit was requested.
var sent_usec: int = 0


## True once the edit completed (the result is in [member result]).
func is_done() -> bool:
	return result != null


## Completes the edit with [param outcome] (called by the autoload; only the first call counts).
func finish(outcome: BridgeResult) -> void:
	if is_done():
		return
	result = outcome
	completed.emit(outcome)


## The result, once the edit completed: at once when it already did, else after
## [signal completed]. Use with [code]await[/code].
func wait() -> BridgeResult:
	if not is_done():
		await completed
	return result
