"""Run every Moving AI scenario line of every benchmark map through python_core's grid search.

Usage::

    .venv/bin/python bench/movingai_all.py                      # all ten maps, all lines, fast search
    .venv/bin/python bench/movingai_all.py --search reference --maps arena den312d --limit 100

``--search fast`` (the default) is ``GridGraph.find_path`` (compiled A* / JPS, what the sidecar
runs); ``--search reference`` is the plain-Python ``grid.search.reference.find_path`` (hours for all lines).

Per map it prints the lines run, cost mismatches (beyond one unit in the 6th significant digit),
invalid paths (checked independently: endpoints, neighbour steps, walls, corner cutting, cost
recomputed from the steps) and the median milliseconds per query. A command, not a test: it exits 1
if anything mismatched so a CI job may still use it.
"""

from __future__ import annotations

import argparse
import itertools
import math
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import numpy.typing as npt

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from python_core.formats.movingai import Scenario, length_tolerance, read_scenarios  # noqa: E402
from python_core.grid import GridGraph  # noqa: E402
from python_core.grid.search import reference  # noqa: E402
from python_core.result import PathResult  # noqa: E402

DEFAULT_DATA = REPO.parent / "shared" / "benchmarks" / "grid"
SQRT2 = math.sqrt(2.0)


def path_is_valid(mask: npt.NDArray[np.bool_], scenario: Scenario, result: PathResult) -> bool:
    """Endpoints, 8-neighbour steps, no blocked cell, no corner cutting, cost equals the steps' sum."""
    width = mask.shape[1]
    cells = [(int(n) % width, int(n) // width) for n in result.nodes]
    if not cells or cells[0] != scenario.start or cells[-1] != scenario.goal:
        return False
    cost = 0.0
    for (x0, y0), (x1, y1) in itertools.pairwise(cells):
        dx, dy = x1 - x0, y1 - y0
        if max(abs(dx), abs(dy)) != 1 or not mask[y1, x1]:
            return False
        if dx and dy and not (mask[y0, x1] and mask[y1, x0]):
            return False
        cost += SQRT2 if dx and dy else 1.0
    return math.isclose(cost, result.cost, rel_tol=1e-9)


def sample(scenarios: list[Scenario], limit: int | None) -> list[Scenario]:
    """Every line, or ``limit`` lines evenly spaced (always including the last, longest bucket)."""
    if limit is None or limit >= len(scenarios):
        return scenarios
    picks = np.linspace(0, len(scenarios) - 1, num=max(limit, 1)).round().astype(int)
    return [scenarios[i] for i in sorted(set(picks.tolist()))]


def run_map(map_path: Path, limit: int | None, search: str) -> tuple[int, int, int, float]:
    """Run one map; return (lines, mismatches, invalid paths, median ms per query)."""
    grid = GridGraph.from_movingai(map_path)
    find = (lambda s, g: reference.find_path(grid, s, g)) if search == "reference" else grid.find_path
    mask = np.asarray(grid.walkable)
    scenarios = sample(read_scenarios(map_path.with_name(map_path.name + ".scen")), limit)
    mismatches = invalid = 0
    times = []
    for scenario in scenarios:
        began = time.perf_counter()
        result = find(scenario.start, scenario.goal)
        times.append((time.perf_counter() - began) * 1e3)
        if abs(result.cost - scenario.optimal_length) > length_tolerance(scenario.optimal_length):
            mismatches += 1
        if not path_is_valid(mask, scenario, result):
            invalid += 1
    return len(scenarios), mismatches, invalid, statistics.median(times) if times else 0.0


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, run the maps, print one row each; return 1 on any mismatch."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="folder of <name>.map + .scen")
    parser.add_argument("--maps", nargs="*", help="map names without .map (default: all in --data)")
    parser.add_argument("--limit", type=int, help="run at most N evenly spaced lines per map")
    parser.add_argument("--search", choices=["fast", "reference"], default="fast", help="which search")
    args = parser.parse_args(argv)
    names = args.maps or sorted(p.stem for p in args.data.glob("*.map"))
    print(f"{'map':<16} {'lines':>6} {'mismatch':>8} {'invalid':>8} {'median ms':>10} {'total s':>8}")
    failed = False
    for name in names:
        began = time.perf_counter()
        lines, mismatches, invalid, median = run_map(args.data / f"{name}.map", args.limit, args.search)
        total = time.perf_counter() - began
        print(f"{name:<16} {lines:>6} {mismatches:>8} {invalid:>8} {median:>10.2f} {total:>8.1f}", flush=True)
        failed = failed or bool(mismatches or invalid)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
