## The editor plugin of A* Bridge: enabling it registers the [code]AStarBridge[/code] autoload and
## the [code]astar_bridge/...[/code] project settings (with defaults and property hints), and has
## the editor scan the project so the addon's class names resolve at once; disabling it removes
## the autoload (the settings stay, as the user may have edited them). A project that lists the
## plugin in project.godot without ever enabling it in the editor gets the same when the editor
## loads the plugin. While enabled, an export plugin puts the self-contained sidecar beside
## exported games (export/sidecar_export_plugin.gd) and the Debugger panel has an "A* Bridge"
## tab (editor/debugger_plugin.gd).
@tool
extends EditorPlugin

const AUTOLOAD_NAME := "AStarBridge"
const AUTOLOAD_PATH := "res://addons/astar_bridge/astar_bridge.gd"
const EXPORT_MENU := "A* Bridge: Export Scene Graphs to res://graphs"
const EXPORT_FOLDER := "res://graphs"
const SceneGraphExporter = preload("res://addons/astar_bridge/export/scene_graph_exporter.gd")
const SettingsTable = preload("res://addons/astar_bridge/runtime/settings_table.gd")
const SidecarExportPlugin = preload("res://addons/astar_bridge/export/sidecar_export_plugin.gd")
const DebuggerPlugin = preload("res://addons/astar_bridge/editor/debugger_plugin.gd")

var _sidecar_export: EditorExportPlugin = null
var _debugger: EditorDebuggerPlugin = null


func _enter_tree() -> void:
	add_tool_menu_item(EXPORT_MENU, _export_edited_scene)
	_sidecar_export = SidecarExportPlugin.new()
	add_export_plugin(_sidecar_export)
	_debugger = DebuggerPlugin.new()
	add_debugger_plugin(_debugger)
	# Listed in project.godot but never enabled in this editor: Godot loads the plugin without
	# calling _enable_plugin, so the autoload and settings would be missing.
	_install()


func _exit_tree() -> void:
	remove_tool_menu_item(EXPORT_MENU)
	if _sidecar_export != null:
		remove_export_plugin(_sidecar_export)
		_sidecar_export = null
	if _debugger != null:
		remove_debugger_plugin(_debugger)
		_debugger = null


func _enable_plugin() -> void:
	_install()
	# The addon was just copied in: scan so its class_name types (AStarBridgeAgent2D, ...)
	# resolve in scripts without reopening the project.
	EditorInterface.get_resource_filesystem().scan()


## The debugger plugin behind the "A* Bridge" tab (for tests and screenshots), or null.
func get_debugger_plugin() -> EditorDebuggerPlugin:
	return _debugger


func _disable_plugin() -> void:
	remove_autoload_singleton(AUTOLOAD_NAME)


## Adds every project setting missing from the project, with its default and hint.
static func register_settings() -> void:
	SettingsTable.register_all()


# Adds the autoload and the settings where missing; saves project.godot only if it changed.
func _install() -> void:
	var changed: bool = not ProjectSettings.has_setting("autoload/" + AUTOLOAD_NAME)
	if changed:
		add_autoload_singleton(AUTOLOAD_NAME, AUTOLOAD_PATH)
	for row: Dictionary in SettingsTable.ROWS:
		changed = changed or not ProjectSettings.has_setting(str(row["name"]))
	register_settings()
	if changed:
		ProjectSettings.save()


## Project > Tools menu entry: writes a graph file for every TileMapLayer and navigation region of
## the scene open in the editor, for reachability tests in pytest (see the README).
func _export_edited_scene() -> void:
	var root: Node = EditorInterface.get_edited_scene_root()
	var written: PackedStringArray = SceneGraphExporter.export_scene(root, EXPORT_FOLDER)
	print("A* Bridge: wrote %d graph file(s): %s" % [written.size(), ", ".join(written)])
	EditorInterface.get_resource_filesystem().scan()
