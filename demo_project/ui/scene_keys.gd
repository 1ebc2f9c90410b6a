## Keys 1, 2 and 3 switch between the demo's scenes: the grid level ([code]main.tscn[/code]),
## the navmesh level and the 3D level. Add one to every scene of windowed play.
extends Node

## Keycode -> scene file.
const SCENES := {
	KEY_1: "res://main.tscn",
	KEY_2: "res://levels/navmesh_level_2d.tscn",
	KEY_3: "res://levels/level_3d.tscn",
}
## The line the HUDs show for these keys.
const HINT := "1: grid level   2: navmesh level   3: 3D level"


func _unhandled_input(event: InputEvent) -> void:
	if not event is InputEventKey:
		return
	var key: InputEventKey = event
	if not key.pressed or key.echo or not SCENES.has(key.keycode):
		return
	var scene: String = SCENES[key.keycode]
	var current: Node = get_tree().current_scene
	if current != null and current.scene_file_path == scene:
		return
	get_viewport().set_input_as_handled()
	get_tree().change_scene_to_file.call_deferred(scene)
