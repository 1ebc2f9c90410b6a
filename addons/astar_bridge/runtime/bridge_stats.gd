## Request counters and latency percentiles of the autoload, for a HUD: see
## [code]AStarBridge.get_stats()[/code]. Keeps the last [constant WINDOW] latencies and the
## completion times of the last second.
extends RefCounted

const PathRequest = preload("res://addons/astar_bridge/api/path_request.gd")
## Latencies kept for the mean and the percentiles.
const WINDOW := 1024

## Asynchronous requests sent to the sidecar (a frame's batched paths count once).
var messages: int = 0
## Microseconds the main thread slept at frames' ends waiting for answers (time the frame had to
## spare: see runtime/frame_wait.gd).
var waited_usec: int = 0
var _requests: int = 0
var _failures: int = 0
var _latencies_ms: PackedFloat64Array = PackedFloat64Array()
var _next_slot: int = 0
var _completions_usec: PackedInt64Array = PackedInt64Array()
var _first_recent: int = 0


## Counts one finished request that took [param latency_usec]; [param failed] when it errored.
func record(latency_usec: int, failed: bool) -> void:
	_requests += 1
	if failed:
		_failures += 1
	_keep(latency_usec / 1000.0, Time.get_ticks_usec())


## [method record] for each of [param requests] completed at [param now_usec] with
## [param results] (one a request, in order): a frame's answers counted in one call.
func record_all(now_usec: int, requests: Array[PathRequest], results: Array[Dictionary]) -> void:
	for i: int in requests.size():
		if results[i].get("status") == "error":
			_failures += 1
		_keep((now_usec - requests[i].sent_usec) / 1000.0, now_usec)
	_requests += requests.size()


# A finished request's latency into the window (the oldest replaced once it is full) and its
# completion time.
func _keep(latency_ms: float, at_usec: int) -> void:
	if _latencies_ms.size() < WINDOW:
		_latencies_ms.append(latency_ms)
	else:
		_latencies_ms[_next_slot] = latency_ms
		_next_slot = (_next_slot + 1) % WINDOW
	_completions_usec.append(at_usec)


## [code]{"requests", "failures", "latency_ms_mean", "latency_ms_p50", "latency_ms_p99",
## "latency_ms_max", "paths_per_second", "messages", "frame_wait_ms"}[/code]; paths per second
## counts completions in the last second; messages: [member messages]; frame_wait_ms:
## [member waited_usec] in milliseconds.
func snapshot() -> Dictionary:
	var sorted: PackedFloat64Array = _latencies_ms.duplicate()
	sorted.sort()
	var total: float = 0.0
	for latency: float in sorted:
		total += latency
	return {
		"requests": _requests,
		"failures": _failures,
		"latency_ms_mean": total / sorted.size() if sorted.size() > 0 else 0.0,
		"latency_ms_p50": _percentile(sorted, 0.5),
		"latency_ms_p99": _percentile(sorted, 0.99),
		"latency_ms_max": sorted[sorted.size() - 1] if sorted.size() > 0 else 0.0,
		"paths_per_second": float(_recent_completions()),
		"messages": messages,
		"frame_wait_ms": waited_usec / 1000.0,
	}


## Forgets everything.
func reset() -> void:
	_requests = 0
	_failures = 0
	messages = 0
	waited_usec = 0
	_latencies_ms = PackedFloat64Array()
	_next_slot = 0
	_completions_usec = PackedInt64Array()
	_first_recent = 0


func _recent_completions() -> int:
	var horizon: int = Time.get_ticks_usec() - 1000000
	while _first_recent < _completions_usec.size() and _completions_usec[_first_recent] < horizon:
		_first_recent += 1
	if _first_recent > 4096:
		_completions_usec = _completions_usec.slice(_first_recent)
		_first_recent = 0
	return _completions_usec.size() - _first_recent


static func _percentile(sorted: PackedFloat64Array, fraction: float) -> float:
	if sorted.is_empty():
		return 0.0
	var index: int = clampi(ceili(fraction * sorted.size()) - 1, 0, sorted.size() - 1)
	return sorted[index]
