## The one error the autoload pushes when the sidecar it launches cannot be started: what was
## looked for, in the order [method SidecarProcess.command] looks, and every way to fix it.
## [codeblock]
## const StartFailure = preload("res://addons/astar_bridge/runtime/start_failure.gd")
## var message: String = StartFailure.message(command, "", "python3", reason, stderr_tail)
## [/codeblock]
extends RefCounted

const SidecarProcess = preload("res://addons/astar_bridge/rpc/sidecar_process.gd")

## The environment variable and the project setting that name the Python.
const ENV_PYTHON := "ASTAR_BRIDGE_PYTHON"
const PYTHON_SETTING := "astar_bridge/sidecar/python_executable"
## What a Python without the package writes to stderr when asked for [code]-m bridge[/code].
const NO_PACKAGE := "No module named bridge"
## Where a user gets the package (README, "In a game").
const INSTALL := "pip install <this repository>"
const NOT_CONNECTED := (
	" Calls fail at once (code not_connected) until" + " AStarBridge.start() is called again."
)


## The error for a start of [param command] (as [method SidecarProcess.command] made it from
## [param env_python] and [param python_executable]) that failed with [param reason], the
## sidecar having written [param stderr_tail]. Names the Python's problem when [param command]
## runs a Python that is missing or lacks the package; else the command and [param reason].
static func message(
	command: PackedStringArray,
	env_python: String,
	python_executable: String,
	reason: String,
	stderr_tail: PackedStringArray
) -> String:
	var fallback: String = (
		"AStarBridge: cannot start the sidecar (%s): %s.%s"
		% [" ".join(command), reason, NOT_CONNECTED]
	)
	if command.is_empty():
		return fallback
	var python: String = command[0]
	var is_python: bool = command.size() >= 3 and command[1] == "-m" and command[2] == "bridge"
	if not is_python:
		return fallback
	# A Python that wrote this ran: its package is what is missing, whatever PATH looks like.
	if NO_PACKAGE in "\n".join(stderr_tail):
		return _no_package(python, env_python, python_executable)
	var problem: String = program_problem(python)
	if not problem.is_empty():
		return _missing(python, problem, env_python, python_executable)
	return fallback


## Why [param program] cannot be started: "no such file", "not found on PATH" (a bare name),
## "not executable", "a folder"; "" when it looks startable (or cannot be judged here).
static func program_problem(program: String) -> String:
	if program.is_empty():
		return "an empty name"
	if not program.contains("/") and not program.contains("\\"):
		if OS.get_name() == "Windows":
			return ""  # PATHEXT and the App Paths registry decide there: let the launch say
		var path: String = OS.get_environment("PATH")
		if not OS.has_environment("PATH"):
			path = "/bin:/usr/bin"  # what execvp searches when PATH is unset
		for folder: String in path.split(":", false):
			if _startable(folder.path_join(program)).is_empty():
				return ""
		return "not found on PATH"
	return _startable(program)


## The places looked for, as one sentence in the order of [method SidecarProcess.command].
static func looked_for(env_python: String, python_executable: String) -> String:
	if not env_python.is_empty():
		return (
			'Looked for: %s ("%s"), which wins over %s and any self-contained sidecar.'
			% [ENV_PYTHON, env_python, PYTHON_SETTING]
		)
	return (
		'Looked for: %s (not set); the project setting %s ("%s").%s'
		% [ENV_PYTHON, PYTHON_SETTING, python_executable, _bundles_sentence("", python_executable)]
	)


# A Python that cannot be started: what was looked for, and every fix.
static func _missing(
	python: String, problem: String, env_python: String, python_executable: String
) -> String:
	return (
		(
			'AStarBridge: cannot start the sidecar: "%s" could not be started (%s). %s Fix one:'
			+ " %s (its sidecar needs no Python); or %s to a Python with A* Bridge installed"
			+ " (%s, then python -m bridge warm-up).%s"
		)
		% [
			python,
			problem,
			looked_for(env_python, python_executable),
			_zip_fix(env_python),
			_python_fix(env_python, "set"),
			INSTALL,
			NOT_CONNECTED
		]
	)


# A Python without the package: how to install it there, or the other fixes.
static func _no_package(python: String, env_python: String, python_executable: String) -> String:
	return (
		(
			"AStarBridge: cannot start the sidecar: %s has no A* Bridge package. Install it"
			+ " there (%s -m %s, then %s -m bridge warm-up), %s at a Python that has it, or"
			+ " %s.%s%s"
		)
		% [
			python,
			python,
			INSTALL,
			python,
			_python_fix(env_python, "point"),
			_zip_fix(env_python),
			_bundles_sentence(env_python, python_executable),
			NOT_CONNECTED
		]
	)


# The release zip's fix; the variable must go too when it is set, as it wins over the zip.
static func _zip_fix(env_python: String) -> String:
	if env_python.is_empty():
		return "install the release zip of the addon"
	return "unset %s and install the release zip of the addon" % ENV_PYTHON


# "<verb> the setting or the variable"; the variable alone while it is set (it wins).
static func _python_fix(env_python: String, verb: String) -> String:
	if env_python.is_empty():
		return (
			(
				"%s %s (Project Settings > General > Astar Bridge > Sidecar) or the %s environment"
				% [verb, PYTHON_SETTING, ENV_PYTHON]
			)
			+ " variable"
		)
	return (
		"%s the %s environment variable (or unset it and use %s)"
		% [verb, ENV_PYTHON, PYTHON_SETTING]
	)


# Where a self-contained sidecar was looked for and not found (" No self-contained sidecar at
# ..."), and an addon sidecar the python setting hides; "" when ASTAR_BRIDGE_PYTHON skipped them.
static func _bundles_sentence(env_python: String, python_executable: String) -> String:
	if not env_python.is_empty():
		return ""
	var places: PackedStringArray = SidecarProcess.bundle_places()
	var hidden: String = SidecarProcess.addon_program()
	if places.has(hidden):
		places.remove_at(places.find(hidden))
	var sentence: String = ""
	if not places.is_empty():
		sentence = " No self-contained sidecar at %s." % ", ".join(places)
	var default: bool = (
		python_executable.is_empty() or python_executable == SidecarProcess.DEFAULT_PYTHON
	)
	if not hidden.is_empty() and not default:
		sentence += (
			" The addon's own sidecar at %s is used only while %s is python3."
			% [hidden, PYTHON_SETTING]
		)
	return sentence


# "" when [param path] is a file that may be run, else why not.
static func _startable(path: String) -> String:
	if DirAccess.dir_exists_absolute(path):
		return "a folder"
	if not FileAccess.file_exists(path):
		return "no such file"
	if OS.get_name() == "Windows":
		return ""
	var mode: int = FileAccess.get_unix_permissions(path)
	if mode == 0:
		return ""  # no permissions known (a file system without them): let the launch say
	var any_execute: int = (
		FileAccess.UNIX_EXECUTE_OWNER
		| FileAccess.UNIX_EXECUTE_GROUP
		| FileAccess.UNIX_EXECUTE_OTHER
	)
	return "" if mode & any_execute != 0 else "not executable"
