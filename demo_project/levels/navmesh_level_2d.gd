## The navmesh demo level: a NavigationRegion2D whose NavigationPolygon is baked in code from an
## outline and StaticBody2D obstacles (NavigationServer2D.parse_source_geometry_data, then
## bake_from_source_geometry_data), uploaded with the navmesh serializer
## (from_navigation_region_2d); NPCs walk between random points of the mesh.
## Everything random comes from [member random_seed]; time is counted in physics steps, so two
## runs with the same seed and a fixed physics delta are identical.
extends Node2D

## An NPC reached a goal ([param goal_number] counts from 1) at simulated time [param time].
signal npc_arrived(npc_index: int, goal_number: int, point: Vector2, time: float)

const Bridge = preload("res://addons/astar_bridge/astar_bridge.gd")
const LevelFinish = preload("res://levels/level_finish.gd")
const MeshSampler = preload("res://levels/mesh_sampler.gd")
const Npc = preload("res://npc/navmesh_npc_2d.gd")
## The walkable area (pixels): a hall with an alcove cut into its bottom wall.
const OUTLINE: Array[Vector2] = [
	Vector2(40, 40),
	Vector2(1240, 40),
	Vector2(1240, 760),
	Vector2(700, 760),
	Vector2(700, 620),
	Vector2(580, 620),
	Vector2(580, 760),
	Vector2(40, 760),
]
## Obstacle outlines (pixels), each a StaticBody2D that the bake cuts out of the outline.
const OBSTACLES: Array[Array] = [
	[Vector2(180, 140), Vector2(420, 140), Vector2(420, 250), Vector2(180, 250)],
	[Vector2(540, 110), Vector2(700, 110), Vector2(700, 440), Vector2(540, 440)],
	[Vector2(880, 130), Vector2(1110, 190), Vector2(950, 380)],
	[
		Vector2(260, 430),
		Vector2(340, 430),
		Vector2(400, 490),
		Vector2(400, 570),
		Vector2(340, 630),
		Vector2(260, 630),
		Vector2(200, 570),
		Vector2(200, 490),
	],
	[Vector2(820, 520), Vector2(1060, 660), Vector2(1030, 710), Vector2(790, 570)],
	[Vector2(1110, 430), Vector2(1170, 430), Vector2(1170, 490), Vector2(1110, 490)],
]
## How far (pixels) a first goal may lie from an NPC's start, and how near it may not.
const FIRST_GOAL_RANGE := 420.0
const FIRST_GOAL_MIN := 60.0

## Id of the navmesh graph in the sidecar.
@export var graph_id: String = "navmesh"
## How many NPCs to spawn.
@export_range(1, 500) var npc_count: int = 16
## Seed of every random choice (starts, goals).
@export var random_seed: int = 7
## NPC speed in pixels per second.
@export var npc_speed: float = 150.0

## The AStarBridge autoload (looked up in [method build]).
var bridge: Bridge = null
## The region holding the baked NavigationPolygon.
var region: NavigationRegion2D = null
## The graph.load_navmesh parameters uploaded.
var navmesh_params: Dictionary = {}
## The NPCs, in index order.
var npcs: Array[Npc] = []
## Simulated seconds (physics steps times their delta).
var sim_time: float = 0.0

var _finish: LevelFinish = LevelFinish.new()
var _sampler: MeshSampler = MeshSampler.new()


## Adds the obstacles, bakes the navigation polygon, uploads it, spawns the NPCs. Call it once
## the level is in the tree (parsing reads the obstacles' global transforms). Returns the
## error, if any.
func build() -> Error:
	var autoload: Node = get_node_or_null(^"/root/AStarBridge")
	if not autoload is Bridge:
		printerr("navmesh level: the AStarBridge autoload is missing")
		return ERR_UNCONFIGURED
	bridge = autoload
	var obstacles := Node2D.new()
	obstacles.name = "Obstacles"
	add_child(obstacles)
	for points: Array in OBSTACLES:
		var body := StaticBody2D.new()
		var shape := CollisionPolygon2D.new()
		shape.polygon = PackedVector2Array(points)
		body.add_child(shape)
		obstacles.add_child(body)
	region = NavigationRegion2D.new()
	region.name = "Region"
	region.navigation_polygon = bake(obstacles)
	add_child(region)
	if region.navigation_polygon.get_polygon_count() == 0:
		printerr("navmesh level: the bake gave no polygons")
		return FAILED
	var loaded: AStarBridgeResult = bridge.load_navigation_region(graph_id, [region] as Array[Node])
	if not loaded.is_ok():
		printerr("navmesh level: loading the navmesh failed: %s" % loaded.message)
		return FAILED
	navmesh_params = bridge.get_graph_load(graph_id)["params"]
	_sampler.add_navigation_polygon(region.navigation_polygon, region.get_global_transform())
	_spawn_npcs()
	return OK


## A NavigationPolygon baked from [constant OUTLINE] and the static colliders under
## [param obstacles] (agent radius 10 px: the polygons keep that far from every obstacle).
static func bake(obstacles: Node2D) -> NavigationPolygon:
	var navigation_polygon := NavigationPolygon.new()
	navigation_polygon.parsed_geometry_type = NavigationPolygon.PARSED_GEOMETRY_STATIC_COLLIDERS
	navigation_polygon.agent_radius = 10.0
	navigation_polygon.add_outline(PackedVector2Array(OUTLINE))
	var source := NavigationMeshSourceGeometryData2D.new()
	NavigationServer2D.parse_source_geometry_data(navigation_polygon, source, obstacles)
	NavigationServer2D.bake_from_source_geometry_data(navigation_polygon, source)
	return navigation_polygon


## No goal after each NPC's current one (the headless run's end).
func finish_up() -> void:
	_finish.finish_up()


## True once every NPC settled its last goal after [method finish_up].
func all_done() -> bool:
	return _finish.all_done()


## True while any NPC waits for a path (the headless run holds simulated time still then).
func any_path_pending() -> bool:
	for npc: Npc in npcs:
		if npc.agent.is_path_pending():
			return true
	return false


## A random point of the mesh; on a first goal, one between [constant FIRST_GOAL_MIN] and
## [constant FIRST_GOAL_RANGE] from [param near].
func random_goal(rng: RandomNumberGenerator, near: Vector2, first: bool) -> Vector2:
	if first:
		return _sampler.random_point_near_2d(rng, near, FIRST_GOAL_RANGE, FIRST_GOAL_MIN)
	return _sampler.random_point_2d(rng)


func _physics_process(delta: float) -> void:
	sim_time += delta


func _spawn_npcs() -> void:
	var rng := RandomNumberGenerator.new()
	rng.seed = random_seed
	for i: int in npc_count:
		var npc := Npc.new()
		npc.name = "Npc%02d" % i
		npc.index = i
		npc.speed = npc_speed
		npc.position = _sampler.random_point_2d(rng)
		npc.setup(graph_id, random_seed * 1000 + i, random_goal)
		npc.arrived.connect(_on_npc_arrived)
		npcs.append(npc)
		_finish.add(npc.pauses)
		add_child(npc)


func _on_npc_arrived(npc_index: int, goal_number: int, point: Vector2) -> void:
	npc_arrived.emit(npc_index, goal_number, point, sim_time)
