@tool
@icon("res://addons/astar_bridge/icons/agent_2d.svg")
class_name AStarBridgeAgent2D
extends "path_follower.gd"
## Follows paths from the A* Bridge sidecar, in the manner of [NavigationAgent2D].
##
## Add it as a child of a [Node2D] (typically a [CharacterBody2D]), set [member graph_id] and
## [member target_position], then each physics frame move the parent towards
## [method get_next_path_position] until [method is_navigation_finished]. Paths are requested
## with [code]AStarBridge.request_path[/code] (asynchronous: a frame never waits for the
## sidecar); a new one when the target changes, when an [code]AStarBridge.update_graph[/code]
## changes cells on or next to the rest of the path, when the graph is reloaded or the sidecar
## restarted and, if [member repath_interval] > 0, periodically.
## [br][br]
## [signal navigation_finished] means arrival only; an unreachable target gives
## [signal target_unreachable] and [method is_target_reachable] false instead. An agent lives a
## whole game: a new target after an arrival resets the result as
## [method NavigationAgent2D.set_target_position] does (a patrol sets the next point from
## [signal navigation_finished]); a target set every frame is followed, and with
## [member repath_distance] a new path is asked for only when it moved farther than that.
## With [member agent_id] >= 0 on a grid the agent occupies its cell as a dynamic obstacle for
## other agents (never for itself): nothing else to call, the autoload knows the grid.
## [br][br]
## Unit size on a grid ([method get_unit_size]): [member size] cells when set; else the
## footprint that holds [member path_radius]; else the one that holds the parent body's
## collision shapes (the largest distance along x or y from the body's position to their
## bounds: a circle's radius, half a rectangle's larger side), [code]ceil(2 * radius / cell)[/code]
## cells; else 1. A unit of size k goes only where its k x k footprint is free, its paths' points
## are the footprint's centre, and with an [member agent_id] it blocks other agents with its
## whole footprint. On a navigation mesh only [member path_radius] is sent (the body is not
## measured: the mesh was baked for an agent radius already).
## With [member avoidance_enabled], [method set_velocity] is answered by
## [signal velocity_computed] with a velocity that keeps clear of other avoiding agents
## (Godot's own RVO avoidance).
## [br][br]
## Crowd mode: with [member flow_field] set (an [AStarBridgeFlowField] shared by every unit going
## to the same goals), the agent asks no path: [method get_next_path_position] is the farthest
## cell down the field in sight ([method AStarBridgeFlowField.next_waypoint], sampled locally),
## and arrival ([signal target_reached], [signal navigation_finished]) is reaching a goal cell.
## The same per-frame code moves the parent, avoidance included.
## [codeblock]
## func _ready() -> void:
##     $Agent.velocity_computed.connect(func(safe: Vector2) -> void:
##         velocity = safe
##         move_and_slide())
##
## func _physics_process(_delta: float) -> void:
##     if $Agent.is_navigation_finished() or not $Agent.is_target_reachable():
##         return
##     $Agent.set_velocity(global_position.direction_to($Agent.get_next_path_position()) * 120.0)
##
## # A patrol: the next point on each arrival.
## func _on_agent_navigation_finished() -> void:
##     _stop = (_stop + 1) % patrol_points.size()
##     $Agent.target_position = patrol_points[_stop]
## [/codeblock]

## Emitted after [method set_velocity] with the velocity to move at: the same one without
## avoidance (at once), a safe one with [member avoidance_enabled] (after the avoidance step).
signal velocity_computed(safe_velocity: Vector2)

const AgentOccupancy = preload("../runtime/agent_occupancy.gd")
const BodyExtent = preload("body_extent.gd")
# By path, not class name: the agent parses before the editor has scanned the project.
const FlowField = preload("../api/flow_field.gd")
## [member agent_id] value meaning "not an obstacle".
const NO_AGENT := -1

## Where to go, in global coordinates. Setting a different value requests a new path, and after
## an arrival any value does (but one within [member repath_distance]: a moving target).
@export var target_position: Vector2 = Vector2.ZERO:
	set = set_target_position
## Distance at which a path point counts as reached and the next one is targeted.
@export_range(0.1, 100.0, 0.1, "or_greater", "suffix:px") var path_desired_distance: float = 4.0
## Distance to [member target_position] at which the target counts as reached.
@export_range(0.1, 100.0, 0.1, "or_greater", "suffix:px") var target_desired_distance: float = 4.0
## Id of this agent as a dynamic obstacle on a grid graph ([constant NO_AGENT] = none). Its cell
## blocks other agents' paths; it is passed in the query options so it never blocks itself.
@export var agent_id: int = NO_AGENT
## Crowd mode: cells [method get_next_path_position] looks down [member flow_field] for the
## farthest one in sight.
@export_range(1, 128, 1) var crowd_lookahead: int = 16
## On a grid: the unit's footprint, [code]size[/code] x [code]size[/code] cells (0: from
## [member path_radius], else from the body's collision shape; see the class description). A
## value outside 0 .. 255 is refused (push_error, the value is kept).
@export_range(0, 255, 1) var size: int = 0:
	set(value):
		if value < 0 or value > AgentOccupancy.MAX_SIZE:
			push_error("AStarBridge: size must be 0 (automatic) .. 255 cells, got %d" % value)
			return
		size = value

@export_group("Avoidance")
## The agent's avoidance radius.
@export_range(0.1, 500.0, 0.01, "or_greater", "suffix:px") var radius: float = 10.0:
	set(value):
		radius = value
		_configure_avoidance()
## The fastest the avoidance may make the agent go.
@export_range(0.01, 10000.0, 0.01, "or_greater", "suffix:px/s") var max_speed: float = 100.0:
	set(value):
		max_speed = value
		_configure_avoidance()
## How far other agents are considered by the avoidance.
@export_range(0.1, 10000.0, 0.01, "or_greater", "suffix:px") var neighbor_distance: float = 500.0:
	set(value):
		neighbor_distance = value
		_configure_avoidance()

## Crowd mode: the field to follow toward its goals instead of asking paths (null: paths, toward
## [member target_position]). Setting one starts navigating at once; null stops.
var flow_field: FlowField = null:
	set = set_flow_field

## The path in this agent's type, kept next to the follower's 3D one so reading it copies nothing.
var _flat_path: PackedVector2Array = PackedVector2Array()
# Crowd mode: the last cell of the field the parent stood on that was not a wall (avoidance can
# push a unit onto a wall cell, where the field has no direction: it steps back there).
var _open_cell: Vector2i = Vector2i.ZERO
var _has_open_cell: bool = false


func _exit_tree() -> void:
	super()
	if Engine.is_editor_hint() or agent_id == NO_AGENT or bridge == null:
		return
	AgentOccupancy.release(bridge, graph_id, agent_id)


func _physics_process(delta: float) -> void:
	if not Engine.is_editor_hint() and bridge != null:
		_track_cell()
	super(delta)


## Sets [member target_position]; a different value starts navigating there (a new path is
## requested on the next physics frame), as does any value once the agent arrived or stopped.
func set_target_position(value: Vector2) -> void:
	var unchanged: bool = value == target_position
	target_position = value
	_retarget(unchanged)


## Starts following [param field] in crowd mode (see [member flow_field]); null stops.
func set_flow_field(field: FlowField) -> void:
	flow_field = field
	stop()  # drops any path and request in flight
	_has_open_cell = false
	if field != null:
		_retarget(false)
		_wanted = false


## The path point the parent should move towards now (its own position when there is no path).
## Calling it also advances along the path, emitting [signal waypoint_reached] and the arrival
## signals, as [method NavigationAgent2D.get_next_path_position] does. In crowd mode: the
## farthest cell in sight down [member flow_field] (its own position on arrival, and while the
## field has no tile there yet).
func get_next_path_position() -> Vector2:
	if flow_field == null:
		return _flat(_next_point())
	_advance()
	var here: Vector2 = _origin()
	if _finished:
		return here
	var state: FlowField.State = flow_field.state_at(flow_field.world_to_cell(here))
	if state == FlowField.State.WALL and _has_open_cell:
		return flow_field.cell_to_world(_open_cell)
	return flow_field.next_waypoint(here, crowd_lookahead)


## The velocity the parent wants to move at; [signal velocity_computed] answers with the one
## to use (see [member avoidance_enabled]). Call it once per physics frame while moving.
func set_velocity(velocity: Vector2) -> void:
	_submit_velocity(_lift(velocity))


## The current path (global coordinates), the target appended when the path reaches it.
func get_current_navigation_path() -> PackedVector2Array:
	return _flat_path


## The last point of the current path (the parent's position when there is none).
func get_final_position() -> Vector2:
	return _flat(_final_point())


## The footprint (cells a side) this agent paths and stands with on its grid: [member size],
## else the one that holds [member path_radius], else the body's collision shapes
## ([method get_body_radius]), else 1. 1 when [member graph_id] is not a loaded grid.
func get_unit_size() -> int:
	if size > 0:
		return size
	var reach: float = path_radius if path_radius > 0.0 else get_body_radius()
	return AgentOccupancy.size_for_radius(graph_id, reach)


## How far the parent body's enabled [CollisionShape2D]s reach from its position along x or y
## (world units; 0 without shapes): the radius a unit of no set [member size] paths for.
func get_body_radius() -> float:
	var parent: Node = get_parent()
	if parent is Node2D:
		return BodyExtent.radius_2d(parent as Node2D)
	return 0.0


## Deprecated: [code]AStarBridge[/code] registers a grid's geometry itself when it loads one.
## Registers [param params] only for a grid it does not know yet (a bridge of your own), so a
## call left in older code never forgets the agents already placed.
static func register_grid(params: Dictionary) -> void:
	if not AgentOccupancy.has_grid(str(params.get("id", ""))):
		AgentOccupancy.register_grid(params)


# Queues the cell each frame the sidecar does not hold this agent there (normally one frame: the
# update is sent at its end; a failed or postponed one is queued again this way, and the queue
# keeps only each agent's last cell).
func _track_cell() -> void:
	if agent_id == NO_AGENT or not AgentOccupancy.has_grid(graph_id):
		return
	var unit: int = get_unit_size()
	var cell: Vector2i = AgentOccupancy.anchor_of(graph_id, _origin(), unit)
	if cell == Vector2i(-1, -1):
		return
	if (
		cell != AgentOccupancy.confirmed_cell(graph_id, agent_id)
		or unit != AgentOccupancy.confirmed_size(graph_id, agent_id)
	):
		AgentOccupancy.occupy(bridge, graph_id, agent_id, cell, unit)


func _origin() -> Vector2:
	var parent: Node = get_parent()
	if parent is Node2D:
		return (parent as Node2D).global_position
	return Vector2.ZERO


func _set_path(points: PackedVector3Array) -> void:
	super(points)
	_flat_path = PackedVector2Array()
	for point: Vector3 in points:
		_flat_path.append(_flat(point))


func _query_options() -> Dictionary:
	var options: Dictionary = super()
	if agent_id != NO_AGENT and AgentOccupancy.is_placed(graph_id, agent_id):
		options["agent"] = agent_id
	return options


# On a grid the footprint goes as "size" (the same one the agent is placed with); elsewhere
# only the radius set, and a size set (a navmesh refuses it: the request fails saying why).
func _unit_options() -> Dictionary:
	if not AgentOccupancy.has_grid(graph_id):
		return {"size": size} if size > 1 else super()
	var unit: int = get_unit_size()
	return {"size": unit} if unit != 1 else {}


func _follows_field() -> bool:
	return flow_field != null


# Crowd mode: arrival is a goal cell of the field; an unreachable cell is told once.
func _advance_on_field() -> void:
	if _finished:
		return
	var cell: Vector2i = flow_field.world_to_cell(_origin())
	var state: FlowField.State = flow_field.state_at(cell)
	if state == FlowField.State.MOVE:
		_open_cell = cell
		_has_open_cell = true
		_reachable = true
	elif state == FlowField.State.GOAL:
		_reached = true
		target_reached.emit()
		_finish()
	elif state == FlowField.State.UNREACHABLE and _reachable:
		_reachable = false
		target_unreachable.emit()


func _dimensions() -> int:
	return 2


func _navigation_map() -> RID:
	var parent: Node = get_parent()
	if parent is Node2D:
		return (parent as Node2D).get_world_2d().navigation_map
	return RID()


func _radius() -> float:
	return radius


func _max_speed() -> float:
	return max_speed


func _neighbor_distance() -> float:
	return neighbor_distance


func _emit_velocity(velocity: Vector3) -> void:
	velocity_computed.emit(_flat(velocity))


func _path_touches(points: PackedVector3Array, cells: Array[Vector2i]) -> bool:
	if not AgentOccupancy.has_grid(graph_id):
		return true
	var flat := PackedVector2Array([_origin()])
	for point: Vector3 in points:
		flat.append(_flat(point))
	return AgentOccupancy.path_touches(graph_id, flat, cells, get_unit_size())


# On a grid an obstacle blocks every cell it overlaps: the footprints of a move's ends and of
# its side cells reach (size + 1) / sqrt(2) cells from the line between the ends. On a navmesh,
# the unit's radius (the cut mesh keeps that far from obstacles).
func _obstacle_margin() -> float:
	if AgentOccupancy.has_grid(graph_id):
		var step: Vector2 = (
			AgentOccupancy.cell_position(graph_id, Vector2i.ONE)
			- AgentOccupancy.cell_position(graph_id, Vector2i.ZERO)
		)
		var side: float = maxf(absf(step.x), absf(step.y))
		return (get_unit_size() + 1) * side * sqrt(0.5)
	return maxf(path_radius, radius)


func _parent_warning() -> String:
	if get_parent() is Node2D:
		return ""
	return "AStarBridgeAgent2D moves nothing by itself: make it a child of a Node2D."


func _parent_position() -> Vector3:
	return _lift(_origin())


func _target_point() -> Vector3:
	return _lift(target_position)


func _to_agent_space(point: Vector3) -> Variant:
	return _flat(point)


func _decode_points(value: Variant) -> PackedVector3Array:
	var flat := PackedVector2Array()
	if value is PackedVector2Array:
		flat = value
	elif value is PackedByteArray:
		var raw: PackedByteArray = value
		flat = raw.to_vector2_array()
	else:
		flat = PackedVector2Array(_items_of_type(value, TYPE_VECTOR2))
	var points := PackedVector3Array()
	for point: Vector2 in flat:
		points.append(_lift(point))
	return points


func _path_reach() -> float:
	return path_desired_distance


func _target_reach() -> float:
	return target_desired_distance


static func _lift(point: Vector2) -> Vector3:
	return Vector3(point.x, point.y, 0.0)


static func _flat(point: Vector3) -> Vector2:
	return Vector2(point.x, point.y)
