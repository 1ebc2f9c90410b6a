## The "A* Bridge" tab of the editor's Debugger panel: the running game's sidecar (phase, process
## id, port, last error), its loaded graphs (id, kind and size), requests per second and
## latency ([code]AStarBridge.get_stats()[/code]), refreshed from the game's messages; and the
## addon's project settings with their descriptions (Godot shows none for a plugin's settings).
@tool
extends VBoxContainer

const SettingsTable = preload("res://addons/astar_bridge/runtime/settings_table.gd")

## The last state shown ({} before the first message).
var last_state: Dictionary = {}

var _status: Label = Label.new()
var _error: Label = Label.new()
var _stats: Label = Label.new()
var _graphs: Tree = Tree.new()
var _settings: Tree = Tree.new()


func _init() -> void:
	name = "A* Bridge"
	size_flags_vertical = Control.SIZE_EXPAND_FILL
	_status.text = "Waiting for the game (run it from the editor)."
	_error.modulate = Color(1.0, 0.55, 0.5)
	_error.autowrap_mode = TextServer.AUTOWRAP_WORD_SMART
	_error.visible = false
	add_child(_status)
	add_child(_error)
	add_child(_stats)
	var split := HSplitContainer.new()
	split.size_flags_vertical = Control.SIZE_EXPAND_FILL
	add_child(split)
	_setup_tree(_graphs, ["Graph", "Kind and size"])
	_setup_tree(_settings, ["Setting", "Value", "What it does"])
	_graphs.custom_minimum_size = Vector2(260, 120)
	_settings.size_flags_stretch_ratio = 2.5
	split.add_child(_graphs)
	split.add_child(_settings)
	_fill_settings()


func _enter_tree() -> void:
	if not ProjectSettings.settings_changed.is_connected(_fill_settings):
		ProjectSettings.settings_changed.connect(_fill_settings)


func _exit_tree() -> void:
	if ProjectSettings.settings_changed.is_connected(_fill_settings):
		ProjectSettings.settings_changed.disconnect(_fill_settings)


## Shows [param state], a debugger_reporter.gd snapshot.
func show_state(state: Dictionary) -> void:
	last_state = state
	_status.text = (
		"Sidecar: %s   pid %s   port %s"
		% [state.get("phase", "?"), state.get("pid", "?"), state.get("port", "?")]
	)
	var error: String = str(state.get("last_error", ""))
	_error.text = "" if error.is_empty() else "Last error: %s" % error
	_error.visible = not error.is_empty()
	var stats: Dictionary = state.get("stats", {})
	_stats.text = (
		(
			"Paths/s %.0f   latency mean %.2f ms  p50 %.2f ms  p99 %.2f ms   requests %d"
			+ "   failures %d   pending %d   restarts %d"
		)
		% [
			stats.get("paths_per_second", 0.0),
			stats.get("latency_ms_mean", 0.0),
			stats.get("latency_ms_p50", 0.0),
			stats.get("latency_ms_p99", 0.0),
			stats.get("requests", 0),
			stats.get("failures", 0),
			stats.get("pending", 0),
			stats.get("restarts", 0),
		]
	)
	_graphs.clear()
	var root: TreeItem = _graphs.create_item()
	var graphs: Array = state.get("graphs", [])
	for graph: Variant in graphs:
		if graph is Dictionary:
			var row: TreeItem = _graphs.create_item(root)
			var entry: Dictionary = graph
			row.set_text(0, str(entry.get("id", "")))
			row.set_text(1, str(entry.get("summary", "")))


## Marks the game as stopped (the session ended); the last state stays readable.
func show_stopped() -> void:
	_status.text = "Game stopped. " + _status.text


## The rows shown in the graphs tree, as "id: summary" (for tests).
func graph_rows() -> PackedStringArray:
	var rows := PackedStringArray()
	var root: TreeItem = _graphs.get_root()
	if root == null:
		return rows
	for row: TreeItem in root.get_children():
		rows.append("%s: %s" % [row.get_text(0), row.get_text(1)])
	return rows


func _fill_settings() -> void:
	_settings.clear()
	var root: TreeItem = _settings.create_item()
	for row: Dictionary in SettingsTable.ROWS:
		var key: String = row["name"]
		var item: TreeItem = _settings.create_item(root)
		item.set_text(0, key.trim_prefix("astar_bridge/"))
		var shown: Variant = SettingsTable.value(key)
		item.set_text(1, "(hidden)" if row["hint"] == PROPERTY_HINT_PASSWORD else str(shown))
		item.set_text(2, str(row["doc"]))
		for column: int in 3:
			item.set_tooltip_text(column, "%s\n%s" % [key, row["doc"]])


static func _setup_tree(tree: Tree, titles: PackedStringArray) -> void:
	tree.columns = titles.size()
	tree.column_titles_visible = true
	tree.hide_root = true
	tree.size_flags_horizontal = Control.SIZE_EXPAND_FILL
	tree.size_flags_vertical = Control.SIZE_EXPAND_FILL
	for column: int in titles.size():
		tree.set_column_title(column, titles[column])
		tree.set_column_expand(column, column == titles.size() - 1)
		tree.set_column_custom_minimum_width(column, 140)
