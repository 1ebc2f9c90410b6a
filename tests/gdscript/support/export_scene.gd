## Graph export, Godot side: builds a small level scene (a TileMapLayer with walls and a closed
## room, and an L-shaped NavigationRegion2D) and writes its graph files with the addon's
## SceneGraphExporter, for tests/addon/test_graph_export.py to load with python_core.
## Usage: godot --headless --path tests/godot_project --script res://tests/support/export_scene.gd
##        -- <output folder>
extends SceneTree

const SceneGraphExporter = preload("res://addons/astar_bridge/export/scene_graph_exporter.gd")
const TileFixtures = preload("res://tests/support/tile_fixtures.gd")
## Cell (9, 6) sits inside a walled room: designers' tests should find it unreachable.
const ROWS: PackedStringArray = [
	"............",
	".####.......",
	"....#..~~...",
	"....#..~~...",
	".##.#..####.",
	".......#..#.",
	".......#..#.",
	".......####.",
]


func _initialize() -> void:
	var args: PackedStringArray = OS.get_cmdline_user_args()
	if args.is_empty():
		printerr("export_scene: usage: -- <output folder>")
		quit(2)
		return
	var level := Node2D.new()
	level.name = "Level"
	var floor_layer: TileMapLayer = TileFixtures.layer_from_rows(ROWS)
	floor_layer.name = "Floor"
	level.add_child(floor_layer)
	var yard := NavigationRegion2D.new()
	yard.name = "Yard"
	yard.position = Vector2(300, 0)
	var nav := NavigationPolygon.new()
	# An L: two squares along the top, a bar down the right; shared edges, no T-junctions.
	nav.vertices = PackedVector2Array(
		[
			Vector2(0, 0),
			Vector2(60, 0),
			Vector2(60, 20),
			Vector2(0, 20),
			Vector2(40, 20),
			Vector2(60, 80),
			Vector2(40, 80),
			Vector2(40, 0),
		]
	)
	nav.add_polygon(PackedInt32Array([0, 7, 4, 3]))
	nav.add_polygon(PackedInt32Array([7, 1, 2, 4]))
	nav.add_polygon(PackedInt32Array([4, 2, 5, 6]))
	yard.navigation_polygon = nav
	level.add_child(yard)
	var written: PackedStringArray = SceneGraphExporter.export_scene(level, args[0])
	for path: String in written:
		print("WROTE %s" % path)
	level.free()
	quit(0 if written.size() == 2 else 1)
