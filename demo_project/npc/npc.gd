## A patrolling NPC: a CharacterBody2D led by an AStarBridgeAgent2D. It walks to a random floor
## cell (the first one near its start), waits a moment, picks the next one, and so on. It
## occupies its grid cell as agent [member index], so other NPCs path around it.
extends CharacterBody2D

## Emitted when a goal is reached; [param goal_number] counts from 1.
signal arrived(npc_index: int, goal_number: int, cell: Vector2i)
## Emitted once after the level's finish_up, when the last goal given is settled (reached, or
## given up as unreachable): see [member pauses].
signal last_goal_settled(npc_index: int)

const GoalPauses = preload("res://npc/goal_pauses.gd")
## Re-path period: others move, so a path goes stale (also the retry delay when blocked).
const REPATH_S := 1.0
const RADIUS := 7.0

## Agent id and name number.
var index: int = 0
## Pixels per second.
var speed: float = 150.0
## Goals reached so far.
var goals_reached: int = 0
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
## The cell of the current goal (the top-left cell of its footprint for a unit of several cells).
var goal_cell: Vector2i = Vector2i(-1, -1)
## The body's collision radius: the agent paths for it (a radius over half a cell makes a unit of
## several cells, issue 38).
var radius: float = RADIUS

var _level: Node2D = null
var _rng: RandomNumberGenerator = RandomNumberGenerator.new()
var _first_reach: int = 0


## Wires the NPC to [param level] (the grid level: cell_center, random_floor_cell) before it
## enters the tree; [param rng_seed] drives its goals, [param options] are its queries' options.
func setup(
	level: Node2D, graph_id: String, rng_seed: int, first_reach: int, options: Dictionary
) -> void:
	_level = level
	_rng.seed = rng_seed
	_first_reach = first_reach
	collision_layer = 2
	collision_mask = 1
	var shape := CollisionShape2D.new()
	var circle := CircleShape2D.new()
	circle.radius = radius
	shape.shape = circle
	add_child(shape)
	agent = AStarBridgeAgent2D.new()
	agent.name = "Agent"
	agent.graph_id = graph_id
	agent.agent_id = index
	agent.repath_interval = REPATH_S
	agent.path_options = options.duplicate()
	agent.path_changed.connect(func() -> void: paths_received += 1)
	agent.path_failed.connect(func(_result: Dictionary) -> void: paths_failed += 1)
	pauses.last_goal_settled.connect(func() -> void: last_goal_settled.emit(index))
	agent.navigation_finished.connect(_on_navigation_finished)
	agent.velocity_computed.connect(_on_velocity_computed)
	add_child(agent)


func _ready() -> void:
	_pick_goal(_first_reach)


func _physics_process(delta: float) -> void:
	if pauses.is_waiting():
		if pauses.count_down(delta):
			return
		# The next goal, and on towards it in this very frame, as a game's movement code goes.
		_pick_goal(0)
	if agent.is_navigation_finished():
		velocity = Vector2.ZERO
		return
	# An unreachable goal (others in the way) is followed as far as it goes and tried again.
	var next: Vector2 = agent.get_next_path_position()
	var step: float = speed * delta
	var gap: float = global_position.distance_to(next)
	agent.set_velocity(
		global_position.direction_to(next) * speed * minf(1.0, gap / maxf(step, 0.001))
	)


## Sends the NPC to [param cell] now (windowed play: click to send).
func send_to(cell: Vector2i) -> void:
	pauses.stop_waiting()
	goals_given += 1
	goal_cell = cell
	agent.target_position = _level.call("goal_point", cell, agent.get_unit_size())


func _on_velocity_computed(safe_velocity: Vector2) -> void:
	velocity = safe_velocity
	move_and_slide()


func _on_navigation_finished() -> void:
	goals_reached += 1
	var goal: Vector2 = _level.call("goal_point", goal_cell, agent.get_unit_size())
	if global_position.distance_to(goal) > agent.target_desired_distance + 0.01:
		arrivals_off_goal += 1  # the agent reported an arrival it did not make
	arrived.emit(index, goals_reached, goal_cell)
	pauses.settle_goal()


func _pick_goal(reach: int) -> void:
	var here: Vector2i = _level.call("cell_at", global_position)
	var size: int = agent.get_unit_size()
	var cell: Vector2i = _level.call("random_goal_cell", _rng, here, reach, size)
	send_to(cell)
