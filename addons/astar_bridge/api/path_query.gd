## One path query in the engine's terms, like [NavigationPathQueryParameters2D]: the graph, the
## endpoints and every option as a typed property. Give it to
## [code]AStarBridge.query_path(query, result)[/code] (synchronous) or
## [code]AStarBridge.request_query(query)[/code] (asynchronous).
## [codeblock]
## var query := AStarBridgePathQuery.new()
## query.graph = "level"
## query.from = Vector2i(1, 1)
## query.to = Vector2i(30, 12)
## query.heuristic = AStarGrid2D.HEURISTIC_OCTILE
## query.allow_partial = true
## var result := AStarBridgePathResult.new()
## AStarBridge.query_path(query, result)
## if result.status == AStarBridgePathResult.Status.FOUND:
##     print(result.path)
## [/codeblock]
class_name AStarBridgePathQuery
extends RefCounted

## [member heuristic] value that leaves the choice to the graph (the sidecar's default for it).
const HEURISTIC_DEFAULT := -1
## The largest [member size] a grid answers (its clearance is kept in one byte per cell).
const MAX_SIZE := 255
# AStarGrid2D.Heuristic -> the protocol's name.
const _HEURISTIC_NAMES: Dictionary = {
	AStarGrid2D.HEURISTIC_EUCLIDEAN: "euclidean",
	AStarGrid2D.HEURISTIC_MANHATTAN: "manhattan",
	AStarGrid2D.HEURISTIC_OCTILE: "octile",
	AStarGrid2D.HEURISTIC_CHEBYSHEV: "chebyshev",
}

## The id of a loaded graph.
var graph: String = ""
## Start: a cell ([Vector2i]) or position ([Vector2] / [Vector3]) as the graph was loaded, or a
## waypoint id ([int]).
var from: Variant = Vector2.ZERO
## Goal, in the same terms as [member from].
var to: Variant = Vector2.ZERO
## An [enum AStarGrid2D.Heuristic] value, or [constant HEURISTIC_DEFAULT].
var heuristic: int = HEURISTIC_DEFAULT
## When the goal cannot be reached, return the path to the closest reachable point
## (status PARTIAL) instead of NO_PATH.
var allow_partial: bool = false
## Most nodes the search may expand (0: the sidecar's default budget); past it the status is
## BUDGET_EXHAUSTED.
var max_expansions: int = 0
## On a grid loaded with a hierarchy: a fast near-optimal HPA* path instead of the exact one.
var hierarchical: bool = false
## With [member hierarchical]: an exact search inside the hierarchy's corridor (closer paths).
var corridor: bool = false
## On a navigation mesh: the exactly shortest path (Polyanya) instead of corridor + funnel.
var optimal: bool = false
## On a navigation mesh: only polygons whose layers share a bit with this mask (0: all).
var navigation_layers: int = 0
## The id of the agent asking (its own cell does not block it), or -1.
var agent: int = -1
## Ignore every agent standing on the grid.
var ignore_agents: bool = false
## On a grid: the unit's footprint in cells (1 .. [constant MAX_SIZE]): a unit of size k covers
## k x k cells, stands only where all of them are free and moves diagonally only where its swept
## footprint is free. Cells ([member from], [member to], the result's ids) are the footprint's
## top-left cell; the path's points are the footprint's centre. Refused on other graphs.
var size: int = 1
## The unit's radius in world units, instead of [member size] (0: not set). On a grid it becomes
## the smallest footprint that holds the unit: [code]ceil(2 * radius / cell size)[/code] cells; on
## a navigation mesh the walkable area is shrunk by it, so the path keeps that far from walls.
var radius: float = 0.0


## The protocol's options map of this query (only what differs from the defaults).
func to_options() -> Dictionary:
	var options: Dictionary = {}
	if _HEURISTIC_NAMES.has(heuristic):
		options["heuristic"] = _HEURISTIC_NAMES[heuristic]
	if allow_partial:
		options["allow_partial"] = true
	if max_expansions > 0:
		options["max_expansions"] = max_expansions
	if hierarchical:
		options["hierarchical"] = true
	if corridor:
		options["corridor"] = true
	if optimal:
		options["optimal"] = true
	if navigation_layers != 0:
		options["navigation_layers"] = navigation_layers
	if agent >= 0:
		options["agent"] = agent
	if ignore_agents:
		options["ignore_agents"] = true
	if size != 1:
		options["size"] = size
	if radius > 0.0:
		options["radius"] = radius
	return options


## An error message when the query cannot be sent as it is, else "".
func check() -> String:
	if graph.is_empty():
		return "the query has no graph"
	for endpoint: Variant in [from, to]:
		if not (
			typeof(endpoint) in [TYPE_VECTOR2, TYPE_VECTOR2I, TYPE_VECTOR3, TYPE_VECTOR3I, TYPE_INT]
		):
			return "from and to must be Vector2/Vector2i/Vector3/Vector3i or int, got %s" % endpoint
	if heuristic != HEURISTIC_DEFAULT and not _HEURISTIC_NAMES.has(heuristic):
		return "heuristic %d is not an AStarGrid2D.Heuristic" % heuristic
	if max_expansions < 0:
		return "max_expansions must be 0 (default) or more"
	return _unit_problem()


# Why size / radius cannot be sent, or "".
func _unit_problem() -> String:
	if size < 1 or size > MAX_SIZE:
		return "size must be 1 .. %d cells, got %d" % [MAX_SIZE, size]
	if is_nan(radius) or is_inf(radius) or radius < 0.0:
		return "radius must be 0 (not set) or a finite distance > 0, got %s" % radius
	if size != 1 and radius > 0.0:
		return "give size or radius, not both (size %d, radius %s)" % [size, radius]
	return ""
