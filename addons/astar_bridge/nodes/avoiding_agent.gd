@tool
extends Node
## Internal: the avoidance half of [code]AStarBridgeAgent2D[/code] and
## [code]AStarBridgeAgent3D[/code] (the base of [code]path_requester.gd[/code]): the exported
## avoidance settings and the velocity round trip, [code]set_velocity()[/code] answered by
## [code]velocity_computed[/code] through Godot's own RVO avoidance
## ([code]agent_avoidance.gd[/code]) when [member avoidance_enabled], at once otherwise. It
## works in 3D space (the 2D agent's plane is z = 0); each agent overrides the hooks at the end
## for its own vector type and units.
## No [code]class_name[/code]: the agents extend it by path, so it parses in a fresh clone.

const AgentAvoidance = preload("agent_avoidance.gd")

@export_group("Avoidance")
## Uses Godot's own RVO avoidance ([NavigationServer2D] / [NavigationServer3D] agents on the
## parent's world map): [method set_velocity] is answered by [code]velocity_computed[/code] with a
## velocity that keeps clear of other avoiding agents.
@export var avoidance_enabled: bool = false:
	set(value):
		avoidance_enabled = value
		_update_avoidance()
## How many other agents are considered at once.
@export_range(1, 100, 1) var max_neighbors: int = 10:
	set(value):
		max_neighbors = value
		_configure_avoidance()
## Seconds ahead the avoidance looks for collisions with other agents.
@export_range(0.01, 10.0, 0.01, "or_greater", "suffix:s") var time_horizon_agents: float = 1.0:
	set(value):
		time_horizon_agents = value
		_configure_avoidance()
## Avoidance layers this agent is on.
@export_flags_avoidance var avoidance_layers: int = 1:
	set(value):
		avoidance_layers = value
		_configure_avoidance()
## Avoidance layers of the agents this one avoids.
@export_flags_avoidance var avoidance_mask: int = 1:
	set(value):
		avoidance_mask = value
		_configure_avoidance()

var _avoidance: AgentAvoidance = null
var _velocity_submitted: bool = false


func _enter_tree() -> void:
	if Engine.is_editor_hint():
		return
	_update_avoidance.call_deferred()


func _exit_tree() -> void:
	if _avoidance != null:
		_avoidance.free_agent()


func _physics_process(_delta: float) -> void:
	if Engine.is_editor_hint() or _avoidance == null or not _avoidance.is_active():
		return
	_avoidance.set_position(_parent_position())
	if not _velocity_submitted:
		# Nothing asked this frame: stand still for the others rather than keep the old wish.
		_avoidance.set_velocity(Vector3.ZERO)


## Called by the agent's [code]set_velocity[/code]: the velocity the parent wants, answered by
## [method _emit_velocity] (after the server's avoidance step, or at once without avoidance).
func _submit_velocity(velocity: Vector3) -> void:
	if _avoidance == null or not _avoidance.is_active():
		_emit_velocity(velocity)
		return
	_velocity_submitted = true
	_avoidance.set_position(_parent_position())
	_avoidance.set_velocity(velocity)


func _on_safe_velocity(safe: Vector3) -> void:
	if not _velocity_submitted:
		return  # the server answers every step; only answer what was asked
	_velocity_submitted = false
	_emit_velocity(safe)


func _update_avoidance() -> void:
	if Engine.is_editor_hint() or not is_inside_tree():
		return
	if not avoidance_enabled:
		if _avoidance != null:
			_avoidance.free_agent()
		_velocity_submitted = false
		return
	if _avoidance == null:
		_avoidance = AgentAvoidance.new(_dimensions())
		_avoidance.on_safe_velocity = _on_safe_velocity
	_avoidance.create(_navigation_map())
	_configure_avoidance()
	_avoidance.set_position(_parent_position())


func _configure_avoidance() -> void:
	if _avoidance == null:
		return
	_avoidance.configure(
		_radius(),
		_max_speed(),
		_neighbor_distance(),
		max_neighbors,
		time_horizon_agents,
		avoidance_layers,
		avoidance_mask
	)


## Hook: 2 or 3, the agent's space (for the avoidance server).
func _dimensions() -> int:
	return 3


## Hook: the navigation map the avoidance agent joins (the parent's world map).
func _navigation_map() -> RID:
	return RID()


## Hook: the agent's avoidance radius.
func _radius() -> float:
	return 0.5


## Hook: the agent's top speed for avoidance.
func _max_speed() -> float:
	return 10.0


## Hook: how far other agents are considered by avoidance.
func _neighbor_distance() -> float:
	return 50.0


## Hook: emits the agent's typed [code]velocity_computed[/code] with [param velocity].
func _emit_velocity(_velocity: Vector3) -> void:
	pass


## Hook: the parent's global position in the agent's 3D space.
func _parent_position() -> Vector3:
	return Vector3.ZERO
