## The hex demo level: the grid level's game (NPCs patrolling between random floor cells, as
## agents that block each other, doors opening and closing through graph.update) on a hexagonal
## TileMapLayer (hex_tiles.gd). load_tile_map_layer reads the tile set's shape, so every path
## steps between the engine's six neighbours of a cell and passes through the tiles' centres.
extends "res://levels/grid_level.gd"

const HexTiles = preload("res://levels/hex_tiles.gd")
## "#" wall, "." floor, "~" mud (weight 4), "D" door (starts open); odd rows sit half a tile
## to the right (stacked layout), so a column of "#" is a closed wall.
const HEX_MAP: PackedStringArray = [
	"############################",
	"#.........#.......#........#",
	"#.........#.......#........#",
	"#...~~~...D...##..D...~~...#",
	"#...~~~...#...##..#...~~...#",
	"#...~~~...#.......#........#",
	"#.........#.......#...##...#",
	"####..#########D#######..###",
	"#......#...............#...#",
	"#......#..~~~~~~~~.....D...#",
	"#..##..D..~~~~~~~~.....#...#",
	"#..##..#..~~~~~~~~.....#...#",
	"#......#...............#...#",
	"#......#.......##......#...#",
	"############################",
]


func _init() -> void:
	graph_id = "hex"
	map_rows = HEX_MAP
	npc_count = 16
	first_goal_range = 6


# The grid level paints its legend on the layer it made; hexagons instead of its squares.
func _paint() -> void:
	layer.tile_set = HexTiles.build()
	super()
