## Notices a sidecar that stopped answering while its process runs and its connection is open
## (a deadlock, a SIGSTOP, a search that never ends), and tells it from one that is only busy.
## It sends a cheap heartbeat request when nothing was heard for [member heartbeat_ms] (any
## answer counts), and once something waited [member unresponsive_timeout_ms] in silence it asks
## the operating system about the sidecar's process (rpc/process_probe.gd, Linux):
## [br]- stopped (SIGSTOP) or a zombie: stuck, reported at once;
## [br]- CPU time advancing over that last timeout, or its main thread running or waiting for a
## core: busy (a long piece of work by some client holds its event loop): left alone, until the
## silence reaches [member busy_limit_ms] (a loop that never ends is stuck too, but only a long
## wait tells it from a long build);
## [br]- asleep and no CPU time used over that last timeout: stuck (it waits on something that
## never comes).
## [br]Without a process to ask (another machine's sidecar, another platform, or /proc not
## readable) the timeout alone decides, as silence is all there is to see.
## [codeblock]
## const Watchdog = preload("res://addons/astar_bridge/rpc/watchdog.gd")
## var watchdog := Watchdog.new()
## func _process(_delta: float) -> void:
##     if watchdog.check(rpc, Time.get_ticks_msec(), ready_since_ms, sidecar_pid) > 0:
##         restart_the_sidecar()  # watchdog.verdict says why
## [/codeblock]
extends RefCounted

const ProcessProbe = preload("res://addons/astar_bridge/rpc/process_probe.gd")
const RpcClient = preload("res://addons/astar_bridge/rpc/rpc_client.gd")

## The request sent as a heartbeat: cheap, answered by every sidecar.
const HEARTBEAT_METHOD := "graph.list"
## Milliseconds between two reads of the sidecar's CPU time while something waits in silence
## (none before the silence is this long: a sidecar that answers is not read at all).
const SAMPLE_MS := 100
## Share of one core a silent sidecar must have used over the last
## [member unresponsive_timeout_ms] to count as working: a deadlocked one uses none, a build
## a whole core (or what a loaded machine leaves it).
const MIN_CPU_SHARE := 0.02
## The least CPU time, in milliseconds, that counts as working (two of /proc's ticks).
const MIN_CPU_MS := 2 * ProcessProbe.TICK_MS

## Milliseconds without news from the sidecar before a heartbeat is sent (0: none).
var heartbeat_ms: int = 2000
## Milliseconds of silence, while a request or heartbeat waits, after which [method check]
## reports the sidecar stuck unless its process is working (0: never).
var unresponsive_timeout_ms: int = 5000
## Milliseconds of silence after which [method check] reports the sidecar stuck even though
## its process works (0: never).
var busy_limit_ms: int = 60000
## True while the sidecar has been silent past [member unresponsive_timeout_ms] and its
## process works.
var busy: bool = false
## Why the last report of [method check] found the sidecar stuck ("" before any).
var verdict: String = ""

# Since when something has waited for an answer (0: nothing waits), and a heartbeat is out.
var _waiting_since_ms: int = 0
var _heartbeat_out: bool = false
# Samples of the sidecar's CPU time during the current silence: when taken and the CPU ms
# then, covering the last unresponsive_timeout_ms (plus the one just before it).
var _sample_times: PackedInt64Array = PackedInt64Array()
var _sample_cpu: PackedInt64Array = PackedInt64Array()
var _state: String = ""


## Sends a heartbeat through [param rpc] when due; returns how long, in milliseconds, the
## sidecar has been silent while something waited, once it is judged stuck (see the class
## description; [member verdict] says why), else 0. [param since_ms]: when the connection
## became ready (silence before it does not count). [param pid]: the sidecar's process on this
## machine, or -1 when it is not known (then the timeout alone decides).
func check(rpc: RpcClient, now: int, since_ms: int, pid: int = -1) -> int:
	var heard: int = maxi(rpc.last_received_ms, since_ms)
	if heartbeat_ms > 0 and not _heartbeat_out and now - heard >= heartbeat_ms:
		_heartbeat_out = true
		rpc.request(HEARTBEAT_METHOD, {}, _on_heartbeat, unresponsive_timeout_ms + heartbeat_ms)
	if rpc.get_pending_count() == 0:
		reset()
		return 0
	if _waiting_since_ms == 0:
		_waiting_since_ms = now
	var silent: int = now - maxi(heard, _waiting_since_ms)
	if silent < SAMPLE_MS:
		_forget_samples()  # a new silence (if any) gets samples of its own
	else:
		_sample(pid, now)
	if unresponsive_timeout_ms <= 0 or silent < unresponsive_timeout_ms:
		busy = false
		return 0
	var working: bool = pid > 0 and _working(now)
	if working and (busy_limit_ms <= 0 or silent < busy_limit_ms):
		busy = true
		return 0
	verdict = _verdict(pid, working)
	reset()
	return silent


## Forgets what waits (after a loss or a restart).
func reset() -> void:
	_waiting_since_ms = 0
	busy = false
	_forget_samples()


func _forget_samples() -> void:
	_sample_times.clear()
	_sample_cpu.clear()
	_state = ""


# Reads the process's state and CPU time, at most every SAMPLE_MS; drops the samples older
# than the timeout's window except the last of them (the window's start).
func _sample(pid: int, now: int) -> void:
	var count: int = _sample_times.size()
	if pid < 1 or (count > 0 and now - _sample_times[count - 1] < SAMPLE_MS):
		return
	var probe: Dictionary = ProcessProbe.sample(pid)
	if probe.is_empty():
		_state = ""
		return
	_state = probe["state"]
	_sample_times.append(now)
	var cpu_ms: int = probe["cpu_ms"]
	_sample_cpu.append(cpu_ms)
	while _sample_times.size() > 1 and _sample_times[1] <= now - unresponsive_timeout_ms:
		_sample_times.remove_at(0)
		_sample_cpu.remove_at(0)


# Whether the samples show a process that can run and used CPU time over the last timeout,
# or whose main thread (the event loop's) runs or waits for a core now ("R": on a loaded
# machine a working process may get no CPU time for a while; a deadlocked one sleeps).
func _working(now: int) -> bool:
	var count: int = _sample_times.size()
	if _state == ProcessProbe.RUNNING_STATE:
		return true
	if _state.is_empty() or ProcessProbe.is_stopped(_state) or count < 2:
		return false
	var span: int = now - _sample_times[0]
	var used: int = _sample_cpu[count - 1] - _sample_cpu[0]
	return used >= maxi(MIN_CPU_MS, roundi(MIN_CPU_SHARE * span))


func _verdict(pid: int, working: bool) -> String:
	if working:
		return "its process works but has answered nothing past the busy limit"
	if pid < 1 or _state.is_empty():
		return "its process cannot be inspected here"
	if ProcessProbe.is_stopped(_state):
		return "its process is stopped (state %s)" % _state
	return "its process used no CPU time meanwhile"


func _on_heartbeat(_response: Dictionary) -> void:
	_heartbeat_out = false  # any answer counts; the client noted when it came
