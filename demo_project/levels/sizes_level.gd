## The unit sizes level (issue 38): small units (one cell) and large ones (2 x 2 cells) share one
## grid, uploaded once. The rooms are joined by one-cell doors, which only the small units fit
## through, and by wide openings, which everyone does. No size is set anywhere: each agent paths
## for its body's collision shape (a large unit's circle is 48 px across on 32 px tiles, so it
## needs a 2 x 2 footprint), and the same loaded grid answers both sizes. Every step counts the
## units standing in a one-cell door: small units take those doors as their shortcut, a large
## one never may (its body would stick in the doorway and never arrive).
extends "res://levels/grid_level.gd"

## "#" wall, "." floor. Three rooms on top, a corridor below: rooms A-B and B-C are joined by
## one-cell doors (9, 3) and (19, 5), each room opens onto the corridor by four cells, and room
## C also by a one-cell door (23, 7).
const SIZES_MAP: PackedStringArray = [
	"##############################",
	"#........#.........#.........#",
	"#........#.........#.........#",
	"#..................#.........#",
	"#........#.........#.........#",
	"#........#...................#",
	"#........#.........#.........#",
	"##....#######....######.#....#",
	"#............................#",
	"#............................#",
	"#............................#",
	"#............................#",
	"##############################",
]
## Every third NPC is a large unit.
const LARGE_EVERY := 3
const LARGE_SIZE := 2

## Steps a small / a large unit stood in a one-cell door.
var small_in_narrow_doors: int = 0
var large_in_narrow_doors: int = 0

var _narrow_doors: Dictionary = {}  # cell -> true


func _init() -> void:
	graph_id = "sizes"
	map_rows = SIZES_MAP
	npc_speed = 160.0
	first_goal_range = 0  # anywhere: crossing rooms is the point


## Builds as the grid level does, then finds the one-cell doors (floor cells with walls on two
## opposite sides, ends of a wall line).
func build() -> Error:
	var built: Error = super()
	# Large units are no obstacles: bodies pass through each other here, and two large footprints
	# that overlapped would each block every way out of the other (small ones step aside).
	for npc: Npc in npcs:
		if _npc_size(npc.index) > 1:
			npc.agent.agent_id = npc.agent.NO_AGENT
	for y: int in range(1, map_rows.size() - 1):
		for x: int in range(1, map_rows[y].length() - 1):
			if map_rows[y][x] != ".":
				continue
			var across: bool = map_rows[y][x - 1] == "#" and map_rows[y][x + 1] == "#"
			var down: bool = map_rows[y - 1][x] == "#" and map_rows[y + 1][x] == "#"
			if across or down:
				_narrow_doors[Vector2i(x, y)] = true
	return built


## Appends this level's rows to the demo's summary [param rows]; true when no large unit ever
## stood in a one-cell door (the headless run fails otherwise).
func add_rows(rows: Array[Array]) -> bool:
	var large: int = 0
	for npc: Npc in npcs:
		large += 1 if npc.agent.get_unit_size() > 1 else 0
	rows.append(["large units (2x2)", "%d/%d" % [large, npcs.size()]])
	rows.append(["small in 1-cell doors", "%d steps" % small_in_narrow_doors])
	rows.append(["large in 1-cell doors", "%d steps" % large_in_narrow_doors])
	if large_in_narrow_doors > 0 or large == 0:
		print("sizes level FAILED: a large unit stood in a one-cell door, or none was large")
		return false
	return true


func _physics_process(delta: float) -> void:
	super(delta)
	for npc: Npc in npcs:
		if not npc.is_inside_tree() or not _narrow_doors.has(cell_at(npc.global_position)):
			continue
		if npc.agent.get_unit_size() > 1:
			large_in_narrow_doors += 1
		else:
			small_in_narrow_doors += 1


func _npc_size(index: int) -> int:
	return LARGE_SIZE if index % LARGE_EVERY == 0 else 1
