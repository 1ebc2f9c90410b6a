## The AStarBridge autoload with HPA* on a real sidecar it launches: a grid uploaded with
## [code]"hierarchy"[/code] reports [signal graph_progress] up to done == total, answers
## hierarchical path queries (valid, near the exact cost) and [code]path.reachable[/code].
extends "res://runner/gd_test.gd"

const AStarBridgeNode = preload("res://addons/astar_bridge/astar_bridge.gd")
const TestBridge = preload("res://tests/support/test_bridge.gd")
const SIZE := 40

var _bridge: AStarBridgeNode = null
var _reports: Array[Vector3i] = []


func before_each() -> void:
	_bridge = TestBridge.made(PackedStringArray(["--threads", "1", "--log-level", "ERROR"]))
	_bridge.config.load_timeout_ms = 60000
	_reports = []
	_bridge.graph_progress.connect(_on_progress)
	_tree().root.add_child(_bridge)


func after_each() -> void:
	_bridge.stop()
	_bridge.free()


func test_hierarchy_upload_reports_progress_and_answers_hierarchical_paths() -> void:
	var loaded: AStarBridgeResult = _bridge.load_grid(
		"hpa",
		SIZE,
		SIZE,
		_cells(),
		AStarGrid2D.DIAGONAL_MODE_NEVER,
		{"hierarchy": {"cluster_size": 8}}
	)
	assert_true(loaded.is_ok(), str(loaded))
	assert_true(_reports.size() > 0, "graph_progress was emitted")
	var last: Vector3i = _reports[_reports.size() - 1]
	assert_eq(last.y, last.z, "the last report has done == total")
	for i: int in range(1, _reports.size()):
		assert_true(_reports[i].y >= _reports[i - 1].y, "done never decreases")
	for report: Vector3i in _reports:
		assert_eq(report.x, 0, "reports name the graph")
	var goal := Vector2(SIZE - 1, 0)
	var exact: Dictionary = _bridge.find_path_result("hpa", Vector2(0, 0), goal)
	var fast: Dictionary = _bridge.find_path_result(
		"hpa", Vector2(0, 0), goal, {"hierarchical": true}
	)
	assert_eq(fast["status"], "found")
	var points: PackedVector2Array = fast["points"]
	assert_eq(points[0], Vector2(0, 0))
	assert_eq(points[points.size() - 1], goal)
	var cost: float = fast["cost"]
	var best: float = exact["cost"]
	assert_true(cost >= best - 1e-6 and cost <= best * 1.1, "%s near %s" % [cost, best])
	var reachable: AStarBridgeResult = _bridge.call_method(
		"path.reachable", {"graph": "hpa", "start": [0, 0], "goal": [SIZE - 1, 0]}
	)
	assert_true(reachable.is_ok(), str(reachable))
	assert_eq(reachable.value, {"reachable": true})


func test_hierarchy_info_is_reported() -> void:
	var loaded: AStarBridgeResult = _bridge.load_grid(
		"hpa",
		SIZE,
		SIZE,
		_cells(),
		AStarGrid2D.DIAGONAL_MODE_NEVER,
		{"hierarchy": {"cluster_size": 16}}
	)
	assert_true(loaded.is_ok(), str(loaded))
	var info: AStarBridgeResult = _bridge.call_method("graph.info", {"id": "hpa"})
	var hierarchy: Dictionary = info.value["hierarchy"]
	assert_eq(hierarchy["cluster_size"], 16)
	assert_eq(hierarchy["built"], true)


func _on_progress(id: String, done: int, total: int) -> void:
	_reports.append(Vector3i(0 if id == "hpa" else 1, done, total))


# A 40x40 grid with a wall down column 20, open only in the bottom row.
func _cells() -> PackedByteArray:
	var cells: PackedByteArray = PackedByteArray()
	cells.resize(SIZE * SIZE)
	cells.fill(1)
	for y: int in SIZE - 1:
		cells[y * SIZE + 20] = 0
	return cells


func _tree() -> SceneTree:
	return Engine.get_main_loop() as SceneTree
