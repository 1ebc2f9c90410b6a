## A flow field toward a set of goal cells of a grid, shared by every unit heading there: each
## unit samples it locally ([method direction_at], [method next_waypoint]) every frame with no
## request of its own. Made by [code]AStarBridge.request_flow_field()[/code]; the tiles (the
## grid's HPA* clusters, 16 cells a side without a hierarchy) are fetched as units reach them:
## sampling a cell of a tile not held yet answers "no direction" this frame and asks for it,
## one [code]field.request[/code] (those cells as starts) plus one [code]field.tiles[/code] per
## frame for every cell asked in that frame. After a wall change ([code]set_cells_solid[/code],
## [code]set_cells_weight[/code]) the sidecar repairs the field and names the tiles that changed;
## those are fetched again ([signal tiles_changed]). After a sidecar restart, a reload of the
## grid, or an eviction from the sidecar's cache, the field is requested again and its tiles
## fetched again. Positions: [Vector2i] cells in the engine's coordinates (as
## [code]set_cells_solid[/code]), [Vector2] world positions (as paths). See docs/flowfield.md.
## This script samples the tiles held; the requests that fetch them are the runtime's
## (runtime/flow_field_client.gd, the script of the fields the autoload makes, extends it).
## [codeblock]
## var field: AStarBridgeFlowField = AStarBridge.request_flow_field("level", [Vector2i(40, 8)])
## func _physics_process(_delta: float) -> void:
##     for unit in units:
##         var target: Vector2 = field.next_waypoint(unit.position)
##         unit.velocity = unit.position.direction_to(target) * speed
## [/codeblock]
class_name AStarBridgeFlowField
extends RefCounted

# The signals are emitted by runtime/flow_field_client.gd (the fields' script), not here.
## Emitted once, when the first tiles arrived ([method is_ready] turns true).
@warning_ignore("unused_signal")
signal ready_changed
## Tiles held before were fetched again (the sidecar repaired them after a grid change, or the
## field was requested again after a restart): their directions and costs may differ.
@warning_ignore("unused_signal")
signal tiles_changed(tiles: PackedInt32Array)
## Tiles arrived for the first time.
@warning_ignore("unused_signal")
signal tiles_arrived(tiles: PackedInt32Array)
## A request of this field failed ([member last_error] says why); the field keeps what it holds,
## and asks again at the next sample past a short pause.
@warning_ignore("unused_signal")
signal failed(code: String, message: String)

## What a cell is, in the field: not known yet (tile not fetched, or outside the grid), a cell
## with a way on, a goal, a walkable cell from which no goal can be reached, a wall.
enum State { UNKNOWN, MOVE, GOAL, UNREACHABLE, WALL }

const GOAL_BYTE := 8
const UNREACHABLE_BYTE := 9
const WALL_BYTE := 10
# What the flat copy of the grid holds for cells of tiles not held.
const UNKNOWN_BYTE := 255
## The move of each direction byte 0..7 (the protocol's order).
const STEPS: Array[Vector2i] = [
	Vector2i(1, 0),
	Vector2i(-1, 0),
	Vector2i(0, 1),
	Vector2i(0, -1),
	Vector2i(1, 1),
	Vector2i(-1, 1),
	Vector2i(1, -1),
	Vector2i(-1, -1),
]
const STEP_X: PackedInt32Array = [1, -1, 0, 0, 1, -1, 1, -1]
const STEP_Y: PackedInt32Array = [0, 0, 1, -1, 1, 1, -1, -1]
const DIAGONAL_NAMES: PackedStringArray = [
	"never", "always", "at_least_one_walkable", "only_if_no_obstacles"
]
const DIAG_NEVER := 0
const DIAG_ALWAYS := 1
const DIAG_AT_LEAST_ONE := 2
const DIAG_ONLY_IF_NO_OBSTACLES := 3

## The grid's id.
var graph_id: String = ""
## The sidecar's id of the field ("" until the first answer, and while it is requested again).
var field_id: String = ""
## Cells with agents are not entered (options.agents_block).
var agents_block: bool = false
## Costs are fetched with the directions (options.costs), for [method cost_at].
var with_costs: bool = false
## The units' footprint in cells (options.size, or options.radius made cells): the field leads
## units of this size (k x k cells) along moves their footprint fits. Its cells are the
## footprints' top-left cells (anchors); positions ([method cell_to_world], [method next_waypoint],
## a unit's position) are the footprints' centres.
var size: int = 1
## Counters for tests and HUDs: field.request and field.tiles sent, tiles received.
var requests_sent: int = 0
var fetches_sent: int = 0
var tiles_received: int = 0
## Why the last request failed, or "".
var last_error: String = ""
## [method next_waypoint] answers from a per-cell cache, dropped whenever held tiles change
## (units stay in a cell for several frames). Off: every call walks the chain (benchmarks).
var cache_waypoints: bool = true
## Microseconds per frame [method next_waypoint] may spend walking chains not in its cache (0: no
## limit); past it, it answers the next cell down the field (in sight, not smoothed) until the
## next frame, so a wall change or a crowd entering new cells never stalls a frame.
var waypoint_budget_usec: int = 1000

var _width: int = 0
var _height: int = 0
var _offset: Vector2i = Vector2i.ZERO  # the engine's coordinates of the grid's cell (0, 0)
var _origin: Vector2 = Vector2.ZERO
var _cell_size: Vector2 = Vector2.ONE
var _diagonal: int = 3
var _units: PackedVector2Array = PackedVector2Array()  # world unit vector per direction byte
var _tile_size: int = 0  # 0 until the first answer
var _tiles_x: int = 0
var _dirs: Array[PackedByteArray] = []  # per tile id; empty while not held
var _costs: Array[PackedFloat32Array] = []
# Every held tile's bytes copied, row by row, into one row-major grid (UNKNOWN_BYTE elsewhere):
# sampling reads one byte, no tile lookup.
var _flat: PackedByteArray = PackedByteArray()
var _sight_cache: Dictionary = {}  # start index * 256 + max_cells -> farthest cell index
var _budget_frame: int = -1
var _spent_usec: int = 0
var _ready: bool = false


## Made by the autoload (runtime/field_calls.gd, as runtime/flow_field_client.gd):
## [param grid] holds width, height and diagonal of the grid's load parameters, [param origin]
## and [param cell_size] its world placement.
func _init(
	id: String,
	grid: Dictionary,
	offset: Vector2i,
	origin: Vector2,
	cell_size: Vector2,
	options: Dictionary
) -> void:
	graph_id = id
	_width = grid.get("width", 0)
	_height = grid.get("height", 0)
	_offset = offset
	_cell_size = cell_size
	var mode: int = DIAGONAL_NAMES.find(str(grid.get("diagonal", "")))
	_diagonal = mode if mode >= 0 else DIAG_ONLY_IF_NO_OBSTACLES
	agents_block = options.get("agents_block", false) == true
	with_costs = options.get("costs", false) == true
	size = options.get("size", 1)
	# Positions are footprint centres, (size - 1) / 2 cells past the anchor's point: the field's
	# own origin moves there, so every cell <-> world conversion speaks anchors.
	_origin = origin + cell_size * ((size - 1) * 0.5)
	for step: Vector2i in STEPS:
		_units.append((Vector2(step) * _cell_size).normalized())


## True once the first tiles arrived.
func is_ready() -> bool:
	return _ready


## The grid's tile size in cells (0 until the first answer).
func get_tile_size() -> int:
	return _tile_size


## The ids of the tiles held now (a tile id is [code]ty * tiles_x + tx[/code] in the grid's
## own cells).
func get_held_tiles() -> PackedInt32Array:
	var held := PackedInt32Array()
	for tile: int in _dirs.size():
		if not _dirs[tile].is_empty():
			held.append(tile)
	return held


## The grid's cells in the engine's coordinates.
func get_grid_rect() -> Rect2i:
	return Rect2i(_offset, Vector2i(_width, _height))


## The size of a cell in the world.
func get_cell_size() -> Vector2:
	return _cell_size


## The direction byte of engine cell [param cell] as fetched (0..7 a move of [constant STEPS],
## 8 a goal, 9 unreachable, 10 a wall), or -1 when its tile is not held or it is outside the
## grid. Asks for nothing (for tools such as the debug drawing).
func byte_at(cell: Vector2i) -> int:
	return _code(cell.x - _offset.x, cell.y - _offset.y)


## The unit vector (in world space) toward the next cell down the field from the cell at
## [param world_position]; [constant Vector2.ZERO] on a goal, a wall, an unreachable cell,
## outside the grid, or in a tile not fetched yet (which asks for it: it arrives in a frame or two).
func direction_at(world_position: Vector2) -> Vector2:
	var cell: Vector2i = _cell_near(world_position)
	var code: int = _code(cell.x, cell.y)
	if code < 0:
		_want(cell.x, cell.y)
		return Vector2.ZERO
	return _units[code] if code < GOAL_BYTE else Vector2.ZERO


## The move from engine cell [param cell] to the next one down the field ((0, 0) where
## [method direction_at] gives zero; asks for a tile not held like it).
func direction_at_cell(cell: Vector2i) -> Vector2i:
	var local: Vector2i = cell - _offset
	var code: int = _code(local.x, local.y)
	if code < 0:
		_want(local.x, local.y)
		return Vector2i.ZERO
	return STEPS[code] if code < GOAL_BYTE else Vector2i.ZERO


## The exact cost from engine cell [param cell] to the nearest goal (the path's cost, weights
## included), [constant INF] where no goal can be reached, on a wall, in a tile not held, or
## when the field was made without [code]options.costs[/code]. Asks for nothing.
func cost_at(cell: Vector2i) -> float:
	var local: Vector2i = cell - _offset
	var tile: int = _tile_of(local.x, local.y)
	if tile < 0 or tile >= _costs.size() or _costs[tile].is_empty():
		return INF
	return _costs[tile][(local.y % _tile_size) * _tile_size + local.x % _tile_size]


## What engine cell [param cell] is in the field ([enum State]). Asks for nothing.
func state_at(cell: Vector2i) -> State:
	var local: Vector2i = cell - _offset
	var code: int = _code(local.x, local.y)
	if code < 0:
		return State.UNKNOWN
	if code < GOAL_BYTE:
		return State.MOVE
	if code == GOAL_BYTE:
		return State.GOAL
	return State.UNREACHABLE if code == UNREACHABLE_BYTE else State.WALL


## Fetches the tiles of [param points] (engine cells [Vector2i] or world positions [Vector2])
## before units get there: one request for all of them. Points outside the grid are skipped.
func cover(points: Array) -> void:
	for point: Variant in points:
		var local: Vector2i = _local_of(point)
		if _inside(local.x, local.y) and not _holds(local.x, local.y):
			_want(local.x, local.y)


## Where a unit at [param world_position] should head: the world position of the farthest cell
## down the field, at most [param max_cells] steps, that it sees in a straight line (the
## segment crosses only open cells of fetched tiles, corners as the grid's diagonal rule
## allows; python_core.flowfield.sight's rule). The unit's own cell on a goal;
## [param world_position] itself where there is no way on (a wall, unreachable, a tile not
## fetched yet, outside the grid).
func next_waypoint(world_position: Vector2, max_cells: int = 32) -> Vector2:
	var start: Vector2i = _cell_near(world_position)
	var code: int = _code(start.x, start.y)
	if code < 0:
		_want(start.x, start.y)
		return world_position
	if code > GOAL_BYTE:
		return world_position
	var best: Vector2i = _farthest(start, max_cells, true)
	return _origin + Vector2(best) * _cell_size


## [method next_waypoint] in engine cells: the farthest visible cell down the field from
## [param cell] ([param cell] itself where there is no way on). push_error and [param cell]
## for [param max_cells] < 1.
func farthest_cell(cell: Vector2i, max_cells: int = 32) -> Vector2i:
	if max_cells < 1:
		push_error("AStarBridgeFlowField.farthest_cell: max_cells must be >= 1, got %d" % max_cells)
		return cell
	var local: Vector2i = cell - _offset
	if _code(local.x, local.y) < 0:
		_want(local.x, local.y)
		return cell
	return _farthest(local, max_cells, false) + _offset


## The world position of engine cell [param cell] (the point paths go through).
func cell_to_world(cell: Vector2i) -> Vector2:
	return _origin + Vector2(cell - _offset) * _cell_size


## The engine cell nearest to [param world_position] (it may lie outside the grid).
func world_to_cell(world_position: Vector2) -> Vector2i:
	var rel: Vector2 = (world_position - _origin) / _cell_size + Vector2(0.5, 0.5)
	return Vector2i(floori(rel.x), floori(rel.y)) + _offset


# --- sampling --------------------------------------------------------------------------------


# The grid cell a unit at [param world_position] samples: the nearest cell, or, when that is a
# wall, the nearest open cell of the four around the position. A unit cutting a corner (the
# diagonal modes "always" and "at least one", AStarGrid2D's default) passes closer to a wall
# cell's point than to any open one, and would read "no way on" there.
func _cell_near(world_position: Vector2) -> Vector2i:
	var rel: Vector2 = (world_position - _origin) / _cell_size
	var nearest := Vector2i(roundi(rel.x), roundi(rel.y))
	if _code(nearest.x, nearest.y) != WALL_BYTE:
		return nearest
	var best: Vector2i = nearest
	var best_distance: float = INF
	for cell: Vector2i in [
		Vector2i(floori(rel.x), floori(rel.y)),
		Vector2i(ceili(rel.x), floori(rel.y)),
		Vector2i(floori(rel.x), ceili(rel.y)),
		Vector2i(ceili(rel.x), ceili(rel.y)),
	]:
		var code: int = _code(cell.x, cell.y)
		var distance: float = rel.distance_squared_to(Vector2(cell))
		if code >= 0 and code <= GOAL_BYTE and distance < best_distance:
			best = cell
			best_distance = distance
	return best


# The direction byte of grid cell (x, y), or -1 outside the grid or in a tile not held.
func _code(x: int, y: int) -> int:
	if x < 0 or y < 0 or x >= _width or y >= _height or _flat.is_empty():
		return -1
	var code: int = _flat[y * _width + x]
	return -1 if code == UNKNOWN_BYTE else code


func _tile_of(x: int, y: int) -> int:
	if x < 0 or y < 0 or x >= _width or y >= _height or _tile_size == 0:
		return -1
	@warning_ignore("integer_division")
	var tile: int = (y / _tile_size) * _tiles_x + x / _tile_size
	return tile


func _inside(x: int, y: int) -> bool:
	return x >= 0 and y >= 0 and x < _width and y < _height


# Whether the tile of cell (x, y) is held (an unknown tile size: not yet).
func _holds(x: int, y: int) -> bool:
	return _tile_size != 0 and not _dirs[_tile_of(x, y)].is_empty()


# python_core.flowfield.sight.farthest_visible on the fetched bytes: walk the chain, keep the
# last cell in sight, stop at the first one out of sight (a chain leaving the fetched tiles asks
# for the next tile, so units moving on find it there). Answers are kept per cell until tiles
# arrive or change (units stay in a cell for several frames), except walks that ran into a tile
# not held (they ask for it, and ask again next time).
func _farthest(start: Vector2i, max_cells: int, budgeted: bool) -> Vector2i:
	var w: int = _width
	var from: int = start.y * w + start.x
	var key: int = from * 256 + max_cells
	if cache_waypoints and max_cells < 256 and _sight_cache.has(key):
		var kept: int = _sight_cache[key]
		@warning_ignore("integer_division")
		var kept_y: int = kept / w
		return Vector2i(kept - kept_y * w, kept_y)
	budgeted = budgeted and waypoint_budget_usec > 0
	if budgeted:
		var frame: int = Engine.get_process_frames()
		if frame != _budget_frame:
			_budget_frame = frame
			_spent_usec = 0
		if _spent_usec >= waypoint_budget_usec:
			# Over this frame's budget: the next cell down the chain (always in sight), not kept.
			var next: int = _flat[from]
			return start + STEPS[next] if next < GOAL_BYTE else start
	var began: int = Time.get_ticks_usec()
	var best: int = _walk(start.x, start.y, max_cells)
	var complete: bool = best >= 0
	best = absi(best) - 1 if best < 0 else best
	@warning_ignore("integer_division")
	var best_y: int = best / w
	if cache_waypoints and complete and max_cells < 256:
		_sight_cache[key] = best
	if budgeted:
		_spent_usec += Time.get_ticks_usec() - began
	return Vector2i(best - best_y * w, best_y)


# The chain walk of [method _farthest] from grid cell (x0, y0), with kernels.line_of_sight inlined
# on the flat bytes (no call per cell: this is the hot loop): the flat index of the farthest chain
# cell in sight, or -(index + 1) when the chain ran into a tile not held (which is asked for).
# A cell is open when its byte is below WALL_BYTE (a tile not held reads UNKNOWN_BYTE); a corner
# crossed exactly is a diagonal step the grid's rule must allow. The segment's cells lie in the
# bounding box of its ends, inside the grid.
func _walk(x0: int, y0: int, max_cells: int) -> int:
	var flat: PackedByteArray = _flat
	var w: int = _width
	var diagonal: int = _diagonal
	var from: int = y0 * w + x0
	var best: int = from
	var x: int = x0
	var y: int = y0
	for _i: int in max_cells:
		var code: int = flat[y * w + x]
		if code == UNKNOWN_BYTE:
			_want(x, y)
			return -(best + 1)
		if code >= GOAL_BYTE:
			break
		x += STEP_X[code]
		y += STEP_Y[code]
		var target: int = y * w + x
		if flat[target] >= WALL_BYTE:
			break
		var dx: int = absi(x - x0)
		var dy: int = absi(y - y0)
		var sx: int = 1 if x > x0 else -1
		var sy: int = w if y > y0 else -w
		var index: int = from
		var err: int = dx - dy
		var clear: bool = true
		for _j: int in dx + dy:
			if err > 0:
				index += sx
				err -= 2 * dy
			elif err < 0:
				index += sy
				err += 2 * dx
			else:
				var side_a: bool = flat[index + sx] < WALL_BYTE
				var side_b: bool = flat[index + sy] < WALL_BYTE
				clear = (
					diagonal == DIAG_ALWAYS
					or (side_a and side_b)
					or (diagonal == DIAG_AT_LEAST_ONE and (side_a or side_b))
				)
				if not clear:
					break
				index += sx + sy
				err += 2 * dx - 2 * dy
			if flat[index] >= WALL_BYTE:
				clear = false
				break
			if index == target:
				break
		if not clear:
			break
		best = target
	return best


func _local_of(point: Variant) -> Vector2i:
	if point is Vector2i:
		var cell: Vector2i = point
		return cell - _offset
	if point is Vector2:
		var position: Vector2 = point
		var rel: Vector2 = (position - _origin) / _cell_size + Vector2(0.5, 0.5)
		return Vector2i(floori(rel.x), floori(rel.y))
	return Vector2i(-1, -1)


# A cell of a tile not held was sampled: the runtime's field asks for its tile (it overrides
# this in runtime/flow_field_client.gd); this script by itself fetches nothing.
func _want(_x: int, _y: int) -> void:
	pass
