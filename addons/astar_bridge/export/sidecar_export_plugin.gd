## Puts the self-contained sidecar beside an exported game, so that players need no Python: on
## export it copies [code]<sidecar folder>/<platform>/astar-bridge-sidecar/[/code] into the
## export's folder, where the autoload looks first. The sidecar folder is the export option
## [code]astar_bridge/sidecar_folder[/code] of each preset (relative to the project folder;
## default [code]build/sidecar[/code], which [code]tools/bundle.sh[/code] fills); when it has
## no bundle for the platform, the one inside the addon
## ([code]res://addons/astar_bridge/sidecar/[/code], a release zip's) is copied. The frozen
## program never goes into the pack (a [code].gdignore[/code] keeps it out of the import).
## Without a bundle for the export's platform it warns (the game would then need Python on the
## player's machine) and exports the game anyway.
@tool
extends EditorExportPlugin

const OPTION := "astar_bridge/sidecar_folder"
const DEFAULT_FOLDER := "build/sidecar"
## The bundle's folder name, beside the exported executable or pack.
const BUNDLE := "astar-bridge-sidecar"
## The release's in-addon sidecars (see rpc/sidecar_process.gd).
const ADDON_SIDECARS := "res://addons/astar_bridge/sidecar"
## The in-addon copy's marker (it runs from the user's cache); a game's copy unpacks in place.
const RUN_FROM_CACHE := "run-from-cache"
const OSES: Array[String] = ["linux", "windows", "macos"]
const ARCHES: Array[String] = ["x86_64", "arm64", "x86_32", "arm32", "rv64"]


func _get_name() -> String:
	return "AStarBridgeSidecar"


func _get_export_options(_platform: EditorExportPlatform) -> Array[Dictionary]:
	return [
		{
			"option": {"name": OPTION, "type": TYPE_STRING, "hint": PROPERTY_HINT_GLOBAL_DIR},
			"default_value": DEFAULT_FOLDER,
		}
	]


func _export_begin(features: PackedStringArray, _is_debug: bool, path: String, _flags: int) -> void:
	var tag: String = platform_tag(features)
	var folder: Variant = get_option(OPTION)
	var configured: String = bundle_source(str(folder) if folder != null else DEFAULT_FOLDER, tag)
	var in_addon: String = bundle_source(ADDON_SIDECARS, tag)
	var source: String = configured
	if not DirAccess.dir_exists_absolute(configured) and DirAccess.dir_exists_absolute(in_addon):
		source = in_addon
	var target: String = path.get_base_dir().path_join(BUNDLE)
	if tag.is_empty():
		push_warning(
			(
				(
					"A* Bridge: exporting for %s, which cannot start the sidecar (a separate"
					+ " process: only Linux, Windows and macOS exports get one), so no sidecar is"
					+ " copied; the game must connect to a sidecar elsewhere (autostart off)."
				)
				% ", ".join(features)
			)
		)
		return
	if not DirAccess.dir_exists_absolute(source):
		var root: String = source.get_base_dir().get_base_dir()
		var found: PackedStringArray = (
			DirAccess.get_directories_at(root)
			if DirAccess.dir_exists_absolute(root)
			else PackedStringArray()
		)
		push_warning(
			(
				(
					"A* Bridge: no sidecar bundle for %s: neither %s nor %s exists (bundles found"
					+ " in %s: %s). The exported game will need Python and the project's packages"
					+ " on the player's machine. Install the %s release of the addon, or build the"
					+ " bundle on a %s machine with tools/bundle.sh (docs/shipping.md) and point"
					+ " the preset's export option %s at its folder."
				)
				% [
					tag,
					configured,
					in_addon,
					root,
					", ".join(found) if not found.is_empty() else "none",
					tag,
					tag,
					OPTION
				]
			)
		)
		return
	var err: Error = copy_folder(source, target)
	var program: String = target.path_join(BUNDLE + (".exe" if tag.begins_with("windows") else ""))
	if err == OK and not tag.begins_with("windows"):
		# Godot's asset installer drops the mode of the files it unzips.
		err = FileAccess.set_unix_permissions(program, 0x1ED)  # rwxr-xr-x
	if err != OK:
		push_error(
			(
				"A* Bridge: copying the sidecar %s to %s failed: %s"
				% [source, target, error_string(err)]
			)
		)
		return
	print("A* Bridge: sidecar for %s copied to %s" % [tag, target])


## [code]linux-x86_64[/code], [code]windows-x86_64[/code], [code]macos-arm64[/code]... from an
## export's features ("" when they name no known OS).
static func platform_tag(features: PackedStringArray) -> String:
	var os_name: String = ""
	for name: String in OSES:
		if name in features:
			os_name = name
	if os_name.is_empty():
		return ""
	for arch: String in ARCHES:
		if arch in features:
			return "%s-%s" % [os_name, arch]
	return "%s-x86_64" % os_name


## The bundle folder for [param tag] under [param folder] (relative to the project folder, or
## absolute, or [code]res://[/code]).
static func bundle_source(folder: String, tag: String) -> String:
	var base: String = folder
	if base.begins_with("res://") or base.is_relative_path():
		var project: String = ProjectSettings.globalize_path("res://")
		base = project.path_join(base.trim_prefix("res://"))
	return base.path_join(tag).path_join(BUNDLE).simplify_path()


## Copies [param from] into [param to] recursively, keeping each file's Unix permissions (the
## program must stay executable) and symbolic links as links, without the in-addon copy's
## [constant RUN_FROM_CACHE] marker; a previous copy at [param to] is replaced file by file.
static func copy_folder(from: String, to: String) -> Error:
	var err: Error = DirAccess.make_dir_recursive_absolute(to)
	if err != OK:
		return err
	var dir: DirAccess = DirAccess.open(from)
	if dir == null:
		return DirAccess.get_open_error()
	var into: DirAccess = DirAccess.open(to)
	if into == null:
		return DirAccess.get_open_error()
	dir.include_hidden = true
	for file: String in dir.get_files():
		if file == RUN_FROM_CACHE:
			continue
		var source: String = from.path_join(file)
		var target: String = to.path_join(file)
		if dir.is_link(file):  # PyInstaller links some libraries to their wheel's copy
			if into.file_exists(file) or into.is_link(file):
				into.remove(file)
			err = into.create_link(dir.read_link(file), target)
		else:
			var mode: int = FileAccess.get_unix_permissions(source)
			err = DirAccess.copy_absolute(source, target, mode if mode > 0 else -1)
		if err != OK:
			return err
	for sub: String in dir.get_directories():
		err = copy_folder(from.path_join(sub), to.path_join(sub))
		if err != OK:
			return err
	return OK
