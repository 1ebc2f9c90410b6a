## The big level's map, generated: a square of rooms, each [code]room[/code] cells between wall
## lines, with a two-cell gap in every wall between neighbouring rooms (a few of them doors), a
## pillar and a mud patch in some rooms. Every room reaches every other one while the doors are
## open. The same seed gives the same rows.
extends RefCounted

## Share of the wall gaps that are doors (the level opens and closes them).
const DOOR_SHARE := 0.08
## Share of the rooms with a pillar (a block of wall), and with a mud patch.
const PILLAR_SHARE := 0.5
const MUD_SHARE := 0.3

const _WALL := 35  # "#"
const _FLOOR := 46  # "."
const _MUD := 126  # "~"
const _DOOR := 68  # "D"


## Rows of "#" wall, "." floor, "~" mud and "D" door (the legend of
## [code]grid_level.gd[/code]), [code]rooms * room + 1[/code] cells square. [param room] is at
## least 8 (a gap, a pillar and mud need the room).
static func generate(rooms: int, room: int, rng_seed: int) -> PackedStringArray:
	var rng := RandomNumberGenerator.new()
	rng.seed = rng_seed
	var size: int = rooms * room + 1
	var tiles := PackedByteArray()
	tiles.resize(size * size)
	tiles.fill(_FLOOR)
	for y: int in size:
		for x: int in size:
			if x % room == 0 or y % room == 0:
				tiles[y * size + x] = _WALL
	for ry: int in rooms:
		for rx: int in rooms:
			var x0: int = rx * room
			var y0: int = ry * room
			# Mud first, so a pillar may stand in it; both keep clear of the walls' gaps.
			if rng.randf() < MUD_SHARE:
				_fill(tiles, size, _inner_rect(rng, x0, y0, room, 3, 6), _MUD)
			if rng.randf() < PILLAR_SHARE:
				_fill(tiles, size, _inner_rect(rng, x0, y0, room, 2, 4), _WALL)
			if rx + 1 < rooms:  # the wall to the east
				var at: int = y0 + rng.randi_range(2, room - 3)
				_gap(tiles, size, rng, Vector2i(x0 + room, at), Vector2i(0, 1))
			if ry + 1 < rooms:  # the wall to the south
				var at: int = x0 + rng.randi_range(2, room - 3)
				_gap(tiles, size, rng, Vector2i(at, y0 + room), Vector2i(1, 0))
	var rows := PackedStringArray()
	for y: int in size:
		rows.append(tiles.slice(y * size, (y + 1) * size).get_string_from_ascii())
	return rows


## A rectangle of [param low]..[param high] cells a side inside the room at ([param x0],
## [param y0]), at least three cells from its walls.
static func _inner_rect(
	rng: RandomNumberGenerator, x0: int, y0: int, room: int, low: int, high: int
) -> Rect2i:
	var w: int = rng.randi_range(low, high)
	var h: int = rng.randi_range(low, high)
	var x: int = x0 + rng.randi_range(3, maxi(3, room - 3 - w))
	var y: int = y0 + rng.randi_range(3, maxi(3, room - 3 - h))
	return Rect2i(x, y, mini(w, x0 + room - 3 - x), mini(h, y0 + room - 3 - y))


static func _fill(tiles: PackedByteArray, size: int, rect: Rect2i, tile: int) -> void:
	for y: int in range(rect.position.y, rect.end.y):
		for x: int in range(rect.position.x, rect.end.x):
			tiles[y * size + x] = tile


## Two cells of gap from [param at] along [param along]: a door or open floor.
static func _gap(
	tiles: PackedByteArray, size: int, rng: RandomNumberGenerator, at: Vector2i, along: Vector2i
) -> void:
	var tile: int = _DOOR if rng.randf() < DOOR_SHARE else _FLOOR
	for i: int in 2:
		var cell: Vector2i = at + along * i
		tiles[cell.y * size + cell.x] = tile
