## The end of a headless run, the same in every level: no goal after each NPC's current one,
## then the wait until every NPC settled its last. A level holds one and adds each NPC's
## npc/goal_pauses.gd to it as it spawns them.
extends RefCounted

const GoalPauses = preload("res://npc/goal_pauses.gd")

var _pauses: Array[GoalPauses] = []


## Counts one NPC's [param pauses] among the level's.
func add(pauses: GoalPauses) -> void:
	_pauses.append(pauses)


## No goal after each NPC's current one (in the order they were added).
func finish_up() -> void:
	for pauses: GoalPauses in _pauses:
		pauses.finish_up()


## True once every NPC settled its last goal after [method finish_up].
func all_done() -> bool:
	for pauses: GoalPauses in _pauses:
		if not pauses.done:
			return false
	return true
