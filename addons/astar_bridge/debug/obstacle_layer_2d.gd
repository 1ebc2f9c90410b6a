## Debug drawing of every 2D obstacle node (AStarBridgeObstacle2D, group
## [code]astar_bridge_obstacles[/code]): its outline as the sidecar cuts it
## ([code]get_global_outline()[/code], a circle's 16-gon), filled with the solid colour. Redrawn
## every frame, so a moving obstacle is drawn where it is.
extends Node2D

const OBSTACLES_GROUP := &"astar_bridge_obstacles"
const OUTLINE_WIDTH := 2.0

## Obstacles drawn by the last draw, for tests.
var drawn_obstacles: int = 0

var _fill: Color = Color.RED
var _line: Color = Color.RED


func _init(solid_color: Color) -> void:
	_fill = solid_color
	_line = Color(solid_color, 1.0)


func _process(_delta: float) -> void:
	queue_redraw()


func _draw() -> void:
	drawn_obstacles = 0
	for node: Node in get_tree().get_nodes_in_group(OBSTACLES_GROUP):
		if not node is Node2D:
			continue
		var outline: PackedVector2Array = node.call("get_global_outline")
		if outline.size() < 3:
			continue
		# A self-crossing outline is refused by the sidecar; draw its loop, not a fill.
		if not Geometry2D.triangulate_polygon(outline).is_empty():
			draw_colored_polygon(outline, _fill)
		var loop: PackedVector2Array = outline.duplicate()
		loop.append(outline[0])
		draw_polyline(loop, _line, OUTLINE_WIDTH)
		drawn_obstacles += 1
