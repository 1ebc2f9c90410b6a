## Headless GDScript test runner: loads every test_*.gd under a folder, runs its test_* methods,
## reports failures with file and line, and ends with one line "N passed, N failed".
## Usage: godot --headless --path <project> --script res://runner/run_tests.gd
##        [-- <res://dir> [method filter]]
## Exit code: 0 only when every test passed, at least one ran and every script loaded.
extends SceneTree

const DEFAULT_DIR := "res://tests"
const ERROR_LOGGER_PATH := "res://runner/error_logger.gd"

var _passed: int = 0
var _failed: int = 0
## Engine errors logged while a test runs (null before Godot 4.5, which has no Logger class).
var _logger: RefCounted = null


func _initialize() -> void:
	_run.call_deferred()


func _run() -> void:
	if ClassDB.class_exists("Logger"):
		_logger = (load(ERROR_LOGGER_PATH) as GDScript).new()
		OS.call("add_logger", _logger)
	var args: PackedStringArray = OS.get_cmdline_user_args()
	var folder: String = args[0] if args.size() > 0 else DEFAULT_DIR
	var filter: String = args[1] if args.size() > 1 else ""
	var files: PackedStringArray = _find_tests(folder)
	files.sort()
	for path: String in files:
		await _run_file(path, filter)
	if _logger != null:
		OS.call("remove_logger", _logger)
	print("%d passed, %d failed" % [_passed, _failed])
	quit(0 if _failed == 0 and _passed > 0 else 1)


func _find_tests(folder: String) -> PackedStringArray:
	var found: PackedStringArray = PackedStringArray()
	var dir: DirAccess = DirAccess.open(folder)
	if dir == null:
		printerr("runner: cannot open %s" % folder)
		return found
	for sub: String in dir.get_directories():
		found.append_array(_find_tests(folder.path_join(sub)))
	for file: String in dir.get_files():
		if file.begins_with("test_") and file.ends_with(".gd"):
			found.append(folder.path_join(file))
	return found


func _run_file(path: String, filter: String) -> void:
	var script: GDScript = load(path) as GDScript
	if script == null or not script.can_instantiate():
		_report_failure(path, "script failed to load (parse error?)")
		return
	for method: Dictionary in script.get_script_method_list():
		var name: String = method["name"]
		if not name.begins_with("test_") or (filter != "" and not name.contains(filter)):
			continue
		var instance: Object = script.new()
		if not instance.has_method("before_each"):
			_report_failure(path, "does not extend res://runner/gd_test.gd")
			return
		_take_engine_errors()
		instance.call("before_each")
		await instance.call(name)
		instance.call("after_each")
		var failures: PackedStringArray = instance.get("failures")
		for error: String in _take_engine_errors():
			failures.append("engine error during the test: %s" % error)
		if failures.is_empty():
			_passed += 1
			print("PASS %s::%s" % [path, name])
		else:
			_failed += 1
			print("FAIL %s::%s" % [path, name])
			for line: String in failures:
				print("    %s" % line)
		if instance is Node:
			(instance as Node).free()


func _take_engine_errors() -> PackedStringArray:
	if _logger == null:
		return PackedStringArray()
	return _logger.call("take")


func _report_failure(path: String, what: String) -> void:
	_failed += 1
	print("FAIL %s: %s" % [path, what])
