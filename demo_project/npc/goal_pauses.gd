## The pause a demo NPC makes on each goal it settles (reached, or given up), and the end of a
## headless run: after [method finish_up] the current goal is the last. Each NPC holds one (the
## NPCs extend different engine types, so this cannot be a base class); a level's
## levels/level_finish.gd asks them all whether the run is over.
extends RefCounted

## Emitted once after [method finish_up], when the last goal is settled.
signal last_goal_settled

## Seconds an NPC waits on a settled goal before the next one.
const PAUSE_S := 0.5

## True once [method finish_up] was called and the last goal is settled.
var done: bool = false

var _wait: float = 0.0
var _finishing: bool = false


## True while the NPC waits on a goal before the next one.
func is_waiting() -> bool:
	return _wait > 0.0


## Counts the wait down by [param delta]; true while it lasts, false in the step it ends (time
## for the next goal).
func count_down(delta: float) -> bool:
	_wait -= delta
	return _wait > 0.0


## A new goal was given: no more waiting.
func stop_waiting() -> void:
	_wait = 0.0


## The current goal is settled: wait a moment before the next one, unless told to finish (then
## it was the last).
func settle_goal() -> void:
	if _finishing:
		_settle()
	else:
		_wait = PAUSE_S


## No goal after the current one: [signal last_goal_settled] once it is settled (at once when
## waiting between goals).
func finish_up() -> void:
	_finishing = true
	if _wait > 0.0:
		_wait = 0.0
		_settle()


func _settle() -> void:
	if not done:
		done = true
		last_goal_settled.emit()
