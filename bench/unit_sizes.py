"""Units of any size on one grid (issue 38): what a size costs, in one run.

Usage::

    .venv/bin/python bench/unit_sizes.py                      # every benchmark map, 200 queries each
    .venv/bin/python bench/unit_sizes.py --maps den520d Aurora --queries 100 --sizes 1,2,3,4
    .venv/bin/python bench/unit_sizes.py --clearance-only     # the 4096 x 4096 clearance figures
    .venv/bin/python bench/unit_sizes.py --clearance-only --godot   # ... beside Godot's eroded grid

Per map (every ``.map`` in /work/shared/benchmarks/grid, else tests/data/movingai): N queries from its
scenario file, one from each of N equal slices of the file. A query whose ends have room for the
largest size K asked (clearance >= K) and a size-K path between them is kept as it is; any other has
both ends moved to the nearest anchors (Euclidean, in cells) of the largest connected part of the
eroded grid (clearance >= K), so maps whose eroded grid falls apart (random512-10-0, 32room_000)
keep more than the few queries that happened to fit (their largest part is small, so the moved
queries are short); pairs whose moved ends meet, or that still have no size-K path, are left out.
Each is answered for every size on the same loaded grid (exact search, ``method="auto"``), in the
steady state: a size's landmarks (python_core/grid/search/size_index.py), which its queries pay
for first, are built before the timing, and their build and the size's first query (its parts
labelled) are printed. The table shows the median and p95 time per size, the ratio of each size's
median to size 1's (goal: size 3 at most 1.2 x size 1), the median expansions and time per
expanded node (the kernel's cost, apart from how much a size's eroded map makes it search), the
median of each query's path cost over its size-1 cost (a bigger unit cannot cut across a corridor
or squeeze between walls, so the same query is a longer search), the median time per unit of path
length (work per unit of distance the unit must go) and the kernel and index the size ran with.
Scenario queries whose ends have room but no size-K path are counted and timed apart (answered
from the eroded grid's parts, beside the part a search would have expanded without them).
Then the clearance of a random 4096 x 4096 grid: the compiled pass's time, wall and CPU (goal
under 0.5 s; on a loaded machine the wall time is mostly waiting for a core), beside what one
size's eroded grid costs with scipy and, with ``--godot``, in Godot (the clearance by hand in
GDScript and one eroded AStarGrid2D, its build time and memory: one per size there), the local
repair of a door closing and opening, and the bytes per cell of the searches' padded copy (one
byte: the clearance is the walls). The Godot side (one eroded AStarGrid2D per size, its build
time and memory) is bench/unit_sizes_godot.py, from GDScript.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from scipy import ndimage  # type: ignore[import-untyped]  # a test dependency (dev install)

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.godot_binary import godot_binary  # noqa: E402
from python_core.compiled import warm_up  # noqa: E402
from python_core.formats.movingai import read_scenarios  # noqa: E402
from python_core.grid import GridGraph  # noqa: E402
from python_core.grid.clearance import clearance_of  # noqa: E402
from python_core.grid.search import dispatch, size_index  # noqa: E402
from python_core.grid.search.prepared import prepared_for  # noqa: E402
from python_core.result import QueryOptions  # noqa: E402

SHARED = REPO.parent / "shared" / "benchmarks" / "grid"
LOCAL = REPO / "tests" / "data" / "movingai"
Pair = tuple[tuple[int, int], tuple[int, int]]
GRID_KERNELS = ("python_core.grid.graph", "python_core.grid.clearance", "python_core.grid.search")
"""The only kernels this bench runs (square grids): the others need not compile first."""


def map_paths(names: list[str] | None) -> list[Path]:
    """The benchmark maps (shared set when present, else the test data), optionally by stem."""
    folder = SHARED if SHARED.is_dir() else LOCAL
    paths = sorted(folder.glob("*.map"))
    if names:
        paths = [p for p in paths if p.stem in names]
    return paths


def room_pairs(grid: GridGraph, scen: Path, count: int, size: int) -> list[Pair]:
    """Up to ``count`` scenario queries spread over the file, each with a path for ``size``: kept
    as they are when they have one, else with both ends moved into the eroded grid's largest part."""
    queries = [(q.start, q.goal) for q in read_scenarios(scen)]
    if len(queries) > count:
        step = len(queries) / count
        queries = [queries[int(i * step)] for i in range(count)]
    opts = QueryOptions(size=size)
    clear = grid.clearance
    nearest = _nearest_in_largest_part(clear >= size)
    pairs: list[Pair] = []
    apart = []  # ends with room but no size-K path: answered from the eroded grid's parts
    for start, goal in queries:
        ends = (start, goal)
        room = min(clear[start[1], start[0]], clear[goal[1], goal[0]]) >= size
        if not room or not grid.find_path(start, goal, options=opts).found:
            if room:
                apart.append(ends)
            if nearest is None:
                continue
            ends = (_moved(nearest, start), _moved(nearest, goal))
            if ends[0] == ends[1] or not grid.find_path(*ends, options=opts).found:
                continue
        pairs.append(ends)
    if apart:
        times, _, _, expanded = time_queries(grid, apart, size, 3)
        labels, _ = ndimage.label(clear >= size)
        part = np.bincount(labels.ravel())
        searched = statistics.median(int(part[labels[s[1], s[0]]]) for s, _ in apart)
        print(
            f"  {len(apart)} of {len(queries)} scenario queries have room but no size-{size} path:"
            f" median {statistics.median(times) * 1e6:.1f} us, {statistics.median(expanded):.0f} expansions"
            f" (without the parts, a search of the start's whole part: median {searched:.0f} anchors)"
        )
    return pairs


def _nearest_in_largest_part(mask: np.ndarray) -> np.ndarray | None:
    """For every cell, the ``(row, col)`` of the nearest cell of ``mask``'s largest 4-connected
    part (the Moving AI rule steps diagonally only between two open sides, so its parts are the
    4-connected ones; the caller still checks a path), as a ``(2, h, w)`` array; None when
    ``mask`` is empty."""
    labels, parts = ndimage.label(mask)
    if parts == 0:
        return None
    largest = int(np.argmax(np.bincount(labels.ravel())[1:])) + 1
    _, indices = ndimage.distance_transform_edt(labels != largest, return_indices=True)
    return np.asarray(indices)


def _moved(nearest: np.ndarray, cell: tuple[int, int]) -> tuple[int, int]:
    x, y = cell
    return int(nearest[1, y, x]), int(nearest[0, y, x])


def time_queries(
    grid: GridGraph, pairs: list[Pair], size: int, rounds: int
) -> tuple[list[float], list[float], list[float], list[int]]:
    """Seconds per query, per expanded node, each path's cost and expansions (best time of
    ``rounds`` for each query, to keep other load out)."""
    opts = QueryOptions(size=size)
    times, per_node, costs, expansions = [], [], [], []
    for start, goal in pairs:
        best, expanded, cost = float("inf"), 0, 0.0
        for _ in range(rounds):
            began = time.perf_counter()
            result = dispatch.find_path(grid, start, goal, options=opts)
            best = min(best, time.perf_counter() - began)
            expanded, cost = result.expanded, result.cost
        times.append(best)
        per_node.append(best / max(1, expanded))
        costs.append(cost)
        expansions.append(expanded)
    return times, per_node, costs, expansions


def bench_map(path: Path, queries: int, sizes: list[int], rounds: int) -> None:
    grid = GridGraph.from_movingai(path)
    began = time.perf_counter()
    dispatch.prepare(grid)
    load_ms = (time.perf_counter() - began) * 1e3
    print(f"\n{path.stem}: {grid.width}x{grid.height}, prepared in {load_ms:.1f} ms")
    # only queries every size can answer: a size whose ends are cut apart answers in microseconds
    pairs = room_pairs(grid, path.with_name(path.name + ".scen"), queries, max(sizes))
    print(f"  {len(pairs)} queries with a size-{max(sizes)} path")
    if not pairs:
        print(f"  no scenario query has a path for size {max(sizes)}")
        return
    base = base_node = base_length = 0.0
    base_costs: list[float] = []
    print(
        f"  {'size':>4} {'median us':>10} {'p95 us':>9} {'x size 1':>9} {'expanded':>9} {'ns/expansion':>13}"
        f" {'x size 1':>9} {'path x size 1':>14} {'us/path len':>12} {'x size 1':>9}  method, index"
    )
    for size in sizes:
        build_ms = _index_build_ms(grid, pairs[0], size)
        times, per_node, costs, expanded = time_queries(grid, pairs, size, rounds)
        base_costs = base_costs or costs
        # how much longer the same query's path is for this size (the eroded map's detours)
        longer = statistics.median(c / max(b, 1e-9) for c, b in zip(costs, base_costs, strict=True))
        # time per unit of path length: the work per unit of distance the unit has to go
        length = statistics.median(t / max(c, 1e-9) for t, c in zip(times, costs, strict=True)) * 1e6
        times.sort()
        median, node = statistics.median(times) * 1e6, statistics.median(per_node) * 1e9
        p95 = times[min(len(times) - 1, int(0.95 * len(times)))] * 1e6
        base, base_node, base_length = base or median, base_node or node, base_length or length
        work = f"{statistics.median(expanded):>9.0f} {node:>13.1f} {node / base_node:>9.2f}"
        ratios = f"{median / base:>9.2f} {work}"
        per_length = f"{longer:>14.2f} {length:>12.3f} {length / base_length:>9.2f}"
        built = f", first query {build_ms[0]:.1f} ms, landmarks built and probed in {build_ms[1]:.0f} ms"
        index = _method(grid, size) + (built if size > 1 else "")
        print(f"  {size:>4} {median:>10.1f} {p95:>9.1f} {ratios} {per_length}  {index}")


def _index_build_ms(grid: GridGraph, pair: Pair, size: int) -> tuple[float, float]:
    """Milliseconds of the size's first query (its parts labelled afresh) and of its landmarks'
    build and probes, which its queries would pay for first: built here, so the timed queries are
    the steady state a game reaches after them."""
    p = prepared_for(grid)
    p.size_indexes.pop(size, None)
    began = time.perf_counter()
    dispatch.find_path(grid, *pair, options=QueryOptions(size=size))
    first = time.perf_counter() - began
    index = p.size_indexes.get(size)
    if index is None:
        return first * 1e3, 0.0
    began = time.perf_counter()
    size_index.prime(grid, p, index, use_jps=dispatch.choose_method(grid, QueryOptions(size=size)) == "jps")
    return first * 1e3, (time.perf_counter() - began) * 1e3


def _method(grid: GridGraph, size: int) -> str:
    """The kernel ``auto`` runs for the size, and its index's memory (:mod:`size_index`)."""
    index = prepared_for(grid).size_indexes.get(size)
    if index is None:
        return dispatch.choose_method(grid, QueryOptions(size=size))
    kernel = (
        "landmarks" if index.landmarks is not None else dispatch.choose_method(grid, QueryOptions(size=size))
    )
    return f"{kernel}, {index.count} landmarks, {index.nbytes() / 2**20:.1f} MB"


def bench_clearance(side: int, *, godot: bool, size: int = 3) -> None:
    """Our clearance of a random ``side`` x ``side`` grid (every size at once) beside what one
    size's eroded grid costs elsewhere: scipy's erosion for one size and, with ``godot``, Godot's
    (the clearance by hand in GDScript and one eroded ``AStarGrid2D``, bench/godot/clearance_bench.gd)."""
    rng = np.random.default_rng(38)
    walkable = rng.random((side, side)) > 0.1
    clearance_of(walkable[:8, :8])  # compile (or load) outside the timing
    walls, cpu = [], []
    for _ in range(3):
        began, began_cpu = time.perf_counter(), time.process_time()
        clearance_of(walkable)
        walls.append(time.perf_counter() - began)
        cpu.append(time.process_time() - began_cpu)
    began = time.perf_counter()
    grid = GridGraph(walkable)
    p = prepared_for(grid)
    load = time.perf_counter() - began
    began = time.perf_counter()
    # one size's eroded grid with a standard tool: the anchors whose size x size square is open
    # (minimum over the window reaching right and down; outside the grid counts as a wall)
    ndimage.minimum_filter(walkable, size=size, origin=-(size // 2), mode="constant", cval=0)
    scipy_s = time.perf_counter() - began
    repairs = []
    for shift in range(3):  # the first pass may load the repair kernel: the best counts
        door = [(side // 2 + i, side // 2 + 8 * shift) for i in range(4)]
        began = time.perf_counter()
        grid.set_walkable(door, False)
        grid.set_walkable(door, True)
        repairs.append(time.perf_counter() - began)
    repair_ms = min(repairs) * 1e3
    per_cell = p.passable.nbytes / (side * side)
    print(
        f"\nclearance of a random {side}x{side} grid (every size): {min(walls):.3f} s wall, "
        f"{min(cpu):.3f} s CPU (best of 3: {', '.join(f'{w:.3f}' for w in walls)} s wall; goal < 0.5 s)"
    )
    print(f"  our grid loaded with it (walls, clearance, padded copy): {load:.3f} s")
    print(f"  scipy's erosion for size {size} alone (one eroded grid): {scipy_s:.3f} s")
    if godot:
        _godot_clearance(walkable, size)
    print(f"door of 4 cells closed and opened again (local repair, both): {repair_ms:.2f} ms")
    print(f"searches' padded copy: {per_cell:.3f} bytes per cell (clearance and walls in one byte)")


def _godot_clearance(walkable: np.ndarray, size: int) -> None:
    """Run bench/godot/clearance_bench.gd on the same cells and print its figures."""
    side = walkable.shape[0]
    env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    with tempfile.TemporaryDirectory() as folder:
        cells = Path(folder) / "cells.bin"
        cells.write_bytes(walkable.astype(np.uint8).tobytes())
        args = [godot_binary(), "--headless", "--path", str(REPO / "tests" / "godot_project")]
        args += ["--script", str(REPO / "bench" / "godot" / "clearance_bench.gd"), "--"]
        proc = subprocess.run(
            [*args, str(cells), str(side), str(size)], capture_output=True, text=True, env=env, check=False
        )
    lines = [line for line in proc.stdout.splitlines() if line.startswith("BENCH ")]
    if not lines:
        print(f"  Godot failed ({proc.returncode}): {proc.stderr.strip()[-500:]}")
        return
    report = json.loads(lines[-1][len("BENCH ") :])
    print(f"  Godot, clearance by hand in GDScript: {report['clearance_s']:.2f} s")
    print(
        f"  Godot, one AStarGrid2D eroded for size {size}: {report['eroded_grid_s']:.2f} s, "
        f"{report['eroded_grid_bytes'] / 2**20:.0f} MiB (one such grid per size)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--maps", nargs="*", help="map stems (default: every benchmark map)")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--sizes", default="1,3", help="comma-separated unit sizes, 1 first")
    parser.add_argument("--rounds", type=int, default=3, help="runs per query; the best counts")
    parser.add_argument("--clearance-side", type=int, default=4096)
    parser.add_argument("--clearance-only", action="store_true")
    parser.add_argument(
        "--godot", action="store_true", help="Godot's eroded AStarGrid2D beside the clearance"
    )
    args = parser.parse_args()
    sizes = sorted({int(s) for s in args.sizes.split(",")})
    print(f"warm-up: {warm_up(GRID_KERNELS):.1f} s")
    if not args.clearance_only:
        for path in map_paths(args.maps):
            bench_map(path, args.queries, sizes, args.rounds)
    bench_clearance(args.clearance_side, godot=args.godot)


if __name__ == "__main__":
    main()
