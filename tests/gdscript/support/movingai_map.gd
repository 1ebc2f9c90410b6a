## Reads a Moving AI benchmark map of tests/data/movingai (the repository is
## [code]ASTAR_BRIDGE_REPO[/code], set by the test runner) into an [AStarGrid2D]: ".", "G", "S"
## are passable (python_core.formats.movingai's rule), the rest solid.
extends RefCounted


## The map's file path, from the repository named by ASTAR_BRIDGE_REPO (or two folders above
## the test project).
static func path_of(name: String) -> String:
	var repo: String = OS.get_environment("ASTAR_BRIDGE_REPO")
	if repo.is_empty():
		repo = ProjectSettings.globalize_path("res://").path_join("../..").simplify_path()
	return repo.path_join("tests/data/movingai").path_join(name)


## An [AStarGrid2D] of map [param name] (only-if-no-obstacles diagonals, the benchmark's rule),
## whose region starts at [param start] and whose cells are [param cell_size] wide, with
## [param diagonal]'s rule; null when the file cannot be read.
static func astar_grid(
	name: String,
	start: Vector2i,
	cell_size: Vector2,
	diagonal: AStarGrid2D.DiagonalMode = AStarGrid2D.DIAGONAL_MODE_ONLY_IF_NO_OBSTACLES
) -> AStarGrid2D:
	var text: String = FileAccess.get_file_as_string(path_of(name))
	if text.is_empty():
		return null
	var lines: PackedStringArray = text.split("\n")
	var height: int = 0
	var width: int = 0
	var first: int = 0
	for i: int in lines.size():
		var line: String = lines[i].strip_edges()
		if line.begins_with("height"):
			height = line.get_slice(" ", 1).to_int()
		elif line.begins_with("width"):
			width = line.get_slice(" ", 1).to_int()
		elif line == "map":
			first = i + 1
			break
	var grid := AStarGrid2D.new()
	grid.region = Rect2i(start, Vector2i(width, height))
	grid.cell_size = cell_size
	grid.diagonal_mode = diagonal
	grid.update()
	for y: int in height:
		var row: String = lines[first + y].strip_edges()
		for x: int in width:
			if not row[x] in [".", "G", "S"]:
				grid.set_point_solid(start + Vector2i(x, y))
	return grid
