## The big grid level: the grid level's game (patrolling NPCs, doors on a schedule) on a generated
## 257 x 257 map of 256 rooms ([code]big_map.gd[/code]), uploaded with an HPA* hierarchy
## ([code]"hierarchy"[/code] on [code]graph.load_grid[/code]). The NPCs ask for hierarchical paths,
## and every door's [code]graph.update[/code] repairs only the clusters it touches.
extends "res://levels/grid_level.gd"

const BigMap = preload("res://levels/big_map.gd")
## Rooms along each side, and cells from wall line to wall line.
const ROOMS := 16
const ROOM := 16


func _init() -> void:
	graph_id = "big"
	tile_size = 16
	npc_speed = 200.0
	first_goal_range = 40
	# A repair_ms longer than any repair of this map's table (a few ms): with the default 1 ms box
	# a door leaves table rows for the sidecar to refill between requests, and until it has,
	# queries near it take the abstract search's path (same bounds), so paths would depend on
	# timing and two runs would differ.
	hierarchy = {"cluster_size": 32, "repair_ms": 1000.0}
	path_options = {"hierarchical": true, "allow_partial": true}


## Generates the map from [member random_seed], then builds as the grid level does.
func build() -> Error:
	map_rows = BigMap.generate(ROOMS, ROOM, random_seed)
	return super()


## One line on the hierarchy the sidecar built ([code]graph.info[/code]): the map's size, the
## cluster side and the bytes it holds, or why it is missing.
func describe_hierarchy() -> String:
	var info: AStarBridgeResult = bridge.call_method("graph.info", {"id": graph_id})
	if not info.is_ok():
		return "graph.info failed: %s" % info.message
	var graph: Dictionary = info.value
	var size: String = "%dx%d cells" % [graph["width"], graph["height"]]
	var described: Variant = graph.get("hierarchy")
	if not described is Dictionary:
		return "%s, no hierarchy" % size
	var built: Dictionary = described
	if not built.get("built", false):
		return "%s, hierarchy not built" % size
	var bytes: int = built["bytes"]
	return (
		"%s, HPA* hierarchy built: clusters of %d, %d kB"
		% [size, built["cluster_size"], roundi(bytes / 1024.0)]
	)
