## The headless demo run's options (run_demo.gd's command line, see its usage): how many NPCs
## each level gets, how long it plays, the seed and which levels run.
extends RefCounted

## Simulated seconds a level gives out goals.
var seconds: float = 60.0
## NPCs of the grid, navmesh, 3D, big, unit sizes, hex and obstacles levels.
var npcs: int = 50
var navmesh_npcs: int = 16
var npcs_3d: int = 6
var big_npcs: int = 40
var sizes_npcs: int = 9
var hex_npcs: int = 16
var obstacles_npcs: int = 12
## Units of the crowd level, and the simulated seconds they have to arrive.
var crowd_units: int = 2000
var crowd_limit: float = 60.0
## Seed of every random choice.
var random_seed: int = 7
## The levels to run, in order.
var levels := PackedStringArray(
	["grid", "navmesh", "3d", "big", "sizes", "hex", "obstacles", "crowd"]
)


## Reads the command line [param args] (unknown arguments are ignored).
func parse(args: PackedStringArray) -> void:
	for arg: String in args:
		var value: String = arg.get_slice("=", 1)
		if arg == "--short":
			seconds = 20.0
			npcs = 20
			navmesh_npcs = 10
			npcs_3d = 4
			big_npcs = 20
			sizes_npcs = 6
			hex_npcs = 10
			obstacles_npcs = 8
			crowd_units = 500
		elif arg.begins_with("--seconds="):
			seconds = value.to_float()
		elif arg.begins_with("--npcs="):
			npcs = value.to_int()
		elif arg.begins_with("--navmesh-npcs="):
			navmesh_npcs = value.to_int()
		elif arg.begins_with("--npcs-3d="):
			npcs_3d = value.to_int()
		elif arg.begins_with("--big-npcs="):
			big_npcs = value.to_int()
		elif arg.begins_with("--sizes-npcs="):
			sizes_npcs = value.to_int()
		elif arg.begins_with("--hex-npcs="):
			hex_npcs = value.to_int()
		elif arg.begins_with("--obstacles-npcs="):
			obstacles_npcs = value.to_int()
		elif arg.begins_with("--crowd-units="):
			crowd_units = value.to_int()
		elif arg.begins_with("--crowd-limit="):
			crowd_limit = value.to_float()
		elif arg.begins_with("--seed="):
			random_seed = value.to_int()
		elif arg.begins_with("--levels="):
			levels = value.split(",", false)
