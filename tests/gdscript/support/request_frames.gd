## GDScript tests' wait for path requests, a frame at a time (the addon completes them in the
## frame's deferred calls).
extends RefCounted

const PathRequest = preload("res://addons/astar_bridge/api/path_request.gd")


## Awaits frames until every request of [param requests] is done: true then, false when some
## are still waiting after [param frames] frames.
static func settled(requests: Array[PathRequest], frames: int) -> bool:
	var tree: SceneTree = Engine.get_main_loop() as SceneTree
	for _frame: int in frames:
		var waiting: int = 0
		for request: PathRequest in requests:
			waiting += 0 if request.is_done() else 1
		if waiting == 0:
			return true
		await tree.process_frame
	return false
