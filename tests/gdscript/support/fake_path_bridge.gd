## A stand-in for the AStarBridge autoload in agent tests: answers request_path from Godot's own
## AStarGrid2D (an oracle that is not our code), one frame later, and records update_graph calls.
extends Node

signal graph_loaded(id: String)
## Emitted by [method play_ground_change], as the autoload does after an update of the ground.
signal graph_updated(id: String, cells: Array[Vector2i])

const AgentOccupancy = preload("res://addons/astar_bridge/runtime/agent_occupancy.gd")

## Every update_graph(id, changes) call, in order, as [id, changes].
var updates: Array = []
## Every request_path call, in order, as {"graph", "from", "to", "options"}.
var requests: Array[Dictionary] = []
## The grid answering queries; world positions are its point positions.
var grid: AStarGrid2D = AStarGrid2D.new()


## A request object with the real one's signal.
class Request:
	extends RefCounted
	signal completed(result: Dictionary)


## A successful BridgeResult stand-in.
class Ok:
	extends RefCounted

	func is_ok() -> bool:
		return true


## Loads [param params] (graph.load_grid parameters with cell_size and origin) into [member grid].
func load_grid_params(params: Dictionary) -> void:
	var cells: PackedByteArray = params["cells"]
	var width: int = params["width"]
	var height: int = params["height"]
	grid.region = Rect2i(0, 0, width, height)
	grid.cell_size = _pair(params["cell_size"])
	grid.offset = _pair(params["origin"])
	grid.diagonal_mode = AStarGrid2D.DIAGONAL_MODE_ONLY_IF_NO_OBSTACLES
	grid.update()
	for i: int in cells.size():
		grid.set_point_solid(Vector2i(i % width, floori(float(i) / width)), cells[i] == 0)
	AgentOccupancy.register_grid(params)  # as the autoload does on a grid load
	graph_loaded.emit(str(params["id"]))


func request_path(graph: String, from: Variant, to: Variant, options: Dictionary = {}) -> Request:
	requests.append({"graph": graph, "from": from, "to": to, "options": options})
	var request := Request.new()
	var start: Vector2i = _cell(from)
	var goal: Vector2i = _cell(to)
	var points: PackedVector2Array = grid.get_point_path(start, goal)
	var result: Dictionary = {
		"status": "found" if not points.is_empty() else "no_path",
		"points": points,
		"cost": 0.0,
		"expanded": 0,
		"error": {},
	}
	request.completed.emit.call_deferred(result)
	return request


## Tells the agents that [param cells] of graph [param id] changed (empty: any part may have).
func play_ground_change(id: String, cells: Array[Vector2i]) -> void:
	graph_updated.emit(id, cells)


func update_graph(id: String, changes: Dictionary) -> Ok:
	updates.append([id, changes])
	return Ok.new()


func _cell(position: Variant) -> Vector2i:
	var point: Vector2 = position
	return Vector2i(((point - grid.offset) / grid.cell_size).round())


func _pair(value: Variant) -> Vector2:
	var pair: Array = value
	var x: float = pair[0]
	var y: float = pair[1]
	return Vector2(x, y)
