## The runner's own smoke test: assertions pass, and an awaited frame works inside a test.
extends "res://runner/gd_test.gd"


func test_assert_eq_passes_on_equal_values() -> void:
	assert_eq(1 + 1, 2)
	assert_eq(PackedByteArray([1, 2]), PackedByteArray([1, 2]))


func test_await_a_frame_runs_deferred_calls() -> void:
	var tree: SceneTree = Engine.get_main_loop() as SceneTree
	var seen: Array[bool] = [false]
	var mark: Callable = func() -> void: seen[0] = true
	mark.call_deferred()
	assert_false(seen[0])
	await tree.process_frame
	assert_true(seen[0], "a deferred call runs before the next frame ends")
