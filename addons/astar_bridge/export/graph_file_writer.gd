## Writes graph files in python_core's format ([code]python_core.formats.graph_file[/code]), so a
## level exported from Godot can be loaded and asserted on in pytest without the engine.
##
## A file is msgpack [code]{"format": "astar-bridge-graph", "version": 1, "kind", "graph"}[/code]
## where [code]kind[/code] is "grid", "waypoints" or "navmesh" and [code]graph[/code] is the
## [code]graph.load_*[/code] parameter map without [code]"id"[/code].
## [codeblock]
## const GraphFileWriter = preload("res://addons/astar_bridge/export/graph_file_writer.gd")
## var err := GraphFileWriter.write("graph.load_grid", params, "res://graphs/level.graph")
## [/codeblock]
extends RefCounted

const MsgpackEncoder = preload("res://addons/astar_bridge/msgpack/msgpack_encoder.gd")

const FORMAT := "astar-bridge-graph"
const VERSION := 1
const LOAD_PREFIX := "graph.load_"


## Writes [param params] (the parameters of protocol [param method], e.g.
## [code]"graph.load_grid"[/code]) to [param path]. Returns OK, or an error code after
## [method @GlobalScope.push_error] (nothing is written then).
static func write(method: String, params: Dictionary, path: String) -> Error:
	if not method.begins_with(LOAD_PREFIX):
		push_error("GraphFileWriter: %s is not a graph.load_* method" % method)
		return ERR_INVALID_PARAMETER
	if params.is_empty():
		push_error("GraphFileWriter: empty parameters for %s" % path)
		return ERR_INVALID_PARAMETER
	var record: Dictionary = params.duplicate()
	record.erase("id")
	var document: Dictionary = {
		"format": FORMAT,
		"version": VERSION,
		"kind": method.trim_prefix(LOAD_PREFIX),
		"graph": record,
	}
	var encoder: MsgpackEncoder = MsgpackEncoder.new()
	var bytes: PackedByteArray = encoder.encode(document)
	if not encoder.error.is_empty():
		push_error("GraphFileWriter: %s" % encoder.error)
		return ERR_INVALID_DATA
	var file: FileAccess = FileAccess.open(path, FileAccess.WRITE)
	if file == null:
		var open_error: Error = FileAccess.get_open_error()
		push_error("GraphFileWriter: cannot write %s (%s)" % [path, error_string(open_error)])
		return open_error
	file.store_buffer(bytes)
	file.close()
	return OK
