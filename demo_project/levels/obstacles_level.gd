## The obstacles level (issue 40): the grid level's game where the ways between rooms are not
## doors but carts: AStarBridgeObstacle2D nodes that slide to and fro across the openings and
## through the middle room. Every frame the carts moved in leaves as one graph.update; the
## sidecar blocks the cells under each cart (any overlap by positive area) and the agents whose
## remaining path a cart now crosses re-path, the others keep theirs. A cart waits while an NPC
## stands where it would move (a real cart would stop too), so no NPC is ever run over: the
## level counts the steps an NPC stood inside a cart's outline, and fails on any.
extends "res://levels/grid_level.gd"

const Obstacle2D = preload("res://addons/astar_bridge/nodes/astar_obstacle_2d.gd")
## "#" wall, "." floor. Three rooms joined by six-cell openings (columns 10 and 21, rows 6-11).
const OBSTACLES_MAP: PackedStringArray = [
	"################################",
	"#.........#..........#.........#",
	"#.........#..........#.........#",
	"#..##.....#..........#.....##..#",
	"#..##.....#..........#.....##..#",
	"#.........#..........#.........#",
	"#..............................#",
	"#..............................#",
	"#..............................#",
	"#..............................#",
	"#..............................#",
	"#..............................#",
	"#.........#..........#.........#",
	"#.....##..#..........#..##.....#",
	"#.....##..#..........#..##.....#",
	"#.........#..........#.........#",
	"#.........#..........#.........#",
	"################################",
]
## Each cart: its size in cells, the cells its track runs between (the cart's centre moves from
## the centre of the first to the centre of the last and back) and its speed in cells a second.
## The two in the openings block at most three of their six cells: a way through always exists.
const CARTS: Array[Dictionary] = [
	{"size": Vector2(0.8, 1.8), "from": Vector2i(10, 6), "to": Vector2i(10, 11), "speed": 1.5},
	{"size": Vector2(0.8, 1.8), "from": Vector2i(21, 11), "to": Vector2i(21, 6), "speed": 1.2},
	{"size": Vector2(1.8, 1.8), "from": Vector2i(15, 2), "to": Vector2i(15, 15), "speed": 1.0},
]
## Less than a pixel: an outline ending on a cell's edge does not block the cell beyond.
const EDGE_PX := 0.001

## Cart moves sent (a step in which at least one cart moved counts once).
var cart_steps: int = 0
## Steps a cart waited for an NPC to get out of its way.
var cart_waits: int = 0
## Steps an NPC's centre stood inside a cart's outline (must stay 0).
var npcs_inside_carts: int = 0
## The carts, in CARTS order.
var carts: Array[Obstacle2D] = []

# Per cart: where along its track (0..1) and which way it goes (+1 / -1).
var _along: PackedFloat64Array = PackedFloat64Array()
var _heading: PackedFloat64Array = PackedFloat64Array()


func _init() -> void:
	graph_id = "carts"
	map_rows = OBSTACLES_MAP
	npc_speed = 140.0
	first_goal_range = 0  # anywhere: crossing the openings is the point


## Builds as the grid level does, then places the carts (on the graph from this frame's end).
func build() -> Error:
	var built: Error = super()
	if built != OK:
		return built
	for spec: Dictionary in CARTS:
		var cells: Vector2 = spec["size"]
		var size: Vector2 = cells * tile_size
		var cart: Obstacle2D = Obstacle2D.new()
		cart.name = "Cart%d" % carts.size()
		cart.graph_id = StringName(graph_id)
		var half: Vector2 = size * 0.5
		cart.vertices = PackedVector2Array(
			[-half, Vector2(half.x, -half.y), half, Vector2(-half.x, half.y)]
		)
		var body := Polygon2D.new()
		body.polygon = cart.vertices
		body.color = Color(0.55, 0.35, 0.2)
		cart.add_child(body)
		carts.append(cart)
		_along.append(0.0)
		_heading.append(1.0)
		cart.position = _track_point(carts.size() - 1, 0.0)
		add_child(cart)
	return OK


## Appends this level's rows to the demo's summary [param rows]; true when no NPC ever stood
## inside a cart and the carts moved (the headless run fails otherwise).
func add_rows(rows: Array[Array]) -> bool:
	rows.append(["carts (obstacles)", str(carts.size())])
	rows.append(["cart updates", str(cart_steps)])
	rows.append(["cart waits", str(cart_waits)])
	rows.append(["NPCs inside a cart", str(npcs_inside_carts)])
	if npcs_inside_carts > 0 or cart_steps == 0:
		print("obstacles level FAILED: an NPC stood inside a cart, or no cart moved")
		return false
	return true


## True while any NPC waits for a path or an obstacle update is unanswered: the addon holds the
## next moves while one is (they then go together), so holding time still for it too makes every
## run send the same updates at the same steps.
func any_path_pending() -> bool:
	var stats: Dictionary = bridge.get_stats()
	var pending: int = stats["pending"]
	return super() or pending > 0


func _physics_process(delta: float) -> void:
	super(delta)
	var moved: bool = false
	for i: int in carts.size():
		moved = _move_cart(i, delta) or moved
	cart_steps += 1 if moved else 0
	for npc: Npc in npcs:
		if not npc.is_inside_tree():
			continue
		for cart: Obstacle2D in carts:
			if Geometry2D.is_point_in_polygon(npc.global_position, cart.get_global_outline()):
				npcs_inside_carts += 1


# The cells near a track (within a cart's half diagonal and a cell of its line) are no one's
# start or goal: an NPC standing there would hold the cart still for good.
func _paint() -> void:
	super()
	for spec: Dictionary in CARTS:
		var from_cell: Vector2i = spec["from"]
		var to_cell: Vector2i = spec["to"]
		var from := Vector2(from_cell)
		var to := Vector2(to_cell)
		var cart_cells: Vector2 = spec["size"]
		var reach: float = (cart_cells * 0.5).length() + 1.0
		for cell: Vector2i in _floor_cells.duplicate():
			var nearest: Vector2 = Geometry2D.get_closest_point_to_segment(Vector2(cell), from, to)
			if nearest.distance_to(Vector2(cell)) < reach:
				_floor_cells.erase(cell)
				_is_floor.erase(cell)


# Moves cart [param index] one step along its track unless an NPC is in the way; true if moved.
func _move_cart(index: int, delta: float) -> bool:
	var spec: Dictionary = CARTS[index]
	var from: Vector2i = spec["from"]
	var to: Vector2i = spec["to"]
	var length: float = maxf(Vector2(to - from).length(), 1.0)
	var speed: float = spec["speed"]
	var step: float = speed * delta / length
	var next: float = _along[index] + _heading[index] * step
	if next > 1.0 or next < 0.0:
		_heading[index] = -_heading[index]
		next = clampf(next, 0.0, 1.0)
	var cart: Obstacle2D = carts[index]
	var target: Vector2 = _track_point(index, next)
	var cart_cells: Vector2 = spec["size"]
	var size: Vector2 = cart_cells * tile_size
	# The cells the cart would block (overlapped by positive area) and those around them: a unit
	# there could be standing on, or stepping onto, a cell about to be blocked.
	var first: Vector2i = cell_at(target - size * 0.5) - Vector2i.ONE
	var last: Vector2i = cell_at(target + size * 0.5 - Vector2.ONE * EDGE_PX) + Vector2i.ONE
	for npc: Npc in npcs:
		if not npc.is_inside_tree():
			continue
		var at: Vector2i = cell_at(npc.global_position)
		if at.x >= first.x and at.y >= first.y and at.x <= last.x and at.y <= last.y:
			cart_waits += 1
			return false
	_along[index] = next
	cart.position = target
	return true


func _track_point(index: int, along: float) -> Vector2:
	var spec: Dictionary = CARTS[index]
	var from: Vector2i = spec["from"]
	var to: Vector2i = spec["to"]
	return cell_center(from).lerp(cell_center(to), along)
