"""An exact grid batch against the same queries one by one, in process: one run.

    .venv/bin/python bench/exact_batch.py                      # 32room_000, 100 scenario queries
    .venv/bin/python bench/exact_batch.py --maps Aurora random512-10-0 --count 200

A command, not a test. ``GridNavigator.find_batch`` runs each exact query as ``find_path`` does
(the same plan, kernel and workspace pool), so its cost per query is the singles' mean, not their
median: scenario files hold many short paths and a few long ones (on 32room_000 the mean is about
1.5x the median). Each figure is the best of ``--rounds`` alternating rounds (the machine is shared).
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

from bench.grid_speed import load  # noqa: E402
from python_core.grid import GridGraph  # noqa: E402
from python_core.navigation.grid import GridNavigator  # noqa: E402


def bench_map(name: str, count: int, rounds: int) -> None:
    """Print the singles' mean and median and the batch's cost per query on ``name``."""
    mask, queries, _ = load(name, count, 2)
    nav = GridNavigator(GridGraph(mask, diagonal="only_if_no_obstacles"))
    starts = np.array([s for s, _ in queries])
    goals = np.array([g for _, g in queries])
    nav.find_batch(starts, goals)  # the padded copy and workspace, and every page of them touched
    means, medians, batches = [], [], []
    for _ in range(rounds):
        secs = []
        for s, g in queries:
            t0 = time.perf_counter()
            nav.find_path(s, g)
            secs.append(time.perf_counter() - t0)
        means.append(statistics.mean(secs))
        medians.append(statistics.median(secs))
        t0 = time.perf_counter()
        nav.find_batch(starts, goals)
        batches.append((time.perf_counter() - t0) / len(queries))
    print(
        f"  {name:<16} {len(queries)} queries: one by one mean {min(means) * 1e6:7.0f} us "
        f"(median {min(medians) * 1e6:6.0f} us) | find_batch per query {min(batches) * 1e6:7.0f} us",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--maps", nargs="+", default=["32room_000"])
    parser.add_argument("--count", type=int, default=100, help="scenario queries per map")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    print(f"machine load (1 min): {Path('/proc/loadavg').read_text().split()[0]}")
    for name in args.maps:
        bench_map(name, args.count, args.rounds)


if __name__ == "__main__":
    main()
