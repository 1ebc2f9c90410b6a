## Collects the engine's errors and warnings (Godot 4.5+ Logger) so the runner can fail the test
## that caused a runtime SCRIPT ERROR instead of counting it as passed. Loaded only where the
## engine has the Logger class.
extends Logger

var _mutex: Mutex = Mutex.new()
var _messages: PackedStringArray = PackedStringArray()


## Everything logged since the last call, emptied.
func take() -> PackedStringArray:
	_mutex.lock()
	var taken: PackedStringArray = _messages
	_messages = PackedStringArray()
	_mutex.unlock()
	return taken


func _log_error(
	function: String,
	file: String,
	line: int,
	code: String,
	rationale: String,
	_editor_notify: bool,
	_error_type: int,
	_script_backtraces: Array[ScriptBacktrace]
) -> void:
	# Called from any thread: only the mutex-guarded array is touched.
	var what: String = rationale if not rationale.is_empty() else code
	_mutex.lock()
	_messages.append("%s:%d (%s): %s" % [file, line, function, what])
	_mutex.unlock()
