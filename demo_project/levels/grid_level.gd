## The grid demo level: a TileMapLayer of rooms, corridors, mud and doors, built in code and
## uploaded with the grid serializer; NPCs patrol between random floor cells, occupy their cells
## as agents, and doors open and close on a fixed schedule through graph.update.
## Everything random comes from [member random_seed]; time is counted in physics steps, so two runs
## with the same seed and a fixed physics delta are identical.
extends Node2D

## An NPC reached a goal ([param goal_number] counts from 1) at simulated time [param time].
signal npc_arrived(npc_index: int, goal_number: int, cell: Vector2i, time: float)
## A door opened or closed at simulated time [param time].
signal door_changed(door_index: int, open: bool, time: float)

const Bridge = preload("res://addons/astar_bridge/astar_bridge.gd")
const LevelFinish = preload("res://levels/level_finish.gd")
const LevelTiles = preload("res://levels/level_tiles.gd")
const Npc = preload("res://npc/npc.gd")
const GridSerializer = preload("res://addons/astar_bridge/serializers/grid_serializer.gd")
## "#" wall, "." floor, "~" mud (weight 4), "D" door (starts open).
const MAP: PackedStringArray = [
	"########################################",
	"#............#............#............#",
	"#............#............#............#",
	"#....##......#..~~~~~~~~..#............#",
	"#....##......D..~~~~~~~~..D......##....#",
	"#............D..~~~~~~~~..D......##....#",
	"#............#..~~~~~~~~..#............#",
	"#............#..~~~~~~~~..#............#",
	"#............#..~~~~~~~~..#............#",
	"#...............~~~~~~~~..#............#",
	"#.........................#............#",
	"#............#............#............#",
	"####...############DD###########...#####",
	"#............#............#............#",
	"#............#............#..~~........#",
	"#..~~~~~~....#............D..~~........#",
	"#..~~~~~~....#......##....D..~~........#",
	"#..~~~~~~....D......##....#..~~........#",
	"#..~~~~~~....D............#..~~.....#..#",
	"#..~~~~~~....#...............~~.....#..#",
	"#..~~~~~~....#...............~~........#",
	"#............#...............~~........#",
	"#............#............#............#",
	"########################################",
]
## Seconds a door stays closed, then open, in its cycle; door i first closes at
## DOOR_FIRST_CLOSE + i * DOOR_STAGGER.
const DOOR_CLOSED_S := 5.0
const DOOR_OPEN_S := 7.0
const DOOR_FIRST_CLOSE := 4.0
const DOOR_STAGGER := 3.0
## How far (in cells, along both axes) a first goal may lie from an NPC's start.
const FIRST_GOAL_RANGE := 7

## Id of the grid graph in the sidecar.
@export var graph_id: String = "level"
## The map, as rows in the legend of [constant MAP] (set before [method build]).
@export var map_rows: PackedStringArray = MAP
## Tile side in pixels.
@export var tile_size: int = LevelTiles.TILE_SIZE
## [code]"hierarchy"[/code] options of the upload (HPA*, e.g. [code]{"cluster_size": 32}[/code]);
## empty: none.
@export var hierarchy: Dictionary = {}
## Query options of every NPC's agent.
@export var path_options: Dictionary = {"allow_partial": true}
## How far (in cells, along both axes) a first goal may lie from an NPC's start.
@export var first_goal_range: int = FIRST_GOAL_RANGE
## How many NPCs to spawn.
@export_range(1, 500) var npc_count: int = 50
## Seed of every random choice (start cells, goals).
@export var random_seed: int = 7
## NPC speed in pixels per second.
@export var npc_speed: float = 150.0

## The AStarBridge autoload (looked up in [method build]: a script run with --script cannot
## name autoloads directly).
var bridge: Bridge = null
## The level's tiles.
var layer: TileMapLayer = null
## The NPCs, in index order.
var npcs: Array[Npc] = []
## The graph.load_grid parameters uploaded.
var grid_params: Dictionary = {}
## Simulated seconds (physics steps times their delta).
var sim_time: float = 0.0
## Milliseconds the upload took (with the hierarchy's build, if any).
var load_ms: float = 0.0
## Milliseconds each door's [code]graph.update[/code] took: the game waits for it.
var door_update_ms: PackedFloat64Array = PackedFloat64Array()

var _finish: LevelFinish = LevelFinish.new()
var _floor_cells: Array[Vector2i] = []
var _is_floor: Dictionary = {}
var _doors: Array[Dictionary] = []
var _fitting: Dictionary = {}  # size -> Array[Vector2i] (fitting_cells)


## Builds the tile layer, uploads the grid, spawns the NPCs. Returns the load error, if any.
func build() -> Error:
	var autoload: Node = get_node_or_null(^"/root/AStarBridge")
	if not autoload is Bridge:
		printerr("grid level: the AStarBridge autoload is missing")
		return ERR_UNCONFIGURED
	bridge = autoload
	layer = TileMapLayer.new()
	layer.name = "Tiles"
	layer.tile_set = LevelTiles.build(tile_size)
	add_child(layer)
	_paint()
	var options: Dictionary = {}
	if not hierarchy.is_empty():
		options["hierarchy"] = hierarchy.duplicate()
	var started_us: int = Time.get_ticks_usec()
	var loaded: AStarBridgeResult = bridge.load_tile_map_layer(graph_id, layer, options)
	load_ms = (Time.get_ticks_usec() - started_us) / 1000.0
	if not loaded.is_ok():
		printerr("grid level: loading the grid failed: %s" % loaded.message)
		return FAILED
	grid_params = bridge.get_graph_load(graph_id)["params"]
	_spawn_npcs()
	return OK


## True while any NPC waits for a path (the headless run holds simulated time still then).
func any_path_pending() -> bool:
	for npc: Npc in npcs:
		if npc.agent.is_path_pending():
			return true
	return false


## No goal after each NPC's current one (the headless run's end); an NPC that reached its last
## goal leaves the level (its cell no longer blocks the others' last goals).
func finish_up() -> void:
	_finish.finish_up()


## True once every NPC settled its last goal after [method finish_up].
func all_done() -> bool:
	return _finish.all_done()


## The world position of the centre of [param cell].
func cell_center(cell: Vector2i) -> Vector2:
	return GridSerializer.cell_to_world(grid_params, cell)


## Where a unit of [param size] cells a side stands with its footprint's top-left cell at
## [param cell]: the footprint's centre (the cell's centre for a unit of one cell).
func goal_point(cell: Vector2i, size: int) -> Vector2:
	return cell_center(cell) + Vector2.ONE * (tile_size * (size - 1) * 0.5)


## A random goal for a unit of [param size] cells: a floor cell ([method random_floor_cell]) for
## one cell, else the top-left cell of a footprint of floor cells, within [param reach] of
## [param near] along both axes when [param reach] > 0 (anywhere when none is).
func random_goal_cell(
	rng: RandomNumberGenerator, near: Vector2i, reach: int, size: int
) -> Vector2i:
	if size <= 1:
		return random_floor_cell(rng, near, reach)
	var fitting: Array[Vector2i] = fitting_cells(size)
	var choices: Array[Vector2i] = fitting.filter(
		func(cell: Vector2i) -> bool:
			var away: Vector2i = (cell - near).abs()
			return reach <= 0 or (away.x <= reach and away.y <= reach and cell != near)
	)
	if choices.is_empty():
		choices = fitting
	return choices[rng.randi_range(0, choices.size() - 1)]


## The cells whose [param size] x [param size] footprint (them at its top left) is all floor.
func fitting_cells(size: int) -> Array[Vector2i]:
	if _fitting.has(size):
		return _fitting[size]
	var found: Array[Vector2i] = []
	for cell: Vector2i in _floor_cells:
		var all_floor: bool = true
		for dy: int in size:
			for dx: int in size:
				all_floor = all_floor and _is_floor.has(cell + Vector2i(dx, dy))
		if all_floor:
			found.append(cell)
	_fitting[size] = found
	return found


## The cell under world position [param point] ((-1, -1) outside).
func cell_at(point: Vector2) -> Vector2i:
	return GridSerializer.world_to_cell(grid_params, point)


## A random floor cell; within [param reach] cells of [param near] along both axes when
## [param reach] > 0.
func random_floor_cell(rng: RandomNumberGenerator, near: Vector2i, reach: int) -> Vector2i:
	if reach <= 0:
		return _floor_cells[rng.randi_range(0, _floor_cells.size() - 1)]
	# Uniform over the floor cells in reach: draw cells of the square until one is floor (a big
	# map has too many floor cells to filter them all for every goal).
	for _try: int in 256:
		var offset := Vector2i(rng.randi_range(-reach, reach), rng.randi_range(-reach, reach))
		if offset != Vector2i.ZERO and _is_floor.has(near + offset):
			return near + offset
	var choices: Array[Vector2i] = _floor_cells.filter(
		func(cell: Vector2i) -> bool:
			var away: Vector2i = (cell - near).abs()
			return away.x <= reach and away.y <= reach and cell != near
	)
	return choices[rng.randi_range(0, choices.size() - 1)]


## The doors: each {"cells": Array[Vector2i], "open": bool, "next": float (time of change)}.
func get_doors() -> Array[Dictionary]:
	return _doors


func _notification(what: int) -> void:
	if what == NOTIFICATION_PREDELETE:
		for npc: Npc in npcs:
			if is_instance_valid(npc) and not npc.is_inside_tree():
				npc.free()  # it left the level (see finish_up)


func _physics_process(delta: float) -> void:
	sim_time += delta
	for i: int in _doors.size():
		var door: Dictionary = _doors[i]
		var due: float = door["next"]
		if sim_time >= due:
			_toggle_door(i)


func _paint() -> void:
	var door_cells: Array[Vector2i] = []
	for y: int in map_rows.size():
		var row: String = map_rows[y]
		for x: int in row.length():
			var cell := Vector2i(x, y)
			var tile: Vector2i = LevelTiles.LEGEND[row[x]]
			layer.set_cell(cell, LevelTiles.SOURCE, tile)
			if tile == LevelTiles.FLOOR:
				_floor_cells.append(cell)
				_is_floor[cell] = true
			elif tile == LevelTiles.DOOR_OPEN:
				door_cells.append(cell)
	# Neighbouring door cells form one door.
	for cell: Vector2i in door_cells:
		var joined: bool = false
		for door: Dictionary in _doors:
			var cells: Array[Vector2i] = door["cells"]
			for other: Vector2i in cells:
				if (other - cell).abs().x + (other - cell).abs().y == 1:
					cells.append(cell)
					joined = true
					break
			if joined:
				break
		if not joined:
			var cells: Array[Vector2i] = [cell]
			var first: float = DOOR_FIRST_CLOSE + _doors.size() * DOOR_STAGGER
			_doors.append({"cells": cells, "open": true, "next": first})


func _spawn_npcs() -> void:
	var rng := RandomNumberGenerator.new()
	rng.seed = random_seed
	var free: Array[Vector2i] = _floor_cells.duplicate()
	for i: int in npc_count:
		var size: int = _npc_size(i)
		var start: Vector2i = _start_cell(rng, free, size)
		var npc := Npc.new()
		npc.name = "Npc%02d" % i
		npc.index = i
		npc.speed = npc_speed
		# Three quarters of the footprint's half side: the agent's body makes it that size.
		npc.radius = Npc.RADIUS if size == 1 else tile_size * size * 0.375
		npc.position = goal_point(start, size)
		npc.setup(self, graph_id, random_seed * 1000 + i, first_goal_range, path_options)
		npc.arrived.connect(_on_npc_arrived)
		npc.last_goal_settled.connect(_on_npc_done.bind(npc))
		npcs.append(npc)
		_finish.add(npc.pauses)
		add_child(npc)


## Hook: the footprint of NPC [param _index] in cells (its body is made to need that many).
func _npc_size(_index: int) -> int:
	return 1


# A start no other NPC's start overlaps: a cell taken from [param free] for one cell, else the
# top-left cell of a footprint all in [param free] (its cells taken).
func _start_cell(rng: RandomNumberGenerator, free: Array[Vector2i], size: int) -> Vector2i:
	if size == 1:
		return free.pop_at(rng.randi_range(0, free.size() - 1))
	var fitting: Array[Vector2i] = fitting_cells(size).filter(
		func(cell: Vector2i) -> bool:
			for dy: int in size:
				for dx: int in size:
					if not free.has(cell + Vector2i(dx, dy)):
						return false
			return true
	)
	var start: Vector2i = fitting[rng.randi_range(0, fitting.size() - 1)]
	for dy: int in size:
		for dx: int in size:
			free.erase(start + Vector2i(dx, dy))
	return start


func _on_npc_arrived(npc_index: int, goal_number: int, cell: Vector2i) -> void:
	npc_arrived.emit(npc_index, goal_number, cell, sim_time)


func _on_npc_done(_npc_index: int, npc: Npc) -> void:
	remove_child.call_deferred(npc)  # out of the physics step it is in


func _toggle_door(index: int) -> void:
	var door: Dictionary = _doors[index]
	var cells: Array[Vector2i] = door["cells"]
	var opening: bool = not door["open"]
	if not opening and _door_busy(cells):
		return  # Someone is in or next to the doorway: try again next step.
	var tile: Vector2i = LevelTiles.DOOR_OPEN if opening else LevelTiles.DOOR_CLOSED
	for cell: Vector2i in cells:
		layer.set_cell(cell, LevelTiles.SOURCE, tile)
	var started_us: int = Time.get_ticks_usec()
	# The NPCs whose path the door touches (or who have no full path) re-path on their own.
	var result: AStarBridgeResult = bridge.set_cells_solid(graph_id, cells, not opening)
	door_update_ms.append((Time.get_ticks_usec() - started_us) / 1000.0)
	if not result.is_ok():
		printerr("grid level: door update failed: %s" % result.message)
	door["open"] = opening
	door["next"] = sim_time + (DOOR_OPEN_S if opening else DOOR_CLOSED_S)
	door_changed.emit(index, opening, sim_time)


func _door_busy(cells: Array[Vector2i]) -> bool:
	for npc: Npc in npcs:
		if not npc.is_inside_tree():
			continue
		var at: Vector2i = cell_at(npc.global_position)
		for cell: Vector2i in cells:
			var away: Vector2i = (at - cell).abs()
			if away.x <= 1 and away.y <= 1:
				return true
	return false
