"""What a process's first HPA* query and updates cost, with and without ``warm_up_hierarchy``.

    .venv/bin/python bench/hpa_first_calls.py            # brc202d, two runs of each, ~30 s
    .venv/bin/python bench/hpa_first_calls.py --map Aurora --runs 3

Each run is a fresh Python process (numba loads a kernel on its first call in a process) that
builds the hierarchy of a Moving AI map as the sidecar does (cluster 32, 1 ms table box), runs
``warm_up_hierarchy`` or not, then times its first query and its first three 100-random-cell
updates (each toggled back untimed). Run ``tools/setup.sh`` first, so numba's disk cache is
filled and the figures show loading, not compiling.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

RUN = """
import json, sys, time
import numpy as np
from bench.hpa_speed import load
from python_core.grid import GridGraph
from python_core.hpa import HierarchicalGrid
from python_core.hpa.warm_up import warm_up_hierarchy
name, warm = sys.argv[1], sys.argv[2] == "1"
mask, pairs, _ = load(name, 10)
grid = GridGraph(mask, diagonal="only_if_no_obstacles")
hpa = HierarchicalGrid(grid, cluster_size=32, repair_seconds=0.001).build()
warmed = warm_up_hierarchy() if warm else 0.0
began = time.perf_counter()
hpa.find_path(*pairs[0])
query = time.perf_counter() - began
rng = np.random.default_rng(1)
updates = []
for _ in range(3):
    cells = np.stack((rng.integers(0, grid.width, 100), rng.integers(0, grid.height, 100)), axis=1)
    state = grid.walkable[cells[:, 1], cells[:, 0]].copy()
    updates.append(hpa.set_walkable(cells, ~state))
    hpa.set_walkable(cells, state)
print(json.dumps({"warm_up": warmed, "query": query, "updates": updates}))
"""


def run(name: str, warm: bool) -> tuple[float, float, list[float]]:
    """One fresh process's seconds: the warm-up (0 without), the first query, three updates."""
    done = subprocess.run(
        [sys.executable, "-c", RUN, name, "1" if warm else "0"],
        check=True,
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    got = json.loads(done.stdout.strip().splitlines()[-1])
    return float(got["warm_up"]), float(got["query"]), [float(u) for u in got["updates"]]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--map", default="brc202d", help="a Moving AI map of bench/hpa_speed.py")
    parser.add_argument("--runs", type=int, default=2, help="fresh processes of each kind")
    args = parser.parse_args(argv)
    print(f"{args.map}: first calls in a fresh process after the build (ms)")
    for _ in range(args.runs):
        for warm in (False, True):
            warmed, query, updates = run(args.map, warm)
            listed = ", ".join(f"{1e3 * u:.1f}" for u in updates)
            print(
                f"  {'warm_up_hierarchy' if warm else 'no warm-up':<18} (took {1e3 * warmed:4.0f}) | "
                f"first query {1e3 * query:5.1f} | updates 1-3: {listed}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
