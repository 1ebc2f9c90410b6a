## The sidecar process: launched with [method OS.execute_with_pipe], announces itself with one
## JSON line on stdout, and is stopped with [method OS.kill].
##
## The sidecar exits by itself when its stdin closes, so closing the pipe (or this game dying)
## never leaves an orphan. On Godot 4.4+ the pipes are non-blocking and [method poll] returns at
## once; on 4.3 the first [method poll] blocks until the announcement line (start-up time).
## The sidecar's stderr is drained so it never blocks on a full pipe; its last lines are kept in
## [member stderr_tail] for error messages.
## [codeblock]
## const SidecarProcess = preload("res://addons/astar_bridge/rpc/sidecar_process.gd")
## var sidecar := SidecarProcess.new()
## if sidecar.launch("python3", PackedStringArray(["-m", "bridge", "serve"])) == OK:
##     while sidecar.poll().is_empty() and sidecar.error.is_empty():
##         OS.delay_msec(5)
##     print(sidecar.announcement["port"])
## [/codeblock]
extends RefCounted

## Lines of stderr kept in [member stderr_tail].
const STDERR_LINES := 20
## Bytes of one stderr read, and most reads per [method drain_stderr] call.
const STDERR_CHUNK := 65536
const STDERR_READS := 16
## Longest announcement line accepted, in bytes.
const MAX_LINE := 4096
## The self-contained sidecar's folder and program, beside an exported game (docs/shipping.md).
const BUNDLED_PROGRAM := "astar-bridge-sidecar/astar-bridge-sidecar"
## Where a release keeps its self-contained sidecars inside the addon, one folder per platform
## ([code]linux-x86_64/astar-bridge-sidecar/[/code], ...); a [code].gdignore[/code] there keeps
## them out of the import and out of an exported pack.
const ADDON_SIDECARS := "res://addons/astar_bridge/sidecar"
## The python setting's default: a setting left at it does not hide a bundled sidecar.
const DEFAULT_PYTHON := "python3"

## Process id, or -1 before [method launch] / after [method stop].
var pid: int = -1
## The parsed announcement
## ([code]{"event": "listening", "host", "port", "token", "protocol"}[/code]) once
## [method poll] saw it, else empty.
var announcement: Dictionary = {}
## Why the launch failed, or "".
var error: String = ""
## The last lines the sidecar wrote to stderr.
var stderr_tail: PackedStringArray = PackedStringArray()

var _stdio: FileAccess = null
var _stderr: FileAccess = null
var _line: PackedByteArray = PackedByteArray()
var _stderr_partial: String = ""
var _blocking: bool = false
# Where a self-contained sidecar was looked for, said when a Python fallback fails.
var _hint: String = ""


## Starts [param executable] with [param arguments]; OK, or an error with [member error] set.
func launch(executable: String, arguments: PackedStringArray) -> Error:
	stop()
	error = ""
	announcement = {}
	_line = PackedByteArray()
	stderr_tail = PackedStringArray()
	var info: Dictionary = {}
	var version: Dictionary = Engine.get_version_info()
	_hint = (
		"" if executable.get_file().begins_with("astar-bridge-sidecar") else missing_bundle_hint()
	)
	var major: int = version["major"]
	var minor: int = version["minor"]
	_blocking = major == 4 and minor < 4
	if _blocking:
		info = OS.execute_with_pipe(executable, arguments)
	else:
		# The third argument (blocking) exists from Godot 4.4 on; callv keeps 4.3 parsing this.
		info = OS.callv("execute_with_pipe", [executable, arguments, false])
	if info.is_empty():
		error = "cannot start %s %s%s" % [executable, " ".join(arguments), _hint]
		return ERR_CANT_CREATE
	pid = info["pid"]
	_stdio = info["stdio"]
	_stderr = info["stderr"]
	return OK


## Writes [param text] and a newline to the sidecar's stdin (a secret for
## [code]--token-stdin[/code]: never on the command line, where every local user can read it).
## Returns OK, or ERR_UNCONFIGURED before [method launch].
func write_line(text: String) -> Error:
	if _stdio == null:
		return ERR_UNCONFIGURED
	_stdio.store_buffer((text + "\n").to_utf8_buffer())
	_stdio.flush()
	return OK


## True while the process started by [method launch] runs.
func is_running() -> bool:
	return pid > 0 and OS.is_process_running(pid)


## Reads what the sidecar wrote; returns [member announcement] once its line arrived (else
## empty, and [member error] set when the process died or the line is not an announcement).
func poll() -> Dictionary:
	if _stdio == null or not announcement.is_empty():
		drain_stderr()
		return announcement
	if _blocking:
		_line = _stdio.get_line().to_utf8_buffer()
		_line.append(10)
	else:
		_line.append_array(_stdio.get_buffer(MAX_LINE))
	drain_stderr()
	var newline: int = _line.find(10)
	if newline >= 0:
		_parse(_line.slice(0, newline).get_string_from_utf8())
	elif _line.size() > MAX_LINE:
		error = "the sidecar's first line is longer than %d bytes" % MAX_LINE
	elif not is_running():
		error = (
			"the sidecar exited before announcing itself: %s%s" % [" | ".join(stderr_tail), _hint]
		)
	return announcement


## The program to launch and its first arguments, the first of: [param env_python] (the
## [code]ASTAR_BRIDGE_PYTHON[/code] variable) as [code][python, "-m", "bridge"][/code]; the
## self-contained sidecar beside an exported game ([method bundled_program]); [param
## python_executable] when set to anything but [constant DEFAULT_PYTHON]; the self-contained
## sidecar inside the addon ([method addon_program], a release's); else [code]python3 -m
## bridge[/code]. A relative python path with a slash is taken from the project folder.
static func command(env_python: String, python_executable: String) -> PackedStringArray:
	if not env_python.is_empty():
		return _python_command(env_python)
	var beside: String = bundled_program()
	if not beside.is_empty():
		return PackedStringArray([beside])
	if not python_executable.is_empty() and python_executable != DEFAULT_PYTHON:
		return _python_command(python_executable)
	var in_addon: String = addon_program()
	if not in_addon.is_empty():
		return PackedStringArray([in_addon])
	return _python_command(DEFAULT_PYTHON)


## The self-contained sidecar beside the game's executable, or beside the main pack of a
## [code]--main-pack[/code] run, as an absolute path; "" when there is none.
static func bundled_program() -> String:
	for candidate: String in _beside_game():
		if FileAccess.file_exists(candidate):
			return candidate
	return ""


## The self-contained sidecar inside the addon for this platform
## ([code]<ADDON_SIDECARS>/<platform>/astar-bridge-sidecar/[/code], as a release zip installs
## it), as an absolute path made executable (Godot's asset installer drops the mode); "" when
## there is none, or in an exported game, whose [code]res://[/code] is its pack.
static func addon_program() -> String:
	var candidate: String = _in_addon()
	if candidate.is_empty() or not FileAccess.file_exists(candidate):
		return ""
	if OS.get_name() != "Windows":
		var mode: int = FileAccess.get_unix_permissions(candidate)
		var executable: int = (
			FileAccess.UNIX_EXECUTE_OWNER
			| FileAccess.UNIX_EXECUTE_GROUP
			| FileAccess.UNIX_EXECUTE_OTHER
		)
		if mode & FileAccess.UNIX_EXECUTE_OWNER == 0:
			FileAccess.set_unix_permissions(candidate, mode | executable)
	return candidate


## [code]linux-x86_64[/code], [code]windows-x86_64[/code], [code]macos-arm64[/code]...: the
## folder name of this platform's sidecar (as [code]tools/bundle.py[/code] names it).
static func platform_tag() -> String:
	# "Linux", "Windows", "macOS" lowercase, and the engine's "x86_64", "arm64"... as they are.
	return "%s-%s" % [OS.get_name().to_lower(), Engine.get_architecture_name()]


## Where a self-contained sidecar was looked for and not found, as a sentence to append to an
## error ("" when nothing was looked for).
static func missing_bundle_hint() -> String:
	var places: PackedStringArray = bundle_places()
	if places.is_empty():
		return ""
	return (
		". No self-contained sidecar at %s (a release zip has one in the addon; docs/shipping.md)"
		% ", ".join(places)
	)


## Every place a self-contained sidecar is looked for, as absolute paths: beside the game
## ([method bundled_program]), then inside the addon ([method addon_program]) where
## [code]res://[/code] is a folder.
static func bundle_places() -> PackedStringArray:
	var places: PackedStringArray = _beside_game()
	var in_addon: String = _in_addon()
	if not in_addon.is_empty():
		places.append(in_addon)
	return places


static func _python_command(python: String) -> PackedStringArray:
	var program: String = python
	if program.contains("/") and program.is_relative_path():
		program = ProjectSettings.globalize_path("res://").path_join(program).simplify_path()
	return PackedStringArray([program, "-m", "bridge"])


# The candidate programs beside the executable and beside a --main-pack, absolute.
static func _beside_game() -> PackedStringArray:
	var program: String = BUNDLED_PROGRAM + (".exe" if OS.get_name() == "Windows" else "")
	var folders: PackedStringArray = PackedStringArray([OS.get_executable_path().get_base_dir()])
	var pack: String = _main_pack_argument()
	if not pack.is_empty():
		folders.append(pack.get_base_dir())
	var candidates: PackedStringArray = PackedStringArray()
	for folder: String in folders:
		var candidate: String = folder.path_join(program)
		if candidate.is_relative_path():
			var here: DirAccess = DirAccess.open(".")
			if here != null:
				candidate = here.get_current_dir().path_join(candidate)
		candidates.append(candidate.simplify_path())
	return candidates


# The in-addon candidate program for this platform, or "" where res:// is no folder (a pack).
static func _in_addon() -> String:
	var folder: String = ProjectSettings.globalize_path(ADDON_SIDECARS)
	if folder.is_empty() or folder.begins_with("res://") or not folder.is_absolute_path():
		return ""
	var program: String = BUNDLED_PROGRAM + (".exe" if OS.get_name() == "Windows" else "")
	return folder.path_join(platform_tag()).path_join(program).simplify_path()


# The path given to --main-pack, or "". Godot keeps engine arguments out of get_cmdline_args(),
# so on Linux they are read from /proc/self/cmdline.
static func _main_pack_argument() -> String:
	var args: PackedStringArray = OS.get_cmdline_args()
	if not "--main-pack" in args and FileAccess.file_exists("/proc/self/cmdline"):
		var file: FileAccess = FileAccess.open("/proc/self/cmdline", FileAccess.READ)
		var bytes: PackedByteArray = PackedByteArray()
		while file != null and not file.eof_reached():  # /proc files report no length
			var chunk: PackedByteArray = file.get_buffer(4096)
			if chunk.is_empty():
				break
			bytes.append_array(chunk)
		args = PackedStringArray()
		var start: int = 0
		for i: int in bytes.size():
			if bytes[i] == 0:  # the arguments end with a NUL each
				args.append(bytes.slice(start, i).get_string_from_utf8())
				start = i + 1
	var at: int = args.find("--main-pack")
	return args[at + 1] if at >= 0 and at + 1 < args.size() else ""


## Kills the process (if still running) and closes its pipes.
func stop() -> void:
	if _stdio != null:
		_stdio.close()
		_stdio = null
	if _stderr != null:
		_stderr.close()
		_stderr = null
	if pid > 0 and OS.is_process_running(pid):
		OS.kill(pid)
	pid = -1


func _parse(line: String) -> void:
	var parsed: Variant = JSON.parse_string(line)
	var event: Dictionary = parsed if parsed is Dictionary else {}
	if event.get("event") != "listening":
		error = "the sidecar announced %s instead of a listening event" % line.left(200)
		return
	if not (event.get("port") is float or event.get("port") is int):
		error = "the sidecar announced no port: %s" % line.left(200)
		return
	var port: float = event["port"]
	var protocol: float = event.get("protocol", 0.0)
	event["port"] = int(port)
	event["protocol"] = int(protocol)
	announcement = event


## Reads what the sidecar wrote to stderr (keeping the last [constant STDERR_LINES] lines in
## [member stderr_tail]). Call it for the life of the process: a pipe nobody reads fills after a
## few hundred log lines and the sidecar then blocks on its next write, answering nothing.
## Does nothing on Godot 4.3, whose pipes block.
func drain_stderr() -> void:
	for _read: int in STDERR_READS:
		if not _read_stderr_chunk():
			return


# One non-blocking read; true when it filled the whole chunk (more may be waiting).
func _read_stderr_chunk() -> bool:
	if _stderr == null or _blocking:
		return false
	var bytes: PackedByteArray = _stderr.get_buffer(STDERR_CHUNK)
	if bytes.is_empty():
		return false
	var lines: PackedStringArray = (_stderr_partial + bytes.get_string_from_utf8()).split("\n")
	_stderr_partial = lines[lines.size() - 1]
	for i: int in lines.size() - 1:
		stderr_tail.append(lines[i])
	if stderr_tail.size() > STDERR_LINES:
		stderr_tail = stderr_tail.slice(stderr_tail.size() - STDERR_LINES)
	return bytes.size() == STDERR_CHUNK
