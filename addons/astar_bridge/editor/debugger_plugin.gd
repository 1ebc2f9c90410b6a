## The editor half of the A* Bridge debugger tab: captures the [code]astar_bridge:...[/code]
## messages the running game's autoload sends (debug/debugger_reporter.gd) and shows them in an
## "A* Bridge" tab of the Debugger bottom panel, one per debug session.
@tool
extends EditorDebuggerPlugin

const DebuggerPanel = preload("res://addons/astar_bridge/editor/debugger_panel.gd")
const CAPTURE := "astar_bridge"
const STATE_MESSAGE := "astar_bridge:state"

# session id -> its panel
var _panels: Dictionary = {}


func _has_capture(capture: String) -> bool:
	return capture == CAPTURE


func _capture(message: String, data: Array, session_id: int) -> bool:
	if message != STATE_MESSAGE:
		return false
	var panel: DebuggerPanel = _panels.get(session_id)
	if panel != null and data.size() == 1 and data[0] is Dictionary:
		var state: Dictionary = data[0]
		panel.show_state(state)
	return true


func _setup_session(session_id: int) -> void:
	var panel: DebuggerPanel = DebuggerPanel.new()
	_panels[session_id] = panel
	var session: EditorDebuggerSession = get_session(session_id)
	session.add_session_tab(panel)
	session.stopped.connect(panel.show_stopped)


## The panel of debug session [param session_id] (for tests and screenshots), or null.
func get_panel(session_id: int) -> Control:
	return _panels.get(session_id)
