## What the autoload adds under itself for debugging, from its [code]_ready[/code]: the debug
## drawing (debug_draw.gd) when [code]astar_bridge/debug/enabled[/code] is on or the game runs
## with Debug > Visible Navigation ([code]--debug-navigation[/code]), and the editor debugger's
## reporter (debugger_reporter.gd) when the game runs under the editor's debugger. Nothing in
## a release export (the drawing is a debug feature; [code]OS.is_debug_build()[/code]).
extends RefCounted

const SettingsTable = preload("res://addons/astar_bridge/runtime/settings_table.gd")
const DebugDraw = preload("res://addons/astar_bridge/debug/debug_draw.gd")
const DebuggerReporter = preload("res://addons/astar_bridge/debug/debugger_reporter.gd")


## Adds the debug nodes [param bridge] (the autoload) needs, if any.
static func attach(bridge: Node) -> void:
	if not OS.is_debug_build():
		return
	if wants_drawing(bridge.get_tree()):
		bridge.add_child(DebugDraw.new(bridge))
	if EngineDebugger.is_active():
		bridge.add_child(DebuggerReporter.new(bridge))


## True when the project setting, or the engine's Visible Navigation debug of [param tree],
## asks for the debug drawing.
static func wants_drawing(tree: SceneTree) -> bool:
	var enabled: bool = SettingsTable.value("astar_bridge/debug/enabled")
	return enabled or (tree != null and tree.debug_navigation_hint)
