## Prints docs/settings.md from the addon's settings table (addons/astar_bridge/settings_table.gd),
## so the page can never disagree with what the plugin registers. Run in any project holding the
## addon:
##   godot --headless --path tests/godot_project --script "$PWD/tools/godot/settings_doc.gd" \
##       | sed -n '/^# Project settings/,$p' > docs/settings.md
extends SceneTree

const SettingsTable = preload("res://addons/astar_bridge/settings_table.gd")
const HEADER := (
	"# Project settings\n\n"
	+ "Every setting of A* Bridge, under **Project Settings > General > Astar Bridge**. Godot shows no"
	+ " description for a plugin's settings (there is no API for one), so they are"
	+ " here and in the editor's **Debugger > A\\* Bridge** tab (hover a row). Generated from"
	+ " `addons/astar_bridge/settings_table.gd` by `tools/godot/settings_doc.gd`.\n\n"
	+ "| Setting | Default | What it does |\n|---|---|---|"
)


func _initialize() -> void:
	var lines: PackedStringArray = [HEADER]
	for row: Dictionary in SettingsTable.ROWS:
		var doc: String = str(row["doc"]).replace("|", "\\|")
		lines.append("| `%s` | %s | %s |" % [row["name"], _shown(row["default"]), doc])
	print("\n".join(lines))
	quit()


static func _shown(value: Variant) -> String:
	if value is Color:
		var color: Color = value
		return "`Color(%.2f, %.2f, %.2f, %.2f)`" % [color.r, color.g, color.b, color.a]
	if value is String:
		return '`"%s"`' % value
	return "`%s`" % var_to_str(value)
