## The running game's debug drawing of A* Bridge, like the engine's navigation debug: every graph
## the autoload loaded (grids: solid and weighted cells; waypoint graphs: points and edges;
## navmeshes: polygons and edges), every agent's current path and the arrows of every flow field
## (field_layer_2d.gd) and the outline of every obstacle node (obstacle_layer_2d.gd / _3d.gd, with
## the graphs). Added under the autoload by
## [code]debug_hooks.gd[/code] when [code]astar_bridge/debug/enabled[/code] is on (or the game runs
## with Debug > Visible Navigation); colours and parts come from the
## [code]astar_bridge/debug/...[/code] settings.
##
## It keeps its own copy of what it draws: the load parameters
## ([code]get_graph_load(id)[/code]) on [code]graph_loaded[/code], with every successful
## [code]graph.update[/code] folded in ([code]graph_update_applied(id, update)[/code]); a grid
## update rewrites only the texels of the cells it names.
extends Node

const SettingsTable = preload("res://addons/astar_bridge/runtime/settings_table.gd")
const GraphShapes = preload("res://addons/astar_bridge/debug/graph_shapes.gd")
const GridLayer2D = preload("res://addons/astar_bridge/debug/grid_layer_2d.gd")
const LayoutGridLayer2D = preload("res://addons/astar_bridge/debug/layout_grid_layer_2d.gd")
const GraphLayer2D = preload("res://addons/astar_bridge/debug/graph_layer_2d.gd")
const GraphLayer3D = preload("res://addons/astar_bridge/debug/graph_layer_3d.gd")
const PathLayer2D = preload("res://addons/astar_bridge/debug/path_layer_2d.gd")
const PathLayer3D = preload("res://addons/astar_bridge/debug/path_layer_3d.gd")
const FieldLayer2D = preload("res://addons/astar_bridge/debug/field_layer_2d.gd")
const ObstacleLayer2D = preload("res://addons/astar_bridge/debug/obstacle_layer_2d.gd")
const ObstacleLayer3D = preload("res://addons/astar_bridge/debug/obstacle_layer_3d.gd")
## Above the game's own 2D drawing (RenderingServer.CANVAS_ITEM_Z_MAX is 4096).
const GRAPH_Z := 4000
const PATH_Z := 4001
const FIELD_Z := 4002
## How often dropped graphs are looked for (drop_graph has no signal).
const DROP_CHECK_S := 0.5

## Draw the loaded graphs.
var draw_graphs: bool = true
## Draw the agents' paths.
var draw_paths: bool = true
## Draw the flow fields' arrows.
var draw_fields: bool = true
var solid_color: Color = Color(0.9, 0.2, 0.15, 0.45)
var edge_color: Color = Color(0.1, 0.8, 1.0, 0.6)
var path_color: Color = Color(1.0, 0.85, 0.1, 0.9)
var field_color: Color = Color(0.35, 1.0, 0.45, 0.75)

var _bridge: Node = null
# id -> shapes (graph_shapes.gd), folded up to date
var _shapes: Dictionary = {}
# id -> the layer node drawing it
var _layers: Dictionary = {}
var _drop_clock: float = 0.0


func _init(bridge: Node) -> void:
	name = "AStarBridgeDebugDraw"
	_bridge = bridge
	draw_graphs = SettingsTable.value("astar_bridge/debug/draw_graphs")
	draw_paths = SettingsTable.value("astar_bridge/debug/draw_paths")
	solid_color = SettingsTable.value("astar_bridge/debug/solid_color")
	edge_color = SettingsTable.value("astar_bridge/debug/edge_color")
	path_color = SettingsTable.value("astar_bridge/debug/path_color")
	draw_fields = SettingsTable.value("astar_bridge/debug/draw_fields")
	field_color = SettingsTable.value("astar_bridge/debug/field_color")


func _ready() -> void:
	if draw_fields:
		var fields: Node2D = FieldLayer2D.new(_bridge, field_color)
		fields.name = "Fields2D"
		fields.z_index = FIELD_Z
		add_child(fields)
	if draw_paths:
		var paths_2d: Node2D = PathLayer2D.new(path_color)
		paths_2d.name = "Paths2D"
		paths_2d.z_index = PATH_Z
		add_child(paths_2d)
		var paths_3d: Node3D = PathLayer3D.new(path_color)
		paths_3d.name = "Paths3D"
		add_child(paths_3d)
	if not draw_graphs:
		return
	var obstacles_2d: Node2D = ObstacleLayer2D.new(solid_color)
	obstacles_2d.name = "Obstacles2D"
	obstacles_2d.z_index = GRAPH_Z
	add_child(obstacles_2d)
	var obstacles_3d: Node3D = ObstacleLayer3D.new(solid_color)
	obstacles_3d.name = "Obstacles3D"
	add_child(obstacles_3d)
	_bridge.connect(&"graph_loaded", _on_graph_loaded)
	if _bridge.has_signal(&"graph_update_applied"):
		_bridge.connect(&"graph_update_applied", _on_graph_update_applied)
	var ids: PackedStringArray = _bridge.call("get_graph_ids")
	for id: String in ids:
		_on_graph_loaded(id)


func _process(delta: float) -> void:
	_drop_clock -= delta
	if _drop_clock > 0.0 or _layers.is_empty():
		return
	_drop_clock = DROP_CHECK_S
	var ids: PackedStringArray = _bridge.call("get_graph_ids")
	for id: String in _layers.keys():
		if not id in ids:
			_forget(id)


## The ids of the graphs drawn.
func get_drawn_ids() -> PackedStringArray:
	return PackedStringArray(_layers.keys())


## The node drawing graph [param id] (grid_layer_2d.gd, graph_layer_2d.gd or
## graph_layer_3d.gd), or null.
func get_layer(id: String) -> Node:
	return _layers.get(id)


## The shapes drawn for graph [param id] (graph_shapes.gd), or {}.
func get_shapes(id: String) -> Dictionary:
	return _shapes.get(id, {})


func _on_graph_loaded(id: String) -> void:
	_forget(id)
	var loaded: Dictionary = _bridge.call("get_graph_load", id)
	if loaded.is_empty():
		return
	var params: Dictionary = loaded["params"]
	var shapes: Dictionary = GraphShapes.from_load(str(loaded["method"]), params)
	if shapes.is_empty():
		return
	var layer: Node = null
	var layout: Dictionary = shapes.get("layout", {})
	if shapes["kind"] == GraphShapes.KIND_GRID and not layout.is_empty():
		layer = LayoutGridLayer2D.new(shapes, solid_color, edge_color)
	elif shapes["kind"] == GraphShapes.KIND_GRID:
		layer = GridLayer2D.new(shapes, solid_color, edge_color)
	elif shapes["dim"] == 3:
		layer = GraphLayer3D.new(shapes, solid_color, edge_color)
	else:
		layer = GraphLayer2D.new(shapes, solid_color, edge_color)
	if layer is Node2D:
		var layer_2d: Node2D = layer
		layer_2d.z_index = GRAPH_Z
	layer.name = "Graph_%s" % id.validate_node_name()
	_shapes[id] = shapes
	_layers[id] = layer
	add_child(layer)


func _on_graph_update_applied(id: String, update: Dictionary) -> void:
	if not _layers.has(id):
		return
	var shapes: Dictionary = _shapes[id]
	var changed: Array[Vector2i] = GraphShapes.apply_update(shapes, update)
	var layer: Node = _layers[id]
	if changed.size() == 1 and changed[0] == Vector2i(-1, -1):
		layer.call("rebuild")
	elif not changed.is_empty():
		layer.call("refresh", changed)


func _forget(id: String) -> void:
	if _layers.has(id):
		var layer: Node = _layers[id]
		remove_child(layer)
		layer.queue_free()
	_layers.erase(id)
	_shapes.erase(id)
