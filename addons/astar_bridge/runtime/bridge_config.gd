## How the autoload reaches its sidecar: the values of the [code]astar_bridge/...[/code] project
## settings (settings_table.gd), which the autoload's members of the same names read and write.
## One object shared by the connection (sidecar_link.gd) and the request queue
## (request_queue.gd), so a change made through the autoload is seen by both.
extends RefCounted

const SettingsTable = preload("res://addons/astar_bridge/runtime/settings_table.gd")
## Environment variable that overrides the token setting (so it need not live in project.godot).
const ENV_TOKEN := "ASTAR_BRIDGE_TOKEN"

var autostart: bool = true
var python_executable: String = "python3"
var host: String = "127.0.0.1"
var port: int = 0
var token: String = ""
var extra_arguments: PackedStringArray = PackedStringArray()
var request_timeout_ms: int = 2000
var connect_timeout_ms: int = 5000
var start_timeout_ms: int = 60000
var load_timeout_ms: int = 30000
var max_in_flight: int = 240
var heartbeat_ms: int = 2000
var unresponsive_timeout_ms: int = 5000
## Milliseconds a sidecar whose process works (CPU time advancing, Linux) may answer nothing
## before it is restarted anyway (0: never): long enough for any real piece of work, short
## enough that a loop that never ends does not hang the game (astar_bridge/timeouts/busy_limit_ms).
var busy_limit_ms: int = 60000
var io_thread: bool = true
## The path requests of a frame (request_path, request_query) leave at its end as one message per
## graph and options map, each completing with its own result; off: one message each.
var batch_requests: bool = true
## At the end of a frame that sent path requests, wait asleep for their answers while the frame
## has time to spare under Engine.max_fps (or the screen's refresh rate with V-Sync), so quick
## answers complete in the frame they were asked in; off: at a later frame's first point.
var answers_in_frame: bool = true
## A frame's batched path requests on a navmesh (request_path, request_query between two Vector2)
## come back with the polygons each path crosses in their result's ids; off: ids stays empty for
## them, and on a big mesh the answer is about a tenth of its size and cheaper to search.
var navmesh_ids: bool = false
var auto_restart: bool = true
var report_failures: bool = true


## Reads every value from the project settings (and the token from [constant ENV_TOKEN]).
func load_settings() -> void:
	autostart = SettingsTable.value("astar_bridge/sidecar/autostart")
	python_executable = SettingsTable.value("astar_bridge/sidecar/python_executable")
	host = SettingsTable.value("astar_bridge/sidecar/host")
	port = SettingsTable.value("astar_bridge/sidecar/port")
	token = SettingsTable.value("astar_bridge/sidecar/token")
	if not OS.get_environment(ENV_TOKEN).is_empty():
		token = OS.get_environment(ENV_TOKEN)
	var arguments: Array = SettingsTable.value("astar_bridge/sidecar/extra_arguments")
	extra_arguments = PackedStringArray(arguments)
	request_timeout_ms = SettingsTable.value("astar_bridge/timeouts/request_ms")
	connect_timeout_ms = SettingsTable.value("astar_bridge/timeouts/connect_ms")
	start_timeout_ms = SettingsTable.value("astar_bridge/timeouts/start_ms")
	load_timeout_ms = SettingsTable.value("astar_bridge/timeouts/load_ms")
	heartbeat_ms = SettingsTable.value("astar_bridge/timeouts/heartbeat_ms")
	unresponsive_timeout_ms = SettingsTable.value("astar_bridge/timeouts/unresponsive_ms")
	busy_limit_ms = SettingsTable.value("astar_bridge/timeouts/busy_limit_ms")
