"""Peer pathfinders for bench/grid_speed.py, each timed per query on the same grid and queries.

Every runner takes a ``(h, w)`` bool mask (True = walkable) and ``[(start, goal), ...]`` cells
``(x, y)`` and returns ``(costs, seconds)``: the octile cost of the path it returned (recomputed
from its cells; ``nan`` when it found none) and the wall time of each query. Rules everywhere:
8-connected, sqrt(2) diagonals, no corner cutting (``only if no obstacles``).
"""

from __future__ import annotations

import math
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

__all__ = ["Queries", "path_cost", "run_godot", "run_networkx", "run_pathfinding", "run_tcod"]

Mask = npt.NDArray[np.bool_]
Queries = Sequence[tuple[tuple[int, int], tuple[int, int]]]
Timed = tuple[list[float], list[float]]
SCRIPT = Path(__file__).resolve().parent / "godot" / "astar_grid_bench.gd"
SQRT2 = math.sqrt(2.0)


def path_cost(xs: Sequence[int], ys: Sequence[int]) -> float:
    """Octile length of consecutive cells (exact for straight and diagonal segments)."""
    if len(xs) == 0:
        return math.nan
    total = 0.0
    for i in range(1, len(xs)):
        dx, dy = abs(xs[i] - xs[i - 1]), abs(ys[i] - ys[i - 1])
        total += max(dx, dy) + (SQRT2 - 1.0) * min(dx, dy)
    return total


def run_godot(
    godot: Path, mask: Mask, queries: Queries, *, weights: npt.NDArray[np.int64] | None = None
) -> tuple[Timed, Timed]:
    """AStarGrid2D.get_id_path with jumping off and on: ``((costs, secs), (costs, secs))``.

    ``weights`` (integers 1-9 per cell) become Godot's point weight scales; Godot's jumping
    ignores them, so only the first pair is exact on a weighted grid.
    """
    h, w = mask.shape
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = Path(tmp) / "in.txt", Path(tmp) / "out.txt"
        cells = np.where(mask, ord("."), ord("@")).astype(np.uint8).tobytes().decode("ascii")
        lines = [f"{w} {h} {len(queries)}", cells]
        if weights is not None:
            if weights.min() < 1 or weights.max() > 9:
                raise ValueError(f"weights must be integers 1-9, got {weights.min()}..{weights.max()}")
            lines[0] += " weighted"
            lines.append((weights.astype(np.uint8) + ord("0")).tobytes().decode("ascii"))
        lines += [f"{s[0]} {s[1]} {g[0]} {g[1]}" for s, g in queries]
        src.write_text("\n".join(lines) + "\n", encoding="ascii")
        cmd = [str(godot), "--headless", "--script", str(SCRIPT), "--", str(src), str(dst)]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=3600, check=False)
        if proc.returncode != 0 or not dst.exists():
            raise SystemExit(f"godot failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
        rows = [line.split() for line in dst.read_text().splitlines()]
    off = ([_nan_if_none(float(r[0])) for r in rows], [float(r[1]) * 1e-6 for r in rows])
    on = ([_nan_if_none(float(r[2])) for r in rows], [float(r[3]) * 1e-6 for r in rows])
    return off, on


def _nan_if_none(cost: float) -> float:
    return math.nan if cost < 0 else cost


def _diagonal_condition(mask: Mask, dx: int, dy: int) -> Mask:
    """Origins from which the diagonal (dx, dy) squeezes between two open cells."""
    padded = np.pad(mask, 1)
    h, w = mask.shape
    side_x = padded[1 : h + 1, 1 + dx : w + 1 + dx]
    side_y = padded[1 + dy : h + 1 + dy, 1 : w + 1]
    return np.asarray(mask & side_x & side_y)


def run_tcod(mask: Mask, queries: Queries) -> Timed:
    """tcod's Pathfinder on a CustomGraph: integer costs 100000 / 141421 (tcod costs are ints),
    corner cutting forbidden exactly with a per-diagonal ``condition`` array."""
    import tcod.path

    cost = mask.astype(np.int32)
    graph = tcod.path.CustomGraph(mask.shape)
    for dy, dx in ((0, 1), (0, -1), (1, 0), (-1, 0)):
        graph.add_edge((dy, dx), 100000, cost=cost)
    for dy, dx in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
        graph.add_edge((dy, dx), 141421, cost=cost, condition=_diagonal_condition(mask, dx, dy))
    graph.set_heuristic(cardinal=100000, diagonal=141421)
    costs, secs = [], []
    for (sx, sy), (gx, gy) in queries:
        t0 = time.perf_counter()
        finder = tcod.path.Pathfinder(graph)
        finder.add_root((sy, sx))
        path = finder.path_to((gy, gx))
        secs.append(time.perf_counter() - t0)
        ok = len(path) and tuple(path[-1]) == (gy, gx)
        costs.append(path_cost(path[:, 1].tolist(), path[:, 0].tolist()) if ok else math.nan)
    return costs, secs


def run_pathfinding(mask: Mask, queries: Queries) -> Timed:
    """python-pathfinding's AStarFinder with ``DiagonalMovement.only_when_no_obstacle``."""
    from pathfinding.core.diagonal_movement import DiagonalMovement
    from pathfinding.core.grid import Grid
    from pathfinding.finder.a_star import AStarFinder

    grid = Grid(matrix=mask.astype(int).tolist())
    finder = AStarFinder(diagonal_movement=DiagonalMovement.only_when_no_obstacle)
    costs, secs = [], []
    for (sx, sy), (gx, gy) in queries:
        grid.cleanup()
        t0 = time.perf_counter()
        path, _runs = finder.find_path(grid.node(sx, sy), grid.node(gx, gy), grid)
        secs.append(time.perf_counter() - t0)
        costs.append(path_cost([n.x for n in path], [n.y for n in path]))
    return costs, secs


def run_networkx(mask: Mask, queries: Queries) -> Timed:
    """networkx.astar_path on a graph of the open cells (octile heuristic)."""
    import networkx as nx

    graph = nx.Graph()
    h, w = mask.shape
    for y, x in zip(*np.nonzero(mask), strict=True):
        for dx, dy in ((1, 0), (0, 1), (1, 1), (-1, 1)):
            nx_, ny_ = int(x) + dx, int(y) + dy
            if not (0 <= nx_ < w and 0 <= ny_ < h and mask[ny_, nx_]):
                continue
            if dx and dy and not (mask[y, nx_] and mask[ny_, x]):
                continue
            graph.add_edge((int(x), int(y)), (nx_, ny_), weight=SQRT2 if dx and dy else 1.0)

    def octile(a: tuple[int, int], b: tuple[int, int]) -> float:
        dx, dy = abs(a[0] - b[0]), abs(a[1] - b[1])
        return max(dx, dy) + (SQRT2 - 1.0) * min(dx, dy)

    costs, secs = [], []
    for s, g in queries:
        t0 = time.perf_counter()
        try:
            path = nx.astar_path(graph, s, g, heuristic=octile, weight="weight")
        except (nx.NetworkXNoPath, nx.NodeNotFound):
            path = []
        secs.append(time.perf_counter() - t0)
        costs.append(path_cost([p[0] for p in path], [p[1] for p in path]))
    return costs, secs
