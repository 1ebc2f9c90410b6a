## Internal: which grid cell each [code]AStarBridgeAgent2D[/code] with an [code]agent_id[/code]
## occupies, batched into one [code]graph.update[/code] per grid per frame.
## An agent of size k occupies the k x k cells whose top-left cell (its anchor) is the cell held
## here: the anchor whose footprint centre is nearest the agent, as the sidecar maps positions.
##
## Agents queue place / move / remove operations; the first queue call of a frame schedules one
## deferred flush that sends every grid's operations in a single update. An agent counts as placed
## (and may pass its id in query options) only once the update that placed it succeeded.
extends RefCounted

const GridSerializer = preload("../serializers/grid_serializer.gd")
const GraphUpdates = preload("../serializers/graph_updates.gd")
const LatticeFootprint = preload("lattice_footprint.gd")
## The largest footprint a grid answers (its clearance is one byte per cell).
const MAX_SIZE := 255

## Grid geometry (width, height, origin, cell_size) by graph id.
static var _grids: Dictionary = {}
## Pending operations by graph id: Array[Dictionary] of agent ops.
static var _pending: Dictionary = {}
## Confirmed cell by graph id -> {agent id: Vector2i}.
static var _placed: Dictionary = {}
## Confirmed footprint size by graph id -> {agent id: int} (sizes other than 1 only).
static var _sizes: Dictionary = {}
static var _flush_scheduled: bool = false
static var _bridge: Node = null


## Remembers the geometry of a grid loaded with [param params] (graph.load_grid parameters).
## Forgets every agent placed on it before: a load starts from an empty grid.
static func register_grid(params: Dictionary) -> void:
	var id: String = str(params.get("id", ""))
	var width: int = params.get("width", 0)
	var height: int = params.get("height", 0)
	_grids[id] = {
		"width": width,
		"height": height,
		"origin": params.get("origin", [0.0, 0.0]),
		"cell_size": params.get("cell_size", [1.0, 1.0]),
		# Hex / isometric TileMapLayers: GridSerializer's cell <-> world conversions read it.
		"layout": params.get("layout", {}),
	}
	_placed[id] = {}
	_sizes[id] = {}
	_pending.erase(id)


## Forgets everything about graph [param graph_id] (after [code]drop_graph[/code]).
static func forget_grid(graph_id: String) -> void:
	_grids.erase(graph_id)
	_placed.erase(graph_id)
	_sizes.erase(graph_id)
	_pending.erase(graph_id)


## Forgets the agents placed on [param graph_id] (the sidecar lost them, e.g. after a reload).
static func reset_agents(graph_id: String) -> void:
	if _placed.has(graph_id):
		_placed[graph_id] = {}
		_sizes[graph_id] = {}
	_pending.erase(graph_id)


## True when [param graph_id] is a registered grid.
static func has_grid(graph_id: String) -> bool:
	return _grids.has(graph_id)


## The cell of [param graph_id] nearest [param position], or (-1, -1) outside / unknown grid.
static func cell_of(graph_id: String, position: Vector2) -> Vector2i:
	if not _grids.has(graph_id):
		return Vector2i(-1, -1)
	var grid: Dictionary = _grids[graph_id]
	return GridSerializer.world_to_cell(grid, position)


## The footprint (cells a side) that holds a unit of [param radius] world units on grid
## [param graph_id]: [code]max(1, ceil(2 * radius / smaller cell side))[/code], the sidecar's rule
## for a query's radius; on a hexagonal, isometric or half-offset layout the fewest rings around
## the cell that hold the unit's disc (lattice_footprint.gd, remembered per radius); 1 for a
## radius <= 0, an unknown grid or AStarGrid2D's isometric shapes, at most [constant MAX_SIZE].
static func size_for_radius(graph_id: String, radius: float) -> int:
	if not _grids.has(graph_id) or not radius > 0.0 or is_inf(radius):
		return 1
	var grid: Dictionary = _grids[graph_id]
	if _centred(grid):  # hex, isometric, half-offset: the cell and rings (the sidecar's rule)
		var known: Dictionary = grid.get("radius_sizes", {})
		if not known.has(radius):
			known[radius] = LatticeFootprint.size_for_radius(grid, radius)
			grid["radius_sizes"] = known
		var size: int = known[radius]
		return size
	var layout: Dictionary = grid.get("layout", {})
	if not layout.is_empty():
		return 1  # AStarGrid2D's isometric shapes: one cell
	var cell: Vector2 = _cell_extent(grid)
	var side: float = minf(cell.x, cell.y)
	if side <= 0.0:
		return 1
	# The sidecar's tolerance: a radius of exactly k/2 cells is k cells, not k + 1.
	return clampi(ceili(2.0 * radius / side - 1e-9), 1, MAX_SIZE)


## The anchor (top-left cell of the footprint) of a unit of [param size] cells standing at
## [param position] on [param graph_id]: the anchor whose footprint centre is nearest, kept so
## the footprint lies inside the grid; (-1, -1) when the position is outside the grid, the
## footprint is wider than the grid, or the grid is unknown. On a hexagonal, isometric or
## half-offset layout a footprint is centred on its cell (the cell and size - 1 rings of
## neighbours): the cell under [param position].
static func anchor_of(graph_id: String, position: Vector2, size: int = 1) -> Vector2i:
	if not _grids.has(graph_id):
		return Vector2i(-1, -1)
	var grid: Dictionary = _grids[graph_id]
	var width: int = grid["width"]
	var height: int = grid["height"]
	if size < 1 or size > width or size > height:
		return Vector2i(-1, -1)
	var under: Vector2i = GridSerializer.world_to_cell(grid, position)
	if size == 1 or under == Vector2i(-1, -1) or _centred(grid):
		return under  # one cell, or a hex / isometric footprint: the cell under the unit is its centre
	var origin: Vector2 = GridSerializer.cell_to_world(grid, Vector2i.ZERO)
	var step: Vector2 = GridSerializer.cell_to_world(grid, Vector2i.ONE) - origin
	# The footprint's centre lies (size - 1) / 2 cells past its anchor's point; floor(t + 0.5) as
	# the sidecar rounds.
	var rel: Vector2 = (position - origin) / step - Vector2.ONE * ((size - 1) * 0.5)
	var anchor := Vector2i((rel + Vector2(0.5, 0.5)).floor())
	return Vector2i(clampi(anchor.x, 0, width - size), clampi(anchor.y, 0, height - size))


## The world position of [param cell] of [param graph_id] (Vector2.ZERO for an unknown grid).
static func cell_position(graph_id: String, cell: Vector2i) -> Vector2:
	if not _grids.has(graph_id):
		return Vector2.ZERO
	var grid: Dictionary = _grids[graph_id]
	return GridSerializer.cell_to_world(grid, cell)


## True once an update placing [param agent] on [param graph_id] succeeded.
static func is_placed(graph_id: String, agent: int) -> bool:
	var cells: Dictionary = _placed.get(graph_id, {})
	return cells.has(agent)


## True while an operation for [param agent] on [param graph_id] waits for the next flush.
static func is_queued(graph_id: String, agent: int) -> bool:
	var ops: Array = _pending.get(graph_id, [])
	for op: Dictionary in ops:
		if op["agent"] == agent:
			return true
	return false


## The confirmed cells of every placed agent of [param graph_id]: {agent id: Vector2i}.
static func placed_agents(graph_id: String) -> Dictionary:
	var cells: Dictionary = _placed.get(graph_id, {})
	return cells.duplicate()


## The confirmed footprint size of [param agent] on [param graph_id] (1 when not placed).
static func confirmed_size(graph_id: String, agent: int) -> int:
	var sizes: Dictionary = _sizes.get(graph_id, {})
	return sizes.get(agent, 1)


## Queues [param agent] onto [param cell] (place when new, else move) for the next flush, with a
## footprint of [param size] x [param size] cells anchored there (a new size places it anew).
## A size outside 1 .. [constant MAX_SIZE] is refused: push_error, nothing queued.
static func occupy(
	bridge: Node, graph_id: String, agent: int, cell: Vector2i, size: int = 1
) -> void:
	if size < 1 or size > MAX_SIZE:
		push_error("AStarBridge: agent %d's size must be 1 .. %d, got %d" % [agent, MAX_SIZE, size])
		return
	var op: Dictionary = GraphUpdates.agent_op("move", agent, cell)
	op["size"] = size
	_queue(bridge, graph_id, op)


## Queues the removal of [param agent] for the next flush (dropped if it was never placed).
static func release(bridge: Node, graph_id: String, agent: int) -> void:
	_queue(bridge, graph_id, GraphUpdates.agent_op("remove", agent))


## Sends every queued operation now: one [code]update_graph[/code] per grid. Returns the number
## of updates that failed. A failed update changed nothing on the sidecar, so what was confirmed
## before stays (and is what a restart re-uploads); its agents queue their cells again on their
## next frame. While the bridge is not ready (a sidecar restarting) the operations wait, so a
## frame never blocks on the restart.
static func flush() -> int:
	_flush_scheduled = false
	var failed: int = 0
	if _bridge == null or not is_instance_valid(_bridge):
		_pending.clear()
		return 0
	if _bridge.has_method("is_ready") and _bridge.call("is_ready") != true:
		return 0
	var ids: Array = _pending.keys()
	ids.sort()
	for graph_id: String in ids:
		var queued: Array = _pending[graph_id]
		var ops: Array[Dictionary] = _compact(graph_id, queued)
		_pending.erase(graph_id)
		if ops.is_empty():
			continue
		var result: Object = _bridge.call(
			"update_graph", graph_id, GraphUpdates.agents_changed(graph_id, ops)
		)
		if result != null and result.call("is_ok") == true:
			_confirm(graph_id, ops)
		else:
			failed += 1
	return failed


## The cell the sidecar holds [param agent] on in [param graph_id] (confirmed by a successful
## update), or (-1, -1).
static func confirmed_cell(graph_id: String, agent: int) -> Vector2i:
	var cells: Dictionary = _placed.get(graph_id, {})
	return cells.get(agent, Vector2i(-1, -1))


static func _queue(bridge: Node, graph_id: String, op: Dictionary) -> void:
	if not _grids.has(graph_id):
		return
	_bridge = bridge
	if not _pending.has(graph_id):
		_pending[graph_id] = []
	var queued: Array = _pending[graph_id]
	queued.append(op)
	if not _flush_scheduled:
		_flush_scheduled = true
		Callable(flush).call_deferred()


## Keeps one operation per agent, its last, made to fit what the sidecar holds: a cell becomes
## "move" for a placed agent and "place" for a new one; a removal of an unplaced agent is dropped.
## Agents are ordered by id so the bytes sent do not depend on node order.
static func _compact(graph_id: String, raw: Array) -> Array[Dictionary]:
	var last: Dictionary = {}
	for op: Dictionary in raw:
		last[op["agent"]] = op
	var agents: Array = last.keys()
	agents.sort()
	var ops: Array[Dictionary] = []
	for agent: int in agents:
		var op: Dictionary = last[agent]
		var placed: bool = is_placed(graph_id, agent)
		if op["op"] == "remove":
			if placed:
				ops.append(op)
			continue
		var cell: Vector2i = _cell_of(op)
		var size: int = op.get("size", 1)
		if placed and size != confirmed_size(graph_id, agent):
			# "move" keeps the sidecar's size: a new footprint is a removal and a placement.
			ops.append(GraphUpdates.agent_op("remove", agent))
			placed = false
		var sent: Dictionary = GraphUpdates.agent_op("move" if placed else "place", agent, cell)
		if not placed and size != 1:
			sent["size"] = size  # size 1 is the wire's default: today's bytes
		ops.append(sent)
	return ops


static func _confirm(graph_id: String, ops: Array[Dictionary]) -> void:
	if not _placed.has(graph_id):
		_placed[graph_id] = {}
	if not _sizes.has(graph_id):
		_sizes[graph_id] = {}
	var cells: Dictionary = _placed[graph_id]
	var sizes: Dictionary = _sizes[graph_id]
	for op: Dictionary in ops:
		if op["op"] == "remove":
			cells.erase(op["agent"])
			sizes.erase(op["agent"])
		else:
			cells[op["agent"]] = _cell_of(op)
			if op["op"] == "place":
				if op.get("size", 1) != 1:
					sizes[op["agent"]] = op["size"]
				else:
					sizes.erase(op["agent"])


# True on a TileSet layout (hexagonal, isometric, half-offset): footprints there are the cell
# and rings of its neighbours, centred on it; AStarGrid2D's isometric shapes keep square ones.
static func _centred(grid: Dictionary) -> bool:
	var layout: Dictionary = grid.get("layout", {})
	var shape: String = str(layout.get("shape", "square"))
	return shape != "square" and not shape.begins_with("astar_")


# The size of one cell in the world (its sides' lengths, positive).
static func _cell_extent(grid: Dictionary) -> Vector2:
	return (
		(
			GridSerializer.cell_to_world(grid, Vector2i.ONE)
			- GridSerializer.cell_to_world(grid, Vector2i.ZERO)
		)
		. abs()
	)


static func _cell_of(op: Dictionary) -> Vector2i:
	var pair: Array = op["cell"]
	var x: int = pair[0]
	var y: int = pair[1]
	return Vector2i(x, y)


## True when a cell of [param cells] lies on or next to (8 neighbours) the polyline
## [param points] on grid [param graph_id], or, for a unit of [param size] cells (points are its
## footprint's centres), on or next to its footprint; true for an unknown grid (it cannot tell).
## Segments are sampled at a quarter cell, so a path listing only its corners is covered too.
static func path_touches(
	graph_id: String, points: PackedVector2Array, cells: Array[Vector2i], size: int = 1
) -> bool:
	if not _grids.has(graph_id):
		return true
	# A footprint reaches (size - 1) / 2 cells (rounded up) from the cell under its centre; on a
	# hex or isometric layout size - 1 rings of neighbours (a ring's map step is at most two).
	var grid: Dictionary = _grids[graph_id]
	var reach: int = 2 * size - 1 if _centred(grid) else 1 + floori(size / 2.0)
	var near: Dictionary = {}
	for cell: Vector2i in cells:
		for dy: int in range(-reach, reach + 1):
			for dx: int in range(-reach, reach + 1):
				near[cell + Vector2i(dx, dy)] = true
	var extent: Vector2 = _cell_extent(grid)
	var step: float = maxf(minf(extent.x, extent.y) * 0.25, 0.0001)
	for i: int in points.size():
		if near.has(GridSerializer.world_to_cell(grid, points[i])):
			return true
		if i == 0:
			continue
		var length: float = points[i - 1].distance_to(points[i])
		var samples: int = ceili(length / step)
		for s: int in range(1, samples):
			var at: Vector2 = points[i - 1].lerp(points[i], float(s) / samples)
			if near.has(GridSerializer.world_to_cell(grid, at)):
				return true
	return false
