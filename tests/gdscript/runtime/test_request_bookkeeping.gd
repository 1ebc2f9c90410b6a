## The per-request bookkeeping a frame's crowd of path requests goes through, without a sidecar
## (issue 40 (b): the main thread's cost per request): the graph store's revision (what the path
## calls' per-graph look-up is kept for), the stats counting a frame's answers in one call as
## they counted each, and the frame's groups when requests on several graphs and options
## interleave (the group of the last request is reused only for the same graph, no options).
extends "res://runner/gd_test.gd"

const BridgeStats = preload("res://addons/astar_bridge/runtime/bridge_stats.gd")
const FrameBatches = preload("res://addons/astar_bridge/runtime/frame_batches.gd")
const GraphStore = preload("res://addons/astar_bridge/runtime/graph_store.gd")
const PathCalls = preload("res://addons/astar_bridge/runtime/path_calls.gd")
const PathRequest = preload("res://addons/astar_bridge/api/path_request.gd")


func test_the_store_revision_moves_on_every_load_and_erasure_only() -> void:
	var store: GraphStore = GraphStore.new()
	var seen: int = store.revision
	store.loaded("graph.load_navmesh", {"id": "ring", "vertices": PackedFloat32Array()})
	assert_true(store.revision > seen, "a load moves it")
	seen = store.revision
	store.updated("ring", {"id": "ring", "obstacles": []})
	assert_eq(store.revision, seen, "an update keeps the graph's method and params")
	store.loaded("graph.load_grid", {"id": "ring", "width": 2, "height": 2})
	assert_true(store.revision > seen, "a load of the same id moves it")
	seen = store.revision
	store.erase("ring")
	assert_true(store.revision > seen, "an erasure moves it")


func test_a_frames_answers_counted_at_once_as_one_by_one() -> void:
	var requests: Array[PathRequest] = []
	var results: Array[Dictionary] = []
	for i: int in 5:
		var request: PathRequest = PathRequest.new()
		request.sent_usec = 1000 * i
		requests.append(request)
		results.append({"status": "error" if i == 3 else "found"})
	var each: BridgeStats = BridgeStats.new()
	var all: BridgeStats = BridgeStats.new()
	for i: int in requests.size():
		var failed: bool = results[i]["status"] == "error"
		each.record(9000 - requests[i].sent_usec, failed)
	all.record_all(9000, requests, results)
	var one: Dictionary = each.snapshot()
	var other: Dictionary = all.snapshot()
	for key: String in ["requests", "failures", "latency_ms_mean", "latency_ms_p50"]:
		assert_eq(other[key], one[key], key)
	assert_eq(other["latency_ms_max"], 9.0)
	assert_eq(other["requests"], 5)
	assert_eq(other["failures"], 1)


func test_interleaved_graphs_and_options_keep_their_own_groups() -> void:
	var held: FrameBatches = FrameBatches.new()
	var fast: Dictionary = {"optimal": true}
	var plan: Array[Array] = [
		["a", PathCalls.NO_OPTIONS],
		["b", {}],
		["a", {}],
		["a", fast],
		["a", PathCalls.NO_OPTIONS],
		["b", fast],
		["a", {"optimal": true}],
	]
	var made: Array[PathRequest] = []
	for i: int in plan.size():
		var request: PathRequest = PathRequest.new()
		made.append(request)
		var graph: String = plan[i][0]
		var options: Dictionary = plan[i][1]
		held.add_grid(request, graph, options, false, Vector2(i, 0), Vector2(0, i))
	var sizes: Dictionary = {}
	for message: Array in held.take():
		var requests: Array[PathRequest] = message[2]
		var params: Dictionary = message[1]
		var graph: String = params["graph"]
		var options: Dictionary = params.get("options", {})
		var key: String = "%s%s" % [graph, " optimal" if options.has("optimal") else ""]
		assert_false(sizes.has(key), "one message for %s" % key)
		sizes[key] = requests.size()
		if message[0] != FrameBatches.Kind.PACKED:
			continue
		var bytes: PackedByteArray = params["starts"]
		var starts: PackedVector2Array = bytes.to_vector2_array()
		for k: int in requests.size():  # each request kept its own endpoints
			assert_eq(starts[k], Vector2(made.find(requests[k]), 0), key)
	assert_eq(sizes, {"a": 3, "b": 1, "a optimal": 2, "b optimal": 1})
	assert_true(held.is_empty())
