## The flow field the runtime makes (runtime/field_calls.gd): the public sampling class
## api/flow_field.gd (AStarBridgeFlowField) plus its wire. It sends [code]field.request[/code]
## (the cells sampled in a frame as starts, at the frame's end) and [code]field.tiles[/code],
## copies the tiles they bring into the field's flat grid of direction bytes, fetches again the
## tiles the sidecar repaired, and requests the field again after a lost sidecar, a reloaded
## grid or an eviction. Cells here are the grid's own (x, y), 0-based.
# api/flow_field_layout.gd: the sampling on hexagonal, isometric and half-offset grids.
extends "res://addons/astar_bridge/api/flow_field_layout.gd"

const FieldWire = preload("res://addons/astar_bridge/runtime/field_wire.gd")
# A failed request is not asked again for this long (units keep sampling every frame).
const RETRY_MS := 500

# (method, params, on_done, transform) -> void: the autoload's request queue.
var _send: Callable
var _goals: PackedByteArray = PackedByteArray()  # int32 (x, y) pairs, the grid's own cells
var _flat_writer: StreamPeerBuffer = StreamPeerBuffer.new()
var _epoch: int = 0  # answers of an older epoch (before a re-request) are ignored
var _awaiting_id: bool = false  # a field.request without a field id is out
var _rebuilding: bool = false
var _lost: bool = false
var _retry_at_ms: int = 0
var _asked: Dictionary = {}  # tile -> a cell index (y * width + x) asked this frame
var _early: PackedInt32Array = PackedInt32Array()  # cells asked before the tile size is known
var _in_flight: Dictionary = {}  # tile -> true while fetched
var _refetch: Dictionary = {}  # tile -> true: changed, to fetch again
var _flush_scheduled: bool = false


## [param send] sends a request through the autoload's queue; [param grid] holds width, height,
## diagonal and the world placement (cell_size, origin) of the grid's load parameters;
## [param goals] are the grid's own cells as int32 pairs.
func _init(
	send: Callable,
	id: String,
	grid: Dictionary,
	offset: Vector2i,
	goals: PackedInt32Array,
	options: Dictionary
) -> void:
	var origin: Vector2 = FieldWire.vec2(grid.get("origin", [0.0, 0.0]), Vector2.ZERO)
	var cell_size: Vector2 = FieldWire.vec2(grid.get("cell_size", [1.0, 1.0]), Vector2.ONE)
	super(id, grid, offset, origin, cell_size, options)
	_send = send
	_goals = goals.to_byte_array()


## Sends the first request (the autoload calls it once), covering grid cells [param starts]
## (int32 pairs).
func begin(starts: PackedInt32Array) -> void:
	for i: int in range(0, starts.size() - 1, 2):
		_want(starts[i], starts[i + 1])
	if _early.is_empty():
		_early.append_array(_goal_cell())  # something to fetch: the goals' own tile
	_schedule()


## The sidecar tells that tiles [param tiles] of this field changed (field.changed).
func on_changed(tiles: Array) -> void:
	for value: Variant in tiles:
		var tile: int = value if value is int else -1
		if (
			tile >= 0
			and tile < _dirs.size()
			and (not _dirs[tile].is_empty() or _in_flight.has(tile))
		):
			_refetch[tile] = true
	if not _refetch.is_empty():
		_schedule()


## The connection to the sidecar was lost: the field's id means nothing to the next sidecar.
func on_lost() -> void:
	_epoch += 1
	_lost = true
	_awaiting_id = false
	_in_flight.clear()
	if not field_id.is_empty():
		field_id = ""
		_rebuilding = true


## The sidecar is ready again after a loss, or the grid was loaded again: the field is asked
## again when it had been asked before.
func on_sidecar_ready(reloaded: bool) -> void:
	if reloaded or _lost:
		_rebuild()


# A cell of a tile not held was sampled: ask for its tile once (batched until the frame's end).
func _want(x: int, y: int) -> void:
	if not _inside(x, y):
		return
	if _tile_size == 0:
		if _early.size() < 4096:
			_early.append_array([x, y])
		_schedule()
		return
	var tile: int = _tile_of(x, y)
	if _in_flight.has(tile) or _asked.has(tile):
		return
	_asked[tile] = y * _width + x
	_schedule()


func _schedule() -> void:
	if not _flush_scheduled:
		_flush_scheduled = true
		_flush.call_deferred()


# At the frame's end: one field.request for every cell asked this frame, with the field.tiles
# of their tiles right behind it (the sidecar runs them in arrival order), and the fetch of the
# tiles that changed.
func _flush() -> void:
	_flush_scheduled = false
	if _awaiting_id:
		return  # the answer flushes again
	if Time.get_ticks_msec() < _retry_at_ms:
		_asked.clear()
		_early.clear()
		return
	if field_id.is_empty():
		var starts: PackedInt32Array = _early
		_early = PackedInt32Array()
		for tile: int in _asked:
			var index: int = _asked[tile]
			starts.append_array(_cell_pair(index))
		_asked.clear()
		if not starts.is_empty() or _rebuilding:
			_awaiting_id = true
			_request(starts, PackedInt32Array())
		return
	if not _asked.is_empty():
		var starts := PackedInt32Array()
		var tiles := PackedInt32Array()
		for tile: int in _asked:
			var index: int = _asked[tile]
			starts.append_array(_cell_pair(index))
			tiles.append(tile)
		_asked.clear()
		_request(starts, tiles)
	var again := PackedInt32Array()
	for tile: int in _refetch.keys():
		if not _in_flight.has(tile):
			if not _dirs[tile].is_empty():
				again.append(tile)  # a tile not held yet is asked for when sampled
			_refetch.erase(tile)
	if not again.is_empty():
		_fetch(again)


func _request(starts: PackedInt32Array, tiles: PackedInt32Array) -> void:
	requests_sent += 1
	var epoch: int = _epoch
	var params: Dictionary = {
		"graph": graph_id,
		"goals": _goals,
		"starts": starts.to_byte_array(),
		"agents_block": agents_block,
	}
	if size != 1:
		params["size"] = size  # absent: 1, today's bytes
	var transform: Callable = FieldWire.identity()
	if _awaiting_id:
		# The first request (or a re-request) brings its starts' tiles: no field.tiles round
		# trip before the first units move.
		params["fetch"] = true
		if with_costs:
			params["costs"] = true
		transform = FieldWire.request_splitter(with_costs)
	var on_done: Callable = func(response: Dictionary) -> void:
		_on_requested(response, epoch, starts)
	_send.call("field.request", params, on_done, transform)
	if not tiles.is_empty():
		_fetch(tiles)


func _fetch(tiles: PackedInt32Array) -> void:
	fetches_sent += 1
	for tile: int in tiles:
		_in_flight[tile] = true
	var epoch: int = _epoch
	var params: Dictionary = {"field": field_id, "tiles": tiles}
	if with_costs:
		params["costs"] = true
	var on_done: Callable = func(answer: Dictionary) -> void: _on_tiles(answer, tiles, epoch)
	_send.call(
		"field.tiles", params, on_done, FieldWire.splitter(_tile_size * _tile_size, with_costs)
	)


func _on_requested(response: Dictionary, epoch: int, starts: PackedInt32Array) -> void:
	if epoch != _epoch:
		return
	var was_waiting: bool = _awaiting_id
	_awaiting_id = false
	if response.get("error") != null:
		_fail(response["error"])
		return
	var result: Dictionary = response["result"] if response.get("result") is Dictionary else {}
	var tile_side: int = FieldWire.int_of(result.get("tile_size"))
	var tiles_x: int = FieldWire.int_of(result.get("tiles_x"))
	var tiles_y: int = FieldWire.int_of(result.get("tiles_y"))
	var shaped: bool = (
		tile_side > 0 and tiles_x > 0 and tiles_y > 0 and result.get("field") is String
	)
	# on a hexagonal, isometric or half-offset grid, the answer's move table too
	if not shaped or not _take_moves(result.get("layout_moves")):
		_fail({"code": "bad_answer", "message": "field.request answered %s" % str(result).left(80)})
		return
	field_id = result["field"]
	_lost = false
	if _tile_size != tile_side or _dirs.size() != tiles_x * tiles_y:
		_tile_size = tile_side
		_tiles_x = tiles_x
		_dirs.resize(tiles_x * tiles_y)
		_dirs.fill(PackedByteArray())
		var unknown := PackedByteArray()
		unknown.resize(_width * _height)
		unknown.fill(UNKNOWN_BYTE)
		_flat_writer.data_array = unknown
		_flat = unknown
		_sight_cache.clear()
		_costs.resize(tiles_x * tiles_y)
		_costs.fill(PackedFloat32Array())
	if not was_waiting:
		return  # its tiles were fetched right behind it
	# The first answer (or a re-request's): it brought the tiles of its own starts (after a
	# re-request, every tile held: a start went in for each). A tile it did not bring is fetched;
	# cells asked while it was out have no tile computed yet and go in the next frame's request.
	var brought := PackedInt32Array()
	for value: Variant in result.get("fetched", []):
		var tile: int = value if value is int else -1
		if tile < 0 or tile >= _dirs.size():
			_fail({"code": "bad_answer", "message": "field.request brought tile %s" % value})
			return
		brought.append(tile)
	var wanted: Dictionary = {}
	for i: int in range(0, starts.size() - 1, 2):
		var tile: int = _tile_of(starts[i], starts[i + 1])
		if tile >= 0:
			wanted[tile] = true
	if _rebuilding:
		_rebuilding = false
		for tile: int in _dirs.size():
			if not _dirs[tile].is_empty():
				wanted[tile] = true
	var dirs: Array = response["dirs"] if response.get("dirs") is Array else []
	var costs: Array = response["costs"] if response.get("costs") is Array else []
	if dirs.size() != brought.size():
		_fail({"code": "bad_answer", "message": "field.request brought tiles without their bytes"})
		return
	for tile: int in brought:
		wanted.erase(tile)
	for tile: int in wanted:
		_asked.erase(tile)
	if not wanted.is_empty():
		_fetch(PackedInt32Array(wanted.keys()))
	if not brought.is_empty():
		_take(brought, dirs, costs)
	var early: PackedInt32Array = _early
	_early = PackedInt32Array()
	for i: int in range(0, early.size() - 1, 2):
		if not _holds(early[i], early[i + 1]):
			_want(early[i], early[i + 1])
	if not _asked.is_empty() or not _refetch.is_empty():
		_schedule()


func _on_tiles(answer: Dictionary, tiles: PackedInt32Array, epoch: int) -> void:
	if epoch != _epoch:
		return
	for tile: int in tiles:
		_in_flight.erase(tile)
	if answer.get("error") != null:
		var error: Dictionary = answer["error"] if answer["error"] is Dictionary else {}
		if str(error.get("code", "")) == "unknown_point":
			_rebuild()  # evicted from the sidecar's cache (or the sidecar forgot it)
		else:
			for tile: int in tiles:
				if not _dirs[tile].is_empty():
					_refetch[tile] = true  # a changed tile whose new bytes did not come: ask again
			_fail(answer["error"])
		return
	var dirs: Array = answer["dirs"]
	var costs: Array = answer["costs"]
	_take(tiles, dirs, costs)


# Stores fetched tiles (their bytes, and costs when asked) and tells who listens.
func _take(tiles: PackedInt32Array, dirs: Array, costs: Array) -> void:
	var fresh := PackedInt32Array()
	var again := PackedInt32Array()
	for i: int in tiles.size():
		var tile: int = tiles[i]
		if _dirs[tile].is_empty():
			fresh.append(tile)
		else:
			again.append(tile)
		var bytes: PackedByteArray = dirs[i]
		_dirs[tile] = bytes
		_copy_rows(tile, bytes)
		if with_costs:
			_costs[tile] = costs[i]
	_flat = _flat_writer.data_array
	if not again.is_empty():
		# Changed bytes may have closed a kept line of sight. New tiles only open cells that read
		# as closed: a kept answer stays a visible chain cell, if not the farthest.
		_sight_cache.clear()
	tiles_received += tiles.size()
	if not _refetch.is_empty():
		_schedule()  # changed while in flight
	if not _ready:
		_ready = true
		ready_changed.emit()
	if not fresh.is_empty():
		tiles_arrived.emit(fresh)
	if not again.is_empty():
		tiles_changed.emit(again)


# Copies [param bytes] (tile [param tile], row-major) into the flat grid, one write per row.
func _copy_rows(tile: int, bytes: PackedByteArray) -> void:
	@warning_ignore("integer_division")
	var y0: int = (tile / _tiles_x) * _tile_size
	var x0: int = (tile % _tiles_x) * _tile_size
	var row: int = mini(_tile_size, _width - x0)
	for r: int in mini(_tile_size, _height - y0):
		_flat_writer.seek((y0 + r) * _width + x0)
		_flat_writer.put_data(bytes.slice(r * _tile_size, r * _tile_size + row))


# The field is asked again from scratch (a restart, a reload, an eviction): the tiles held stay
# in use until their new bytes arrive.
func _rebuild() -> void:
	_epoch += 1
	field_id = ""
	_in_flight.clear()
	_rebuilding = true
	_awaiting_id = false
	_retry_at_ms = 0
	for tile: int in _dirs.size():
		if not _dirs[tile].is_empty():
			_early.append_array(_tile_corner(tile))
	if _early.is_empty():
		_early.append_array(_goal_cell())
	_schedule()


func _fail(error: Variant) -> void:
	var map: Dictionary = error if error is Dictionary else {}
	var code: String = str(map.get("code", "error"))
	last_error = "%s: %s" % [code, map.get("message", "")]
	if code in ["disconnected", "not_connected"]:
		_lost = true  # asked again once the sidecar is back
	_in_flight.clear()
	_retry_at_ms = Time.get_ticks_msec() + RETRY_MS
	var tree: SceneTree = Engine.get_main_loop() as SceneTree
	if not _refetch.is_empty() and tree != null:
		# Held tiles known to be stale: fetch them after the pause even if no unit asks for anything.
		tree.create_timer(RETRY_MS / 1000.0 + 0.01).timeout.connect(_schedule)
	failed.emit(code, last_error)


func _cell_pair(index: int) -> PackedInt32Array:
	@warning_ignore("integer_division")
	var y: int = index / _width
	return PackedInt32Array([index % _width, y])


func _tile_corner(tile: int) -> PackedInt32Array:
	@warning_ignore("integer_division")
	var ty: int = tile / _tiles_x
	return PackedInt32Array([(tile % _tiles_x) * _tile_size, ty * _tile_size])


func _goal_cell() -> PackedInt32Array:
	return _goals.slice(0, 8).to_int32_array()
