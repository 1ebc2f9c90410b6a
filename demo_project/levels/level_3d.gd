## The 3D demo level: a floor and a few boxes as StaticBody3D colliders, a NavigationMesh baked
## from them in code (NavigationServer3D.parse_source_geometry_data, then
## bake_from_source_geometry_data), uploaded with the navmesh serializer
## (from_navigation_region_3d); NPCs walk between random points of the mesh.
## Everything random comes from [member random_seed]; time is counted in physics steps.
extends Node3D

## An NPC reached a goal ([param goal_number] counts from 1) at simulated time [param time].
signal npc_arrived(npc_index: int, goal_number: int, point: Vector3, time: float)

const Bridge = preload("res://addons/astar_bridge/astar_bridge.gd")
const LevelFinish = preload("res://levels/level_finish.gd")
const MeshSampler = preload("res://levels/mesh_sampler.gd")
const Npc = preload("res://npc/npc_3d.gd")
## The floor (metres): a slab whose top face is y = 0.
const FLOOR := AABB(Vector3(-12, -1, -8), Vector3(24, 1, 16))
## The boxes standing on it.
const BOXES: Array[AABB] = [
	AABB(Vector3(-8, 0, -5), Vector3(3, 2, 3)),
	AABB(Vector3(-2, 0, -8), Vector3(1, 2, 9)),
	AABB(Vector3(3, 0, 1), Vector3(6, 1.5, 1.5)),
	AABB(Vector3(-7, 0, 3), Vector3(2, 3, 2)),
	AABB(Vector3(6, 0, -5), Vector3(2, 2, 2)),
]
## Physics layers: NPCs bump into boxes only (they follow the mesh's height, not the floor).
const BOX_LAYER := 1
const FLOOR_LAYER := 2
## The baked mesh lies about two cell heights (0.5 m) above the floor it covers: NPCs stand on
## the mesh, their feet drawn that much lower. Goals are drawn below GOAL_MAX_HEIGHT only, so
## never on a box top (an island of the mesh that no path reaches).
const MESH_LIFT := 0.5
const GOAL_MAX_HEIGHT := 1.0
## How far (metres) a first goal may lie from an NPC's start, and how near it may not.
const FIRST_GOAL_RANGE := 10.0
const FIRST_GOAL_MIN := 2.0

## Id of the navmesh graph in the sidecar.
@export var graph_id: String = "navmesh_3d"
## How many NPCs to spawn.
@export_range(1, 100) var npc_count: int = 6
## Seed of every random choice (starts, goals).
@export var random_seed: int = 7
## NPC speed in metres per second.
@export var npc_speed: float = 4.0

## The AStarBridge autoload (looked up in [method build]).
var bridge: Bridge = null
## The region holding the baked NavigationMesh.
var region: NavigationRegion3D = null
## The graph.load_navmesh parameters uploaded.
var navmesh_params: Dictionary = {}
## The NPCs, in index order.
var npcs: Array[Npc] = []
## Simulated seconds (physics steps times their delta).
var sim_time: float = 0.0

var _finish: LevelFinish = LevelFinish.new()
var _sampler: MeshSampler = MeshSampler.new()


## Adds the floor and boxes, bakes the navigation mesh, uploads it, spawns the NPCs. Call it
## once the level is in the tree (parsing reads the colliders' global transforms). Returns the
## error, if any.
func build() -> Error:
	var autoload: Node = get_node_or_null(^"/root/AStarBridge")
	if not autoload is Bridge:
		printerr("3D level: the AStarBridge autoload is missing")
		return ERR_UNCONFIGURED
	bridge = autoload
	var geometry := Node3D.new()
	geometry.name = "Geometry"
	add_child(geometry)
	geometry.add_child(_solid(FLOOR, FLOOR_LAYER, Color(0.55, 0.6, 0.5)))
	for box: AABB in BOXES:
		geometry.add_child(_solid(box, BOX_LAYER, Color(0.45, 0.35, 0.3)))
	region = NavigationRegion3D.new()
	region.name = "Region"
	region.navigation_mesh = bake(geometry)
	add_child(region)
	if region.navigation_mesh.get_polygon_count() == 0:
		printerr("3D level: the bake gave no polygons")
		return FAILED
	var loaded: AStarBridgeResult = bridge.load_navigation_region(graph_id, [region] as Array[Node])
	if not loaded.is_ok():
		printerr("3D level: loading the navmesh failed: %s" % loaded.message)
		return FAILED
	navmesh_params = bridge.get_graph_load(graph_id)["params"]
	_sampler.add_navigation_mesh(region.navigation_mesh, region.global_transform, GOAL_MAX_HEIGHT)
	_spawn_npcs()
	return OK


## A NavigationMesh baked from the static colliders under [param geometry] (agent radius
## 0.5 m, height 1.5 m: the polygons keep that far from the boxes and off their tops).
static func bake(geometry: Node3D) -> NavigationMesh:
	var navigation_mesh := NavigationMesh.new()
	navigation_mesh.geometry_parsed_geometry_type = NavigationMesh.PARSED_GEOMETRY_STATIC_COLLIDERS
	navigation_mesh.agent_radius = 0.5
	navigation_mesh.agent_height = 1.5
	var source := NavigationMeshSourceGeometryData3D.new()
	NavigationServer3D.parse_source_geometry_data(navigation_mesh, source, geometry)
	NavigationServer3D.bake_from_source_geometry_data(navigation_mesh, source)
	return navigation_mesh


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
func random_goal(rng: RandomNumberGenerator, near: Vector3, first: bool) -> Vector3:
	if first:
		return _sampler.random_point_near(rng, near, FIRST_GOAL_RANGE, FIRST_GOAL_MIN)
	return _sampler.random_point(rng)


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
		npc.position = _sampler.random_point(rng)
		var hue: float = fmod(i * 0.618, 1.0)
		var color := Color.from_hsv(hue, 0.75, 0.9)
		npc.setup(graph_id, random_seed * 1000 + i, random_goal, color, MESH_LIFT)
		npc.arrived.connect(_on_npc_arrived)
		npcs.append(npc)
		_finish.add(npc.pauses)
		add_child(npc)


func _on_npc_arrived(npc_index: int, goal_number: int, point: Vector3) -> void:
	npc_arrived.emit(npc_index, goal_number, point, sim_time)


# A StaticBody3D filling [param box] on [param layer], with a box mesh to show it.
static func _solid(box: AABB, layer: int, color: Color) -> StaticBody3D:
	var body := StaticBody3D.new()
	body.collision_layer = layer
	body.collision_mask = 0
	body.position = box.get_center()
	var shape := BoxShape3D.new()
	shape.size = box.size
	var collider := CollisionShape3D.new()
	collider.shape = shape
	body.add_child(collider)
	var look := BoxMesh.new()
	look.size = box.size
	var material := StandardMaterial3D.new()
	material.albedo_color = color
	look.material = material
	var mesh := MeshInstance3D.new()
	mesh.mesh = look
	body.add_child(mesh)
	return body
