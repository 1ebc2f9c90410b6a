## What a Godot game does today to give units of one size their own grid (issue 38), shared by
## the unit size benches: the clearance computed by hand (the largest open square anchored at
## each cell, the same recurrence as ours) and one AStarGrid2D eroded from it for one size.
extends RefCounted


## The side of the largest open square anchored at each cell (0 on walls), by hand.
static func clearance(cells: PackedByteArray, width: int, height: int) -> PackedByteArray:
	var out := PackedByteArray()
	out.resize(width * height)
	for y: int in range(height - 1, -1, -1):
		for x: int in range(width - 1, -1, -1):
			var i: int = y * width + x
			if cells[i] == 0:
				continue
			var right: int = out[i + 1] if x + 1 < width else 0
			var down: int = out[i + width] if y + 1 < height else 0
			var diagonal: int = out[i + width + 1] if x + 1 < width and y + 1 < height else 0
			out[i] = mini(1 + mini(right, mini(down, diagonal)), 255)
	return out


## One AStarGrid2D for a unit of [param size]: every anchor without room for the footprint solid.
static func eroded_grid(
	cells_clearance: PackedByteArray, width: int, height: int, size: int
) -> AStarGrid2D:
	var grid := AStarGrid2D.new()
	grid.region = Rect2i(0, 0, width, height)
	grid.diagonal_mode = AStarGrid2D.DIAGONAL_MODE_ONLY_IF_NO_OBSTACLES
	grid.default_compute_heuristic = AStarGrid2D.HEURISTIC_OCTILE
	grid.default_estimate_heuristic = AStarGrid2D.HEURISTIC_OCTILE
	grid.update()
	for y: int in height:
		var x: int = 0
		while x < width:
			if cells_clearance[y * width + x] >= size:
				x += 1
				continue
			var begin: int = x
			while x < width and cells_clearance[y * width + x] < size:
				x += 1
			grid.fill_solid_region(Rect2i(begin, y, x - begin, 1), true)
	return grid
