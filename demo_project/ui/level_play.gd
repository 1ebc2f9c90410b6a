## Windowed play of a level scene ([code]levels/navmesh_level_2d.tscn[/code],
## [code]levels/level_3d.tscn[/code]): a child of the level node that waits for the sidecar,
## builds its parent level (the level's [code]build() -> Error[/code]), and shows a HUD with
## paths per second, mean / p99 request latency and failures from AStarBridge.get_stats(), and
## the scene keys ([code]ui/scene_keys.gd[/code]).
## [code]-- --screenshot=<png> [--frames=N][/code] saves the view after N frames and quits.
extends Node

const Bridge = preload("res://addons/astar_bridge/astar_bridge.gd")
const SceneKeys = preload("res://ui/scene_keys.gd")

## First HUD line: what this scene is.
@export var title: String = ""

var _bridge: Bridge = null
var _hud: Label = null
var _built: bool = false
var _hud_clock: float = 0.0
var _screenshot: String = ""
var _frames_left: int = 180


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
	else:
		# The parent is still adding its children: build on the next frame.
		await get_tree().process_frame
	var built: Error = get_parent().call("build")
	if built != OK:
		_hud.text = "loading the level failed: %s" % _bridge.get_last_error()
		return
	_built = true


func _process(delta: float) -> void:
	_hud_clock -= delta
	if _built and _hud_clock <= 0.0:
		_hud_clock = 0.25
		var stats: Dictionary = _bridge.get_stats()
		var rate: float = stats["paths_per_second"]
		var mean: float = stats["latency_ms_mean"]
		var p99: float = stats["latency_ms_p99"]
		var failures: int = stats["failures"]
		_hud.text = (
			"%s\npaths/s %.0f   latency mean %.2f ms  p99 %.2f ms   failures %d\n%s"
			% [title, rate, mean, p99, failures, SceneKeys.HINT]
		)
	if not _screenshot.is_empty():
		_frames_left -= 1
		if _frames_left == 0:
			_save_screenshot()


func _save_screenshot() -> void:
	var image: Image = get_viewport().get_texture().get_image()
	var error: Error = image.save_png(_screenshot)
	print("screenshot %s: %s" % [_screenshot, error_string(error)])
	get_tree().quit(0 if error == OK else 1)
