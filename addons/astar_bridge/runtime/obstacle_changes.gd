## The obstacles of every graph (AStarBridgeObstacle2D / 3D nodes and the autoload's
## set_obstacle calls), sent as ONE [code]graph.update[/code] {obstacles: [...]} per graph at the
## frame's end, whatever number of them changed: the first change of a frame schedules one
## deferred flush, and each obstacle goes with its last shape of the frame. While a graph's last
## update is unanswered (a sidecar re-cutting a big mesh more slowly than the game moves), the
## next changes wait and then go together: the sidecar works on the latest shapes, never on a
## backlog of positions already left.
##
## It keeps what the game wants (every obstacle's shape) apart from what the sidecar holds, so a
## graph loaded (or loaded again) later gets every obstacle at the end of that frame, a removal
## is sent only for an obstacle the sidecar has, and a failed update (nothing changed on the
## sidecar: updates are all or nothing) is followed by a clear and every wanted shape once. After
## a sidecar restart the graph store's replay puts back what was confirmed (it folds obstacles).
extends RefCounted

## A frame's obstacle changes of graph [param id] were sent (queries sent from now on see them);
## [param outlines]: the ground-plane outlines of the obstacles placed or moved (removals open
## ground: they block no path), [param bounds] their boxes.
signal sent(id: String, outlines: Array[PackedVector2Array], bounds: Array[Rect2])

const EditRequest = preload("res://addons/astar_bridge/api/edit_request.gd")
const GraphCalls = preload("res://addons/astar_bridge/runtime/graph_calls.gd")
const GraphStore = preload("res://addons/astar_bridge/runtime/graph_store.gd")
const ObstacleSerializer = preload("res://addons/astar_bridge/serializers/obstacle_serializer.gd")

var _graphs: GraphCalls
var _store: GraphStore
# graph -> {obstacle id: {"op", "outline", "dim"}} (ObstacleSerializer's): what the game wants.
var _wanted: Dictionary = {}
# graph -> {obstacle id: true}: what the sidecar holds once the updates sent are applied.
var _held: Dictionary = {}
# graph -> {obstacle id: true}: changed since the last update sent.
var _dirty: Dictionary = {}
# graph -> true: the next update clears and sends every wanted obstacle (after a failed one).
var _resync: Dictionary = {}
# graph -> true: an update was sent and is not answered yet.
var _in_flight: Dictionary = {}
var _flush_scheduled: bool = false


func _init(graphs: GraphCalls, store: GraphStore) -> void:
	_graphs = graphs
	_store = store
	_graphs.loaded.connect(graph_loaded)


## Places (or moves) obstacle [param id] on [param graph_id] at the frame's end: [param shape]
## an outline, or a centre with [param radius] (see the autoload's set_obstacle). OK, or
## ERR_INVALID_PARAMETER after a push_error saying what is wrong.
func set_shape(
	graph_id: String, id: int, shape: Variant, radius: float = 0.0, height: float = INF
) -> Error:
	if graph_id.is_empty():
		push_error("AStarBridge: obstacle %d needs a graph id" % id)
		return ERR_INVALID_PARAMETER
	var made: Dictionary = (
		ObstacleSerializer.circle(id, shape, radius, height)
		if shape is Vector2 or shape is Vector3
		else ObstacleSerializer.polygon(id, shape, height)
	)
	return set_made(graph_id, made)


## [method set_shape] of a shape ObstacleSerializer made ({}: refused, its reason pushed).
func set_made(graph_id: String, shape: Dictionary) -> Error:
	if shape.is_empty():
		return ERR_INVALID_PARAMETER
	var op: Dictionary = shape["op"]
	var id: int = op["id"]
	_of(_wanted, graph_id)[id] = shape
	_mark(graph_id, id)
	return OK


## Removes obstacle [param id] of [param graph_id] at the frame's end. OK, or
## ERR_DOES_NOT_EXIST (after a push_error) when no obstacle of that id is set there.
func remove(graph_id: String, id: int) -> Error:
	var wanted: Dictionary = _wanted.get(graph_id, {})
	if not wanted.has(id):
		push_error("AStarBridge: graph %s has no obstacle %d to remove" % [graph_id, id])
		return ERR_DOES_NOT_EXIST
	wanted.erase(id)
	_mark(graph_id, id)
	return OK


## The number of obstacles set on [param graph_id] (sent or still to be sent).
func count(graph_id: String) -> int:
	var wanted: Dictionary = _wanted.get(graph_id, {})
	return wanted.size()


## The ground-plane outline of every obstacle set on [param graph_id]: {obstacle id: outline}.
func outlines(graph_id: String) -> Dictionary:
	var wanted: Dictionary = _wanted.get(graph_id, {})
	var found: Dictionary = {}
	for id: int in wanted:
		found[id] = wanted[id]["outline"]
	return found


## A load of graph [param id] starts from a graph without obstacles: every wanted one is sent
## at the end of this frame.
func graph_loaded(id: String) -> void:
	_held[id] = {}
	_in_flight.erase(id)  # an answer still to come was for the graph before the load
	_resync.erase(id)
	var wanted: Dictionary = _wanted.get(id, {})
	for obstacle: int in wanted:
		_mark(id, obstacle)


## Sends every graph's changes now: one update per graph (graphs not loaded yet keep theirs).
func flush() -> void:
	_flush_scheduled = false
	var ids: Array = _dirty.keys()
	for id: String in _resync:
		if not id in ids:
			ids.append(id)
	ids.sort()
	for id: String in ids:
		if _store.has(id) and not _in_flight.has(id):
			_send(id)


func _send(id: String) -> void:
	var dim: int = _dim_of(id)
	var dirty: Dictionary = _dirty.get(id, {})
	_dirty.erase(id)
	if dim == 0:
		push_error(
			"AStarBridge: graph %s is a waypoint graph: obstacles are for grids and navmeshes" % id
		)
		return
	var wanted: Dictionary = _of(_wanted, id)
	var held: Dictionary = _of(_held, id)
	var resync: bool = _resync.has(id)
	_resync.erase(id)
	var ops: Array = []
	var placed: Array[PackedVector2Array] = []
	var boxes: Array[Rect2] = []
	var changed: Array = wanted.keys() if resync else dirty.keys()
	changed.sort()
	if resync:
		ops.append({"op": "clear"})
		held.clear()
	for obstacle: int in changed:
		if wanted.has(obstacle):
			var shape: Dictionary = wanted[obstacle]
			if shape["dim"] != dim:
				push_error(
					(
						"AStarBridge: obstacle %d is %dD but graph %s is %dD: not placed"
						% [obstacle, shape["dim"], id, dim]
					)
				)
				wanted.erase(obstacle)
			else:
				ops.append(shape["op"])
				placed.append(shape["outline"])
				boxes.append(shape["bounds"])
				held[obstacle] = true
				continue
		if held.has(obstacle):
			ops.append(ObstacleSerializer.remove_op(obstacle))
			held.erase(obstacle)
	if ops.is_empty():
		return
	var request: EditRequest = _graphs.request_wire(id, {"obstacles": ops})
	_in_flight[id] = true
	request.completed.connect(_answered.bind(id, resync), CONNECT_ONE_SHOT)
	sent.emit(id, placed, boxes)


# A failed update changed nothing: the sidecar's obstacles are no longer what _held says, so
# the next one starts from a clear (once: a failed clear waits for the next change).
func _answered(result: RefCounted, id: String, was_resync: bool) -> void:
	_in_flight.erase(id)
	if result.call("is_ok") != true and not was_resync:
		_resync[id] = true
	if _dirty.has(id) or _resync.has(id):
		_schedule()  # the changes that waited for this answer


func _mark(graph_id: String, id: int) -> void:
	_of(_dirty, graph_id)[id] = true
	_schedule()


func _schedule() -> void:
	if not _flush_scheduled:
		_flush_scheduled = true
		flush.call_deferred()


# 2 for a grid or a 2D navmesh, 3 for a 3D navmesh, 0 for a waypoint graph.
func _dim_of(id: String) -> int:
	var method: String = _store.method_of(id)
	if method == "graph.load_grid":
		return 2
	if method == "graph.load_navmesh":
		var dim: Variant = _store.params_of(id).get("dim", 2)
		return dim if dim is int else 2
	return 0


static func _of(table: Dictionary, id: String) -> Dictionary:
	if not table.has(id):
		table[id] = {}
	var inner: Dictionary = table[id]
	return inner
