## The grid level's tile set, built in code: floor, wall, mud (weight 4), open and closed door.
## Custom data layers "walkable" (bool) and "weight" (float) feed the grid serializer; walls and
## closed doors carry a collision polygon (physics layer 0) so bodies cannot walk through them.
extends RefCounted

const TILE_SIZE := 32
const SOURCE := 0
const FLOOR := Vector2i(0, 0)
const WALL := Vector2i(1, 0)
const MUD := Vector2i(2, 0)
const DOOR_OPEN := Vector2i(3, 0)
const DOOR_CLOSED := Vector2i(4, 0)
const MUD_WEIGHT := 4.0
## Map characters -> atlas coordinates.
const LEGEND := {".": FLOOR, "#": WALL, "~": MUD, "D": DOOR_OPEN}

const _COLORS: Array[Color] = [
	Color(0.80, 0.78, 0.70),
	Color(0.22, 0.22, 0.28),
	Color(0.45, 0.33, 0.18),
	Color(0.62, 0.80, 0.55),
	Color(0.70, 0.20, 0.15),
]


## A new tile set with the five tiles, [param tile_size] pixels square.
static func build(tile_size: int = TILE_SIZE) -> TileSet:
	var tile_set := TileSet.new()
	tile_set.tile_size = Vector2i(tile_size, tile_size)
	tile_set.add_custom_data_layer()
	tile_set.set_custom_data_layer_name(0, "walkable")
	tile_set.set_custom_data_layer_type(0, TYPE_BOOL)
	tile_set.add_custom_data_layer()
	tile_set.set_custom_data_layer_name(1, "weight")
	tile_set.set_custom_data_layer_type(1, TYPE_FLOAT)
	tile_set.add_physics_layer()
	tile_set.set_physics_layer_collision_layer(0, 1)
	var atlas := TileSetAtlasSource.new()
	atlas.texture = ImageTexture.create_from_image(_image(tile_size))
	atlas.texture_region_size = Vector2i(tile_size, tile_size)
	tile_set.add_source(atlas, SOURCE)
	var half: float = tile_size / 2.0
	var square := PackedVector2Array(
		[Vector2(-half, -half), Vector2(half, -half), Vector2(half, half), Vector2(-half, half)]
	)
	for x: int in _COLORS.size():
		var coords := Vector2i(x, 0)
		atlas.create_tile(coords)
		var data: TileData = atlas.get_tile_data(coords, 0)
		var solid: bool = coords == WALL or coords == DOOR_CLOSED
		data.set_custom_data("walkable", not solid)
		data.set_custom_data("weight", MUD_WEIGHT if coords == MUD else 1.0)
		if solid:
			data.add_collision_polygon(0)
			data.set_collision_polygon_points(0, 0, square)
	return tile_set


static func _image(tile_size: int) -> Image:
	var image := Image.create(tile_size * _COLORS.size(), tile_size, false, Image.FORMAT_RGBA8)
	for i: int in _COLORS.size():
		var tile := Rect2i(i * tile_size, 0, tile_size, tile_size)
		image.fill_rect(tile, _COLORS[i].darkened(0.25))
		image.fill_rect(tile.grow(-1), _COLORS[i])
	return image
