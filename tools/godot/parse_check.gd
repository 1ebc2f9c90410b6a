## Loads every .gd under res:// so the engine parses and analyses it; errors go to the log.
## With "--list-warnings" it instead prints the warning settings that are at level "warn".
extends SceneTree


func _initialize() -> void:
	if OS.get_cmdline_user_args().has("--list-warnings"):
		_list_warnings()
	else:
		var files: PackedStringArray = _find_scripts("res://")
		for path: String in files:
			if load(path) == null:
				printerr("parse_check: could not load %s" % path)
		print("parse_check: loaded %d scripts" % files.size())
	quit(0)


func _list_warnings() -> void:
	for prop: Dictionary in ProjectSettings.get_property_list():
		var key: String = prop["name"]
		var value: Variant = ProjectSettings.get_setting(key)
		if key.begins_with("debug/gdscript/warnings/") and value is int and value == 1:
			print("WARN_SETTING %s" % key.trim_prefix("debug/"))


func _find_scripts(folder: String) -> PackedStringArray:
	var found: PackedStringArray = PackedStringArray()
	var dir: DirAccess = DirAccess.open(folder)
	if dir == null:
		return found
	for sub: String in dir.get_directories():
		if not sub.begins_with("."):
			found.append_array(_find_scripts(folder.path_join(sub)))
	for file: String in dir.get_files():
		if file.ends_with(".gd"):
			found.append(folder.path_join(file))
	return found
