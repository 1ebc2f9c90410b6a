## Debug drawing of one 3D waypoint graph (edges, and a small cross per point) or 3D navmesh
## (filled polygons and their edges) as an [ImmediateMesh], rebuilt only when the graph
## changes. Lifted a little along y so it does not fight the floor for depth.
extends MeshInstance3D

const GraphShapes = preload("res://addons/astar_bridge/debug/graph_shapes.gd")
const LIFT := Vector3(0.0, 0.03, 0.0)
const CROSS := 0.15

## What the last build drew, for tests and the debugger.
var drawn_edges: int = 0
var drawn_points: int = 0
var drawn_polygons: int = 0

var _shapes: Dictionary = {}
var _solid_color: Color = Color.RED
var _edge_color: Color = Color.WHITE
var _mesh: ImmediateMesh = ImmediateMesh.new()


func _init(shapes: Dictionary, solid_color: Color, edge_color: Color) -> void:
	_shapes = shapes
	_solid_color = solid_color
	_edge_color = edge_color
	mesh = _mesh
	cast_shadow = GeometryInstance3D.SHADOW_CASTING_SETTING_OFF
	material_override = debug_material()
	rebuild()


## The unshaded, vertex-coloured, see-through material of every debug mesh.
static func debug_material() -> StandardMaterial3D:
	var debug := StandardMaterial3D.new()
	debug.shading_mode = BaseMaterial3D.SHADING_MODE_UNSHADED
	debug.vertex_color_use_as_albedo = true
	debug.transparency = BaseMaterial3D.TRANSPARENCY_ALPHA
	debug.cull_mode = BaseMaterial3D.CULL_DISABLED
	return debug


## The debug material drawn over everything (paths, obstacles): what is behind a wall still
## shows, as in the engine's navigation debug.
static func overlay_material() -> StandardMaterial3D:
	var overlay: StandardMaterial3D = debug_material()
	overlay.no_depth_test = true
	return overlay


## Adds [param lines] (pairs of points) to [param target] as one surface of lines in
## [param color]; nothing when there are none.
static func add_lines(target: ImmediateMesh, lines: PackedVector3Array, color: Color) -> void:
	if lines.is_empty():
		return
	target.surface_begin(Mesh.PRIMITIVE_LINES)
	for point: Vector3 in lines:
		target.surface_set_color(color)
		target.surface_add_vertex(point)
	target.surface_end()


## Builds the mesh again from the current shapes.
func rebuild() -> void:
	_mesh.clear_surfaces()
	drawn_edges = 0
	drawn_points = 0
	drawn_polygons = 0
	match str(_shapes.get("kind", "")):
		GraphShapes.KIND_WAYPOINTS:
			_build_waypoints()
		GraphShapes.KIND_NAVMESH:
			_build_navmesh()


## Builds again (a waypoint graph or navmesh has no per-cell parts).
func refresh(_cells: Array[Vector2i]) -> void:
	rebuild()


func _build_waypoints() -> void:
	var points: Dictionary = _shapes["points"]
	var disabled: Dictionary = _shapes["disabled"]
	var edges: Array[PackedInt64Array] = _shapes["edges"]
	if points.is_empty():
		return
	_mesh.surface_begin(Mesh.PRIMITIVE_LINES)
	for edge: PackedInt64Array in edges:
		var from: Vector3 = points[edge[0]]
		var to: Vector3 = points[edge[1]]
		_line(from, to, _edge_color)
	for id: int in points:
		var at: Vector3 = points[id]
		var color: Color = _solid_color if disabled.has(id) else _edge_color
		_line(at - Vector3(CROSS, 0, 0), at + Vector3(CROSS, 0, 0), color)
		_line(at - Vector3(0, 0, CROSS), at + Vector3(0, 0, CROSS), color)
	_mesh.surface_end()
	drawn_edges = edges.size()
	drawn_points = points.size()


func _build_navmesh() -> void:
	var vertices: Array = _shapes["vertices"]
	var polygons: Array[PackedInt32Array] = _shapes["polygons"]
	var outlines: Array[PackedVector3Array] = []
	for polygon: PackedInt32Array in polygons:
		var outline := PackedVector3Array()
		for index: int in polygon:
			if index < 0 or index >= vertices.size():
				outline.clear()
				break
			var vertex: Vector3 = vertices[index]
			outline.append(vertex + LIFT)
		if outline.size() >= 3:
			outlines.append(outline)
	if outlines.is_empty():
		return
	var fill := Color(_edge_color, _edge_color.a * 0.25)
	_mesh.surface_begin(Mesh.PRIMITIVE_TRIANGLES)
	for outline: PackedVector3Array in outlines:
		for i: int in range(1, outline.size() - 1):  # convex: a fan
			for vertex: Vector3 in [outline[0], outline[i], outline[i + 1]]:
				_mesh.surface_set_color(fill)
				_mesh.surface_add_vertex(vertex)
	_mesh.surface_end()
	_mesh.surface_begin(Mesh.PRIMITIVE_LINES)
	for outline: PackedVector3Array in outlines:
		for i: int in outline.size():
			_line(outline[i], outline[(i + 1) % outline.size()], _edge_color)
			drawn_edges += 1
	_mesh.surface_end()
	drawn_polygons = outlines.size()


func _line(from: Vector3, to: Vector3, color: Color) -> void:
	_mesh.surface_set_color(color)
	_mesh.surface_add_vertex(from)
	_mesh.surface_set_color(color)
	_mesh.surface_add_vertex(to)
