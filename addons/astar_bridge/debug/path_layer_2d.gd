## Debug drawing of every 2D agent's current path: the nodes of group
## [code]astar_bridge_agents[/code] whose [code]get_current_navigation_path()[/code] gives a
## [PackedVector2Array] (global positions, as [NavigationAgent2D]'s). Redrawn every frame.
extends Node2D

const AGENTS_GROUP := &"astar_bridge_agents"
const POINT_RADIUS := 2.5

## Paths drawn by the last draw, for tests.
var drawn_paths: int = 0

var _color: Color = Color.YELLOW


func _init(color: Color) -> void:
	_color = color


func _process(_delta: float) -> void:
	queue_redraw()


func _draw() -> void:
	drawn_paths = 0
	for agent: Node in get_tree().get_nodes_in_group(AGENTS_GROUP):
		if not agent.has_method("get_current_navigation_path"):
			continue
		var path: Variant = agent.call("get_current_navigation_path")
		if not path is PackedVector2Array:
			continue
		var points: PackedVector2Array = path
		if points.size() < 2:
			continue
		draw_polyline(points, _color, 2.0)
		for point: Vector2 in points:
			draw_circle(point, POINT_RADIUS, _color)
		drawn_paths += 1
