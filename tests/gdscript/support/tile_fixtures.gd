## Test fixtures: a 16 px [TileMapLayer] drawn from rows of text, with custom data layers
## "walkable" (bool) and "weight" (float): "." floor, "#" wall, "~" mud of [param mud_weight].
extends RefCounted

const TILES: Dictionary = {".": 0, "#": 1, "~": 2}


## A layer (not in the tree) whose cell (x, y) is [code]rows[y][x][/code].
static func layer_from_rows(rows: PackedStringArray, mud_weight: float = 3.0) -> TileMapLayer:
	var tile_set := TileSet.new()
	tile_set.tile_size = Vector2i(16, 16)
	tile_set.add_custom_data_layer()
	tile_set.set_custom_data_layer_name(0, "walkable")
	tile_set.set_custom_data_layer_type(0, TYPE_BOOL)
	tile_set.add_custom_data_layer()
	tile_set.set_custom_data_layer_name(1, "weight")
	tile_set.set_custom_data_layer_type(1, TYPE_FLOAT)
	var atlas := TileSetAtlasSource.new()
	atlas.texture = ImageTexture.create_from_image(Image.create(48, 16, false, Image.FORMAT_RGBA8))
	atlas.texture_region_size = Vector2i(16, 16)
	tile_set.add_source(atlas, 0)
	for x: int in 3:
		atlas.create_tile(Vector2i(x, 0))
		var data: TileData = atlas.get_tile_data(Vector2i(x, 0), 0)
		data.set_custom_data("walkable", x != 1)
		data.set_custom_data("weight", mud_weight if x == 2 else 1.0)
	var layer := TileMapLayer.new()
	layer.tile_set = tile_set
	for y: int in rows.size():
		for x: int in rows[y].length():
			var tile: int = TILES[rows[y][x]]
			layer.set_cell(Vector2i(x, y), 0, Vector2i(tile, 0))
	return layer
