## Internal: one avoidance agent of Godot's own navigation server (RVO), in 2D
## ([NavigationServer2D]) or 3D ([NavigationServer3D]), for the agent nodes'
## [code]avoidance_enabled[/code] / [code]set_velocity()[/code] / [code]velocity_computed[/code].
##
## Positions and velocities come and go as [Vector3]: in 2D the plane is z = 0 (as in the path
## follower). The server computes the safe velocity in its own step after the scene's physics
## frame and calls [member on_safe_velocity] with it; it works headless (no map regions needed).
extends RefCounted

## Called with the safe velocity ([Vector3]) after each avoidance step of the server.
var on_safe_velocity: Callable = Callable()

var _dim: int = 2
var _rid: RID = RID()


func _init(dim: int) -> void:
	_dim = dim


## True while a server agent exists.
func is_active() -> bool:
	return _rid.is_valid()


## Creates the server agent on [param map] (the parent's world navigation map) if there is none.
func create(map: RID) -> void:
	if _rid.is_valid() or not map.is_valid():
		return
	var callback: Callable = _on_avoidance_done
	if _dim == 2:
		_rid = NavigationServer2D.agent_create()
		NavigationServer2D.agent_set_map(_rid, map)
		NavigationServer2D.agent_set_avoidance_callback(_rid, callback)
		NavigationServer2D.agent_set_avoidance_enabled(_rid, true)
	else:
		_rid = NavigationServer3D.agent_create()
		NavigationServer3D.agent_set_map(_rid, map)
		NavigationServer3D.agent_set_avoidance_callback(_rid, callback)
		NavigationServer3D.agent_set_avoidance_enabled(_rid, true)


## Frees the server agent (call when the node leaves the tree or avoidance is turned off).
func free_agent() -> void:
	if not _rid.is_valid():
		return
	if _dim == 2:
		NavigationServer2D.agent_set_avoidance_callback(_rid, Callable())
		NavigationServer2D.free_rid(_rid)
	else:
		NavigationServer3D.agent_set_avoidance_callback(_rid, Callable())
		NavigationServer3D.free_rid(_rid)
	_rid = RID()


## Sets the agent's shape and how far ahead it looks: [param radius] and [param max_speed] in
## the world's units, [param neighbor_distance] how far others are considered,
## [param time_horizon] seconds of look-ahead, [param layers]/[param mask] avoidance layers.
func configure(
	radius: float,
	max_speed: float,
	neighbor_distance: float,
	max_neighbors: int,
	time_horizon: float,
	layers: int,
	mask: int
) -> void:
	if not _rid.is_valid():
		return
	if _dim == 2:
		NavigationServer2D.agent_set_radius(_rid, radius)
		NavigationServer2D.agent_set_max_speed(_rid, max_speed)
		NavigationServer2D.agent_set_neighbor_distance(_rid, neighbor_distance)
		NavigationServer2D.agent_set_max_neighbors(_rid, max_neighbors)
		NavigationServer2D.agent_set_time_horizon_agents(_rid, time_horizon)
		NavigationServer2D.agent_set_avoidance_layers(_rid, layers)
		NavigationServer2D.agent_set_avoidance_mask(_rid, mask)
	else:
		NavigationServer3D.agent_set_radius(_rid, radius)
		NavigationServer3D.agent_set_max_speed(_rid, max_speed)
		NavigationServer3D.agent_set_neighbor_distance(_rid, neighbor_distance)
		NavigationServer3D.agent_set_max_neighbors(_rid, max_neighbors)
		NavigationServer3D.agent_set_time_horizon_agents(_rid, time_horizon)
		NavigationServer3D.agent_set_avoidance_layers(_rid, layers)
		NavigationServer3D.agent_set_avoidance_mask(_rid, mask)


## Where the agent stands now.
func set_position(position: Vector3) -> void:
	if not _rid.is_valid():
		return
	if _dim == 2:
		NavigationServer2D.agent_set_position(_rid, Vector2(position.x, position.y))
	else:
		NavigationServer3D.agent_set_position(_rid, position)


## The velocity the agent would like to move at (the server answers with a safe one).
func set_velocity(velocity: Vector3) -> void:
	if not _rid.is_valid():
		return
	if _dim == 2:
		NavigationServer2D.agent_set_velocity(_rid, Vector2(velocity.x, velocity.y))
	else:
		NavigationServer3D.agent_set_velocity(_rid, velocity)


func _on_avoidance_done(safe: Variant) -> void:
	if not on_safe_velocity.is_valid():
		return
	if safe is Vector2:
		var flat: Vector2 = safe
		on_safe_velocity.call(Vector3(flat.x, flat.y, 0.0))
	elif safe is Vector3:
		on_safe_velocity.call(safe)
