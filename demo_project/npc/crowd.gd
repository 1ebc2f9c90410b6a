## A crowd: every unit in a few packed arrays (no node per unit), moved each physics step down its
## goal's flow field and drawn by one MultiMeshInstance2D. A unit reads the move out of its cell
## ([method AStarBridgeFlowField.direction_at_cell]: a lookup in the tiles the field keeps here,
## no request per unit) and heads for the centre of the cell that move leads to, so it never cuts
## a wall's corner; a simple separation over a hash of the cells keeps units apart where the
## floor allows it. A unit that steps into its goal's room leaves the crowd.
extends Node2D

const CrowdMap = preload("res://levels/crowd_map.gd")
## The goals' colours, one per field.
const COLORS: Array[Color] = [
	Color(0.95, 0.35, 0.3), Color(0.3, 0.75, 0.95), Color(0.95, 0.8, 0.25), Color(0.5, 0.9, 0.4)
]
## Floats per instance in the MultiMesh buffer: a 2D transform (8) and a colour (4).
const STRIDE := 12
const UNKNOWN := AStarBridgeFlowField.State.UNKNOWN
# The 3 x 3 cells around a unit as offsets in the hash from its cell's top-left neighbour.
const _HASH_STRIDE := CrowdMap.SIZE + 2
const _NEIGHBOURS: PackedInt32Array = [
	0,
	1,
	2,
	_HASH_STRIDE,
	_HASH_STRIDE + 1,
	_HASH_STRIDE + 2,
	2 * _HASH_STRIDE,
	2 * _HASH_STRIDE + 1,
	2 * _HASH_STRIDE + 2
]

## Pixels per cell (cell (x, y) covers [x, x + 1) * cell_px along each axis).
var cell_px: float = 8.0
## Pixels per second.
var speed: float = 320.0
## Units closer than this (pixels) push each other apart.
var separation_radius: float = 5.0
## The map (floor, goal rooms).
var map: CrowdMap = null
## One field per goal (null until the level orders it).
var fields: Array[AStarBridgeFlowField] = []
## Units still walking, and the ones that reached their goal (per goal too).
var active: int = 0
var arrived: int = 0
var arrived_per_goal: PackedInt32Array = PackedInt32Array([0, 0, 0, 0])
## Steps taken, and the first step in which a unit moved (-1: none yet).
var steps: int = 0
var first_move_step: int = -1

# Per slot (0 .. active - 1; an arrived unit's slot is taken by the last one).
var _positions: PackedVector2Array = PackedVector2Array()
var _goals: PackedByteArray = PackedByteArray()
# The cell hash: per cell (with a border of one, so neighbours need no bounds test) the first
# unit in it, and per unit the next one in its cell.
var _head: PackedInt32Array = PackedInt32Array()
var _next: PackedInt32Array = PackedInt32Array()
var _done: PackedByteArray = PackedByteArray()
# (goal, x, y) of cells units sampled before their field held the tile.
var _unknown: PackedInt32Array = PackedInt32Array()
var _multimesh: MultiMesh = null
var _buffer: PackedFloat32Array = PackedFloat32Array()


## Places the units: [param positions] (world pixels) and each one's goal (an index into
## [param goal_fields]); call once, before the first [method step].
func setup(
	crowd_map: CrowdMap,
	goal_fields: Array[AStarBridgeFlowField],
	positions: PackedVector2Array,
	goals: PackedByteArray
) -> void:
	map = crowd_map
	fields = goal_fields
	_positions = positions.duplicate()
	_goals = goals.duplicate()
	active = positions.size()
	_next.resize(active)
	_done.resize(active)
	_head.resize((CrowdMap.SIZE + 2) * (CrowdMap.SIZE + 2))
	_multimesh = MultiMesh.new()
	_multimesh.transform_format = MultiMesh.TRANSFORM_2D
	_multimesh.use_colors = true
	var quad := QuadMesh.new()
	quad.size = Vector2(separation_radius, separation_radius)
	_multimesh.mesh = quad
	var extent: float = CrowdMap.SIZE * cell_px
	_multimesh.custom_aabb = AABB(Vector3.ZERO, Vector3(extent, extent, 0.0))
	_multimesh.instance_count = active
	_buffer.resize(active * STRIDE)
	for slot: int in active:
		_write_instance(slot)
	var drawn := MultiMeshInstance2D.new()
	drawn.name = "Units"
	drawn.multimesh = _multimesh
	add_child(drawn)
	_draw_units()


## One physics step of [param delta] seconds: every unit moves (or waits: no direction in its cell
## yet, or its way is shut), the arrived ones leave. Returns how many moved.
func step(delta: float) -> int:
	steps += 1
	_hash()
	var size: int = CrowdMap.SIZE
	var stride: int = size + 2
	var inv: float = 1.0 / cell_px
	var max_step: float = speed * delta
	var radius: float = separation_radius
	var radius_sq: float = radius * radius
	var cells: PackedByteArray = map.cells
	var goal_of_cell: PackedByteArray = map.goal_of_cell
	var moved: int = 0
	# A field not ready yet is not sampled: its first request covers only a few units, and
	# the rest ask once it is there.
	var ready_goal := PackedByteArray()
	for field: AStarBridgeFlowField in fields:
		ready_goal.append(1 if field != null and field.is_ready() else 0)
	for i: int in active:
		var p: Vector2 = _positions[i]
		var cx: int = int(p.x * inv)
		var cy: int = int(p.y * inv)
		var goal: int = _goals[i]
		var move := Vector2i.ZERO
		if ready_goal[goal] != 0:
			move = fields[goal].direction_at_cell(Vector2i(cx, cy))
		var velocity := Vector2.ZERO
		if move == Vector2i.ZERO:
			if ready_goal[goal] != 0 and fields[goal].state_at(Vector2i(cx, cy)) == UNKNOWN:
				_unknown.append_array([goal, cx, cy])  # its tile is asked for: wait
		else:
			# Towards the centre of the cell the move leads to: that segment stays in the two
			# cells (and, diagonally, in the two the grid's rule keeps open beside them).
			var target := Vector2((cx + move.x + 0.5) * cell_px, (cy + move.y + 0.5) * cell_px)
			var to: Vector2 = target - p
			var dist: float = to.length()
			if dist > 0.001:
				velocity = to * (minf(max_step, dist) / dist)
		var push := Vector2.ZERO
		for key: int in _NEIGHBOURS:
			var j: int = _head[cy * stride + cx + key]
			while j >= 0:
				if j != i:
					var away: Vector2 = p - _positions[j]
					var d2: float = away.length_squared()
					if d2 < radius_sq:
						if d2 > 0.0001:
							var d: float = sqrt(d2)
							push += away * ((radius - d) / d)
						else:
							# Two units on one point: split them the same way every run.
							push += Vector2(radius * 0.5, 0.0).rotated(float(i - j))
				j = _next[j]
		var next: Vector2 = p + velocity + push.limit_length(max_step * 0.5)
		if cells[int(next.y * inv) * size + int(next.x * inv)] == 0:
			# Separation must not push anyone into a wall; a closed door (its tiles not yet
			# fetched again) stops the step itself.
			next = p + velocity
			if cells[int(next.y * inv) * size + int(next.x * inv)] == 0:
				next = p
		if next != p:
			moved += 1
			_positions[i] = next
		_done[i] = (
			1 if goal_of_cell[int(next.y * inv) * size + int(next.x * inv)] == goal + 1 else 0
		)
	if moved > 0 and first_move_step < 0:
		first_move_step = steps
	_leave()
	_draw_units()
	return moved


## The units still walking, by slot: positions (world pixels).
func get_positions() -> PackedVector2Array:
	return _positions.slice(0, active)


## The goal of each unit still walking, by slot (as [method get_positions]).
func get_goals() -> PackedByteArray:
	return _goals.slice(0, active)


## True while a cell a unit sampled is still unknown to its field (its tile is on its way).
## Each such cell is sampled again: a field drops what was asked during the pause after a
## failed request, and the units, held still, would not ask again.
func has_unknown_cells() -> bool:
	var left := PackedInt32Array()
	for at: int in range(0, _unknown.size(), 3):
		var cell := Vector2i(_unknown[at + 1], _unknown[at + 2])
		var field: AStarBridgeFlowField = fields[_unknown[at]]
		if field.direction_at_cell(cell) == Vector2i.ZERO and field.state_at(cell) == UNKNOWN:
			left.append_array(_unknown.slice(at, at + 3))
	_unknown = left
	return not _unknown.is_empty()


## Hashes the units' cells again (for [method near_any] after a step moved them).
func rehash() -> void:
	_hash()


## True when a unit stands on or next to one of [param cells] (a door should not shut on it).
func near_any(cells: Array) -> bool:
	var stride: int = CrowdMap.SIZE + 2
	for cell: Vector2i in cells:
		for dy: int in 3:
			for dx: int in 3:
				if _head[(cell.y + dy) * stride + cell.x + dx] >= 0:
					return true
	return false


func _hash() -> void:
	_head.fill(-1)
	var stride: int = CrowdMap.SIZE + 2
	var inv: float = 1.0 / cell_px
	for i: int in active:
		var p: Vector2 = _positions[i]
		var key: int = (int(p.y * inv) + 1) * stride + int(p.x * inv) + 1
		_next[i] = _head[key]
		_head[key] = i


# The arrived units leave: the last walking unit takes each one's slot.
func _leave() -> void:
	var i: int = 0
	while i < active:
		if _done[i] == 0:
			i += 1
			continue
		arrived += 1
		arrived_per_goal[_goals[i]] += 1
		active -= 1
		_positions[i] = _positions[active]
		_goals[i] = _goals[active]
		_done[i] = _done[active]
		_write_instance(i)


func _write_instance(slot: int) -> void:
	var at: int = slot * STRIDE
	var color: Color = COLORS[_goals[slot]]
	_buffer[at] = 1.0
	_buffer[at + 5] = 1.0
	_buffer[at + 8] = color.r
	_buffer[at + 9] = color.g
	_buffer[at + 10] = color.b
	_buffer[at + 11] = 1.0


func _draw_units() -> void:
	for i: int in active:
		var p: Vector2 = _positions[i]
		_buffer[i * STRIDE + 3] = p.x
		_buffer[i * STRIDE + 7] = p.y
	_multimesh.buffer = _buffer
	_multimesh.visible_instance_count = active
