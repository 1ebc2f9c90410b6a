## An AStarBridge node as the GDScript tests use it: the repository's Python when the runner names
## none (ASTAR_BRIDGE_PYTHON), the given serve arguments, and connect and request timeouts long
## enough for a busy shared machine. The caller adds it to the tree.
extends RefCounted

const AStarBridgeNode = preload("res://addons/astar_bridge/astar_bridge.gd")


static func made(extra_arguments: PackedStringArray) -> AStarBridgeNode:
	var bridge: AStarBridgeNode = AStarBridgeNode.new()
	if OS.get_environment("ASTAR_BRIDGE_PYTHON").is_empty():
		var venv: String = ProjectSettings.globalize_path("res://").path_join(
			"../../.venv/bin/python"
		)
		bridge.config.python_executable = venv.simplify_path()
	bridge.config.extra_arguments = extra_arguments
	bridge.config.connect_timeout_ms = 20000
	bridge.config.request_timeout_ms = 10000
	return bridge
