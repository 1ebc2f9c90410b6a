## What the operating system says of a process: its run state and the CPU time all its threads
## used, read from [code]/proc/<pid>/stat[/code] on Linux. The watchdog (rpc/watchdog.gd) uses it
## to tell a sidecar that works without answering (CPU time advancing) from one that cannot run
## (stopped by SIGSTOP, a zombie) or waits on nothing that will ever come (no CPU time used).
## Elsewhere, or for a process it cannot read, [method sample] returns {} and the watchdog
## falls back to its timeout alone.
## [codeblock]
## const ProcessProbe = preload("res://addons/astar_bridge/rpc/process_probe.gd")
## var sample: Dictionary = ProcessProbe.sample(pid)  # {} when unknown
## if not sample.is_empty() and ProcessProbe.is_stopped(sample["state"]):
##     print("stopped")
## [/codeblock]
extends RefCounted

## Milliseconds of one clock tick of /proc's CPU times (USER_HZ, 100 on every Linux kernel
## build Godot runs on; the kernel reports in these units whatever its own tick rate).
const TICK_MS := 10
## Run states of a process that cannot run again by itself: stopped (SIGSTOP, a debugger's
## stop), a zombie, dead.
const STOPPED_STATES := ["T", "t", "Z", "X", "x"]
## The run state of a thread that runs or waits for a core (never one blocked on a lock).
const RUNNING_STATE := "R"
# Field indexes in /proc/<pid>/stat after the closing parenthesis of the command name (which
# may itself hold spaces and parentheses): state, then ppid ... utime at 11, stime at 12.
const _STATE_FIELD := 0
const _UTIME_FIELD := 11
const _STIME_FIELD := 12
const _MAX_STAT_BYTES := 4096


## [code]{"state": String, "cpu_ms": int}[/code] of process [param pid]: its run state as
## /proc gives it ("R" running, "S" sleeping, "D" waiting on a device, "T" stopped, "Z"
## zombie, ...) and the CPU time, user and system, of all its threads so far. Returns {} when
## it cannot be known: not Linux, no such process (a [param pid] below 1 names none), or a stat
## line it cannot read.
static func sample(pid: int) -> Dictionary:
	if pid < 1:
		return {}
	var path: String = "/proc/%d/stat" % pid
	if OS.get_name() != "Linux" or not FileAccess.file_exists(path):
		return {}
	var file: FileAccess = FileAccess.open(path, FileAccess.READ)
	if file == null:
		return {}
	# /proc files report no length: read until a short read.
	var bytes: PackedByteArray = file.get_buffer(_MAX_STAT_BYTES)
	file.close()
	return parse_stat(bytes.get_string_from_utf8())


## The [method sample] map of one /proc/<pid>/stat [param line], or {} when it is not one.
static func parse_stat(line: String) -> Dictionary:
	var closing: int = line.rfind(")")
	if closing < 0:
		return {}
	var fields: PackedStringArray = line.substr(closing + 1).strip_edges().split(" ", false)
	if fields.size() <= _STIME_FIELD:
		return {}
	var utime: String = fields[_UTIME_FIELD]
	var stime: String = fields[_STIME_FIELD]
	if not utime.is_valid_int() or not stime.is_valid_int():
		return {}
	var ticks: int = utime.to_int() + stime.to_int()
	return {"state": fields[_STATE_FIELD], "cpu_ms": ticks * TICK_MS}


## True for a run state ([method sample]'s [code]"state"[/code]) of a process that cannot run
## again by itself: stopped, zombie or dead.
static func is_stopped(state: String) -> bool:
	return state in STOPPED_STATES
