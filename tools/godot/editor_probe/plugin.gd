## An editor plugin for tests and screenshots (copied into a project next to the A* Bridge addon,
## listed after it in project.godot): once the editor has settled it prints what the A* Bridge
## plugin installed ("probe: autoload ...", "probe: settings ...", "probe: class ..."); with
## [code]-- --probe-screenshot=<png>[/code] it brings up the Debugger panel on its "A* Bridge"
## tab and saves the editor window; with [code]--probe-play[/code] it first runs the project's
## main scene as the Run button (F5) does, which starts [method OS.get_executable_path] again;
## with [code]--probe-wait-game[/code] it waits (up to [constant GAME_TIMEOUT_S]) for a game
## connected to the editor's debugger to report a loaded graph and answered requests, and prints
## that state ("probe: state <json>"). Then it stops the game it ran and quits.
@tool
extends EditorPlugin

const PANEL_SCRIPT := "res://addons/astar_bridge/editor/debugger_panel.gd"
const TABLE_SCRIPT := "res://addons/astar_bridge/runtime/settings_table.gd"
const SETTLE_S := 2.0
const GAME_TIMEOUT_S := 120.0


func _enter_tree() -> void:
	_run.call_deferred()


func _run() -> void:
	var args: PackedStringArray = OS.get_cmdline_user_args()
	await _seconds(SETTLE_S)
	while EditorInterface.get_resource_filesystem().is_scanning():
		await _seconds(0.2)
	_report_install()
	var screenshot: String = ""
	for arg: String in args:
		if arg.begins_with("--probe-screenshot="):
			screenshot = arg.get_slice("=", 1)
	if "--probe-play" in args:
		EditorInterface.play_main_scene()
		print("probe: run main scene, playing %s" % EditorInterface.is_playing_scene())
	if "--probe-wait-game" in args:
		await _wait_for_game()
	if not screenshot.is_empty():
		await _screenshot(screenshot)
	if EditorInterface.is_playing_scene():
		EditorInterface.stop_playing_scene()
	get_tree().quit()


func _report_install() -> void:
	print("probe: autoload %s" % ProjectSettings.get_setting("autoload/AStarBridge", "<none>"))
	var table: GDScript = load(TABLE_SCRIPT)
	var rows: Array = table.get_script_constant_map()["ROWS"]
	var missing: PackedStringArray = []
	for row: Dictionary in rows:
		if not ProjectSettings.has_setting(str(row["name"])):
			missing.append(str(row["name"]))
	print("probe: settings %d rows, missing [%s]" % [rows.size(), ", ".join(missing)])
	var found: bool = false
	for entry: Dictionary in ProjectSettings.get_global_class_list():
		found = found or str(entry["class"]) == "AStarBridgeAgent2D"
	print("probe: class AStarBridgeAgent2D %s" % ("resolved" if found else "missing"))


func _wait_for_game() -> void:
	var state: Dictionary = {}
	var waited: float = 0.0
	while waited < GAME_TIMEOUT_S:
		var panel: Control = _find_panel()
		if panel != null:
			state = panel.get("last_state")
			var graphs: Array = state.get("graphs", [])
			var stats: Dictionary = state.get("stats", {})
			var requests: int = stats.get("requests", 0)
			if not graphs.is_empty() and requests > 0:
				await _seconds(3.0)  # a few more messages: paths/s over a full second
				state = panel.get("last_state")
				break
		await _seconds(0.25)
		waited += 0.25
	print("probe: state %s" % JSON.stringify(state))


func _screenshot(path: String) -> void:
	var panel: Control = _find_panel()
	print("probe: debugger tab %s" % ("found" if panel != null else "missing"))
	if panel == null:
		return
	_reveal(panel)
	await _seconds(1.0)
	var image: Image = get_viewport().get_texture().get_image()
	print("probe: screenshot %s" % error_string(image.save_png(path)))


func _find_panel() -> Control:
	for node: Node in EditorInterface.get_base_control().find_children("*", "Control", true, false):
		var script: Script = node.get_script()
		if script != null and script.resource_path == PANEL_SCRIPT:
			return node
	return null


# Makes every hidden ancestor of the panel visible and selects it in every TabContainer, which
# brings up the Debugger bottom panel on its "A* Bridge" tab.
func _reveal(panel: Control) -> void:
	var child: Node = panel
	var parent: Node = panel.get_parent()
	while parent != null:
		if parent is TabContainer:
			var tabs: TabContainer = parent
			tabs.current_tab = child.get_index()
		if child is Control and not (child as Control).visible:
			(child as Control).show()
		child = parent
		parent = parent.get_parent()


func _seconds(duration: float) -> void:
	await get_tree().create_timer(duration).timeout
