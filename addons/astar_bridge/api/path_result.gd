## The answer to one path query in the engine's terms, like [NavigationPathQueryResult2D]:
## [member status] as an enum, the [member path] (or [member path_3d]), the waypoint
## [member ids], its [member cost], how many nodes the search [member expanded], and the error.
## Filled by [code]AStarBridge.query_path()[/code] or given by [code]await request.wait()[/code].
class_name AStarBridgePathResult
extends RefCounted

## How a query ended.
enum Status {
	## A path to the goal.
	FOUND,
	## No path to the goal; [member path] leads to the closest reachable point (allow_partial).
	PARTIAL,
	## The goal cannot be reached.
	NO_PATH,
	## The search stopped at its expansion budget.
	BUDGET_EXHAUSTED,
	## The request failed: [member error_code] and [member error_message] say why.
	ERROR,
}

const _STATUSES: Dictionary = {
	"found": Status.FOUND,
	"partial": Status.PARTIAL,
	"no_path": Status.NO_PATH,
	"budget_exhausted": Status.BUDGET_EXHAUSTED,
}

## How the query ended (ERROR until filled).
var status: Status = Status.ERROR
## The path's points on a 2D graph (empty on a 3D one).
var path: PackedVector2Array = PackedVector2Array()
## The path's points on a 3D graph (empty on a 2D one).
var path_3d: PackedVector3Array = PackedVector3Array()
## Waypoint ids along the path (waypoint graphs), or cell indices on grids.
var ids: PackedInt64Array = PackedInt64Array()
## The path's cost in the points' units (world units on a placed grid: a straight step of a
## 16 px tile costs 16), each step's length times the weight of the cell or point entered.
var cost: float = 0.0
## How many nodes the search expanded.
var expanded: int = 0
## A protocol error code (e.g. "unknown_graph", "bad_request") or a local one ("timeout",
## "not_connected", "disconnected"); "" unless [member status] is ERROR.
var error_code: String = ""
## A sentence saying what went wrong; "" unless [member status] is ERROR.
var error_message: String = ""


## True when [member status] is FOUND or PARTIAL (there is a path to follow).
func has_path() -> bool:
	return status == Status.FOUND or status == Status.PARTIAL


## Fills this result from the autoload's result map
## ([code]{"status", "points", "ids", "cost", "expanded", "error"}[/code]); returns itself.
func fill(map: Dictionary) -> AStarBridgePathResult:
	status = _STATUSES.get(str(map.get("status", "error")), Status.ERROR)
	var points: Variant = map.get("points")
	path = points if points is PackedVector2Array else PackedVector2Array()
	path_3d = points if points is PackedVector3Array else PackedVector3Array()
	var path_ids: Variant = map.get("ids")
	ids = path_ids if path_ids is PackedInt64Array else PackedInt64Array()
	var raw_cost: Variant = map.get("cost", 0.0)
	cost = raw_cost if raw_cost is float or raw_cost is int else 0.0
	var raw_expanded: Variant = map.get("expanded", 0)
	expanded = raw_expanded if raw_expanded is int else 0
	var error: Variant = map.get("error", {})
	var why: Dictionary = error if error is Dictionary else {}
	error_code = str(why.get("code", "error")) if status == Status.ERROR else ""
	error_message = str(why.get("message", "")) if status == Status.ERROR else ""
	return self


func _to_string() -> String:
	if status == Status.ERROR:
		return "AStarBridgePathResult(ERROR %s: %s)" % [error_code, error_message]
	var count: int = path.size() if path_3d.is_empty() else path_3d.size()
	return "AStarBridgePathResult(%s, %d points, cost %s)" % [Status.keys()[status], count, cost]
