## Debug drawing of one 2D waypoint graph (edges, points; disabled points in the solid colour)
## or 2D navmesh (filled polygons and their edges). Drawn once per change: the canvas keeps
## the commands, so a still graph costs nothing per frame.
extends Node2D

const GraphShapes = preload("res://addons/astar_bridge/debug/graph_shapes.gd")
const POINT_RADIUS := 3.0

## What the last draw drew, for tests and the debugger.
var drawn_edges: int = 0
var drawn_points: int = 0
var drawn_polygons: int = 0

var _shapes: Dictionary = {}
var _solid_color: Color = Color.RED
var _edge_color: Color = Color.WHITE


func _init(shapes: Dictionary, solid_color: Color, edge_color: Color) -> void:
	_shapes = shapes
	_solid_color = solid_color
	_edge_color = edge_color


func _draw() -> void:
	drawn_edges = 0
	drawn_points = 0
	drawn_polygons = 0
	match str(_shapes.get("kind", "")):
		GraphShapes.KIND_WAYPOINTS:
			_draw_waypoints()
		GraphShapes.KIND_NAVMESH:
			_draw_navmesh()


## Draws again from the current shapes.
func rebuild() -> void:
	queue_redraw()


## Redraws (a waypoint graph or navmesh has no per-cell texels).
func refresh(_cells: Array[Vector2i]) -> void:
	queue_redraw()


func _draw_waypoints() -> void:
	var points: Dictionary = _shapes["points"]
	var disabled: Dictionary = _shapes["disabled"]
	var lines := PackedVector2Array()
	var edges: Array[PackedInt64Array] = _shapes["edges"]
	for edge: PackedInt64Array in edges:
		var from: Vector2 = points[edge[0]]
		var to: Vector2 = points[edge[1]]
		lines.append_array([from, to])
	if not lines.is_empty():
		draw_multiline(lines, _edge_color, 1.0)
	drawn_edges = edges.size()
	for id: int in points:
		var at: Vector2 = points[id]
		draw_circle(at, POINT_RADIUS, _solid_color if disabled.has(id) else _edge_color)
	drawn_points = points.size()


func _draw_navmesh() -> void:
	var vertices: Array = _shapes["vertices"]
	var polygons: Array[PackedInt32Array] = _shapes["polygons"]
	var fill := Color(_edge_color, _edge_color.a * 0.25)
	var lines := PackedVector2Array()
	for polygon: PackedInt32Array in polygons:
		var outline := PackedVector2Array()
		for index: int in polygon:
			if index < 0 or index >= vertices.size():
				outline.clear()
				break
			var vertex: Vector2 = vertices[index]
			outline.append(vertex)
		if outline.size() < 3:
			continue
		# A degenerate polygon would make draw_colored_polygon print an error: outline only.
		if not Geometry2D.triangulate_polygon(outline).is_empty():
			draw_colored_polygon(outline, fill)
		for i: int in outline.size():
			lines.append_array([outline[i], outline[(i + 1) % outline.size()]])
		drawn_polygons += 1
	if not lines.is_empty():
		draw_multiline(lines, _edge_color, 1.0)
	drawn_edges = lines.size() >> 1
