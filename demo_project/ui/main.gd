## Windowed play of the grid level: left click sends the selected NPC (right click selects the
## nearest one; Escape clears the selection, then a click sends every NPC), P toggles drawing every
## current path, and the HUD shows paths per second, mean / p99 request latency and failures
## from AStarBridge.get_stats(). Keys 1 / 2 / 3 switch to the grid, navmesh and 3D levels.
## [code]-- --screenshot=<png> [--frames=N][/code] saves the view after N frames and quits.
extends Node2D

const Bridge = preload("res://addons/astar_bridge/astar_bridge.gd")
const GridLevel = preload("res://levels/grid_level.gd")
const PathOverlay = preload("res://ui/path_overlay.gd")
const Npc = preload("res://npc/npc.gd")
const SceneKeys = preload("res://ui/scene_keys.gd")

var _bridge: Bridge = null
var _level: GridLevel = null
var _overlay: PathOverlay = null
var _hud: Label = null
var _selected: Npc = null
var _screenshot: String = ""
var _frames_left: int = 180
var _hud_clock: float = 0.0


func _ready() -> void:
	for arg: String in OS.get_cmdline_user_args():
		if arg.begins_with("--screenshot="):
			_screenshot = arg.get_slice("=", 1)
		elif arg.begins_with("--frames="):
			_frames_left = arg.get_slice("=", 1).to_int()
	_hud = Label.new()
	_hud.position = Vector2(8, 4)
	var layer := CanvasLayer.new()
	layer.add_child(_hud)
	add_child(layer)
	add_child(SceneKeys.new())
	var autoload: Node = get_node_or_null(^"/root/AStarBridge")
	if not autoload is Bridge:
		_hud.text = "AStarBridge autoload missing"
		return
	_bridge = autoload
	if not _bridge.is_ready():
		_hud.text = "starting the sidecar..."
		await _bridge.sidecar_ready
	_level = GridLevel.new()
	add_child(_level)
	if _level.build() != OK:
		_hud.text = "loading the level failed: %s" % _bridge.get_last_error()
		return
	_overlay = PathOverlay.new()
	_overlay.level = _level
	add_child(_overlay)


func _process(delta: float) -> void:
	_hud_clock -= delta
	if _bridge != null and _level != null and _hud_clock <= 0.0:
		_hud_clock = 0.25
		_update_hud()
	if not _screenshot.is_empty():
		_frames_left -= 1
		if _frames_left == 0:
			_save_screenshot()


func _unhandled_input(event: InputEvent) -> void:
	if _level == null:
		return
	if event.is_action_pressed(&"toggle_paths"):
		_overlay.visible = not _overlay.visible
	elif event is InputEventKey and (event as InputEventKey).keycode == KEY_ESCAPE:
		_select(null)
	elif event is InputEventMouseButton and (event as InputEventMouseButton).pressed:
		var click: InputEventMouseButton = event
		var at: Vector2 = get_global_mouse_position()
		if click.button_index == MOUSE_BUTTON_RIGHT:
			_select(_nearest_npc(at))
		elif click.button_index == MOUSE_BUTTON_LEFT:
			_send(_level.cell_at(at))


func _update_hud() -> void:
	var stats: Dictionary = _bridge.get_stats()
	var rate: float = stats["paths_per_second"]
	var mean: float = stats["latency_ms_mean"]
	var p99: float = stats["latency_ms_p99"]
	var failures: int = stats["failures"]
	var who: String = str(_selected.name) if _selected != null else "all NPCs"
	_hud.text = (
		(
			"paths/s %.0f   latency mean %.2f ms  p99 %.2f ms   failures %d\n"
			% [rate, mean, p99, failures]
		)
		+ "left click: send %s   right click: select   Esc: all   P: paths\n" % who
		+ SceneKeys.HINT
	)


func _send(cell: Vector2i) -> void:
	if cell == Vector2i(-1, -1):
		return
	if _selected != null:
		_selected.send_to(cell)
		return
	for npc: Npc in _level.npcs:
		npc.send_to(cell)


func _select(npc: Npc) -> void:
	if _selected != null:
		_selected.modulate = Color.WHITE
	_selected = npc
	if npc != null:
		npc.modulate = Color(1.0, 0.9, 0.2)


func _nearest_npc(at: Vector2) -> Npc:
	var best: Npc = null
	for npc: Npc in _level.npcs:
		if (
			best == null
			or npc.global_position.distance_to(at) < best.global_position.distance_to(at)
		):
			best = npc
	return best


func _save_screenshot() -> void:
	var image: Image = get_viewport().get_texture().get_image()
	var error: Error = image.save_png(_screenshot)
	print("screenshot %s: %s" % [_screenshot, error_string(error)])
	get_tree().quit(0 if error == OK else 1)
