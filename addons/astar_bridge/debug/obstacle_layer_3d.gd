## Debug drawing of every 3D obstacle node (AStarBridgeObstacle3D, group
## [code]astar_bridge_obstacles[/code]): its outline as the sidecar cuts it
## ([code]get_global_outline()[/code], in x and z) as a loop at the node's height and, when it
## has one, a second loop at the top of [member AStarBridgeObstacle3D.height] joined by posts.
## Rebuilt every frame, so a moving obstacle is drawn where it is.
extends MeshInstance3D

const OBSTACLES_GROUP := &"astar_bridge_obstacles"
const GraphLayer3D = preload("res://addons/astar_bridge/debug/graph_layer_3d.gd")
const LIFT := 0.05

## Obstacles drawn by the last build, for tests.
var drawn_obstacles: int = 0

var _color: Color = Color.RED
var _mesh: ImmediateMesh = ImmediateMesh.new()


func _init(solid_color: Color) -> void:
	_color = Color(solid_color, 1.0)
	mesh = _mesh
	cast_shadow = GeometryInstance3D.SHADOW_CASTING_SETTING_OFF
	material_override = GraphLayer3D.overlay_material()


func _process(_delta: float) -> void:
	_mesh.clear_surfaces()
	drawn_obstacles = 0
	var lines := PackedVector3Array()
	for node: Node in get_tree().get_nodes_in_group(OBSTACLES_GROUP):
		if not node is Node3D:
			continue
		var outline: PackedVector2Array = node.call("get_global_outline")
		if outline.size() < 3:
			continue
		var spatial: Node3D = node
		var base: float = spatial.global_position.y + LIFT
		var height: float = node.get("height")
		_add_loop(lines, outline, base, height)
		drawn_obstacles += 1
	GraphLayer3D.add_lines(_mesh, lines, _color)


# The outline at [param base], and at base + height with posts between when height > 0.
static func _add_loop(
	lines: PackedVector3Array, outline: PackedVector2Array, base: float, height: float
) -> void:
	var count: int = outline.size()
	for i: int in count:
		var a: Vector2 = outline[i]
		var b: Vector2 = outline[(i + 1) % count]
		lines.append_array([Vector3(a.x, base, a.y), Vector3(b.x, base, b.y)])
		if height > 0.0:
			var top: float = base + height
			lines.append_array([Vector3(a.x, top, a.y), Vector3(b.x, top, b.y)])
			lines.append_array([Vector3(a.x, base, a.y), Vector3(a.x, top, a.y)])
