## Draws every NPC (a dot) and, while visible, every NPC's current path (a line to its goal).
extends Node2D

const GridLevel = preload("res://levels/grid_level.gd")
const Npc = preload("res://npc/npc.gd")

## The level whose NPCs are drawn.
var level: GridLevel = null


func _process(_delta: float) -> void:
	queue_redraw()


func _draw() -> void:
	if level == null:
		return
	for npc: Npc in level.npcs:
		var hue: float = fmod(npc.index * 0.618, 1.0)
		var color := Color.from_hsv(hue, 0.75, 0.9)
		var path: PackedVector2Array = npc.agent.get_current_navigation_path()
		var index: int = npc.agent.get_current_navigation_path_index()
		if path.size() > index and not npc.agent.is_navigation_finished():
			var rest := PackedVector2Array([npc.global_position])
			rest.append_array(path.slice(index))
			if rest.size() >= 2:
				draw_polyline(rest, color, 2.0)
		draw_circle(npc.global_position, Npc.RADIUS, color * npc.modulate)
