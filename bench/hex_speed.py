"""A hexagonal layer's query against a square one of the same size, same walls, same queries: one run.

    .venv/bin/python bench/hex_speed.py            # 512 x 512, 300 queries
    .venv/bin/python bench/hex_speed.py --quick    # 256 x 256, 100 queries

A command, not a test (issue 39: a hex query should cost at most 1.5x a square one). In process,
after a warm-up, median and mean per query over the same start/goal cells on a random map (20 %
walls, seeded) laid out as: a square TileSet (8 neighbours, only_if_no_obstacles, the compiled A*
and the method the grid picks by itself), an isometric one (4 sides + 4 corners) and a hexagonal
one (6 sides), each stacked, tile 64 x 64 (hex 64 x 74). Queries whose goal is unreachable on one
layout and not on another are kept (each layout answers its own); the count found is printed.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from python_core.compiled import warm_up
from python_core.grid import GridGraph
from python_core.grid.layouts import TileGrid, TileLayout


def _time(find: object, pairs: list[tuple[tuple[int, int], tuple[int, int]]]) -> tuple[float, float, int]:
    assert callable(find)
    times, found = [], 0
    for start, goal in pairs:
        began = time.perf_counter()
        result = find(start, goal)
        times.append(time.perf_counter() - began)
        found += int(result.found)
    return statistics.median(times) * 1e3, statistics.fmean(times) * 1e3, found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="256 x 256, 100 queries")
    args = parser.parse_args()
    side, count = (256, 100) if args.quick else (512, 300)
    rng = np.random.default_rng(39)
    walkable = rng.random((side, side)) > 0.2
    open_cells = np.argwhere(walkable)[:, ::-1]
    picks = rng.integers(0, len(open_cells), size=(count, 2))
    pairs = [(tuple(open_cells[a].tolist()), tuple(open_cells[b].tolist())) for a, b in picks]
    warm_up()
    rule = "only_if_no_obstacles"
    square = GridGraph(walkable, diagonal=rule, cell_size=64.0)
    layouts = {
        "square A*": lambda s, t: square.find_path(s, t, method="astar"),
        "square (auto)": square.find_path,
    }
    for name, layout, tile in (
        ("isometric", TileLayout("isometric"), (64.0, 32.0)),
        ("hexagon", TileLayout("hexagon"), (64.0, 74.0)),
    ):
        grid = TileGrid(walkable, layout=layout, diagonal=rule, cell_size=tile)
        grid.find_path(pairs[0][0], pairs[0][1])  # its padded copy, outside the timing
        layouts[name] = grid.find_path
    square.find_path(pairs[0][0], pairs[0][1])
    print(f"{side} x {side}, 20 % walls, {count} queries (same cells on every layout); ms per query")
    print(f"{'layout':<16}{'median':>10}{'mean':>10}{'found':>8}{'median / square A*':>22}")
    base = 0.0
    for name, find in layouts.items():
        median, mean, found = _time(find, pairs)
        base = base or median
        print(f"{name:<16}{median:>10.3f}{mean:>10.3f}{found:>8}{median / base:>22.2f}")


if __name__ == "__main__":
    main()
