## The editor plugin of A* Bridge: enabling it registers the [code]AStarBridge[/code] autoload and
## the [code]astar_bridge/...[/code] project settings (with defaults and property hints);
## disabling it removes the autoload (the settings stay, as the user may have edited them). While
## enabled, an export plugin puts the self-contained sidecar beside exported games
## (export/sidecar_export_plugin.gd).
@tool
extends EditorPlugin

const AUTOLOAD_NAME := "AStarBridge"
const AUTOLOAD_PATH := "res://addons/astar_bridge/astar_bridge.gd"
const EXPORT_MENU := "A* Bridge: Export Scene Graphs to res://graphs"
const EXPORT_FOLDER := "res://graphs"
const SceneGraphExporter = preload("res://addons/astar_bridge/export/scene_graph_exporter.gd")
const SidecarExportPlugin = preload("res://addons/astar_bridge/export/sidecar_export_plugin.gd")

## [name, default, type, hint, hint_string] of every project setting the autoload reads.
## [code]sidecar/token[/code]: the environment variable [code]ASTAR_BRIDGE_TOKEN[/code] wins over
## it, so a token need not be committed in project.godot (docs/shipping.md).
## [code]timeouts/heartbeat_ms[/code]: a cheap request after that long without news from the
## sidecar; [code]timeouts/unresponsive_ms[/code]: a sidecar that answers nothing for that long
## while a request waits is restarted (0 turns either off).
const SETTINGS: Array[Array] = [
	["astar_bridge/sidecar/python_executable", "python3", TYPE_STRING, PROPERTY_HINT_NONE, ""],
	["astar_bridge/sidecar/autostart", true, TYPE_BOOL, PROPERTY_HINT_NONE, ""],
	["astar_bridge/sidecar/host", "127.0.0.1", TYPE_STRING, PROPERTY_HINT_NONE, ""],
	["astar_bridge/sidecar/port", 0, TYPE_INT, PROPERTY_HINT_RANGE, "0,65535"],
	["astar_bridge/sidecar/token", "", TYPE_STRING, PROPERTY_HINT_PASSWORD, ""],
	["astar_bridge/sidecar/extra_arguments", [], TYPE_PACKED_STRING_ARRAY, PROPERTY_HINT_NONE, ""],
	["astar_bridge/timeouts/request_ms", 2000, TYPE_INT, PROPERTY_HINT_RANGE, "1,600000,suffix:ms"],
	["astar_bridge/timeouts/connect_ms", 5000, TYPE_INT, PROPERTY_HINT_RANGE, "1,600000,suffix:ms"],
	["astar_bridge/timeouts/load_ms", 30000, TYPE_INT, PROPERTY_HINT_RANGE, "1,600000,suffix:ms"],
	[
		"astar_bridge/timeouts/heartbeat_ms",
		2000,
		TYPE_INT,
		PROPERTY_HINT_RANGE,
		"0,600000,suffix:ms"
	],
	[
		"astar_bridge/timeouts/unresponsive_ms",
		5000,
		TYPE_INT,
		PROPERTY_HINT_RANGE,
		"0,600000,suffix:ms"
	],
]

var _sidecar_export: EditorExportPlugin = null


func _enter_tree() -> void:
	add_tool_menu_item(EXPORT_MENU, _export_edited_scene)
	_sidecar_export = SidecarExportPlugin.new()
	add_export_plugin(_sidecar_export)


func _exit_tree() -> void:
	remove_tool_menu_item(EXPORT_MENU)
	if _sidecar_export != null:
		remove_export_plugin(_sidecar_export)
		_sidecar_export = null


func _enable_plugin() -> void:
	add_autoload_singleton(AUTOLOAD_NAME, AUTOLOAD_PATH)
	register_settings()
	ProjectSettings.save()


func _disable_plugin() -> void:
	remove_autoload_singleton(AUTOLOAD_NAME)


## Adds every [constant SETTINGS] entry missing from the project, with its default and hint.
static func register_settings() -> void:
	for entry: Array in SETTINGS:
		var key: String = entry[0]
		var default: Variant = entry[1]
		if entry[2] == TYPE_PACKED_STRING_ARRAY:
			default = PackedStringArray()
		if not ProjectSettings.has_setting(key):
			ProjectSettings.set_setting(key, default)
		ProjectSettings.set_initial_value(key, default)
		ProjectSettings.add_property_info(
			{"name": key, "type": entry[2], "hint": entry[3], "hint_string": entry[4]}
		)
		ProjectSettings.set_as_basic(key, true)


## Project > Tools menu entry: writes a graph file for every TileMapLayer and navigation region of
## the scene open in the editor, for reachability tests in pytest (see the README).
func _export_edited_scene() -> void:
	var root: Node = EditorInterface.get_edited_scene_root()
	var written: PackedStringArray = SceneGraphExporter.export_scene(root, EXPORT_FOLDER)
	print("A* Bridge: wrote %d graph file(s): %s" % [written.size(), ", ".join(written)])
	EditorInterface.get_resource_filesystem().scan()
