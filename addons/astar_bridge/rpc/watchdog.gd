## Notices a sidecar that stopped answering while its process runs and its connection is open
## (a deadlock, a SIGSTOP, a search that never ends): it sends a cheap heartbeat request when
## nothing was heard for [member heartbeat_ms] (any answer counts, also while a long request
## runs, since the sidecar answers it beside the search), and reports how long the sidecar was
## silent once something waited longer than [member unresponsive_timeout_ms].
## [codeblock]
## const Watchdog = preload("res://addons/astar_bridge/rpc/watchdog.gd")
## var watchdog := Watchdog.new()
## func _process(_delta: float) -> void:
##     if watchdog.check(rpc, Time.get_ticks_msec(), ready_since_ms) > 0:
##         restart_the_sidecar()
## [/codeblock]
extends RefCounted

const RpcClient = preload("res://addons/astar_bridge/rpc/rpc_client.gd")

## The request sent as a heartbeat: cheap, answered by every sidecar.
const HEARTBEAT_METHOD := "graph.list"

## Milliseconds without news from the sidecar before a heartbeat is sent (0: none).
var heartbeat_ms: int = 2000
## Milliseconds of silence, while a request or heartbeat waits, after which [method check]
## reports the sidecar stuck (0: never).
var unresponsive_timeout_ms: int = 5000

# Since when something has waited for an answer (0: nothing waits), and a heartbeat is out.
var _waiting_since_ms: int = 0
var _heartbeat_out: bool = false


## Sends a heartbeat through [param rpc] when due; returns how long, in milliseconds, the
## sidecar has been silent while something waited, once that passes
## [member unresponsive_timeout_ms], else 0. [param since_ms]: when the connection became
## ready (silence before it does not count).
func check(rpc: RpcClient, now: int, since_ms: int) -> int:
	var heard: int = maxi(rpc.last_received_ms, since_ms)
	if heartbeat_ms > 0 and not _heartbeat_out and now - heard >= heartbeat_ms:
		_heartbeat_out = true
		rpc.request(HEARTBEAT_METHOD, {}, _on_heartbeat, unresponsive_timeout_ms + heartbeat_ms)
	if rpc.get_pending_count() == 0:
		_waiting_since_ms = 0
		return 0
	if _waiting_since_ms == 0:
		_waiting_since_ms = now
	var silent: int = now - maxi(heard, _waiting_since_ms)
	if unresponsive_timeout_ms > 0 and silent >= unresponsive_timeout_ms:
		reset()
		return silent
	return 0


## Forgets what waits (after a loss or a restart).
func reset() -> void:
	_waiting_since_ms = 0


func _on_heartbeat(_response: Dictionary) -> void:
	_heartbeat_out = false  # any answer counts; the client noted when it came
