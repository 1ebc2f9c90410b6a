## Prints docs/settings.md from the addon's settings table
## (addons/astar_bridge/runtime/settings_table.gd), so the page can never disagree with what the
## plugin registers, then the members of
## [code]AStarBridge.config[/code] that no project setting holds (set from code). Run in any
## project holding the addon:
##   godot --headless --path tests/godot_project --script "$PWD/tools/godot/settings_doc.gd" \
##       | sed -n '/^# Project settings/,$p' > docs/settings.md
extends SceneTree

const BridgeConfig = preload("res://addons/astar_bridge/runtime/bridge_config.gd")
const SettingsTable = preload("res://addons/astar_bridge/runtime/settings_table.gd")
const HEADER := (
	"# Project settings\n\n"
	+ "Every setting of A* Bridge, under **Project Settings > General > Astar Bridge**. Godot shows no"
	+ " description for a plugin's settings (there is no API for one), so they are"
	+ " here and in the editor's **Debugger > A\\* Bridge** tab (hover a row). Generated from"
	+ " `addons/astar_bridge/runtime/settings_table.gd` by `tools/godot/settings_doc.gd`. The autoload"
	+ " reads them once, into `AStarBridge.config`; code may change that object: the"
	+ " connection's members count from the next start or restart, the others at once.\n\n"
	+ "| Setting | Default | What it does |\n|---|---|---|"
)
const CONFIG_HEADER := (
	"\n## Set from code only\n\n"
	+ "Members of `AStarBridge.config` that no project setting holds"
	+ " (`addons/astar_bridge/runtime/bridge_config.gd`).\n\n"
	+ "| `AStarBridge.config.` | Default | What it does |\n|---|---|---|"
)
# What each config member without a project setting does (tests/addon/test_settings_doc.py
# checks that every such member of bridge_config.gd is here).
const CONFIG_ONLY: Dictionary = {
	"max_in_flight":
	(
		"Most requests sent and not yet answered at once; more wait in the addon's queue, in"
		+ " order, until an answer makes room."
	),
	"io_thread":
	(
		"Write and read the socket on a thread of its own (requests leave and answers are cut"
		+ " off the main thread). Off: the main thread does it once a frame."
	),
	"batch_requests":
	(
		"The path requests of a frame (request_path, request_query) leave at its end as one"
		+ " message per graph and options map (path.find_packed on a grid), each still completing"
		+ " with its own result. Off: each request leaves as its own path.find."
	),
	"answers_in_frame":
	(
		"At the end of a frame that sent path requests, wait asleep (no CPU) for their answers"
		+ " while the frame has time to spare under `Engine.max_fps`, or the screen's refresh"
		+ " rate with V-Sync (up to 7/8 of the frame's budget, counted from its start), so quick"
		+ " answers complete in the frame they were asked in rather than the next. That time is"
		+ " what the engine's frame limiter would sleep anyway. Without a known budget (no"
		+ " max_fps and no V-Sync, or headless without max_fps) nothing waits. Off: answers"
		+ " complete at the first point of a later frame after they arrive."
	),
	"navmesh_ids":
	(
		"A frame's batched path requests on a 2D navmesh (request_path between two Vector2) come"
		+ " back with the polygons each path crosses in their result's ids. Off: ids stays empty"
		+ " for them (points, cost and status unchanged); on a big mesh the answer is then about"
		+ " a tenth of its size and a sixth cheaper to search. A lone request and find_path keep"
		+ " their ids."
	),
	"auto_restart":
	(
		"Restart a sidecar that died or stopped answering and re-upload every graph. Off:"
		+ " requests fail with not_connected until start() is called."
	),
	"report_failures":
	(
		"push_error / push_warning for each failed call (a load, an update, a re-upload, a"
		+ " path request that failed). Off for a game that reads every result itself. It does"
		+ " not cover no_path: see astar_bridge/debug/report_no_path."
	),
}


func _initialize() -> void:
	var lines: PackedStringArray = [HEADER]
	for row: Dictionary in SettingsTable.ROWS:
		var doc: String = str(row["doc"]).replace("|", "\\|")
		lines.append("| `%s` | %s | %s |" % [row["name"], _shown(row["default"]), doc])
	lines.append(CONFIG_HEADER)
	var defaults: BridgeConfig = BridgeConfig.new()
	for member: String in CONFIG_ONLY:
		var doc: String = str(CONFIG_ONLY[member]).replace("|", "\\|")
		lines.append("| `%s` | %s | %s |" % [member, _shown(defaults.get(member)), doc])
	print("\n".join(lines))
	quit()


static func _shown(value: Variant) -> String:
	if value is Color:
		var color: Color = value
		return "`Color(%.2f, %.2f, %.2f, %.2f)`" % [color.r, color.g, color.b, color.a]
	if value is String:
		return '`"%s"`' % value
	return "`%s`" % var_to_str(value)
