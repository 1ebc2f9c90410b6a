"""HPA* on weighted ground: path cost against the exact search, nodes and query time (one run).

    .venv/bin/python bench/hpa_weighted.py                       # about 1-2 minutes
    .venv/bin/python bench/hpa_weighted.py --long-entrance 4 --line-bias 0

Two generated 384 x 384 maps with 10% walls (fixed seeds): ``weights`` (each open cell 1, 2 or 3,
three in five at 1) and ``mud`` (blurred noise: patches of weight 3 on weight-1 ground). For 16-
and 32-cell clusters it prints the mean and worst cost ratio of HPA* (smoothing and
``exact_check`` on) to the dispatcher's exact search over 150 random queries, the abstract graph's
node count, the build time and bytes, and the median query time. 8-connected, no corner cutting.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from scipy import ndimage

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from python_core.grid import GridGraph
from python_core.grid.search import dispatch
from python_core.hpa import HierarchicalGrid
from python_core.hpa.hierarchy import LINE_BIAS

SIZE = 384


def maps() -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The walkable mask and the two weight layers."""
    rng = np.random.default_rng(3)
    walk = rng.random((SIZE, SIZE)) > 0.1
    return walk, {
        "weights": rng.choice([1.0, 1.0, 1.0, 2.0, 3.0], (SIZE, SIZE)),
        "mud": np.where(ndimage.gaussian_filter(rng.random((SIZE, SIZE)), 6) > 0.5, 3.0, 1.0),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--long-entrance", type=int, default=6, help="HierarchicalGrid long_entrance")
    parser.add_argument("--line-bias", type=float, default=LINE_BIAS, help="HierarchicalGrid line_bias")
    parser.add_argument("--queries", type=int, default=150)
    args = parser.parse_args(argv)
    walk, layers = maps()
    rng = np.random.default_rng(3)
    cells = np.argwhere(walk)
    picks = rng.integers(0, len(cells), (args.queries, 2))
    pairs = [(tuple(cells[a][::-1].tolist()), tuple(cells[b][::-1].tolist())) for a, b in picks]
    print(f"long_entrance {args.long_entrance}, line_bias {args.line_bias}, {len(pairs)} queries")
    for name, weights in layers.items():
        grid = GridGraph(walk, diagonal="only_if_no_obstacles", weights=weights)
        exact = np.array([dispatch.find_path(grid, s, g).cost for s, g in pairs])
        for cluster in (16, 32):
            hpa = HierarchicalGrid(
                grid, cluster_size=cluster, long_entrance=args.long_entrance, line_bias=args.line_bias
            ).build()
            hpa.find_path(*pairs[0])  # load the kernels outside the timing
            costs, seconds = [], []
            for start, goal in pairs:
                began = time.perf_counter()
                costs.append(hpa.find_path(start, goal).cost)
                seconds.append(time.perf_counter() - began)
            ratios = np.array(costs) / exact
            print(
                f"{name:<8} c{cluster:<3} cost mean {ratios.mean():.4f} worst {ratios.max():.4f} | "
                f"nodes {hpa.graph.node_count:6d} build {hpa.build_seconds:5.2f}s "
                f"{hpa.nbytes / 1e6:5.1f}MB | "
                f"median {1e3 * statistics.median(seconds):.3f}ms",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
