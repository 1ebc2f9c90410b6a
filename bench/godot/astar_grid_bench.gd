extends SceneTree
## Times AStarGrid2D.get_id_path on a grid and its queries, jumping off and on (bench helper).
##
## Usage: godot --headless --script astar_grid_bench.gd -- <in.txt> <out.txt>
## The input holds a line "width height count [weighted]", one line of width * height characters,
## row after row ("." open, anything else solid), with "weighted" one more such line of digits
## 1-9 (each cell's weight scale), then count lines "sx sy gx gy". The output holds one line per
## query, "cost_off usec_off cost_on usec_on": the cost of the returned path (-1 when empty:
## steps of 1 and sqrt(2), each times the weight of the cell it enters) and the wall time of
## get_id_path in microseconds, with jumping_enabled false and then true (Godot's jumping ignores
## weights). Moves: 8-connected, no corner cutting, octile estimate.

const OPEN: int = 46  # "."
const ZERO: int = 48  # "0"


func _initialize() -> void:
	var args: PackedStringArray = OS.get_cmdline_user_args()
	if args.size() != 2:
		push_error("usage: -- <in.txt> <out.txt>")
		quit(2)
		return
	quit(_run(args[0], args[1]))


func _run(in_path: String, out_path: String) -> int:
	var src: FileAccess = FileAccess.open(in_path, FileAccess.READ)
	if src == null:
		push_error("cannot read %s" % in_path)
		return 1
	var head: PackedStringArray = src.get_line().split(" ")
	var width: int = head[0].to_int()
	var height: int = head[1].to_int()
	var count: int = head[2].to_int()
	var cells: PackedByteArray = src.get_line().to_ascii_buffer()
	var weights: PackedByteArray = PackedByteArray()
	if head.size() > 3 and head[3] == "weighted":
		weights = src.get_line().to_ascii_buffer()
	var queries: PackedInt32Array = PackedInt32Array()
	for i: int in count:
		for value: String in src.get_line().split(" "):
			queries.append(value.to_int())
	src.close()
	var grid: AStarGrid2D = _make_grid(cells, width, height)
	if not weights.is_empty():
		_set_weights(grid, weights, width, height)
	var off: Array[PackedFloat64Array] = _time_queries(grid, queries, false)
	var on: Array[PackedFloat64Array] = _time_queries(grid, queries, true)
	var out: FileAccess = FileAccess.open(out_path, FileAccess.WRITE)
	for i: int in count:
		out.store_line("%.9f %d %.9f %d" % [off[0][i], int(off[1][i]), on[0][i], int(on[1][i])])
	out.close()
	return 0


func _make_grid(cells: PackedByteArray, width: int, height: int) -> AStarGrid2D:
	var grid: AStarGrid2D = AStarGrid2D.new()
	grid.region = Rect2i(0, 0, width, height)
	grid.cell_size = Vector2(1.0, 1.0)
	grid.diagonal_mode = AStarGrid2D.DIAGONAL_MODE_ONLY_IF_NO_OBSTACLES
	grid.default_compute_heuristic = AStarGrid2D.HEURISTIC_OCTILE
	grid.default_estimate_heuristic = AStarGrid2D.HEURISTIC_OCTILE
	grid.update()
	# Solid cells as horizontal runs: one fill_solid_region call per run of walls.
	for y: int in height:
		var row: int = y * width
		var x: int = 0
		while x < width:
			if cells[row + x] == OPEN:
				x += 1
				continue
			var begin: int = x
			while x < width and cells[row + x] != OPEN:
				x += 1
			grid.fill_solid_region(Rect2i(begin, y, x - begin, 1), true)
	return grid


func _set_weights(grid: AStarGrid2D, weights: PackedByteArray, width: int, height: int) -> void:
	for y: int in height:
		for x: int in width:
			var scale: int = weights[y * width + x] - ZERO
			if scale != 1:
				grid.set_point_weight_scale(Vector2i(x, y), float(scale))


func _time_queries(
	grid: AStarGrid2D, queries: PackedInt32Array, jumping: bool
) -> Array[PackedFloat64Array]:
	grid.jumping_enabled = jumping
	var costs: PackedFloat64Array = PackedFloat64Array()
	var usec: PackedFloat64Array = PackedFloat64Array()
	for i: int in range(0, queries.size(), 4):
		var from: Vector2i = Vector2i(queries[i], queries[i + 1])
		var to: Vector2i = Vector2i(queries[i + 2], queries[i + 3])
		var t0: int = Time.get_ticks_usec()
		var path: Array[Vector2i] = grid.get_id_path(from, to)
		usec.append(float(Time.get_ticks_usec() - t0))
		costs.append(_path_cost(grid, path))
	return [costs, usec]


## Cost of a path of cells: each step costs 1 or sqrt(2) times the weight scale of the cell it
## enters. With jumping the cells are jump points on straight or diagonal lines; the cells between
## them are walked one by one.
func _path_cost(grid: AStarGrid2D, path: Array[Vector2i]) -> float:
	if path.is_empty():
		return -1.0
	var total: float = 0.0
	for i: int in range(1, path.size()):
		var step: Vector2i = (path[i] - path[i - 1]).sign()
		var length: float = sqrt(2.0) if step.x != 0 and step.y != 0 else 1.0
		var cell: Vector2i = path[i - 1]
		while cell != path[i]:
			cell += step
			total += length * grid.get_point_weight_scale(cell)
	return total
