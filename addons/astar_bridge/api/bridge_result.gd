## The outcome of a fallible A* Bridge call, in the manner of gdUnit4's [code]GdUnitResult[/code]:
## [method is_ok], an error [member code] (a protocol code such as [code]"unknown_graph"[/code],
## or a local one: [code]"timeout"[/code], [code]"disconnected"[/code],
## [code]"not_connected"[/code], [code]"encode_failed"[/code]), a [member message] and the
## [member value] of a success (the method's result map).
## [codeblock]
## var result: AStarBridgeResult = AStarBridge.load_grid("level", 8, 8, cells)
## if not result.is_ok():
##     print(result.code, ": ", result.message)
## else:
##     print(result.value["nodes"])
## [/codeblock]
class_name AStarBridgeResult
extends RefCounted

# The script itself by path: the global class name is known only after Godot has scanned the
# project, and the autoload must parse in a project that never was.
const BridgeResult = preload("bridge_result.gd")

## The result map of a success ([code]{}[/code] on failure).
var value: Variant = null
## The error code, or "" on success.
var code: String = ""
## A human sentence saying what went wrong, or "".
var message: String = ""
## The error's [code]data[/code] map (details such as the bad field), or empty.
var data: Dictionary = {}


## A success carrying [param result].
static func success(result: Variant) -> AStarBridgeResult:
	var made: AStarBridgeResult = BridgeResult.new()
	made.value = result
	return made


## A failure with [param error_code], [param error_message] and optional [param error_data].
static func failure(
	error_code: String, error_message: String, error_data: Dictionary = {}
) -> AStarBridgeResult:
	var made: AStarBridgeResult = BridgeResult.new()
	made.code = error_code
	made.message = error_message
	made.data = error_data
	return made


## A result from an RPC response map
## [code]{"error": null or {code, message, data}, "result": Variant}[/code].
static func from_response(response: Dictionary) -> AStarBridgeResult:
	var error: Variant = response.get("error")
	if error == null:
		return success(response.get("result"))
	if error is Dictionary:
		var map: Dictionary = error
		var details: Variant = map.get("data", {})
		return failure(str(map.get("code", "error")), str(map.get("message", "")), _as_map(details))
	return failure("error", str(error))


static func _as_map(details: Variant) -> Dictionary:
	if details is Dictionary:
		var map: Dictionary = details
		return map
	return {"data": details}


## True when the call succeeded.
func is_ok() -> bool:
	return code.is_empty()


## True when the call failed.
func is_error() -> bool:
	return not code.is_empty()


## The error as the wire map [code]{"code", "message", "data"}[/code]; [code]{}[/code] on success.
func error_map() -> Dictionary:
	if is_ok():
		return {}
	return {"code": code, "message": message, "data": data}


func _to_string() -> String:
	if is_ok():
		return "AStarBridgeResult(ok, %s)" % str(value)
	return "AStarBridgeResult(%s: %s)" % [code, message]
