## The crowd level's map: 512 x 512 cells, 32 x 32 rooms of 16 cells, from the big level's
## generator ([code]big_map.gd[/code]: a two-cell gap in every wall between two rooms, 8% of them
## doors, pillars), cut to 512 so the map's own edge is its south and east wall. Mud counts as
## floor here (the crowd walks on weight 1). Four goal rooms near the quarters' centres. The same
## seed gives the same map.
extends RefCounted

const BigMap = preload("res://levels/big_map.gd")
const SIZE := 512
const ROOMS := 32
const ROOM := 16
## The goal rooms (room coordinates), one per quarter of the map.
const GOAL_ROOMS: Array[Vector2i] = [
	Vector2i(7, 7), Vector2i(24, 7), Vector2i(7, 24), Vector2i(24, 24)
]

const _WALL := 35  # "#"
const _DOOR := 68  # "D"

## One byte per cell, row-major: 1 floor (doors included, they start open), 0 wall.
var cells: PackedByteArray = PackedByteArray()
## The doors: each an Array[Vector2i] of its (two) cells.
var doors: Array[Array] = []
## Per goal, its room's floor cells (the goal set of its flow field).
var goal_cells: Array[Array] = []
## Per cell: 0, or 1 + the goal whose room holds it.
var goal_of_cell: PackedByteArray = PackedByteArray()


## Generates the map from [param rng_seed] (its rooms, walls, doors and goal sets).
func generate(rng_seed: int) -> void:
	_build(BigMap.generate(ROOMS, ROOM, rng_seed))


## [param count] distinct floor cells outside the goal rooms, drawn with [param rng]: the units'
## starts (unit i heads for goal i % 4).
func unit_cells(count: int, rng: RandomNumberGenerator) -> Array[Vector2i]:
	var found: Array[Vector2i] = []
	var taken: Dictionary = {}
	while found.size() < count:
		var cell := Vector2i(rng.randi_range(0, SIZE - 1), rng.randi_range(0, SIZE - 1))
		var index: int = cell.y * SIZE + cell.x
		if cells[index] != 0 and goal_of_cell[index] == 0 and not taken.has(index):
			taken[index] = true
			found.append(cell)
	return found


## The floor cell of goal [param goal]'s room nearest to its centre (where a single path to the
## goal ends).
func goal_centre(goal: int) -> Vector2i:
	var centre: Vector2i = GOAL_ROOMS[goal] * ROOM + Vector2i(ROOM >> 1, ROOM >> 1)
	var best: Vector2i = goal_cells[goal][0]
	for cell: Vector2i in goal_cells[goal]:
		if (cell - centre).length_squared() < (best - centre).length_squared():
			best = cell
	return best


## True when [param cell] is inside the map and floor.
func is_floor(cell: Vector2i) -> bool:
	if cell.x < 0 or cell.y < 0 or cell.x >= SIZE or cell.y >= SIZE:
		return false
	return cells[cell.y * SIZE + cell.x] != 0


func _build(rows: PackedStringArray) -> void:
	cells.resize(SIZE * SIZE)
	goal_of_cell.resize(SIZE * SIZE)
	var door_cells: Array[Vector2i] = []
	for y: int in SIZE:
		var row: PackedByteArray = rows[y].to_ascii_buffer()
		for x: int in SIZE:
			var tile: int = row[x]
			cells[y * SIZE + x] = 0 if tile == _WALL else 1
			if tile == _DOOR:
				door_cells.append(Vector2i(x, y))
	# Neighbouring door cells form one door (a door's two cells lie along its wall).
	var door_at: Dictionary = {}
	for cell: Vector2i in door_cells:
		var door: Array = door_at.get(cell - Vector2i(1, 0), door_at.get(cell - Vector2i(0, 1), []))
		if door.is_empty():
			doors.append(door)
		door.append(cell)
		door_at[cell] = door
	for goal: int in GOAL_ROOMS.size():
		var room: Vector2i = GOAL_ROOMS[goal]
		var floor_cells: Array[Vector2i] = []
		for y: int in range(room.y * ROOM + 1, (room.y + 1) * ROOM):
			for x: int in range(room.x * ROOM + 1, (room.x + 1) * ROOM):
				goal_of_cell[y * SIZE + x] = goal + 1
				if cells[y * SIZE + x] != 0:
					floor_cells.append(Vector2i(x, y))
		goal_cells.append(floor_cells)
