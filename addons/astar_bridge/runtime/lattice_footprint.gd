## Internal: the footprint size of a round unit on a hexagonal, isometric or half-offset grid,
## by the sidecar's rule (docs/layouts.md, "Units of any size"): a unit of size k stands on a
## centre cell and covers it and k - 1 rings of its side neighbours; a unit of radius r gets the
## smallest k whose footprint holds the disc of radius r about its cell's centre, that is whose
## next ring's tiles all lie at least r away (on both parity classes of a stacked layout).
## Side neighbours are the cell's 6 (hexagons, half-offset bricks) or 4 (diamonds) nearest
## centres in the tile's own frame, as the sidecar finds them.
extends RefCounted

const CellLayout = preload("../serializers/cell_layout.gd")
## The largest footprint a grid answers (its clearance is one byte per cell).
const MAX_SIZE := 255


## The size for a unit of [param radius] world units on the layout grid [param params]
## (graph.load_grid parameters with a [code]"layout"[/code]); 1 for a radius <= 0, at most
## [constant MAX_SIZE].
static func size_for_radius(params: Dictionary, radius: float) -> int:
	if not radius > 0.0 or is_inf(radius):
		return 1
	var limit: float = radius - 1e-9 * maxf(1.0, radius)
	var sides: Dictionary = {}  # (x & 1, y & 1) -> Array[Vector2i]: a cell's side offsets
	var size: int = 1
	for start: Vector2i in [Vector2i.ZERO, Vector2i.ONE]:  # both parity classes
		size = maxi(size, _size_from(params, start, limit, sides))
	return size


# The smallest size at [param start] whose next ring lies at least [param limit] away.
static func _size_from(params: Dictionary, start: Vector2i, limit: float, sides: Dictionary) -> int:
	var at: Vector2 = CellLayout.centre(params, start)
	var seen: Dictionary = {start: true}
	var ring: Array[Vector2i] = [start]
	for k: int in range(1, MAX_SIZE + 1):
		var next: Array[Vector2i] = []
		var nearest: float = INF
		for cell: Vector2i in ring:
			for step: Vector2i in _sides_of(params, cell, sides):
				var other: Vector2i = cell + step
				if seen.has(other):
					continue
				seen[other] = true
				next.append(other)
				nearest = minf(nearest, _distance_to_tile(params, other, at))
		if nearest >= limit:
			return k
		ring = next
	return MAX_SIZE


# The side offsets of [param cell]: its nearest centres in the tile frame (memoised per parity).
static func _sides_of(params: Dictionary, cell: Vector2i, sides: Dictionary) -> Array[Vector2i]:
	var key := Vector2i(cell.x & 1, cell.y & 1)
	if sides.has(key):
		var known: Array[Vector2i] = sides[key]
		return known
	var shape: String = str(CellLayout.layout_of(params).get("shape", "square"))
	var count: int = 6 if shape == "hexagon" or shape == "half_offset_square" else 4
	var tile: Vector2 = _tile_size(params)
	var here: Vector2 = CellLayout.centre(params, key) / tile
	var ranked: Array = []
	for dy: int in range(-3, 4):
		for dx: int in range(-3, 4):
			if dx == 0 and dy == 0:
				continue
			var there: Vector2 = CellLayout.centre(params, key + Vector2i(dx, dy)) / tile
			ranked.append([snappedf(here.distance_to(there), 1e-9), Vector2i(dx, dy)])
	ranked.sort_custom(func(a: Array, b: Array) -> bool: return a[0] < b[0])
	var found: Array[Vector2i] = []
	for i: int in count:
		var step: Vector2i = ranked[i][1]
		found.append(step)
	sides[key] = found
	return found


# The distance from [param point] to the tile of grid cell [param cell] (the point outside it).
static func _distance_to_tile(params: Dictionary, cell: Vector2i, point: Vector2) -> float:
	var polygon: PackedVector2Array = CellLayout.outline(params, cell)
	var best: float = INF
	for i: int in polygon.size():
		var a: Vector2 = polygon[i]
		var b: Vector2 = polygon[(i + 1) % polygon.size()]
		best = minf(best, Geometry2D.get_closest_point_to_segment(point, a, b).distance_to(point))
	return best


static func _tile_size(params: Dictionary) -> Vector2:
	var value: Variant = params.get("cell_size", [1.0, 1.0])
	if value is Vector2:
		return value
	if value is Array:
		var pair: Array = value
		if pair.size() >= 2:
			var x: float = pair[0]
			var y: float = pair[1]
			return Vector2(x, y)
	return Vector2.ONE
