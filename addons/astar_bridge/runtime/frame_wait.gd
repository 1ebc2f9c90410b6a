## The end of a frame that sent path requests: the time the frame has to spare (its budget under
## [member Engine.max_fps], or the display's refresh rate with V-Sync, minus what it used) is
## spent asleep waiting for their answers, so answers that come quickly complete in the frame
## they were asked in instead of the next one. The engine would sleep that time anyway (its
## frame limiter sleeps less after a frame that used more), so the wait costs no CPU and no
## frame time; without a known budget (no max_fps, no V-Sync, headless without max_fps) nothing
## waits. The request queue (request_queue.gd) notes each frame's start, the messages of paths
## it sent, and calls [method wait] at the end of the frame: when nothing is drawn (headless: a
## server, a test), in the deferred calls that follow the process step's scripts (the autoload's
## own [code]_process[/code], one of the first, has run), else after drawing
## ([signal RenderingServer.frame_post_draw]), so the frame's rendering never waits.
extends RefCounted

const RpcClient = preload("res://addons/astar_bridge/rpc/rpc_client.gd")
## Longest sleep between two looks at the connection while waiting, in microseconds.
const STEP_USEC := 500
## The wait ends this fraction of the frame's budget before the budget's end: completing the
## answers and the engine's own end of frame use it.
const MARGIN_DIVISOR := 8
## Messages sent this many frames ago or more are not waited for (a long search is answered
## at the first point of a frame after it arrives, as any other answer).
const FRAMES_KEPT := 2

var _frame: int = -1
var _frame_start_usec: int = 0
# The frame whose process step the autoload's _process began.
var _process_frame: int = -1
# Messages of paths sent and not yet answered, and the frame each was sent in.
var _msgids: PackedInt64Array = PackedInt64Array()
var _frames: PackedInt64Array = PackedInt64Array()


## Notes the frame under way: the first call of each frame is its start (the autoload calls it
## from its physics and process callbacks, the first of the frame's scripts).
func note_frame() -> void:
	var frame: int = Engine.get_process_frames()
	if frame != _frame:
		_frame = frame
		_frame_start_usec = Time.get_ticks_usec()


## Notes that the autoload's [code]_process[/code] ran in this frame: deferred calls from now on
## follow the process step's scripts.
func note_process() -> void:
	note_frame()
	_process_frame = _frame


## True when the frame's scripts have run: the process step began and this is not the physics
## step's end (the autoload's deferred calls run after the step that queued them).
func after_scripts() -> bool:
	return _process_frame == Engine.get_process_frames() and not Engine.is_in_physics_frame()


## A message of path requests, [param msgid], left in this frame (a negative id: not sent).
func sent(msgid: int) -> void:
	if msgid < 0:
		return
	note_frame()
	_msgids.append(msgid)
	_frames.append(_frame)


## True while a message of paths sent in this frame or the last waits for its answer.
func has_waiting(rpc: RpcClient) -> bool:
	_forget_answered(rpc)
	return not _msgids.is_empty()


## True when nothing is drawn (headless): the frame ends with the scripts' deferred calls, and
## [method wait] runs there rather than after drawing.
static func ends_after_scripts() -> bool:
	return DisplayServer.get_name() == "headless"


## The frame's budget in microseconds: 1/[member Engine.max_fps], else one refresh of the
## screen with V-Sync on, else 0 (unknown: nothing waits).
static func budget_usec() -> int:
	if Engine.max_fps > 0:
		return floori(1000000.0 / Engine.max_fps)
	if DisplayServer.get_name() == "headless":
		return 0
	if DisplayServer.window_get_vsync_mode() == DisplayServer.VSYNC_DISABLED:
		return 0
	var rate: float = DisplayServer.screen_get_refresh_rate()
	return int(1000000.0 / rate) if rate > 0.0 else 0


## Sleeps until every message of paths sent in this frame or the last was answered, the
## connection is no longer open, or the frame's time to spare is used up, looking at
## [param rpc] ([method RpcClient.poll]: answers are dispatched as they come) every
## [constant STEP_USEC] at most. Returns the microseconds spent asleep.
func wait(rpc: RpcClient) -> int:
	if not has_waiting(rpc):
		return 0
	var budget: int = budget_usec()
	if budget <= 0:
		return 0
	var deadline: int = _frame_start_usec + budget - floori(budget / float(MARGIN_DIVISOR))
	var slept: int = 0
	var now: int = Time.get_ticks_usec()
	while now < deadline and rpc.is_open():
		OS.delay_usec(mini(STEP_USEC, deadline - now))
		slept += Time.get_ticks_usec() - now
		rpc.poll()
		if not has_waiting(rpc):
			break
		now = Time.get_ticks_usec()
	return slept


# Drops the messages answered (or failed) and those sent FRAMES_KEPT frames ago or more.
func _forget_answered(rpc: RpcClient) -> void:
	var frame: int = Engine.get_process_frames()
	var at: int = 0
	while at < _msgids.size():
		if frame - _frames[at] >= FRAMES_KEPT or not rpc.is_pending(_msgids[at]):
			_msgids.remove_at(at)
			_frames.remove_at(at)
		else:
			at += 1
