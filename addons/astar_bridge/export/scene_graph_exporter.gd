## Finds the navigation data of a scene ([TileMapLayer], [NavigationRegion2D],
## [NavigationRegion3D]) and writes one graph file per node, so level designers can test
## reachability in pytest. Used by the editor menu entry of [code]plugin.gd[/code] and callable
## from any script.
## [codeblock]
## const SceneGraphExporter = preload(
##     "res://addons/astar_bridge/export/scene_graph_exporter.gd")
## var written := SceneGraphExporter.export_scene(get_tree().current_scene, "user://graphs")
## [/codeblock]
extends RefCounted

const GraphFileWriter = preload("res://addons/astar_bridge/export/graph_file_writer.gd")
const GridSerializer = preload("res://addons/astar_bridge/serializers/grid_serializer.gd")
const NavmeshSerializer = preload("res://addons/astar_bridge/serializers/navmesh_serializer.gd")

const EXTENSION := ".graph"


## Writes a graph file for every supported node under [param root] into [param folder] (made if
## missing), named after the node's path in the scene. A [TileMapLayer] uses
## [param grid_options] (see [code]grid_serializer.gd[/code]). Returns the written paths; a node
## that cannot be serialised is skipped after [method @GlobalScope.push_error].
static func export_scene(
	root: Node, folder: String, grid_options: Dictionary = {}
) -> PackedStringArray:
	var written := PackedStringArray()
	if root == null:
		push_error("SceneGraphExporter: no scene to export")
		return written
	var made: Error = DirAccess.make_dir_recursive_absolute(folder)
	if made != OK:
		push_error("SceneGraphExporter: cannot create %s (%s)" % [folder, error_string(made)])
		return written
	for node: Node in _walk(root):
		var name: String = _file_name(root, node)
		var entry: Array = _serialise(node, name, grid_options)
		if entry.is_empty():
			continue
		var method: String = entry[0]
		var params: Dictionary = entry[1]
		if params.is_empty():
			continue
		var path: String = folder.path_join(name + EXTENSION)
		if GraphFileWriter.write(method, params, path) == OK:
			written.append(path)
	return written


## [method, params] for a supported [param node], or [] for any other node.
static func _serialise(node: Node, name: String, grid_options: Dictionary) -> Array:
	if node is TileMapLayer:
		var layer: TileMapLayer = node
		return [
			GridSerializer.METHOD, GridSerializer.from_tile_map_layer(layer, name, grid_options)
		]
	if node is NavigationRegion2D:
		var region_2d: NavigationRegion2D = node
		return [
			NavmeshSerializer.METHOD, NavmeshSerializer.from_navigation_region_2d(region_2d, name)
		]
	if node is NavigationRegion3D:
		var region_3d: NavigationRegion3D = node
		return [
			NavmeshSerializer.METHOD, NavmeshSerializer.from_navigation_region_3d(region_3d, name)
		]
	return []


static func _walk(node: Node) -> Array[Node]:
	var nodes: Array[Node] = [node]
	for child: Node in node.get_children():
		nodes.append_array(_walk(child))
	return nodes


static func _file_name(root: Node, node: Node) -> String:
	var relative: String = str(root.get_path_to(node))
	var base: String = str(root.name)
	if relative != ".":
		base = "%s_%s" % [base, relative]
	return base.replace("/", "_").validate_filename()
