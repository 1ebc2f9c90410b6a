## Debug drawing of every 3D agent's current path: the nodes of group
## [code]astar_bridge_agents[/code] whose [code]get_current_navigation_path()[/code] gives a
## [PackedVector3Array] (global positions, as [NavigationAgent3D]'s). Rebuilt every frame.
extends MeshInstance3D

const AGENTS_GROUP := &"astar_bridge_agents"
const GraphLayer3D = preload("res://addons/astar_bridge/debug/graph_layer_3d.gd")
const LIFT := Vector3(0.0, 0.06, 0.0)

## Paths drawn by the last build, for tests.
var drawn_paths: int = 0

var _color: Color = Color.YELLOW
var _mesh: ImmediateMesh = ImmediateMesh.new()


func _init(color: Color) -> void:
	_color = color
	mesh = _mesh
	cast_shadow = GeometryInstance3D.SHADOW_CASTING_SETTING_OFF
	material_override = GraphLayer3D.overlay_material()


func _process(_delta: float) -> void:
	_mesh.clear_surfaces()
	drawn_paths = 0
	var lines := PackedVector3Array()
	for agent: Node in get_tree().get_nodes_in_group(AGENTS_GROUP):
		if not agent.has_method("get_current_navigation_path"):
			continue
		var path: Variant = agent.call("get_current_navigation_path")
		if not path is PackedVector3Array:
			continue
		var points: PackedVector3Array = path
		if points.size() < 2:
			continue
		for i: int in points.size() - 1:
			lines.append_array([points[i] + LIFT, points[i + 1] + LIFT])
		drawn_paths += 1
	GraphLayer3D.add_lines(_mesh, lines, _color)
