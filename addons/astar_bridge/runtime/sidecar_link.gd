## The autoload's connection to its sidecar: launching it (or connecting to one started by
## someone else), the hello, the re-upload of every stored graph after a restart, the watchdog,
## restarts after a loss, and synchronous calls. Never blocks a frame except inside a
## synchronous call, which waits for the sidecar to be ready.
##
## The request queue (request_queue.gd) listens to [signal became_ready] and [signal failed] to
## send or fail what waited; the autoload re-emits the public signals.
extends RefCounted

## Emitted when requests can be answered (after a start or a restart and its re-upload).
signal became_ready
## Emitted when the sidecar or the connection went away (a restart follows unless it gave up).
signal lost(reason: String)
## Emitted once when a running sidecar answered nothing for [param waited_ms].
signal unresponsive(waited_ms: int)
## Emitted once a silence, when the sidecar answered nothing for [param waited_ms] but its
## process works (CPU time advancing): it is left alone up to [member BridgeConfig.busy_limit_ms].
signal busy(waited_ms: int)
## [code]graph.progress[/code] notifications of a long graph build.
signal progress(id: String, done: int, total: int)
## Queued requests must fail now with [param code] (a start failed for good, or no restart).
signal failed(code: String, reason: String)

enum Phase { IDLE, LAUNCHING, CONNECTING, GREETING, UPLOADING, READY, WAITING_RESTART, FAILED }

const BridgeConfig = preload("res://addons/astar_bridge/runtime/bridge_config.gd")
const BridgeResult = preload("res://addons/astar_bridge/api/bridge_result.gd")
const GraphStore = preload("res://addons/astar_bridge/runtime/graph_store.gd")
const PathWire = preload("res://addons/astar_bridge/runtime/path_wire.gd")
const RpcClient = preload("res://addons/astar_bridge/rpc/rpc_client.gd")
const SidecarProcess = preload("res://addons/astar_bridge/rpc/sidecar_process.gd")
const StartFailure = preload("res://addons/astar_bridge/runtime/start_failure.gd")
const Watchdog = preload("res://addons/astar_bridge/rpc/watchdog.gd")

## Environment variable that overrides the python executable setting.
const ENV_PYTHON := StartFailure.ENV_PYTHON
const PROTOCOL_VERSION := 1
const CLIENT_NAME := "astar-bridge-godot"
const RESTART_DELAYS_MS: Array[int] = [0, 250, 1000, 2000, 5000]
const STEADY_MS := 5000
const PROCESS_CHECK_MS := 200

var phase: Phase = Phase.IDLE
## Why the last start, restart or call failed (or "").
var last_error: String = ""
## The port of the sidecar this connection talks to, or 0 before it is known.
var sidecar_port: int = 0
## Restarts since the sidecar was last steady.
var restarts: int = 0
var rpc: RpcClient = RpcClient.new()

var _config: BridgeConfig
var _store: GraphStore
var _sidecar: SidecarProcess = SidecarProcess.new()
var _watchdog: Watchdog = Watchdog.new()
# The watchdog found the sidecar busy during the current silence (busy was emitted).
var _told_busy: bool = false
var _phase_deadline_ms: int = 0
var _session_token: String = ""
var _restart_at_ms: int = 0
var _ready_since_ms: int = 0
var _next_process_check_ms: int = 0
# Ready at least once since start(): later losses restart, a failed first start gives up.
var _was_ready: bool = false
var _start_failed: bool = false
# True while stop() fails what was pending (not reported).
var _stopping: bool = false
# [method, params] still to send while re-uploading after a restart, one per frame.
var _replay: Array[Array] = []


func _init(config: BridgeConfig, store: GraphStore) -> void:
	_config = config
	_store = store
	rpc.disconnected.connect(_on_rpc_disconnected)
	rpc.notification_received.connect(_on_rpc_notification)


## Starts (see the autoload's [code]start()[/code]); OK when already started.
func start() -> Error:
	if phase != Phase.IDLE and phase != Phase.FAILED:
		return OK
	restarts = 0
	_was_ready = false
	_start_failed = false
	return _begin()


## Closes the connection and kills the sidecar this node started.
func stop() -> void:
	phase = Phase.IDLE
	# What close() fails now the game gave up by stopping (e.g. an obstacle's removal sent as the
	# game quits): nothing to report.
	_stopping = true
	rpc.close("stopped")
	_stopping = false
	_sidecar.stop()


## True when requests can be answered now.
func is_ready() -> bool:
	return phase == Phase.READY and rpc.is_open()


## Process id of the sidecar this node started, or -1.
func sidecar_pid() -> int:
	return _sidecar.pid


## Per-call failure reports, except after a failed start (its reason was pushed once already)
## and for the requests stop() gives up.
func reports() -> bool:
	return _config.report_failures and not _start_failed and not _stopping


## One frame's work: the start's next step, the sidecar's stderr and liveness, the watchdog.
func process_frame() -> void:
	advance()
	var now: int = Time.get_ticks_msec()
	if _sidecar.pid > 0:
		_sidecar.drain_stderr()
	if _sidecar.pid > 0 and now >= _next_process_check_ms:
		_next_process_check_ms = now + PROCESS_CHECK_MS
		if not _sidecar.is_running() and phase != Phase.WAITING_RESTART:
			_lose("the sidecar process exited: %s" % " | ".join(_sidecar.stderr_tail))
	_watch(now)


## Calls [param method] and waits for its answer (and first for the sidecar to be ready).
func call_sync(method: String, params: Dictionary, timeout_ms: int) -> BridgeResult:
	if not wait_ready():
		return BridgeResult.failure("not_connected", "the sidecar is not ready: %s" % last_error)
	var result: BridgeResult = BridgeResult.from_response(rpc.call_sync(method, params, timeout_ms))
	if result.is_error():
		last_error = "%s: %s" % [method, result.message]
	return result


## Waits (polling, sleeping 100 us between polls) until ready, up to the connect timeout, or
## to the end of a start under way (a launch may take [member BridgeConfig.start_timeout_ms]).
func wait_ready() -> bool:
	if phase == Phase.IDLE:
		start()
	var deadline: int = Time.get_ticks_msec() + _config.connect_timeout_ms
	while not is_ready() and Time.get_ticks_msec() < _wait_deadline(deadline):
		if phase == Phase.FAILED or phase == Phase.IDLE:
			return false
		advance()
		if not is_ready():
			OS.delay_usec(100)
	if _starting():
		advance()  # its deadline just passed: let the start fail (and say why) before the call
	return is_ready()


# One step of the connection state machine; never blocks (except on Godot 4.3's blocking pipe).
func advance() -> void:
	match phase:
		Phase.LAUNCHING:
			var announcement: Dictionary = _sidecar.poll()
			if not _sidecar.error.is_empty():
				_fail_start(_sidecar.error)
			elif not announcement.is_empty():
				_session_token = str(announcement.get("token", _config.token))
				var bound: String = str(announcement.get("host", _config.host))
				sidecar_port = PathWire.int_of(announcement["port"], 0)
				rpc.threaded = _config.io_thread
				var err: Error = rpc.connect_to(bound, sidecar_port)
				if err != OK:
					_fail_start("cannot connect to the sidecar (%s)" % error_string(err))
				else:
					phase = Phase.CONNECTING
					_phase_deadline_ms = Time.get_ticks_msec() + _config.connect_timeout_ms
		Phase.CONNECTING:
			rpc.poll()
			if rpc.is_open():
				phase = Phase.GREETING
				var hello: Dictionary = {
					"token": _session_token, "client": CLIENT_NAME, "protocol": PROTOCOL_VERSION
				}
				rpc.request("hello", hello, _on_hello, _config.connect_timeout_ms)
		Phase.GREETING:
			rpc.poll()
		Phase.UPLOADING:
			_reupload()
		Phase.WAITING_RESTART:
			if Time.get_ticks_msec() >= _restart_at_ms:
				_begin()
	if _starting() and Time.get_ticks_msec() >= _phase_deadline_ms:
		if phase == Phase.LAUNCHING:
			_fail_start(
				(
					"the sidecar did not announce itself within %d ms (astar_bridge/timeouts/start_ms)"
					% _config.start_timeout_ms
				)
			)
		else:
			_fail_start("the sidecar did not get ready within %d ms" % _config.connect_timeout_ms)


## The program and its first arguments: [python, "-m", "bridge"] or [bundled sidecar].
func sidecar_command() -> PackedStringArray:
	return SidecarProcess.command(OS.get_environment(ENV_PYTHON), _config.python_executable)


# A sidecar that answers nothing while something waits, and whose process does not work, is
# told once, killed and restarted; one that works is left alone up to the busy limit.
func _watch(now: int) -> void:
	if phase != Phase.READY or not rpc.is_open():
		_watchdog.reset()
		_told_busy = false
		return
	_watchdog.heartbeat_ms = _config.heartbeat_ms
	_watchdog.unresponsive_timeout_ms = _config.unresponsive_timeout_ms
	_watchdog.busy_limit_ms = _config.busy_limit_ms
	# A sidecar someone else started (autostart off) has no pid here: silence alone decides.
	var silent: int = _watchdog.check(rpc, now, _ready_since_ms, _sidecar.pid)
	if _watchdog.busy and not _told_busy:
		_told_busy = true
		busy.emit(now - maxi(rpc.last_received_ms, _ready_since_ms))
	elif not _watchdog.busy:
		_told_busy = false
	if silent > 0:
		var reason: String = (
			"the sidecar answered nothing for %d ms (%s)" % [silent, _watchdog.verdict]
		)
		if _config.report_failures:
			push_warning("AStarBridge: %s; connection open; restarting" % reason)
		unresponsive.emit(silent)
		_lose(reason)


func _starting() -> bool:
	return phase in [Phase.LAUNCHING, Phase.CONNECTING, Phase.GREETING]


# A wait for readiness lasts to [param deadline], or to the end of the start under way (its
# re-upload included: a start that just greeted must not be given up one step before ready).
func _wait_deadline(deadline: int) -> int:
	var under_way: bool = _starting() or phase == Phase.UPLOADING
	return maxi(deadline, _phase_deadline_ms) if under_way else deadline


func _begin() -> Error:
	last_error = ""
	# A launch may take long (a release zip's sidecar unpacks itself on its first start); the
	# connect timeout then counts from its announcement.
	var allowed: int = _config.start_timeout_ms if _config.autostart else _config.connect_timeout_ms
	_phase_deadline_ms = Time.get_ticks_msec() + allowed
	if not _config.autostart:
		_session_token = _config.token
		sidecar_port = _config.port
		rpc.threaded = _config.io_thread
		var err: Error = rpc.connect_to(_config.host, _config.port)
		if err != OK:
			_fail_start(
				"cannot connect to %s:%d (%s)" % [_config.host, _config.port, error_string(err)]
			)
			return err
		phase = Phase.CONNECTING
		return OK
	var command: PackedStringArray = sidecar_command()
	var args: PackedStringArray = command.slice(1)
	args.append_array(["serve", "--host", _config.host])
	if _config.port != 0:
		args.append_array(["--port", str(_config.port)])
	if not _config.token.is_empty():
		# On stdin, not the command line: `ps` shows every process's arguments to every user.
		args.append("--token-stdin")
	args.append_array(_config.extra_arguments)
	var launched: Error = _sidecar.launch(command[0], args)
	if launched != OK:
		_fail_start(_sidecar.error)
		return launched
	if not _config.token.is_empty() and _sidecar.write_line(_config.token) != OK:
		_fail_start("cannot write the token to the sidecar's stdin")
		return ERR_CANT_CREATE
	_next_process_check_ms = Time.get_ticks_msec() + PROCESS_CHECK_MS
	phase = Phase.LAUNCHING
	return OK


func _on_hello(response: Dictionary) -> void:
	if phase != Phase.GREETING:
		return
	var result: BridgeResult = BridgeResult.from_response(response)
	if result.is_error():
		_fail_start("hello refused: %s (%s)" % [result.message, result.code])
		return
	_replay = []
	_phase_deadline_ms = Time.get_ticks_msec() + _config.connect_timeout_ms
	for id: String in _store.ids():
		_replay.append_array(_store.replay_steps(id))
	phase = Phase.UPLOADING  # the upload runs from advance(), outside this poll's dispatch


# One step of the re-upload a frame (a graph's load, or its merged update), so a restart never
# freezes the game for all graphs at once; ready when the last one is done.
func _reupload() -> void:
	if not _replay.is_empty():
		var step: Array = _replay.pop_front()
		var method: String = step[0]
		var params: Dictionary = step[1]
		var response: Dictionary = rpc.call_sync(method, params, _config.load_timeout_ms)
		var result: BridgeResult = BridgeResult.from_response(response)
		if not rpc.is_open():
			return  # lost again: _lose already ran and scheduled the next attempt
		if result.is_error() and _config.report_failures:
			push_error(
				"AStarBridge: re-uploading %s failed: %s" % [params.get("id"), result.message]
			)
		return
	phase = Phase.READY
	_ready_since_ms = Time.get_ticks_msec()
	_was_ready = true
	became_ready.emit()


func _on_rpc_notification(method: String, params: Array) -> void:
	if method != "graph.progress" or params.is_empty() or not params[0] is Dictionary:
		return
	var report: Dictionary = params[0]
	var id: Variant = report.get("id")
	var done: Variant = report.get("done")
	var total: Variant = report.get("total")
	if id is String and done is int and total is int:
		progress.emit(id, done, total)


func _on_rpc_disconnected(reason: String) -> void:
	if phase == Phase.IDLE or phase == Phase.LAUNCHING:
		return
	_lose("connection lost: %s" % reason)


# The sidecar or the connection went away: fail everything pending, then restart (or not).
func _lose(reason: String) -> void:
	if phase == Phase.IDLE or phase == Phase.WAITING_RESTART or phase == Phase.FAILED:
		return
	var was_steady: bool = (
		phase == Phase.READY and Time.get_ticks_msec() - _ready_since_ms >= STEADY_MS
	)
	if was_steady:
		restarts = 0
	last_error = reason
	phase = Phase.WAITING_RESTART if _config.auto_restart else Phase.FAILED
	rpc.close(reason)
	_sidecar.stop()
	var delay: int = RESTART_DELAYS_MS[mini(restarts, RESTART_DELAYS_MS.size() - 1)]
	_restart_at_ms = Time.get_ticks_msec() + delay
	restarts += 1
	if not _config.auto_restart:
		failed.emit("disconnected", reason)
	lost.emit(reason)


func _fail_start(reason: String) -> void:
	if _config.autostart and not _was_ready:
		_give_up(reason)
		return
	var first_attempt: bool = restarts == 0
	phase = Phase.READY  # lets _lose run its full course from any starting phase
	_ready_since_ms = Time.get_ticks_msec()
	_lose(reason)
	if first_attempt and _config.report_failures:
		push_error("AStarBridge: %s" % reason)
	if restarts >= RESTART_DELAYS_MS.size():
		failed.emit("not_connected", reason)


# The sidecar this node launches could not be started: say why once, fail everything at once
# from now on (no restarts, no waiting) until start() is called again.
func _give_up(reason: String) -> void:
	phase = Phase.FAILED
	_start_failed = true
	last_error = reason
	rpc.close(reason)
	_sidecar.drain_stderr()  # what it wrote just before it exited names the cause
	_sidecar.stop()
	if _config.report_failures:
		var env_python: String = OS.get_environment(ENV_PYTHON)
		push_error(
			StartFailure.message(
				sidecar_command(),
				env_python,
				_config.python_executable,
				reason,
				_sidecar.stderr_tail
			)
		)
	failed.emit("not_connected", reason)
	lost.emit(reason)
