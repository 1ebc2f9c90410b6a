## Internal: what AStarBridgeObstacle2D and AStarBridgeObstacle3D share: their obstacle id, the
## graph they stand on, and sending their shape at most once a frame through the autoload's
## [code]set_obstacle[/code] / [code]remove_obstacle[/code] (which gather every obstacle change of
## a frame into one update per graph at its end).
extends RefCounted

## The first id obstacle nodes take (ids below are the game's, for AStarBridge.set_obstacle).
const FIRST_ID := 1 << 40
## Every obstacle node joins it when it enters the tree (the debug drawing looks them up there).
const GROUP := &"astar_bridge_obstacles"
const _BRIDGE_PATH := ^"/root/AStarBridge"

static var _next_id: int = FIRST_ID

## This node's obstacle id (unique in the running game).
var id: int = 0
## The bridge the shape goes to ([code]/root/AStarBridge[/code] unless set before entering).
var bridge: Node = null
## The graph the obstacle was last placed on ("" while it is placed nowhere).
var placed_on: String = ""

var _due: bool = false
# [graph, shape, radius, height] last placed: the same again (a transform notification that
# moved nothing, a parent moved back) sends nothing.
var _last: Array = []


func _init() -> void:
	id = _next_id
	_next_id += 1


## Finds the bridge (once) when [param node] enters the tree, and puts the node in [constant GROUP].
func attach(node: Node) -> void:
	node.add_to_group(GROUP)
	if bridge == null:
		bridge = node.get_node_or_null(_BRIDGE_PATH)


## Calls [param send] at the end of this frame, once however many changes asked for it.
func schedule(send: Callable) -> void:
	if not _due:
		_due = true
		send.call_deferred()


## Places the obstacle on [param graph_id] as [param shape] with [param radius] and
## [param height] (see AStarBridge.set_obstacle), removing it from the graph it stood on before.
## A refused shape (pushed by the bridge) keeps the last one placed.
func place(graph_id: String, shape: Variant, radius: float, height: float) -> void:
	_due = false
	if placed_on != graph_id:
		leave()
	if graph_id.is_empty() or bridge == null or not bridge.has_method("set_obstacle"):
		return
	var placing: Array = [graph_id, shape, radius, height]
	if placing == _last:
		return
	if bridge.call("set_obstacle", graph_id, id, shape, radius, height) == OK:
		placed_on = graph_id
		_last = placing


## Removes the obstacle from the graph it stands on (if any).
func leave() -> void:
	_due = false
	_last = []
	if placed_on.is_empty() or bridge == null or not is_instance_valid(bridge):
		placed_on = ""
		return
	bridge.call("remove_obstacle", placed_on, id)
	placed_on = ""
