## Draws the navmesh level for windowed play: the baked polygons, the obstacles, every NPC (a
## dot) and its current path (a line to its goal). A child of the level node.
extends Node2D

const NavmeshLevel2D = preload("res://levels/navmesh_level_2d.gd")
const Npc = preload("res://npc/navmesh_npc_2d.gd")

const MESH_COLOR := Color(0.80, 0.78, 0.70)
const EDGE_COLOR := Color(0.62, 0.60, 0.52)
const OBSTACLE_COLOR := Color(0.22, 0.22, 0.28)

var _level: NavmeshLevel2D = null


func _ready() -> void:
	var parent: Node = get_parent()
	if parent is NavmeshLevel2D:
		_level = parent


func _process(_delta: float) -> void:
	queue_redraw()


func _draw() -> void:
	if _level == null or _level.region == null:
		return
	var mesh: NavigationPolygon = _level.region.navigation_polygon
	var vertices: PackedVector2Array = mesh.get_vertices()
	for i: int in mesh.get_polygon_count():
		var polygon := PackedVector2Array()
		for vertex: int in mesh.get_polygon(i):
			polygon.append(vertices[vertex])
		draw_colored_polygon(polygon, MESH_COLOR)
		polygon.append(polygon[0])
		draw_polyline(polygon, EDGE_COLOR, 1.0)
	for points: Array in NavmeshLevel2D.OBSTACLES:
		draw_colored_polygon(PackedVector2Array(points), OBSTACLE_COLOR)
	for npc: Npc in _level.npcs:
		var color := Color.from_hsv(fmod(npc.index * 0.618, 1.0), 0.75, 0.9)
		var path: PackedVector2Array = npc.agent.get_current_navigation_path()
		var index: int = npc.agent.get_current_navigation_path_index()
		if path.size() > index and not npc.agent.is_navigation_finished():
			var rest := PackedVector2Array([npc.global_position])
			rest.append_array(path.slice(index))
			draw_polyline(rest, color, 2.0)
		draw_circle(npc.global_position, Npc.RADIUS, color)
