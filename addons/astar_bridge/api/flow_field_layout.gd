## A flow field's sampling on a hexagonal, isometric or half-offset grid (a grid loaded with a
## [code]"layout"[/code]: [code]load_tile_map_layer[/code] of such a layer, or a diamond
## [AStarGrid2D]). There a direction byte 0..7 is move k of the layout's own move table, which
## the sidecar sends with the field ([code]layout_moves[/code]: per parity class of rows or
## columns, the [code][dx, dy][/code] of each move; PROTOCOL.md); the next cell is
## [code]cell + moves[class][byte][/code] and positions are the cells' centres
## ([code]map_to_local[/code], through CellLayout). On a square grid every call is the base
## class's. [method next_waypoint] and [method farthest_cell] give the next cell down the field
## (no straight-line shortcut across a lattice). Sits between api/flow_field.gd and the runtime's
## field (runtime/flow_field_client.gd extends it).
extends "res://addons/astar_bridge/api/flow_field.gd"

const CellLayout = preload("res://addons/astar_bridge/serializers/cell_layout.gd")

var _params: Dictionary = {}  # the grid's load parameters (origin, cell_size, layout)
var _on_layout: bool = false
var _moves: Array[PackedInt32Array] = []  # per parity class: dx0, dy0, dx1, dy1, ...
var _parity_axis: int = -1
var _parity_shift: int = 0


func _init(
	id: String,
	grid: Dictionary,
	offset: Vector2i,
	origin: Vector2,
	cell_size: Vector2,
	options: Dictionary
) -> void:
	super(id, grid, offset, origin, cell_size, options)
	_params = grid
	_on_layout = not CellLayout.layout_of(grid).is_empty()


## True on a hexagonal, isometric or half-offset grid (bytes index the layout's own moves).
func is_on_layout() -> bool:
	return _on_layout


## The unit vector from the centre of the cell at [param world_position] toward the centre of
## the next cell down the field (see the base class for the zero cases).
func direction_at(world_position: Vector2) -> Vector2:
	if not _on_layout:
		return super(world_position)
	var cell: Vector2i = CellLayout.cell_at(_params, world_position)
	var next: Vector2i = _next_of(cell)
	if next == cell:
		return Vector2.ZERO
	return (CellLayout.centre(_params, next) - CellLayout.centre(_params, cell)).normalized()


## The move from engine cell [param cell] to the next one down the field: on a layout, the
## neighbour's offset in engine cells ((0, 0) where there is no way on).
func direction_at_cell(cell: Vector2i) -> Vector2i:
	if not _on_layout:
		return super(cell)
	var local: Vector2i = cell - _offset
	return _next_of(local) - local


## On a layout: the centre of the next cell down the field ([param world_position] itself where
## there is no way on, the cell's centre on a goal).
func next_waypoint(world_position: Vector2, max_cells: int = 32) -> Vector2:
	if not _on_layout:
		return super(world_position, max_cells)
	var cell: Vector2i = CellLayout.cell_at(_params, world_position)
	var code: int = _code(cell.x, cell.y)
	if code < 0 or code > GOAL_BYTE:
		return world_position
	return CellLayout.centre(_params, _next_of(cell))


## On a layout: the next cell down the field from [param cell] (itself where there is no way on).
func farthest_cell(cell: Vector2i, max_cells: int = 32) -> Vector2i:
	if not _on_layout:
		return super(cell, max_cells)
	if max_cells < 1:
		push_error("AStarBridgeFlowField.farthest_cell: max_cells must be >= 1, got %d" % max_cells)
		return cell
	return _next_of(cell - _offset) + _offset


## The world position of engine cell [param cell]: its centre (map_to_local) on a layout.
func cell_to_world(cell: Vector2i) -> Vector2:
	if not _on_layout:
		return super(cell)
	return CellLayout.centre(_params, cell - _offset)


## The engine cell whose tile holds [param world_position] on a layout (local_to_map).
func world_to_cell(world_position: Vector2) -> Vector2i:
	if not _on_layout:
		return super(world_position)
	return CellLayout.cell_at(_params, world_position) + _offset


# The move table of a field.request answer's "layout_moves" (false when it is malformed).
func _take_moves(table: Variant) -> bool:
	if not _on_layout or not table is Dictionary:
		return not _on_layout
	var given: Dictionary = table
	var classes: Variant = given.get("moves")
	var rows: Array = classes if classes is Array else []
	if rows.size() != 2:
		return false
	var moves: Array[PackedInt32Array] = []
	for row: Variant in rows:
		var listed: Array = row if row is Array else []
		var flat := PackedInt32Array()
		for move: Variant in listed:
			var pair: Array = move if move is Array else []
			if pair.size() != 2 or not pair[0] is int or not pair[1] is int:
				return false
			var dx: int = pair[0]
			var dy: int = pair[1]
			flat.append_array([dx, dy])
		moves.append(flat)
	var axis: Variant = given.get("parity_axis", -1)
	var shift: Variant = given.get("parity_shift", 0)
	if not axis is int or not shift is int:
		return false
	_moves = moves
	_parity_axis = axis
	_parity_shift = shift
	return true


# The grid cell the field leads to from grid cell [param cell]: itself on a goal, a wall, an
# unreachable cell, a tile not held (which is asked for) or before the move table arrived.
func _next_of(cell: Vector2i) -> Vector2i:
	var code: int = _code(cell.x, cell.y)
	if code < 0:
		_want(cell.x, cell.y)
		return cell
	if code >= GOAL_BYTE or _moves.is_empty():
		return cell
	var parity: int = 0
	if _parity_axis >= 0:
		parity = posmod((cell.y if _parity_axis == 1 else cell.x) + _parity_shift, 2)
	var row: PackedInt32Array = _moves[parity]
	if 2 * code + 1 >= row.size():
		return cell
	return cell + Vector2i(row[2 * code], row[2 * code + 1])


func _local_of(point: Variant) -> Vector2i:
	if _on_layout and point is Vector2:
		var position: Vector2 = point
		return CellLayout.cell_at(_params, position)
	return super(point)
