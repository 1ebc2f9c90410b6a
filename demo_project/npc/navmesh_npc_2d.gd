## A wandering NPC of the navmesh level: a CharacterBody2D led by an AStarBridgeAgent2D on the
## level's navmesh graph. It walks to a random point of the mesh (the first one near its start),
## waits a moment, picks the next one, and so on. Goals come from [member pick_goal] with this
## NPC's own seeded RNG, so two runs with the same seed walk the same way.
extends CharacterBody2D

## Emitted when a goal is reached; [param goal_number] counts from 1.
signal arrived(npc_index: int, goal_number: int, point: Vector2)
## Emitted once after the level's finish_up, when the last goal given is settled (reached, or
## given up as unreachable): see [member pauses].
signal last_goal_settled(npc_index: int)

const GoalPauses = preload("res://npc/goal_pauses.gd")
const RADIUS := 7.0

## Name number.
var index: int = 0
## Pixels per second.
var speed: float = 150.0
## Goals reached so far, and goals given up (no path, or the path ended short of the goal).
var goals_reached: int = 0
var goals_missed: int = 0
## Arrivals (navigation_finished) farther from the goal than the agent's target distance.
var arrivals_off_goal: int = 0
## Goals given so far (the current one included): each is reached or, on a navmesh, given up.
var goals_given: int = 0
## Paths received (found, partial or none) and requests that failed.
var paths_received: int = 0
var paths_failed: int = 0
## The pause on each goal, and the end of a headless run (the level tells it to finish up).
var pauses: GoalPauses = GoalPauses.new()
## The agent node leading this body.
var agent: AStarBridgeAgent2D = null
## The current goal.
var goal_point: Vector2 = Vector2.ZERO
## func(rng: RandomNumberGenerator, near: Vector2, first: bool) -> Vector2: the next goal.
var pick_goal: Callable = Callable()

var _rng: RandomNumberGenerator = RandomNumberGenerator.new()
var _first: bool = true


## Wires the NPC before it enters the tree: its agent paths on [param graph_id],
## [param rng_seed] drives its goals and [param picker] chooses them (see [member pick_goal]).
func setup(graph_id: String, rng_seed: int, picker: Callable) -> void:
	_rng.seed = rng_seed
	pick_goal = picker
	collision_layer = 2
	collision_mask = 1
	var shape := CollisionShape2D.new()
	var circle := CircleShape2D.new()
	circle.radius = RADIUS
	shape.shape = circle
	add_child(shape)
	agent = AStarBridgeAgent2D.new()
	agent.name = "Agent"
	agent.graph_id = graph_id
	agent.path_changed.connect(func() -> void: paths_received += 1)
	agent.path_failed.connect(func(_result: Dictionary) -> void: paths_failed += 1)
	pauses.last_goal_settled.connect(func() -> void: last_goal_settled.emit(index))
	agent.navigation_finished.connect(_on_navigation_finished)
	agent.target_unreachable.connect(_on_target_unreachable)
	agent.velocity_computed.connect(_on_velocity_computed)
	add_child(agent)


func _ready() -> void:
	_next_goal()


func _physics_process(delta: float) -> void:
	if pauses.is_waiting():
		if pauses.count_down(delta):
			return
		# The next goal, and on towards it in this very frame, as a game's movement code goes.
		_next_goal()
	if agent.is_navigation_finished():
		velocity = Vector2.ZERO
		return
	var next: Vector2 = agent.get_next_path_position()
	var step: float = speed * delta
	var gap: float = global_position.distance_to(next)
	agent.set_velocity(
		global_position.direction_to(next) * speed * minf(1.0, gap / maxf(step, 0.001))
	)


## Sends the NPC to [param point] now.
func send_to(point: Vector2) -> void:
	pauses.stop_waiting()
	goals_given += 1
	goal_point = point
	agent.target_position = point


func _on_velocity_computed(safe_velocity: Vector2) -> void:
	velocity = safe_velocity
	move_and_slide()


func _on_navigation_finished() -> void:
	goals_reached += 1
	var goal: Vector2 = goal_point
	if global_position.distance_to(goal) > agent.target_desired_distance + 0.01:
		arrivals_off_goal += 1  # the agent reported an arrival it did not make
	arrived.emit(index, goals_reached, goal_point)
	pauses.settle_goal()


## No path reaches the goal (or only part of the way): give it up and pick another after a pause.
func _on_target_unreachable() -> void:
	goals_missed += 1
	agent.stop()
	velocity = Vector2.ZERO
	pauses.settle_goal()


func _next_goal() -> void:
	var point: Vector2 = pick_goal.call(_rng, global_position, _first)
	_first = false
	send_to(point)
