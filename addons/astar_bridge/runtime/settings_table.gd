## Every project setting of A* Bridge in one table: its name, default, type, editor hint and what
## it does. The plugin registers them from here (editor/plugin.gd) and the autoload reads them
## with [method value], so the two can never disagree about a default.
extends RefCounted

const ROWS: Array[Dictionary] = [
	{
		"name": "astar_bridge/sidecar/python_executable",
		"default": "python3",
		"type": TYPE_STRING,
		"hint": PROPERTY_HINT_NONE,
		"hint_string": "",
		"doc":
		(
			"The Python that runs the sidecar (python -m bridge): a virtual environment's"
			+ " python with A* Bridge installed. Left at python3, the addon's own sidecar (a"
			+ " release zip's, in addons/astar_bridge/sidecar/) is used when there is"
			+ " one, else python3 from PATH; any other value wins over the addon's sidecar. An"
			+ " exported game's sidecar beside its executable wins over this setting, and the"
			+ " ASTAR_BRIDGE_PYTHON environment variable over everything."
		),
	},
	{
		"name": "astar_bridge/sidecar/autostart",
		"default": true,
		"type": TYPE_BOOL,
		"hint": PROPERTY_HINT_NONE,
		"hint_string": "",
		"doc":
		(
			"Start the sidecar when the game starts. Off: connect to host:port, where"
			+ " a sidecar already runs (a server for a multiplayer game)."
		),
	},
	{
		"name": "astar_bridge/sidecar/host",
		"default": "127.0.0.1",
		"type": TYPE_STRING,
		"hint": PROPERTY_HINT_NONE,
		"hint_string": "",
		"doc": "The address of a sidecar started by someone else (autostart off).",
	},
	{
		"name": "astar_bridge/sidecar/port",
		"default": 0,
		"type": TYPE_INT,
		"hint": PROPERTY_HINT_RANGE,
		"hint_string": "0,65535",
		"doc":
		(
			"The port of a sidecar started by someone else; 0 with autostart lets the"
			+ " sidecar pick a free port."
		),
	},
	{
		"name": "astar_bridge/sidecar/token",
		"default": "",
		"type": TYPE_STRING,
		"hint": PROPERTY_HINT_PASSWORD,
		"hint_string": "",
		"doc":
		(
			"The shared secret a remote sidecar asks for. ASTAR_BRIDGE_TOKEN wins "
			+ "over it, so it need not be committed in project.godot."
		),
	},
	{
		"name": "astar_bridge/sidecar/extra_arguments",
		"default": [],
		"type": TYPE_PACKED_STRING_ARRAY,
		"hint": PROPERTY_HINT_NONE,
		"hint_string": "",
		"doc":
		"More command-line arguments for `bridge serve` (e.g. --threads 2, --max-expansions).",
	},
	{
		"name": "astar_bridge/timeouts/request_ms",
		"default": 2000,
		"type": TYPE_INT,
		"hint": PROPERTY_HINT_RANGE,
		"hint_string": "1,600000,suffix:ms",
		"doc": "How long a path request or synchronous call waits before it fails (timeout).",
	},
	{
		"name": "astar_bridge/timeouts/connect_ms",
		"default": 5000,
		"type": TYPE_INT,
		"hint": PROPERTY_HINT_RANGE,
		"hint_string": "1,600000,suffix:ms",
		"doc":
		(
			"How long connecting to the sidecar and its hello may take: from its announcement"
			+ " (autostart; start_ms covers the launch) or from the start (autostart off). Also"
			+ " how long a synchronous call waits for a sidecar that is not ready."
		),
	},
	{
		"name": "astar_bridge/timeouts/start_ms",
		"default": 60000,
		"type": TYPE_INT,
		"hint": PROPERTY_HINT_RANGE,
		"hint_string": "1,600000,suffix:ms",
		"doc":
		(
			"How long a sidecar the addon launches may take to announce itself: a release zip's"
			+ " sidecar copies and unpacks itself into the user's cache on its first start (tens"
			+ " of seconds on a busy machine). A synchronous call made meanwhile waits for it."
		),
	},
	{
		"name": "astar_bridge/timeouts/load_ms",
		"default": 30000,
		"type": TYPE_INT,
		"hint": PROPERTY_HINT_RANGE,
		"hint_string": "1,600000,suffix:ms",
		"doc":
		"How long a graph load or update may take (raise it for very large maps with a hierarchy).",
	},
	{
		"name": "astar_bridge/timeouts/heartbeat_ms",
		"default": 2000,
		"type": TYPE_INT,
		"hint": PROPERTY_HINT_RANGE,
		"hint_string": "0,600000,suffix:ms",
		"doc":
		(
			"After this long without news from the sidecar, send a cheap request to "
			+ "see that it lives (0: off)."
		),
	},
	{
		"name": "astar_bridge/timeouts/unresponsive_ms",
		"default": 5000,
		"type": TYPE_INT,
		"hint": PROPERTY_HINT_RANGE,
		"hint_string": "0,600000,suffix:ms",
		"doc":
		(
			"A sidecar that answers nothing for this long while a request waits is restarted,"
			+ " unless its process is working (Linux: CPU time advancing or running; then"
			+ " busy_limit_ms applies). Without a process to inspect, silence alone decides"
			+ " (0: never)."
		),
	},
	{
		"name": "astar_bridge/timeouts/busy_limit_ms",
		"default": 60000,
		"type": TYPE_INT,
		"hint": PROPERTY_HINT_RANGE,
		"hint_string": "0,3600000,suffix:ms",
		"doc":
		(
			"A sidecar whose process is working (its CPU time advancing, on Linux) but answers"
			+ " nothing is restarted only after this long (0: never): long enough for any real"
			+ " piece of work, short enough that a loop that never ends does not hang the game."
		),
	},
	{
		"name": "astar_bridge/debug/enabled",
		"default": false,
		"type": TYPE_BOOL,
		"hint": PROPERTY_HINT_NONE,
		"hint_string": "",
		"doc":
		(
			"Draw the loaded graphs and every agent's path in the running game, like the "
			+ "engine's navigation debug. Also on when the game runs with Debug > Visible "
			+ "Navigation (--debug-navigation). Debug builds only."
		),
	},
	{
		"name": "astar_bridge/debug/draw_graphs",
		"default": true,
		"type": TYPE_BOOL,
		"hint": PROPERTY_HINT_NONE,
		"hint_string": "",
		"doc":
		(
			"With debug drawing on: grids' solid and weighted cells, waypoints and their "
			+ "edges, navmesh polygons and their edges."
		),
	},
	{
		"name": "astar_bridge/debug/draw_paths",
		"default": true,
		"type": TYPE_BOOL,
		"hint": PROPERTY_HINT_NONE,
		"hint_string": "",
		"doc":
		(
			"With debug drawing on: the current path of every agent node (group "
			+ "astar_bridge_agents)."
		),
	},
	{
		"name": "astar_bridge/debug/draw_fields",
		"default": true,
		"type": TYPE_BOOL,
		"hint": PROPERTY_HINT_NONE,
		"hint_string": "",
		"doc":
		(
			"With debug drawing on: an arrow per cell of every flow field's fetched tiles in "
			+ "view (a cross on goal cells)."
		),
	},
	{
		"name": "astar_bridge/debug/solid_color",
		"default": Color(0.9, 0.2, 0.15, 0.45),
		"type": TYPE_COLOR,
		"hint": PROPERTY_HINT_NONE,
		"hint_string": "",
		"doc": "Debug colour of a grid's solid cells (weighted cells get the edge colour).",
	},
	{
		"name": "astar_bridge/debug/edge_color",
		"default": Color(0.1, 0.8, 1.0, 0.6),
		"type": TYPE_COLOR,
		"hint": PROPERTY_HINT_NONE,
		"hint_string": "",
		"doc": "Debug colour of waypoint edges, navmesh polygon edges and weighted grid cells.",
	},
	{
		"name": "astar_bridge/debug/path_color",
		"default": Color(1.0, 0.85, 0.1, 0.9),
		"type": TYPE_COLOR,
		"hint": PROPERTY_HINT_NONE,
		"hint_string": "",
		"doc": "Debug colour of the agents' current paths.",
	},
	{
		"name": "astar_bridge/debug/field_color",
		"default": Color(0.35, 1.0, 0.45, 0.75),
		"type": TYPE_COLOR,
		"hint": PROPERTY_HINT_NONE,
		"hint_string": "",
		"doc": "Debug colour of the flow fields' arrows.",
	},
	{
		"name": "astar_bridge/debug/report_no_path",
		"default": false,
		"type": TYPE_BOOL,
		"hint": PROPERTY_HINT_NONE,
		"hint_string": "",
		"doc":
		(
			"Print a line for every synchronous find_path / query_path that ends with no_path"
			+ " or budget_exhausted. Off: an unreachable goal is an ordinary answer (its status"
			+ " says so). Failures (timeout, unknown graph) are warnings whatever this says,"
			+ " unless AStarBridge.config.report_failures is off."
		),
	},
]


## The project's value of setting [param key], or its default when the project has none.
static func value(key: String) -> Variant:
	for row: Dictionary in ROWS:
		if row["name"] == key:
			return ProjectSettings.get_setting(key, row["default"])
	push_error("A* Bridge: no setting %s" % key)
	return null


## Adds every setting missing from the project, with its default and hint (the plugin's job).
static func register_all() -> void:
	for row: Dictionary in ROWS:
		var key: String = row["name"]
		var default: Variant = row["default"]
		if row["type"] == TYPE_PACKED_STRING_ARRAY:
			default = PackedStringArray()
		if not ProjectSettings.has_setting(key):
			ProjectSettings.set_setting(key, default)
		ProjectSettings.set_initial_value(key, default)
		ProjectSettings.add_property_info(
			{
				"name": key,
				"type": row["type"],
				"hint": row["hint"],
				"hint_string": row["hint_string"]
			}
		)
		ProjectSettings.set_as_basic(key, true)
