extends SceneTree
## The Godot side of bench/unit_sizes.py's clearance figures (issue 38): what a Godot game does to
## give a unit of one size its own grid, on the same random map as ours.
##
## Usage: godot --headless --script <this> -- <cells file> <side> <size>
## The cells file holds side x side bytes, row by row (nonzero: walkable). Prints one line
## "BENCH {json}": the seconds of the clearance computed by hand in GDScript (the
## largest-square pass, the same recurrence as ours), of one AStarGrid2D eroded for a unit of
## [code]size[/code] (region set, update(), every anchor without room filled solid), and the
## static memory that grid added (Performance.MEMORY_STATIC): Godot needs one such grid per size.

const ErodedGrids = preload("eroded_grids.gd")


func _initialize() -> void:
	_run.call_deferred()


func _run() -> void:
	var args: PackedStringArray = OS.get_cmdline_user_args()
	if args.size() != 3:
		printerr("usage: -- <cells file> <side> <size>")
		quit(2)
		return
	var side: int = args[1].to_int()
	var size: int = args[2].to_int()
	var cells: PackedByteArray = FileAccess.get_file_as_bytes(args[0])
	if side <= 0 or size <= 0 or cells.size() != side * side:
		printerr("expected %d x %d bytes in %s, got %d" % [side, side, args[0], cells.size()])
		quit(1)
		return
	var started: int = Time.get_ticks_usec()
	var clearance: PackedByteArray = ErodedGrids.clearance(cells, side, side)
	var clearance_s: float = (Time.get_ticks_usec() - started) / 1e6
	var memory_before: float = Performance.get_monitor(Performance.MEMORY_STATIC)
	started = Time.get_ticks_usec()
	var grid: AStarGrid2D = ErodedGrids.eroded_grid(clearance, side, side, size)
	var build_s: float = (Time.get_ticks_usec() - started) / 1e6
	var memory: float = Performance.get_monitor(Performance.MEMORY_STATIC) - memory_before
	var report: Dictionary = {
		"side": side,
		"size": size,
		"clearance_s": clearance_s,
		"eroded_grid_s": build_s,
		"eroded_grid_bytes": memory,
	}
	print("BENCH %s" % JSON.stringify(report))
	grid = null
	quit(0)
