"""Flow fields versus one exact path per unit, a corridor field on 4096 x 4096, a wall change (one run).

    .venv/bin/python bench/flowfield.py               # a few minutes by the load
    .venv/bin/python bench/flowfield.py --units 400   # quicker

1. Crowd: ``--units`` units (2,000) on the Moving AI map 32room_000 (512 x 512, no corner cutting,
   sqrt(2) diagonals), spread over 4 goals (unit i goes to goal i % 4). Through a real sidecar:
   (a) 4 ``field.request`` (each goal, its units as starts) plus one ``field.tiles`` of every
   computed tile (the direction bytes the units need), against (b) one ``path.find_many`` of
   every unit's exact path (our compiled A*/JPS) and (c) the same as HPA* paths (near-optimal).
   Printed: the sidecar's CPU time (user + system, from /proc) and the wall time of each. Then the
   same in process: 4 fields against one ``GridGraph.find_path`` per unit.
2. Corridor: each ``--maps`` map (32room_000 and random512-10-0) scaled 8x (each cell an 8 x 8
   block: 4096 x 4096), tiles of 64 cells. Against one full-map field (our region solver, every
   tile its region) and a plain full-grid Dijkstra (costs only), for a goal in a corner and a goal
   at the centre, the start in the far corner: the field extended to that start alone (the A*
   from the goal, python_core/flowfield/goal_search.py), with the octile heuristic and with
   ``--landmarks`` landmarks' tables (built once per grid, printed apart). Each run: wall and CPU
   time (the machine may be shared: compare CPU), peak memory (the resident peak during the call
   above the resident size before it), tiles computed of the total, ratios to the peers. Every
   field is exact: its cost at the start equals the plain Dijkstra's.
3. Wall change: through the sidecar, a door closed (the first cell with walls on two opposite
   sides down the first unit's field chain); the ``field.changed`` notifications: tiles recomputed
   and tiles resent per field, beside the tiles computed.

Godot's ``AStarGrid2D.get_point_path`` per unit and the addon's per-frame cost are the addon's
benchmark (the crowd resource comes with the addon layer), not measured here.
"""

from __future__ import annotations

import argparse
import math
import os
import resource
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bridge.client import Client
from bridge.client.sidecar import Sidecar, start_sidecar
from python_core._types import DIAG_CODES
from python_core.flowfield import GOAL, FlowField, Landmarks
from python_core.flowfield.landmarks import allowed_moves, grid_dijkstra
from python_core.flowfield.moves import DX, DY
from python_core.formats.movingai import read_map
from python_core.grid import GridGraph
from python_core.hpa import HierarchicalGrid

Cell = tuple[int, int]
TILE = 64
"""The corridor runs' tile side (an HPA* hierarchy's 64-cell clusters)."""
MAP = Path("/work/shared/benchmarks/grid/32room_000.map")
CLUSTER = 16
RULE = "only_if_no_obstacles"


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process (all its threads), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pick(
    walk: np.ndarray, count: int, rng: np.random.Generator, component: np.ndarray | None = None
) -> np.ndarray:
    ys, xs = np.nonzero(walk if component is None else component)
    i = rng.choice(xs.size, size=count, replace=False)
    return np.stack([xs[i], ys[i]], axis=1)


def main_component(grid: GridGraph) -> np.ndarray:
    """The cells of the largest 8-connected component (so every unit can reach its goal)."""
    from scipy import ndimage

    labels, _ = ndimage.label(grid.walkable, structure=np.ones((3, 3)))
    sizes = np.bincount(labels.ravel())
    sizes[0] = 0
    return labels == int(np.argmax(sizes))


def timed(sidecar: Sidecar, work: Any) -> tuple[Any, float, float]:
    cpu, wall = cpu_seconds(sidecar.process.pid), time.perf_counter()
    out = work()
    return out, cpu_seconds(sidecar.process.pid) - cpu, time.perf_counter() - wall


def crowd(units: int) -> None:
    walk = read_map(MAP)
    grid = GridGraph(walk, diagonal=RULE)
    comp = main_component(grid)
    rng = np.random.default_rng(7)
    goals = pick(walk, 4, rng, comp)
    starts = pick(walk, units, rng, comp)
    print(f"crowd: {units} units to 4 goals on {MAP.stem} {grid.width}x{grid.height}, clusters {CLUSTER}")
    sidecar = start_sidecar("--threads", "2", "--log-level", "WARNING")
    try:
        with sidecar.connect() as client:
            client.load_grid("crowd", walk, diagonal=RULE, hierarchy={"cluster_size": CLUSTER})
            client.request_field("crowd", goals[:1], goals[:1])  # warm, untimed: kernels loaded
            client.call("graph.drop", {"id": "crowd"})
            client.load_grid("crowd", walk, diagonal=RULE, hierarchy={"cluster_size": CLUSTER})

            def fields() -> tuple[list[dict[str, Any]], int]:
                answers = [client.request_field("crowd", goals[g : g + 1], starts[g::4]) for g in range(4)]
                sent = 0
                for answer in answers:
                    sent += len(client.field_tiles(answer["field"], answer["tiles"]))
                return answers, sent

            (answers, sent), f_cpu, f_wall = timed(sidecar, fields)
            queries = [Client.query("crowd", starts[i], goals[i % 4]) for i in range(units)]
            exact, p_cpu, p_wall = timed(sidecar, lambda: client.find_many(queries))
            hq = [Client.query("crowd", starts[i], goals[i % 4], hierarchical=True) for i in range(units)]
            _, h_cpu, h_wall = timed(sidecar, lambda: client.find_many(hq))
            found = sum(r["status"] == "found" for r in exact)
            computed = sum(a["computed"] for a in answers)
            total = answers[0]["tiles_x"] * answers[0]["tiles_y"]
            print(
                f"  sidecar fields   : cpu {f_cpu * 1e3:8.0f} ms  wall {f_wall * 1e3:8.0f} ms"
                f"  ({computed} tiles computed over 4 fields of {total} each, {sent} tiles sent)"
            )
            print(
                f"  sidecar A*/JPS   : cpu {p_cpu * 1e3:8.0f} ms  wall {p_wall * 1e3:8.0f} ms"
                f"  ({found}/{units} found)"
                f"  -> fields/paths cpu {f_cpu / max(p_cpu, 1e-9):.2f}x"
            )
            print(
                f"  sidecar HPA*     : cpu {h_cpu * 1e3:8.0f} ms  wall {h_wall * 1e3:8.0f} ms"
                f"  -> fields/HPA* cpu {f_cpu / max(h_cpu, 1e-9):.2f}x"
            )
            wall_change(client, answers, starts, walk)
    finally:
        sidecar.stop()
    in_process(grid, goals, starts)


def door_on_chain(
    client: Client, answer: dict[str, Any], start: np.ndarray, walk: np.ndarray
) -> tuple[int, int]:
    """The first cell down the field's chain from ``start`` with walls on two opposite sides (a
    door or a corridor): closing it moves every chain through it."""
    tiles = client.field_tiles(answer["field"], answer["tiles"])
    cs, tiles_x = answer["tile_size"], answer["tiles_x"]
    x, y = int(start[0]), int(start[1])
    for _ in range(walk.size):
        code = int(tiles[(y // cs) * tiles_x + x // cs][0][y % cs, x % cs])
        if code >= GOAL:
            break
        x, y = x + int(DX[code]), y + int(DY[code])
        h, w = walk.shape
        if 0 < x < w - 1 and 0 < y < h - 1:
            sides = (not walk[y, x - 1] and not walk[y, x + 1]) or (not walk[y - 1, x] and not walk[y + 1, x])
            if sides:
                return x, y
    return x, y


def wall_change(client: Client, answers: list[dict[str, Any]], starts: np.ndarray, walk: np.ndarray) -> None:
    heard: list[dict[str, Any]] = []
    client.on_notification = lambda m, p: heard.append(p) if m == "field.changed" else None
    door = door_on_chain(client, answers[0], starts[0], walk)
    client.update("crowd", cells=np.array([door], dtype="<i4").tobytes(), walkable=False)
    recomputed = [h["recomputed"] for h in heard]
    resent = [len(h["tiles"]) for h in heard]
    computed = sum(a["computed"] for a in answers)
    print(
        f"  door {door} closed: {len(heard)} of 4 fields changed, tiles recomputed {recomputed},"
        f" resent {resent}, of {computed} computed (4 fields)"
    )


def in_process(grid: GridGraph, goals: np.ndarray, starts: np.ndarray) -> None:
    hpa = HierarchicalGrid(grid, cluster_size=CLUSTER).build()
    FlowField(grid, goals[:1], hierarchy=hpa).extend(goals[:1])  # kernels loaded
    began = time.process_time()
    tiles = 0
    for g in range(4):
        field = FlowField(grid, goals[g : g + 1], hierarchy=hpa)
        field.extend(starts[g::4])
        tiles += len(field.tiles)
    f_cpu = time.process_time() - began
    grid.find_path(tuple(starts[0]), tuple(goals[0]))
    began = time.process_time()
    for i in range(len(starts)):
        grid.find_path(tuple(starts[i].tolist()), tuple(goals[i % 4].tolist()))
    p_cpu = time.process_time() - began
    print(
        f"  in process: fields {f_cpu * 1e3:.0f} ms ({tiles} tiles), exact paths {p_cpu * 1e3:.0f} ms"
        f" -> {f_cpu / p_cpu:.2f}x"
    )


def _status_kb(key: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key):
            return int(line.split()[1])
    return 0


def measured(work: Any) -> tuple[Any, float, float, float]:
    """``(result, wall s, CPU s, peak MB)``: the peak is the process's resident peak during the
    call above its resident size before it (the kernel's peak counter is reset first), so it
    counts the memory the call touched, whatever numpy reserved."""
    Path("/proc/self/clear_refs").write_text("5")
    base = _status_kb("VmRSS")
    wall, cpu = time.perf_counter(), time.process_time()
    out = work()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return out, wall, cpu, (_status_kb("VmHWM") - base) / 1e3


def corridor(name: str, landmarks: int, *, whole_field: bool) -> None:
    small = read_map(MAP.with_name(f"{name}.map"))
    grid = GridGraph(np.kron(small, np.ones((8, 8), dtype=bool)), diagonal=RULE)
    ys, xs = np.nonzero(main_component(GridGraph(small, diagonal=RULE)))
    near, far = int(np.argmin(xs + ys)), int(np.argmax(xs + ys))
    middle = int(np.argmin(np.abs(xs - small.shape[1] // 2) + np.abs(ys - small.shape[0] // 2)))
    big = [(int(xs[i]) * 8 + 3, int(ys[i]) * 8 + 3) for i in (near, far, middle)]
    print(f"corridor: {grid.width}x{grid.height} ({name} x8), tiles of {TILE} cells; load {os.getloadavg()}")
    FlowField(grid, [big[0]], tile_size=TILE).extend([(big[0][0] + 2 * TILE, big[0][1])])  # kernels loaded
    peer = full_map(grid, big[0], big[1], whole_field=whole_field)
    marks = None
    if landmarks:
        marks, wall, cpu, _ = measured(
            lambda: Landmarks.build(grid, tile_size=TILE, count=landmarks, every_cell=True)
        )
        print(
            f"  {landmarks} landmarks (every cell, once per grid version, shared by its fields): wall"
            f" {wall * 1e3:.0f} ms, cpu {cpu * 1e3:.0f} ms, {marks.nbytes / 1e6:.1f} MB held"
        )
    for goal, start in ((big[0], big[1]), (big[2], big[1])):
        for with_marks in (None, marks) if marks is not None else (None,):
            corridor_field(grid, goal=goal, start=start, peer=peer, marks=with_marks)
    print(f"  process peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3:.0f} MB")


def corridor_field(
    grid: GridGraph, *, goal: Cell, start: Cell, peer: dict[str, float], marks: Landmarks | None
) -> None:
    """One field extended to ``start`` only: time, tiles, memory, ratios to the full-map runs."""

    def build() -> FlowField:
        field = FlowField(grid, [goal], tile_size=TILE, landmarks=marks)
        field.extend([start])
        return field

    field, wall, cpu, peak = measured(build)
    heuristic = "landmarks" if marks is not None else "octile   "
    held = field.nbytes / 1e6
    d_cpu, d_wall, d_peak = peer["dijkstra_cpu"], peer["dijkstra_wall"], peer["dijkstra_peak"]
    print(
        f"  goal {goal}, start {start}, {heuristic}: field wall {wall * 1e3:7.0f} ms,"
        f" cpu {cpu * 1e3:7.0f} ms, peak {peak:6.1f} MB, {len(field.tiles):4} of"
        f" {field.known_slot.size} tiles ({held:.1f} MB held), cost {field.cost_at(start):.3f}\n"
        f"    -> / plain Dijkstra: cpu {cpu / d_cpu:.3f}, wall {wall / d_wall:.3f},"
        f" peak memory {peak / d_peak:.3f}; / full-map field: cpu {cpu / peer['field_cpu']:.3f},"
        f" peak memory {peak / peer['field_peak']:.3f}"
    )


def full_map(grid: GridGraph, goal: Cell, start: Cell, *, whole_field: bool) -> dict[str, float]:
    """A plain Dijkstra over the grid (costs only) and, with ``whole_field``, a field over every tile
    (our region solver, the whole map its region): their wall and CPU seconds and peak MB."""
    f_cpu = f_peak = math.nan
    if whole_field:
        f_cpu, f_peak = _full_field(grid, goal, start)
    walk = grid.walkable.view(np.uint8).ravel()
    none = np.zeros(walk.size, dtype=np.int32)
    allowed = allowed_moves(walk, none, DIAG_CODES[grid.diagonal], grid.width, grid.height)
    w = grid.width
    dist, d_wall, d_cpu, d_peak = measured(
        lambda: grid_dijkstra(
            walk, allowed, grid.weights.ravel(), w, grid.height, 1.0, 1.0, goal[1] * w + goal[0], False
        )
    )
    print(
        f"  plain Dijkstra  : wall {d_wall * 1e3:7.0f} ms, cpu {d_cpu * 1e3:7.0f} ms, peak {d_peak:6.1f} MB"
        f" over the grid (costs alone, move bits made before), cost {dist[start[1] * w + start[0]]:.3f}"
    )
    return {
        "field_cpu": f_cpu, "field_peak": f_peak, "dijkstra_cpu": d_cpu, "dijkstra_wall": d_wall,
        "dijkstra_peak": d_peak,
    }  # fmt: skip


def _full_field(grid: GridGraph, goal: Cell, start: Cell) -> tuple[float, float]:
    half = TILE // 2
    every = [(x, y) for y in range(half, grid.height, TILE) for x in range(half, grid.width, TILE)]

    def whole() -> FlowField:
        full = FlowField(grid, [goal], tile_size=TILE)
        full.extend(every)
        return full

    full, f_wall, f_cpu, f_peak = measured(whole)
    print(
        f"  full-map field  : wall {f_wall * 1e3:7.0f} ms, cpu {f_cpu * 1e3:7.0f} ms, peak {f_peak:6.1f} MB,"
        f" {len(full.tiles):4} tiles, {full.nbytes / 1e6:6.1f} MB held, cost {full.cost_at(start):.3f}"
        f" (goal {goal}, start {start})"
    )
    return f_cpu, f_peak


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--units", type=int, default=2000)
    parser.add_argument("--skip-corridor", action="store_true")
    parser.add_argument("--only-corridor", action="store_true")
    parser.add_argument(
        "--maps", default="32room_000,random512-10-0", help="corridor maps (x8), comma-separated"
    )
    parser.add_argument(
        "--landmarks", type=int, default=2, help="corridor: landmarks with every cell's table (0: none)"
    )
    parser.add_argument("--no-full-field", action="store_true", help="corridor: the plain Dijkstra alone")
    args = parser.parse_args()
    if not args.only_corridor:
        crowd(args.units)
    if not args.skip_corridor:
        for name in args.maps.split(","):
            corridor(name, args.landmarks, whole_field=not args.no_full_field)


if __name__ == "__main__":
    main()
