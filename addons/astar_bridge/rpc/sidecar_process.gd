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


## Starts [param executable] with [param arguments]; OK, or an error with [member error] set.
func launch(executable: String, arguments: PackedStringArray) -> Error:
	stop()
	error = ""
	announcement = {}
	_line = PackedByteArray()
	stderr_tail = PackedStringArray()
	var info: Dictionary = {}
	var version: Dictionary = Engine.get_version_info()
	var major: int = version["major"]
	var minor: int = version["minor"]
	_blocking = major == 4 and minor < 4
	if _blocking:
		info = OS.execute_with_pipe(executable, arguments)
	else:
		# The third argument (blocking) exists from Godot 4.4 on; callv keeps 4.3 parsing this.
		info = OS.callv("execute_with_pipe", [executable, arguments, false])
	if info.is_empty():
		error = "cannot start %s %s" % [executable, " ".join(arguments)]
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
		error = "the sidecar exited before announcing itself: %s" % " | ".join(stderr_tail)
	return announcement


## The program to launch and its first arguments: [code][python, "-m", "bridge"][/code] with
## [param env_python] (the [code]ASTAR_BRIDGE_PYTHON[/code] variable) when set, else the bundled
## sidecar ([method bundled_program]) when there is one, else [param python_executable]. A
## relative python path with a slash is taken from the project folder.
static func command(env_python: String, python_executable: String) -> PackedStringArray:
	var python: String = env_python
	if python.is_empty():
		var bundled: String = bundled_program()
		if not bundled.is_empty():
			return PackedStringArray([bundled])
		python = python_executable
	if python.contains("/") and python.is_relative_path():
		python = ProjectSettings.globalize_path("res://").path_join(python).simplify_path()
	return PackedStringArray([python, "-m", "bridge"])


## The self-contained sidecar beside the game's executable, or beside the main pack of a
## [code]--main-pack[/code] run, as an absolute path; "" when there is none.
static func bundled_program() -> String:
	var program: String = BUNDLED_PROGRAM + (".exe" if OS.get_name() == "Windows" else "")
	var folders: PackedStringArray = PackedStringArray([OS.get_executable_path().get_base_dir()])
	var pack: String = _main_pack_argument()
	if not pack.is_empty():
		folders.append(pack.get_base_dir())
	for folder: String in folders:
		var candidate: String = folder.path_join(program)
		if candidate.is_relative_path():
			var here: DirAccess = DirAccess.open(".")
			if here != null:
				candidate = here.get_current_dir().path_join(candidate)
		if FileAccess.file_exists(candidate):
			return candidate.simplify_path()
	return ""


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
