## Saves a picture of the flow-field debug drawing (docs/flow_field_arrows.png): den312d (a Moving
## AI map) loaded as an AStarGrid2D, a field toward two goals with every tile fetched, the debug
## drawing on (walls red, arrows, crosses on the goals), seen through a camera zoomed on the part
## around the goals, so each arrow is a few dozen pixels. Needs a renderer: run by
## tools/screenshot_field.sh under Xvfb, in tests/godot_project:
##   godot --path tests/godot_project --script "$PWD/tools/godot/field_screenshot.gd" -- out.png
## An optional zoom after the file name: 1 shows the whole map, where the layer draws every second
## cell's arrow (cells of 10 pixels are closer than its MIN_SPACING_PX).
extends SceneTree

const AStarBridgeNode = preload("res://addons/astar_bridge/astar_bridge.gd")
const FlowField = preload("res://addons/astar_bridge/api/flow_field.gd")
const MovingAiMap = preload("res://tests/support/movingai_map.gd")
const CELL := Vector2(10, 10)
const GOALS: Array[Vector2i] = [Vector2i(12, 10), Vector2i(26, 30)]
## The cell in the middle of the picture and the camera's zoom (about 25 pixels a cell).
const FOCUS := Vector2i(19, 20)
const ZOOM := 2.5


func _initialize() -> void:
	_run.call_deferred()


func _run() -> void:
	ProjectSettings.set_setting("astar_bridge/debug/enabled", true)
	RenderingServer.set_default_clear_color(Color(0.12, 0.13, 0.15))
	var bridge: AStarBridgeNode = AStarBridgeNode.new()
	bridge.config.connect_timeout_ms = 20000
	root.add_child(bridge)
	var grid: AStarGrid2D = MovingAiMap.astar_grid("den312d.map", Vector2i.ZERO, CELL)
	bridge.load_astar_grid_2d("den", grid)
	var args: PackedStringArray = OS.get_cmdline_user_args()
	var zoom: float = float(args[1]) if args.size() > 1 else ZOOM
	var camera := Camera2D.new()
	camera.zoom = Vector2(zoom, zoom)
	camera.position = Vector2(FOCUS) * CELL
	if zoom <= 1.0:  # the whole map in the middle of the window
		camera.position = (Vector2(grid.region.size) - Vector2.ONE) * CELL / 2.0
	root.add_child(camera)
	camera.make_current()
	var goals: Array = []
	for goal: Vector2i in GOALS:
		goals.append(_open_near(grid, goal))
	var field: FlowField = bridge.request_flow_field("den", goals)
	var everywhere: Array = []
	for y: int in range(0, grid.region.size.y, 8):
		for x: int in range(0, grid.region.size.x, 8):
			everywhere.append(Vector2i(x, y))
	field.cover(everywhere)
	for _i: int in 600:
		await process_frame
		if field.get_held_tiles().size() == 5 * 6:
			break
	for _i: int in 10:
		await process_frame
	var out: String = args[0]
	var image: Image = root.get_texture().get_image()
	var error: Error = image.save_png(out)
	print("screenshot %s: %s" % [out, error_string(error)])
	bridge.stop()
	bridge.free()
	quit(0 if error == OK else 1)


func _open_near(grid: AStarGrid2D, cell: Vector2i) -> Vector2i:
	for radius: int in 20:
		for dy: int in range(-radius, radius + 1):
			for dx: int in range(-radius, radius + 1):
				var near: Vector2i = cell + Vector2i(dx, dy)
				if grid.is_in_boundsv(near) and not grid.is_point_solid(near):
					return near
	return cell
