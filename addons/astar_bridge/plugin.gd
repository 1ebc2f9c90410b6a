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
const SettingsTable = preload("res://addons/astar_bridge/settings_table.gd")
const SidecarExportPlugin = preload("res://addons/astar_bridge/export/sidecar_export_plugin.gd")

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


## Adds every project setting missing from the project, with its default and hint.
static func register_settings() -> void:
	SettingsTable.register_all()


## Project > Tools menu entry: writes a graph file for every TileMapLayer and navigation region of
## the scene open in the editor, for reachability tests in pytest (see the README).
func _export_edited_scene() -> void:
	var root: Node = EditorInterface.get_edited_scene_root()
	var written: PackedStringArray = SceneGraphExporter.export_scene(root, EXPORT_FOLDER)
	print("A* Bridge: wrote %d graph file(s): %s" % [written.size(), ", ".join(written)])
	EditorInterface.get_resource_filesystem().scan()
