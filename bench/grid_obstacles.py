"""Moving obstacles on a 512 x 512 grid (issue 40): what one update of 100 moved obstacles costs.

Usage::

    .venv/bin/python bench/grid_obstacles.py                       # random512-10-0, 100 obstacles, 60 frames
    .venv/bin/python bench/grid_obstacles.py --obstacles 200 --radius 3 --frames 120 --no-hierarchy

The map is random512-10-0 (/work/shared/benchmarks/grid, else a random 512 x 512 grid with 10%
walls), one world unit per cell. 100 circles of radius 2 cells drift about (each frame every one
moves by up to half a cell, bouncing off the edges) and each frame sends all of them in ONE
``update_obstacles`` call, as the addon's one message per frame does. Per frame it times: the
rasterisation alone (the cells under each circle, shapely), the grid's update (counts, the walls,
the local repair of the searches' padded copy: clearance for every size), and the same through a
:class:`GridNavigator` with an HPA* hierarchy (its clusters and built size layers repaired too; 10
frames by default: a hundred obstacles scattered over the map touch about half its clusters).
After the run the clearance is checked against a fresh computation and a query of each size runs.
Say whether the machine was loaded: the figures are wall-clock times on a shared machine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from python_core.compiled import warm_up  # noqa: E402
from python_core.formats.movingai import read_map  # noqa: E402
from python_core.grid import GridGraph  # noqa: E402
from python_core.grid.clearance import clearance_of  # noqa: E402
from python_core.grid.obstacles import square_cells_under  # noqa: E402
from python_core.navigation import GridNavigator, HierarchyOptions, SetObstacles  # noqa: E402
from python_core.obstacles import ObstacleShape  # noqa: E402
from python_core.result import QueryOptions  # noqa: E402

MAP = REPO.parent / "shared" / "benchmarks" / "grid" / "random512-10-0.map"
KERNELS = (
    "python_core.grid.graph",
    "python_core.grid.clearance",
    "python_core.grid.search",
    "python_core.hpa",
)


def load_mask(rng: np.random.Generator) -> np.ndarray:
    """random512-10-0 when the shared benchmarks are here, else a random grid like it."""
    if MAP.is_file():
        return read_map(MAP)
    return rng.random((512, 512)) > 0.1


class Drift:
    """Obstacle centres moving at constant speed, bouncing off the map's edges."""

    def __init__(self, rng: np.random.Generator, count: int, size: tuple[int, int]) -> None:
        self.size = np.array(size, dtype=np.float64)
        self.pos = rng.uniform(0, 1, (count, 2)) * (self.size - 1)
        self.vel = rng.uniform(-0.5, 0.5, (count, 2))

    def step(self) -> np.ndarray:
        self.pos += self.vel
        out = (self.pos < 0) | (self.pos > self.size - 1)
        self.vel[out] *= -1
        self.pos = np.clip(self.pos, 0, self.size - 1)
        return self.pos


def frame_shapes(centres: np.ndarray, radius: float) -> dict[int, ObstacleShape]:
    return {i: ObstacleShape.circle(c, radius) for i, c in enumerate(centres)}


def prime(grid: GridGraph) -> None:
    """The padded copy and each size's structures built, as a game's first queries build them."""
    for k in (1, 2, 3):
        y, x = (int(v) for v in np.argwhere(grid.clearance >= k)[0])
        grid.find_path((x, y), (x, y), options=QueryOptions(size=k))


def summary(name: str, seconds: list[float]) -> str:
    ms = sorted(1000 * s for s in seconds)
    p95 = ms[min(len(ms) - 1, int(0.95 * len(ms)))]
    return f"{name:<44} median {statistics.median(ms):7.2f} ms   p95 {p95:7.2f} ms   max {ms[-1]:7.2f} ms"


def run(args: argparse.Namespace) -> None:
    print(f"warm-up: {warm_up(KERNELS):.1f} s")
    rng = np.random.default_rng(args.seed)
    mask = load_mask(rng)
    h, w = mask.shape
    print(f"map {'random512-10-0' if MAP.is_file() else 'random 512x512, 10% walls'}: {w} x {h}, "
          f"{args.obstacles} circles of radius {args.radius} cells, {args.frames} frames")  # fmt: skip
    drift = Drift(rng, args.obstacles, (w, h))
    moves = [frame_shapes(drift.step().copy(), args.radius) for _ in range(args.frames + 1)]

    raster: list[float] = []
    for shapes in moves[1:]:
        began = time.perf_counter()
        for shape in shapes.values():
            square_cells_under(shape, w, h, (0.0, 0.0), (1.0, 1.0))
        raster.append(time.perf_counter() - began)

    grid = GridGraph(mask, diagonal="only_if_no_obstacles")
    prime(grid)
    grid.update_obstacles(moves[0])
    flips: list[int] = []
    plain: list[float] = []
    for shapes in moves[1:]:
        began = time.perf_counter()
        changed = grid.update_obstacles(shapes)
        plain.append(time.perf_counter() - began)
        flips.append(int(changed.size))
    assert np.array_equal(grid.clearance, clearance_of(grid.walkable)), "clearance drifted"
    print(summary("rasterise 100 circles (shapely)", raster))
    print(summary("GridGraph.update_obstacles (all moved)", plain))
    print(f"{'cells opened or closed per frame':<44} median {statistics.median(flips):7.0f}")

    if args.hierarchy:
        nav = GridNavigator(GridGraph(mask, diagonal="only_if_no_obstacles"))
        prime(nav.grid)
        began = time.perf_counter()
        nav.build_hierarchy(HierarchyOptions(cluster_size=32))
        for k in (2, 3):
            y, x = (int(v) for v in np.argwhere(nav.grid.clearance >= k)[0])
            nav.is_reachable((x, y), (x, y), QueryOptions(size=k))  # builds the size layers
        print(f"hierarchy built (sizes 1-3) in {time.perf_counter() - began:.1f} s")
        nav.apply([SetObstacles(moves[0])])  # the first frame compiles the repair kernels: not timed
        layered: list[float] = []
        for shapes in moves[1 : args.hierarchy_frames + 1]:
            began = time.perf_counter()
            nav.apply([SetObstacles(shapes)])
            layered.append(time.perf_counter() - began)
        print(summary("GridNavigator.apply with HPA* (sizes 1-3)", layered))

    for k in (1, 2, 3):
        open_ = np.argwhere(grid.clearance >= k)
        a, b = open_[0], open_[-1]
        result = grid.find_path((int(a[1]), int(a[0])), (int(b[1]), int(b[0])), options=QueryOptions(size=k))
        print(f"size {k}: a corner-to-corner query after the run: {result.status.value}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--obstacles", type=int, default=100)
    parser.add_argument("--radius", type=float, default=2.0, help="in cells")
    parser.add_argument("--frames", type=int, default=60)
    parser.add_argument("--seed", type=int, default=40)
    parser.add_argument("--hierarchy-frames", type=int, default=10, help="frames timed with HPA*")
    parser.add_argument("--no-hierarchy", dest="hierarchy", action="store_false")
    run(parser.parse_args())


if __name__ == "__main__":
    main()
