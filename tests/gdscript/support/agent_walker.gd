## Moves a Node2D or a Node3D towards its agent's next path point at a fixed speed, one step per
## physics frame, for tests that run the same scenario with both agents. A step moves the node
## right after physics_frame, before the agent's own physics step (as a body's _physics_process
## runs before its child agent's).
extends RefCounted

const PathFollower = preload("res://addons/astar_bridge/nodes/path_follower.gd")

## The node moved (the agent's parent) and its agent.
var mover: Node = null
var agent: PathFollower = null
## Units (pixels or metres) per second.
var speed: float = 0.0

var _tree: SceneTree = Engine.get_main_loop() as SceneTree


func _init(moved: Node, led: PathFollower, units_per_second: float) -> void:
	mover = moved
	agent = led
	speed = units_per_second


## Sets the agent's target_position (a Vector2 or a Vector3).
func go_to(point: Variant) -> void:
	agent.set("target_position", point)


## The mover's global position (a Vector2 or a Vector3).
func position() -> Variant:
	return mover.get("global_position")


## The agent's target_desired_distance.
func reach() -> float:
	var value: float = agent.get("target_desired_distance")
	return value


## Points in the agent's current path.
func path_size() -> int:
	return agent._path.size()


func distance_to(point: Variant) -> float:
	return distance_between(position(), point)


func distance_between(a: Variant, b: Variant) -> float:
	if a is Vector2 and b is Vector2:
		var from_2d: Vector2 = a
		var to_2d: Vector2 = b
		return from_2d.distance_to(to_2d)
	var from: Vector3 = a
	var to: Vector3 = b
	return from.distance_to(to)


## [param from] moved [param distance] towards [param to] (not past it).
func toward(from: Variant, to: Variant, distance: float) -> Variant:
	if from is Vector2 and to is Vector2:
		var from_2d: Vector2 = from
		var to_2d: Vector2 = to
		return from_2d.move_toward(to_2d, distance)
	var start: Vector3 = from
	var end: Vector3 = to
	return start.move_toward(end, distance)


## Waits for the next physics frame, then moves the mover one frame's way unless the agent's
## navigation is finished.
func step() -> void:
	await _tree.physics_frame
	if agent.is_navigation_finished():
		return
	var next: Variant = agent.call("get_next_path_position")
	mover.set("global_position", toward(position(), next, speed / Engine.physics_ticks_per_second))


## Steps for at most [param frames] frames, until the navigation is finished; whether it is.
func walk(frames: int) -> bool:
	for frame: int in frames:
		await step()
		if agent.is_navigation_finished():
			return true
	return agent.is_navigation_finished()
