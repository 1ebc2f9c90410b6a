## The autoload's flow fields: [code]request_flow_field()[/code]'s checks and cell conversions,
## the fields made (held weakly: a field no unit holds any more is gone), and the events they
## hear through it: [code]field.changed[/code] notifications, a sidecar restart, a grid loaded
## again. The fields' requests go through the request queue (queued while the sidecar starts).
extends RefCounted

const AgentOccupancy = preload("res://addons/astar_bridge/runtime/agent_occupancy.gd")
const FlowField = preload("res://addons/astar_bridge/api/flow_field.gd")
const FlowFieldClient = preload("res://addons/astar_bridge/runtime/flow_field_client.gd")
const GraphCalls = preload("res://addons/astar_bridge/runtime/graph_calls.gd")
const GraphStore = preload("res://addons/astar_bridge/runtime/graph_store.gd")
const GridSerializer = preload("res://addons/astar_bridge/serializers/grid_serializer.gd")
const RequestQueue = preload("res://addons/astar_bridge/runtime/request_queue.gd")
const SidecarLink = preload("res://addons/astar_bridge/runtime/sidecar_link.gd")

const OPTIONS: PackedStringArray = ["agents_block", "starts", "costs", "size", "radius"]
const WHERE := "AStarBridge.request_flow_field"

var _link: SidecarLink
var _queue: RequestQueue
var _graphs: GraphCalls
var _store: GraphStore
var _fields: Array[WeakRef] = []


func _init(link: SidecarLink, queue: RequestQueue, graphs: GraphCalls, store: GraphStore) -> void:
	_link = link
	_queue = queue
	_graphs = graphs
	_store = store
	_link.rpc.notification_received.connect(_on_notification)
	_link.lost.connect(_on_lost)
	_link.became_ready.connect(_on_ready)
	_graphs.loaded.connect(_on_loaded)
	_graphs.applied.connect(_on_applied)


## A field of grid [param graph] toward [param goals] (see the autoload's request_flow_field);
## null after a push_error when the input is bad.
func request(graph: String, goals: Array, options: Dictionary) -> FlowField:
	if not _usable(graph, goals, options):
		return null
	var params: Dictionary = _store.params_of(graph)
	var offset: Vector2i = _graphs.cell_offset(graph)
	# A radius becomes the unit's footprint here, once: the field samples anchors of that size.
	var unit: int = options.get("size", 1)
	if options.has("radius"):
		var radius: float = options["radius"]
		unit = AgentOccupancy.size_for_radius(graph, radius)
	var sized: Dictionary = options.duplicate()
	sized.erase("radius")
	sized["size"] = unit
	var goal_cells: PackedInt32Array = _cells(params, offset, goals, "goals", unit)
	var given: Variant = options.get("starts", [])
	var listed: Array = given if given is Array else []
	var starts: PackedInt32Array = _cells(params, offset, listed, "options.starts", unit)
	if goal_cells.is_empty() or starts.size() != 2 * listed.size():
		return null
	var send: Callable = _queue.send_call
	var field := FlowFieldClient.new(send, graph, params, offset, goal_cells, sized)
	live_fields()  # drops the references of fields gone since
	_fields.append(weakref(field))
	field.begin(starts)
	return field


# Whether request()'s graph, goals and options can make a field (else it pushed why).
func _usable(graph: String, goals: Array, options: Dictionary) -> bool:
	var problem: String = ""
	if not _store.has(graph):
		problem = "no graph %s was loaded through this node" % graph
	elif _store.method_of(graph) != GridSerializer.METHOD:
		problem = "flow fields are for grids; %s is not a grid" % graph
	elif goals.is_empty():
		problem = "goals is empty (give at least one cell or position)"
	elif not options.get("starts", []) is Array:
		problem = "options.starts must be an Array of cells or positions"
	for key: Variant in options:
		if not str(key) in OPTIONS:
			problem = "unknown option %s (known: %s)" % [key, ", ".join(OPTIONS)]
	if problem.is_empty():
		problem = _unit_problem(options)
	if not problem.is_empty():
		push_error("%s: %s" % [WHERE, problem])
	return problem.is_empty()


# Why options.size / options.radius cannot be sent, or "".
static func _unit_problem(options: Dictionary) -> String:
	var unit: Variant = options.get("size", 1)
	var radius: Variant = options.get("radius", null)
	if not unit is int or unit < 1 or unit > AgentOccupancy.MAX_SIZE:
		return "options.size must be an int 1 .. %d, got %s" % [AgentOccupancy.MAX_SIZE, unit]
	if radius == null:
		return ""
	if not (radius is float or radius is int):
		return "options.radius must be a number, got %s" % radius
	var distance: float = radius
	if not is_finite(distance) or distance <= 0.0:
		return "options.radius must be a finite distance > 0, got %s" % radius
	if unit != 1:
		return "give options.size or options.radius, not both"
	return ""


## The fields still held by someone.
func live_fields() -> Array[FlowField]:
	var live: Array[FlowField] = []
	var kept: Array[WeakRef] = []
	for ref: WeakRef in _fields:
		var held: Object = ref.get_ref()
		if held is FlowField:
			var field: FlowField = held
			live.append(field)
			kept.append(ref)
	_fields = kept
	return live


# The fields still held, as the runtime made them: with their wire (runtime/flow_field_client.gd).
func _clients() -> Array[FlowFieldClient]:
	var clients: Array[FlowFieldClient] = []
	for field: FlowField in live_fields():
		if field is FlowFieldClient:
			var client: FlowFieldClient = field
			clients.append(client)
	return clients


# Engine cells (Vector2i) or world positions (Vector2) -> the grid's own cells as int32 pairs
# (for a unit of [param unit] cells: a position is the footprint's centre, a cell its anchor);
# empty after a push_error when one is of another type or outside the grid.
static func _cells(
	params: Dictionary, offset: Vector2i, points: Array, what: String, unit: int = 1
) -> PackedInt32Array:
	var half: Vector2 = (
		(
			GridSerializer.cell_to_world(params, Vector2i.ONE)
			- GridSerializer.cell_to_world(params, Vector2i.ZERO)
		)
		* ((unit - 1) * 0.5)
	)
	var width: int = params.get("width", 0)
	var height: int = params.get("height", 0)
	var out := PackedInt32Array()
	for point: Variant in points:
		var cell := Vector2i(-1, -1)
		if point is Vector2i:
			var engine_cell: Vector2i = point
			cell = engine_cell - offset
		elif point is Vector2:
			var position: Vector2 = point
			cell = GridSerializer.world_to_cell(params, position - half)
		else:
			push_error(
				"%s: %s holds %s; give Vector2i cells or Vector2 positions" % [WHERE, what, point]
			)
			return PackedInt32Array()
		if cell.x < 0 or cell.y < 0 or cell.x >= width or cell.y >= height:
			push_error(
				"%s: %s %s is outside the grid (%d x %d)" % [WHERE, what, point, width, height]
			)
			return PackedInt32Array()
		out.append_array([cell.x, cell.y])
	return out


func _on_notification(method: String, params: Array) -> void:
	if method != "field.changed" or params.is_empty() or not params[0] is Dictionary:
		return
	var report: Dictionary = params[0]
	var listed: Variant = report.get("tiles")
	if not listed is Array:
		return
	var tiles: Array = listed
	for field: FlowFieldClient in _clients():
		if (
			field.field_id == str(report.get("field"))
			and field.graph_id == str(report.get("graph"))
		):
			field.on_changed(tiles)


func _on_lost(_reason: String) -> void:
	for field: FlowFieldClient in _clients():
		field.on_lost()


func _on_ready() -> void:
	for field: FlowFieldClient in _clients():
		field.on_sidecar_ready(false)


func _on_loaded(id: String) -> void:
	for field: FlowFieldClient in _clients():
		if field.graph_id == id:
			field.on_sidecar_ready(true)


# An update of every cell's weight makes the sidecar forget the grid's fields, without a word.
func _on_applied(id: String, update: Dictionary) -> void:
	if not update.has("weights") or update.has("weight_cells"):
		return
	for field: FlowFieldClient in _clients():
		if field.graph_id == id:
			field.on_sidecar_ready(true)
