"""A hexagonal layer's query against a square one of the same size, same walls, same queries: one run.

    .venv/bin/python bench/hex_speed.py            # 512 x 512, 300 queries
    .venv/bin/python bench/hex_speed.py --quick    # 256 x 256, 100 queries
    .venv/bin/python bench/hex_speed.py --sizes 1,3   # and the hex layer per unit size
    .venv/bin/python bench/hex_speed.py --hierarchy 16,32   # and HPA* on the hex layer per cluster size
    .venv/bin/python bench/hex_speed.py --side 1024 --queries 100 --hierarchy 16

A command, not a test (issue 39: a hex query should cost at most 1.5x a square one). In process,
after a warm-up, median and mean per query over the same start/goal cells on a random map (20 %
walls, seeded) laid out as: a square TileSet (8 neighbours, only_if_no_obstacles, the compiled A*
and the method the grid picks by itself), an isometric one (4 sides + 4 corners) and a hexagonal
one (6 sides), each stacked, tile 64 x 64 (hex 64 x 74). Queries whose goal is unreachable on one
layout and not on another are kept (each layout answers its own); the count found is printed.

``--sizes`` adds, on one hexagonal layer of the same size whose walls are random blocks (2-11
cells a side, about 14 % of the map: corridors a footprint of two rings, 19 cells, still fits), the
same queries (ends where the largest size fits) for each unit size: times, cells expanded, path
cost, and each size's median over size 1's.

``--hierarchy`` adds HPA* (:class:`~python_core.hpa.lattice.LatticeHierarchy`) on two hex layers
of the same size, random walls (as above) and rooms of 12 x 12 cells with one door per wall, per
cluster size: build time, transitions, median and mean per query against the exact search's, and
the cost of its paths over the exact ones (mean and worst, found paths).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from python_core.compiled import warm_up
from python_core.grid import GridGraph
from python_core.grid.layouts import TileGrid, TileLayout
from python_core.hpa.lattice import LatticeHierarchy
from python_core.hpa.warm_up import warm_up_hierarchy
from python_core.result import QueryOptions


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
    parser.add_argument("--sizes", default="", help="unit sizes on a hex layer, e.g. 1,3")
    parser.add_argument("--hierarchy", default="", help="HPA* cluster sizes on the hex layer, e.g. 16,32")
    parser.add_argument("--side", type=int, default=0, help="map side (default 512, --quick 256)")
    parser.add_argument("--queries", type=int, default=0, help="queries (default 300, --quick 100)")
    args = parser.parse_args()
    side, count = (256, 100) if args.quick else (512, 300)
    side, count = args.side or side, args.queries or count
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
    if args.sizes:
        _sizes(side, count, [int(v) for v in args.sizes.split(",")])
    if args.hierarchy:
        _hierarchy(side, count, rule, [int(v) for v in args.hierarchy.split(",")])


def _rooms(side: int, rng: np.random.Generator) -> npt.NDArray[np.bool_]:
    """Rooms of 12 x 12 cells behind walls with one door per wall (the exact search floods rooms)."""
    walkable = np.ones((side, side), dtype=bool)
    walkable[::13, :] = False
    walkable[:, ::13] = False
    for y0 in range(0, side, 13):
        for x0 in range(0, side, 13):
            walkable[y0, min(x0 + 1 + int(rng.integers(0, 12)), side - 1)] = True  # door in the top wall
            walkable[min(y0 + 1 + int(rng.integers(0, 12)), side - 1), x0] = True  # and in the left one
    return walkable


def _hierarchy(side: int, count: int, rule: str, clusters: list[int]) -> None:
    """HPA* per cluster size on two hex layers (the random walls above, and rooms), against the
    exact search on the same queries."""
    warm_up_hierarchy()
    rng = np.random.default_rng(39)
    maps = {"20 % random walls": rng.random((side, side)) > 0.2, "rooms with doors": _rooms(side, rng)}
    for name, walkable in maps.items():
        grid = TileGrid(walkable, layout=TileLayout("hexagon"), diagonal=rule, cell_size=(64.0, 74.0))
        open_cells = np.argwhere(walkable)[:, ::-1]
        picks = rng.integers(0, len(open_cells), size=(count, 2))
        pairs = [(tuple(open_cells[a].tolist()), tuple(open_cells[b].tolist())) for a, b in picks]
        exact = [grid.find_path(s, t) for s, t in pairs]
        ex_median, ex_mean, _ = _time(grid.find_path, pairs)
        print(
            f"\nHPA* on a hexagon layer {side} x {side}, {name}, {count} queries; "
            f"exact search: median {ex_median:.3f} ms, mean {ex_mean:.3f} ms"
        )
        print(
            f"{'cluster':<9}{'build s':>9}{'nodes':>8}{'median':>9}{'mean':>9}{'found':>7}"
            f"{'median / exact':>16}{'mean / exact':>14}{'cost mean':>11}{'cost worst':>12}"
        )
        for size in clusters:
            hpa = LatticeHierarchy(grid, cluster_size=size).build()
            median, mean, found = _time(hpa.find_path, pairs)
            ratios = [
                hpa.find_path(s, t).cost / want.cost
                for (s, t), want in zip(pairs, exact, strict=True)
                if want.found and want.cost > 0
            ]
            print(
                f"{size:<9}{hpa.build_seconds:>9.2f}{hpa.graph.node_count:>8}{median:>9.3f}{mean:>9.3f}"
                f"{found:>7}{median / ex_median:>16.2f}{mean / ex_mean:>14.2f}"
                f"{statistics.fmean(ratios):>11.4f}{max(ratios):>12.4f}"
            )


def _sizes(side: int, count: int, sizes: list[int]) -> None:
    """The same queries on one hex layer for each unit size (ends with room for the largest):
    walls are random blocks, as buildings and rocks, so that big units have corridors too."""
    rng = np.random.default_rng(38)
    walkable = np.ones((side, side), dtype=bool)
    for _ in range(side * side // 400):
        x, y = rng.integers(0, side, size=2)
        w, h = rng.integers(2, 12, size=2)
        walkable[y : y + h, x : x + w] = False
    grid = TileGrid(walkable, layout=TileLayout("hexagon"), cell_size=(64.0, 74.0))
    room = np.argwhere(grid.clearance >= max(sizes))[:, ::-1]
    picks = rng.integers(0, len(room), size=(count, 2))
    pairs = [(tuple(room[a].tolist()), tuple(room[b].tolist())) for a, b in picks]
    print(
        f"\nhexagon {side} x {side}, {100 - walkable.mean() * 100:.0f} % walls in blocks, {count} queries "
        f"(ends with room for size {max(sizes)}); expanded = mean cells expanded, cost = mean path cost"
    )
    print(
        f"{'size':<6}{'median':>9}{'mean':>9}{'found':>7}{'expanded':>10}{'cost':>12}"
        f"{'ns/expanded':>13}{'median / size 1':>17}"
    )
    base = 0.0
    for size in sizes:
        opts = QueryOptions(size=size)
        grid.find_path(pairs[0][0], pairs[0][1], options=opts)  # its footprint weights, outside the timing
        median, mean, found = _time(lambda s, t, o=opts: grid.find_path(s, t, options=o), pairs)
        results = [grid.find_path(s, t, options=opts) for s, t in pairs]
        expanded = statistics.fmean(r.expanded for r in results)
        cost = statistics.fmean(r.cost for r in results if r.found)
        base = base or median
        print(
            f"{size:<6}{median:>9.3f}{mean:>9.3f}{found:>7}{expanded:>10.0f}{cost:>12.0f}"
            f"{mean * 1e6 / max(expanded, 1):>13.0f}{median / base:>17.2f}"
        )


if __name__ == "__main__":
    main()
