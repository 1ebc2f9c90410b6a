## The game side of the editor's A* Bridge debugger tab: while the game runs under the editor's
## debugger ([method EngineDebugger.is_active]), sends [constant MESSAGE] a few times a second
## with the autoload's state (see [method snapshot]). Sends nothing otherwise.
extends Node

## The message name; the editor plugin captures the [code]astar_bridge[/code] prefix.
const MESSAGE := "astar_bridge:state"
## Seconds between two messages.
const PERIOD_S := 0.25
const GraphShapes = preload("res://addons/astar_bridge/debug/graph_shapes.gd")

## Messages sent so far (for tests).
var sent: int = 0

var _bridge: Node = null
var _clock: float = 0.0


func _init(bridge: Node) -> void:
	name = "AStarBridgeDebuggerReporter"
	_bridge = bridge


func _process(delta: float) -> void:
	_clock -= delta
	if _clock > 0.0:
		return
	_clock = PERIOD_S
	if EngineDebugger.is_active():
		EngineDebugger.send_message(MESSAGE, [snapshot(_bridge)])
		sent += 1


## What the debugger tab shows of [param bridge] (the autoload):
## [code]{"phase", "pid", "port", "last_error", "graphs": [{"id", "summary"}], "stats"}[/code],
## [code]stats[/code] being [code]AStarBridge.get_stats()[/code] and [code]summary[/code] the
## graph's kind and size ("grid 64 x 48").
static func snapshot(bridge: Node) -> Dictionary:
	var graphs: Array[Dictionary] = []
	var ids: PackedStringArray = bridge.call("get_graph_ids")
	for id: String in ids:
		var loaded: Dictionary = bridge.call("get_graph_load", id)
		var params: Dictionary = loaded.get("params", {})
		graphs.append({"id": id, "summary": GraphShapes.summary(str(loaded.get("method")), params)})
	return {
		"phase": _phase_name(bridge, bridge.call("get_phase")),
		"pid": bridge.call("get_sidecar_pid"),
		"port": bridge.call("get_sidecar_port"),
		"last_error": bridge.call("get_last_error"),
		"graphs": graphs,
		"stats": bridge.call("get_stats"),
	}


# The name of phase [param phase] in the autoload's own Phase enum ("READY"), or its number.
static func _phase_name(bridge: Node, phase: Variant) -> String:
	var script: Script = bridge.get_script()
	if script != null:
		var phases: Variant = script.get_script_constant_map().get("Phase")
		if phases is Dictionary:
			var names: Dictionary = phases
			for phase_name: Variant in names:
				if names[phase_name] == phase:
					return str(phase_name)
	return str(phase)
