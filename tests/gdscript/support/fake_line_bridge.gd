## A stand-in for the AStarBridge autoload in 3D agent tests: every path is the straight line
## from start to goal via a fixed detour point, answered one frame later.
extends Node

## A point every path passes through (between start and goal).
var detour: Vector3 = Vector3(0, 0, 5)
## Every request_path call, in order, as {"graph", "from", "to", "options"}.
var requests: Array[Dictionary] = []


## A request object with the real one's signal.
class Request:
	extends RefCounted
	signal completed(result: Dictionary)


func request_path(graph: String, from: Variant, to: Variant, options: Dictionary = {}) -> Request:
	requests.append({"graph": graph, "from": from, "to": to, "options": options})
	var request := Request.new()
	var start: Vector3 = from
	var goal: Vector3 = to
	var result: Dictionary = {
		"status": "found",
		"points": PackedVector3Array([start, detour, goal]),
		"cost": start.distance_to(detour) + detour.distance_to(goal),
		"expanded": 2,
		"error": {},
	}
	request.completed.emit.call_deferred(result)
	return request
