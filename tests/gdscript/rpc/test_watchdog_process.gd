## The watchdog's verdicts on real processes (rpc/process_probe.gd reads their /proc stat) over a
## real connection that never answers (a listening socket that reads nothing): a process that
## works is left alone up to the busy limit, a stopped one, an idle one and one that cannot be
## inspected are stuck at the timeout. The probe's own reading and parsing are checked too.
extends "res://runner/gd_test.gd"

const ProcessProbe = preload("res://addons/astar_bridge/rpc/process_probe.gd")
const RpcClient = preload("res://addons/astar_bridge/rpc/rpc_client.gd")
const Watchdog = preload("res://addons/astar_bridge/rpc/watchdog.gd")

const TIMEOUT_MS := 1000
const BUSY_LIMIT_MS := 3000
const SPIN := "while :; do :; done"
const SLEEP := "exec sleep 60"  # exec: the pid is sleep's own

var _server: TCPServer = null
var _peer: StreamPeerTCP = null
var _rpc: RpcClient = null
var _pids: Array[int] = []


func before_each() -> void:
	_server = TCPServer.new()
	_server.listen(0, "127.0.0.1")
	_rpc = RpcClient.new()
	_rpc.connect_to("127.0.0.1", _server.get_local_port())
	_rpc.wait_connected(5000)
	_peer = _server.take_connection()  # held open, never read: no answer ever comes


func after_each() -> void:
	_rpc.close()
	if _peer != null:
		_peer.disconnect_from_host()
	_server.stop()
	for pid: int in _pids:
		OS.execute("kill", PackedStringArray(["-9", str(pid)]))


func test_the_probe_reads_state_and_cpu_time_of_real_processes() -> void:
	if not _on_linux():
		return
	var spinner: int = _spawn(SPIN)
	var sleeper: int = _spawn(SLEEP)
	var start: int = ProcessProbe.sample(spinner)["cpu_ms"]
	var spun: int = start
	var deadline: int = Time.get_ticks_msec() + 10000  # a loaded machine may starve it a while
	while spun == start and Time.get_ticks_msec() < deadline:
		await _wait_ms(100)
		spun = ProcessProbe.sample(spinner)["cpu_ms"]
	var slept: Dictionary = ProcessProbe.sample(sleeper)
	var sleeping: String = slept["state"]
	assert_true(spun > start, "a busy loop's CPU time advances")
	assert_eq(sleeping, "S", "sleep sleeps")
	assert_eq(slept["cpu_ms"], ProcessProbe.sample(sleeper)["cpu_ms"])
	OS.execute("kill", PackedStringArray(["-STOP", str(spinner)]))
	await _wait_ms(100)
	var stopped: String = ProcessProbe.sample(spinner)["state"]
	assert_eq(stopped, "T", "SIGSTOP stops it")
	assert_true(ProcessProbe.is_stopped(stopped))
	assert_false(ProcessProbe.is_stopped(sleeping))
	assert_eq(ProcessProbe.sample(-1), {}, "no process id")
	assert_eq(ProcessProbe.sample(0), {}, "no process id")


func test_a_stat_line_is_parsed_after_the_last_parenthesis() -> void:
	# utime 250 and stime 31 ticks: 2810 ms.
	var line: String = "4242 (a (b) c) R 1 4242 4242 0 -1 4194304 100 0 0 0 250 31 0 0 20 0\n"
	assert_eq(ProcessProbe.parse_stat(line), {"state": "R", "cpu_ms": 2810})
	assert_eq(ProcessProbe.parse_stat(""), {}, "empty")
	assert_eq(ProcessProbe.parse_stat("4242 (x) S 1 2"), {}, "too short")
	assert_eq(ProcessProbe.parse_stat("4242 (x) S 1 2 3 4 5 6 7 8 9 u s"), {}, "not numbers")


func test_a_working_process_is_left_alone_until_the_busy_limit() -> void:
	if not _on_linux():
		return
	var watchdog: Watchdog = _watchdog()
	var began: int = Time.get_ticks_msec()
	var verdict: Array = await _run_until_stuck(watchdog, _spawn(SPIN), BUSY_LIMIT_MS * 3)
	var silent: int = verdict[0]
	var was_busy: bool = verdict[1]
	assert_true(was_busy, "found busy past the timeout")
	assert_true(silent >= BUSY_LIMIT_MS, "not before the busy limit (%d ms)" % silent)
	assert_true(Time.get_ticks_msec() - began < BUSY_LIMIT_MS * 3, "at the busy limit")
	assert_true(watchdog.verdict.contains("busy limit"), watchdog.verdict)


func test_a_stopped_process_is_stuck_at_the_timeout() -> void:
	if not _on_linux():
		return
	var spinner: int = _spawn(SPIN)
	OS.execute("kill", PackedStringArray(["-STOP", str(spinner)]))
	var verdict: Array = await _run_until_stuck(_watchdog(), spinner, BUSY_LIMIT_MS)
	_assert_stuck_at_timeout(verdict, "stopped")


func test_a_process_that_uses_no_cpu_is_stuck_at_the_timeout() -> void:
	if not _on_linux():
		return
	var verdict: Array = await _run_until_stuck(_watchdog(), _spawn(SLEEP), BUSY_LIMIT_MS)
	_assert_stuck_at_timeout(verdict, "no CPU time")


func test_without_a_process_the_timeout_alone_decides() -> void:
	var verdict: Array = await _run_until_stuck(_watchdog(), -1, BUSY_LIMIT_MS)
	_assert_stuck_at_timeout(verdict, "cannot be inspected")


func _assert_stuck_at_timeout(verdict: Array, why: String) -> void:
	var silent: int = verdict[0]
	var was_busy: bool = verdict[1]
	assert_false(was_busy, "never found busy")
	assert_true(silent >= TIMEOUT_MS, "stuck at the timeout, not before (%d ms)" % silent)
	assert_true(silent < BUSY_LIMIT_MS, "stuck before the busy limit (%d ms)" % silent)
	var text: String = verdict[2]
	assert_true(text.contains(why), "%s: %s" % [why, text])


func _watchdog() -> Watchdog:
	var watchdog: Watchdog = Watchdog.new()
	watchdog.heartbeat_ms = 50
	watchdog.unresponsive_timeout_ms = TIMEOUT_MS
	watchdog.busy_limit_ms = BUSY_LIMIT_MS
	return watchdog


# Checks every frame until the watchdog reports the sidecar stuck or [param give_up_ms] pass;
# [silent ms (0: never stuck), whether it was ever found busy, its verdict].
func _run_until_stuck(watchdog: Watchdog, pid: int, give_up_ms: int) -> Array:
	var since: int = Time.get_ticks_msec()
	var was_busy: bool = false
	while Time.get_ticks_msec() - since < give_up_ms:
		_rpc.poll()
		var silent: int = watchdog.check(_rpc, Time.get_ticks_msec(), since, pid)
		was_busy = was_busy or watchdog.busy
		if silent > 0:
			return [silent, was_busy, watchdog.verdict]
		await _tree().process_frame
	return [0, was_busy, watchdog.verdict]


func _spawn(command: String) -> int:
	var pid: int = OS.create_process("sh", PackedStringArray(["-c", command]))
	_pids.append(pid)
	return pid


func _on_linux() -> bool:
	return OS.get_name() == "Linux"


func _wait_ms(ms: int) -> void:
	var until: int = Time.get_ticks_msec() + ms
	while Time.get_ticks_msec() < until:
		await _tree().process_frame


func _tree() -> SceneTree:
	return Engine.get_main_loop() as SceneTree
