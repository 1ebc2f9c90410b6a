"""A whole-map flow field on a hexagonal (and isometric) layer against a square one: one run.

    .venv/bin/python bench/lattice_field_speed.py            # 512 x 512
    .venv/bin/python bench/lattice_field_speed.py --side 256

A command, not a test (issue 39). In process, after a warm-up: the same random map (20 % walls,
seeded), one goal in the middle, every cell asked for: a square grid's FlowField (8 neighbours,
only_if_no_obstacles, tiles of 16, the whole map) against a LatticeField on the same walls laid
out as hexagonal and isometric tiles (one compiled Dijkstra over the whole map). Best of
``--runs`` builds each, in milliseconds.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from python_core.compiled import warm_up
from python_core.flowfield import FlowField, LatticeField
from python_core.grid import GridGraph
from python_core.grid.layouts import TileGrid


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--side", type=int, default=512)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    warm_up()
    side = args.side
    walkable = np.random.default_rng(39).random((side, side)) > 0.2
    goal = (side // 2, side // 2)
    walkable[goal[1], goal[0]] = True
    everywhere = [(0, 0), (side - 1, side - 1), (0, side - 1), (side - 1, 0)]
    square = GridGraph(walkable, diagonal="only_if_no_obstacles")
    builds = {
        "square FlowField (whole map)": lambda: _fill(FlowField(square, [goal])),
        "hexagonal LatticeField": lambda: LatticeField(TileGrid(walkable, layout="hexagon"), [goal]).extend(
            everywhere
        ),
        "isometric LatticeField": lambda: LatticeField(
            TileGrid(walkable, layout="isometric", diagonal="only_if_no_obstacles"), [goal]
        ).extend(everywhere),
    }
    print(f"{side} x {side}, 20 % walls, best of {args.runs}")
    base = 0.0
    for name, build in builds.items():
        best = min(_timed(build) for _ in range(args.runs))
        base = base or best
        print(f"  {name:30s} {best * 1e3:8.1f} ms   {best / base:5.2f} x square")


def _fill(field: FlowField) -> None:
    """Every tile of the field (a request for every tile's corner: the fill pass)."""
    cs = field.cs
    w, h = field.grid.width, field.grid.height
    field.extend([(x, y) for y in range(0, h, cs) for x in range(0, w, cs)])


def _timed(build: object) -> float:
    assert callable(build)
    began = time.perf_counter()
    build()
    return time.perf_counter() - began


if __name__ == "__main__":
    main()
