## Answers in the frame they were asked in (issue 41), against a real sidecar: at a capped frame
## rate the end of a frame waits, asleep, for the answers of the paths it sent while the frame
## has time to spare, so on a tiny map (a quick sidecar) a frame's requests complete in that same
## frame, one message, each with the synchronous query's answer. Not timed: frames are counted
## (a loaded machine may miss the frame now and then, so one frame in several must make it;
## before the wait, answers always completed in a later frame). Without a known frame budget
## (no max_fps, headless) or with config.answers_in_frame off nothing waits.
extends "res://runner/gd_test.gd"

const AStarBridgeNode = preload("res://addons/astar_bridge/astar_bridge.gd")
const PathRequest = preload("res://addons/astar_bridge/api/path_request.gd")
const RequestFrames = preload("res://tests/support/request_frames.gd")
const TestBridge = preload("res://tests/support/test_bridge.gd")
const SIZE := 8
## Frames asked in (each must complete; one at least in its own frame).
const TRIES := 6
## A 100 ms frame: a tiny map's answers come well within it on a busy machine too.
const FPS := 10

var _bridge: AStarBridgeNode = null


func before_each() -> void:
	_bridge = TestBridge.made(PackedStringArray(["--threads", "1", "--log-level", "ERROR"]))
	_tree().root.add_child(_bridge)
	var cells: PackedByteArray = PackedByteArray()
	cells.resize(SIZE * SIZE)
	cells.fill(1)
	assert_true(_bridge.load_grid("tiny", SIZE, SIZE, cells).is_ok())


func after_each() -> void:
	Engine.max_fps = 0
	_bridge.stop()
	_bridge.free()


func test_a_frames_requests_complete_in_that_frame_when_the_sidecar_is_quick() -> void:
	Engine.max_fps = FPS
	var same_frame: int = 0
	for attempt: int in TRIES:
		await _tree().process_frame
		var sent: int = _bridge.get_stats()["messages"]
		var asked: int = Engine.get_process_frames()
		var completed_in: Array[int] = []
		var requests: Array[PathRequest] = []
		for i: int in 4:
			var request: PathRequest = _bridge.request_path(
				"tiny", Vector2i(0, i), Vector2i(SIZE - 1, SIZE - 1 - i)
			)
			request.completed.connect(
				func(_result: Dictionary) -> void: completed_in.append(Engine.get_process_frames())
			)
			requests.append(request)
		await _settled(requests)
		assert_eq(_bridge.get_stats()["messages"] - sent, 1, "the frame's requests: one message")
		for i: int in requests.size():
			var own: Dictionary = _bridge.find_path_result(
				"tiny", Vector2i(0, i), Vector2i(SIZE - 1, SIZE - 1 - i)
			)
			assert_eq(requests[i].result, own, "try %d, request %d" % [attempt, i])
			assert_eq(requests[i].result["status"], "found")
		var last: int = completed_in.max()
		if last == asked:
			same_frame += 1
	print("    answered in the frame asked: %d of %d tries" % [same_frame, TRIES])
	assert_true(same_frame > 0, "no try's answers completed in the frame they were asked in")
	var waited: float = _bridge.get_stats()["frame_wait_ms"]
	assert_true(waited > 0.0, "the frames' ends waited")


func test_nothing_waits_without_a_frame_budget_or_when_turned_off() -> void:
	for capped: bool in [false, true]:
		Engine.max_fps = FPS if capped else 0  # uncapped and headless: no budget known
		_bridge.config.answers_in_frame = not capped
		_bridge.reset_stats()
		for attempt: int in 3:
			await _tree().process_frame
			var requests: Array[PathRequest] = []
			for i: int in 4:
				requests.append(_bridge.request_path("tiny", Vector2i(0, i), Vector2i(i, 7)))
			await _settled(requests)
			for request: PathRequest in requests:
				assert_eq(request.result["status"], "found")
		assert_eq(_bridge.get_stats()["frame_wait_ms"], 0.0, "capped %s: no wait" % capped)


func _settled(requests: Array[PathRequest]) -> void:
	if not await RequestFrames.settled(requests, 600):
		fail("requests still waiting after 600 frames")


func _tree() -> SceneTree:
	return Engine.get_main_loop() as SceneTree
