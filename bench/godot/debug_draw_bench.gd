## What the debug drawing costs on a big grid, headless: decoding the load parameters, baking the
## cell texture, and following one-cell updates (rewriting one texel) beside the naive way
## (baking the whole texture again per update). A command, not a test:
##   godot --headless --path tests/godot_project --script "$PWD/bench/godot/debug_draw_bench.gd" \
##       -- [side=2048] [updates=200]
extends SceneTree

const GraphShapes = preload("res://addons/astar_bridge/debug/graph_shapes.gd")
const GridLayer2D = preload("res://addons/astar_bridge/debug/grid_layer_2d.gd")


func _initialize() -> void:
	var args: PackedStringArray = OS.get_cmdline_user_args()
	var side: int = int(args[0]) if args.size() > 0 else 2048
	var updates: int = int(args[1]) if args.size() > 1 else 200
	var cells := PackedByteArray()
	cells.resize(side * side)
	cells.fill(1)
	var rng := RandomNumberGenerator.new()
	rng.seed = 7
	for i: int in cells.size() / 5:
		cells[rng.randi_range(0, cells.size() - 1)] = 0
	var params: Dictionary = {"id": "big", "width": side, "height": side, "cells": cells}
	var began: int = Time.get_ticks_usec()
	var shapes: Dictionary = GraphShapes.from_load("graph.load_grid", params)
	var decoded: int = Time.get_ticks_usec()
	var layer: Node2D = GridLayer2D.new(shapes, Color.RED, Color.CYAN)
	var baked: int = Time.get_ticks_usec()
	var one: Array[Vector2i] = [Vector2i.ZERO]
	var refresh_began: int = Time.get_ticks_usec()
	for i: int in updates:
		var cell := Vector2i(rng.randi_range(0, side - 1), rng.randi_range(0, side - 1))
		var update: Dictionary = {
			"cells": PackedInt32Array([cell.x, cell.y]).to_byte_array(), "walkable": i % 2 == 0
		}
		one = GraphShapes.apply_update(shapes, update)
		layer.call("refresh", one)
	var refreshed: int = Time.get_ticks_usec()
	var rebuilds: int = maxi(1, updates / 20)
	for i: int in rebuilds:
		layer.call("rebuild")
	var rebuilt: int = Time.get_ticks_usec()
	var per_refresh: float = (refreshed - refresh_began) / 1000.0 / updates
	var per_rebuild: float = (rebuilt - refreshed) / 1000.0 / rebuilds
	print("grid %d x %d (%d cells)" % [side, side, cells.size()])
	print("decode load params  %8.2f ms" % ((decoded - began) / 1000.0))
	print("bake cell texture   %8.2f ms" % ((baked - decoded) / 1000.0))
	print("one-cell update     %8.3f ms (mean of %d)" % [per_refresh, updates])
	print("full re-bake        %8.2f ms (mean of %d)" % [per_rebuild, rebuilds])
	print("re-bake / one-cell update: %.0fx" % (per_rebuild / maxf(per_refresh, 1e-6)))
	layer.free()
	quit()
