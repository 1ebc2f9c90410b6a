## The hex level's tile set, built in code: the grid level's five tiles (level_tiles.gd's atlas
## coordinates, custom data and weights) on pointy-top hexagons in stacked rows (Godot's
## TILE_SHAPE_HEXAGON, TILE_LAYOUT_STACKED, horizontal offset axis), each drawn as a hexagon;
## walls and closed doors collide with a hexagon, so bodies pass between any two open cells.
extends RefCounted

const CellLayout = preload("res://addons/astar_bridge/serializers/cell_layout.gd")
const LevelTiles = preload("res://levels/level_tiles.gd")
## Almost regular hexagons: 32 wide, 37 tall (rows 27.75 apart, so all six neighbours of a cell
## are about 32 pixels away).
const TILE_SIZE := Vector2i(32, 37)

const _COLORS: Array[Color] = [
	Color(0.80, 0.78, 0.70),
	Color(0.22, 0.22, 0.28),
	Color(0.45, 0.33, 0.18),
	Color(0.62, 0.80, 0.55),
	Color(0.70, 0.20, 0.15),
]


## A new hexagonal tile set with level_tiles.gd's five tiles.
static func build() -> TileSet:
	var tile_set := TileSet.new()
	tile_set.tile_shape = TileSet.TILE_SHAPE_HEXAGON
	tile_set.tile_layout = TileSet.TILE_LAYOUT_STACKED
	tile_set.tile_offset_axis = TileSet.TILE_OFFSET_AXIS_HORIZONTAL
	tile_set.tile_size = TILE_SIZE
	tile_set.add_custom_data_layer()
	tile_set.set_custom_data_layer_name(0, "walkable")
	tile_set.set_custom_data_layer_type(0, TYPE_BOOL)
	tile_set.add_custom_data_layer()
	tile_set.set_custom_data_layer_name(1, "weight")
	tile_set.set_custom_data_layer_type(1, TYPE_FLOAT)
	tile_set.add_physics_layer()
	tile_set.set_physics_layer_collision_layer(0, 1)
	var atlas := TileSetAtlasSource.new()
	atlas.texture = ImageTexture.create_from_image(_image())
	atlas.texture_region_size = TILE_SIZE
	tile_set.add_source(atlas, LevelTiles.SOURCE)
	var hexagon: PackedVector2Array = _hexagon(Vector2.ZERO, 1.0)
	for x: int in _COLORS.size():
		var coords := Vector2i(x, 0)
		atlas.create_tile(coords)
		var data: TileData = atlas.get_tile_data(coords, 0)
		var solid: bool = coords == LevelTiles.WALL or coords == LevelTiles.DOOR_CLOSED
		data.set_custom_data("walkable", not solid)
		data.set_custom_data("weight", LevelTiles.MUD_WEIGHT if coords == LevelTiles.MUD else 1.0)
		if solid:
			data.add_collision_polygon(0)
			data.set_collision_polygon_points(0, 0, hexagon)
	return tile_set


# The tile's hexagon around [param centre], [param scale] times the tile's size.
static func _hexagon(centre: Vector2, scale: float) -> PackedVector2Array:
	var points := PackedVector2Array()
	for corner: Vector2 in CellLayout.unit_outline({"shape": "hexagon"}):
		points.append(centre + corner * Vector2(TILE_SIZE) * scale)
	return points


# One hexagon a tile, outlined a shade darker.
static func _image() -> Image:
	var image := Image.create(TILE_SIZE.x * _COLORS.size(), TILE_SIZE.y, false, Image.FORMAT_RGBA8)
	var half := Vector2(TILE_SIZE) / 2.0
	var outer: PackedVector2Array = _hexagon(half, 1.0)
	var inner: PackedVector2Array = _hexagon(half, 0.9)
	for y: int in TILE_SIZE.y:
		for x: int in TILE_SIZE.x:
			var at := Vector2(x + 0.5, y + 0.5)
			if not Geometry2D.is_point_in_polygon(at, outer):
				continue
			var edge: bool = not Geometry2D.is_point_in_polygon(at, inner)
			for i: int in _COLORS.size():
				var color: Color = _COLORS[i].darkened(0.25) if edge else _COLORS[i]
				image.set_pixel(i * TILE_SIZE.x + x, y, color)
	return image
