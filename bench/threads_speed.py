"""Queries per second from 1 and from 2 threads on ONE shared navigator (the sidecar's thread pool).

    .venv/bin/python bench/threads_speed.py                        # 32room_000, a few minutes
    .venv/bin/python bench/threads_speed.py --map random512-10-0 --baseline none

Map: a 512 x 512 Moving AI map from /work/shared/benchmarks/grid (else tests/data/movingai); the
queries: ``--queries`` scenarios of its file, every bucket alike (a fixed stride). One
:class:`GridNavigator` with an HPA* hierarchy (``--cluster``) answers them all. For each kind
(``exact``: the compiled search, JPS on this map; ``hierarchical``: HPA*) and each form (``single``:
one query per task, as ``path.find`` submits them; ``batch``: ``--chunk`` queries per task, each
chunk one ``GridNavigator.find_many`` call, as a ``path.find_many`` is cut into chunks; HPA*
answers a chunk in one compiled call), a ThreadPoolExecutor of 1 thread, then one of 2, runs every
query; the rounds alternate 1 and 2 threads and each figure is the median of ``--rounds``. It
prints queries/s for each and the ratio 2 threads / 1 thread (the sidecar needs >= 1.7 with
find_many on two cores), and checks that the threaded answers equal the sequential ones.

Then the single-thread time per query of this code and of ``--baseline`` (a git revision, default
the last commit before the threading change; ``none`` skips it): the baseline's python_core is
extracted with ``git archive`` under /tmp (its first run compiles its kernels, about a minute); each
code is timed in a child process, the fastest of three passes, in rounds alternating (medians).
The load average is printed before and after: the machine is shared, read the ratios with it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

# THREADS_SPEED_CORE: a folder holding another python_core to time (the baseline's)
sys.path.insert(0, os.environ.get("THREADS_SPEED_CORE", str(Path(__file__).resolve().parents[1])))

from python_core.compiled import warm_up
from python_core.formats.movingai import read_scenarios
from python_core.grid import GridGraph
from python_core.navigation import GridNavigator, HierarchyOptions

ROOT = Path(__file__).resolve().parents[1]
CORE_ENV = "THREADS_SPEED_CORE"
MAPS = (Path("/work/shared/benchmarks/grid"), ROOT / "tests" / "data" / "movingai")
BASELINE = "310677e"
"""The last commit before queries became thread-safe (one shared workspace per grid)."""
Pair = tuple[tuple[int, int], tuple[int, int]]


def load(name: str, count: int, cluster: int) -> tuple[GridNavigator, list[Pair]]:
    folder = next(d for d in MAPS if (d / f"{name}.map").exists())
    nav = GridNavigator(GridGraph.from_movingai(folder / f"{name}.map"))
    nav.build_hierarchy(HierarchyOptions(cluster_size=cluster))
    scenarios = read_scenarios(folder / f"{name}.map.scen")
    picked = scenarios[:: max(1, len(scenarios) // count)][:count]
    return nav, [(s.start, s.goal) for s in picked]


def answers(
    nav: GridNavigator, pairs: list[Pair], hierarchical: bool, batch: bool = False
) -> list[tuple[Any, ...]]:
    """Each pair's answer: by ``find_path``, or (``batch``) all by one ``find_many``."""
    if batch:
        starts, goals = [s for s, _ in pairs], [g for _, g in pairs]
        results = nav.find_many(starts, goals, hierarchical=hierarchical)
    else:
        results = [nav.find_path(s, g, hierarchical=hierarchical) for s, g in pairs]
    return [(r.status, r.nodes.tobytes(), r.cost, r.expanded) for r in results]


def pooled(
    nav: GridNavigator, pairs: list[Pair], hierarchical: bool, threads: int, chunk: int
) -> tuple[float, float]:
    """Seconds for every query from a pool of ``threads`` (``chunk`` queries per task), and the
    process's CPU seconds meanwhile (above the wall time only when threads ran at once)."""
    parts = [pairs[i : i + chunk] for i in range(0, len(pairs), chunk)]

    def run(part: list[Pair]) -> list[tuple[Any, ...]]:
        return answers(nav, part, hierarchical, batch=chunk > 1)

    with ThreadPoolExecutor(threads) as pool:
        pool.submit(sum, [0]).result()  # the threads exist before the clock starts
        began, cpu = time.perf_counter(), time.process_time()
        got = [a for part in pool.map(run, parts) for a in part]
        seconds, cpu = time.perf_counter() - began, time.process_time() - cpu
    if got != answers(nav, pairs, hierarchical):
        raise SystemExit("threaded answers differ from sequential ones")
    return seconds, cpu


def single_thread(nav: GridNavigator, pairs: list[Pair], hierarchical: bool) -> float:
    """Microseconds per query, one thread, no pool."""
    began = time.perf_counter()
    for s, g in pairs:
        nav.find_path(s, g, hierarchical=hierarchical)
    return (time.perf_counter() - began) / len(pairs) * 1e6


def scaling(nav: GridNavigator, pairs: list[Pair], args: argparse.Namespace) -> None:
    """Queries/s from 1 and 2 threads, alternating, medians; ``cpu`` is CPU seconds per wall
    second with 2 threads (up to 2.0 when both run their kernels at once on an idle machine)."""
    print(f"{'kind':<13} {'form':<7} {'1 thread q/s':>13} {'2 threads q/s':>14} {'2/1':>6} {'cpu':>5}")
    for hierarchical in (False, True):
        for form, chunk in (("single", 1), ("batch", args.chunk)):
            one: list[float] = []
            two: list[float] = []
            busy: list[float] = []
            for _ in range(args.rounds):
                one.append(len(pairs) / pooled(nav, pairs, hierarchical, 1, chunk)[0])
                seconds, cpu = pooled(nav, pairs, hierarchical, 2, chunk)
                two.append(len(pairs) / seconds)
                busy.append(cpu / seconds)
            ratios = [b / a for a, b in zip(one, two, strict=True)]
            kind = "hierarchical" if hierarchical else "exact"
            print(
                f"{kind:<13} {form:<7} {statistics.median(one):>13.0f} {statistics.median(two):>14.0f} "
                f"{statistics.median(ratios):>6.2f} {statistics.median(busy):>5.2f}"
                f"  (rounds {min(ratios):.2f}-{max(ratios):.2f})"
            )


def baseline_core(rev: str) -> Path:
    """python_core of ``rev``, extracted once under the temp folder (kept: its kernel cache too)."""
    folder = Path(tempfile.gettempdir()) / f"astar-threads-baseline-{rev}"
    if not (folder / "python_core").exists():
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", rev, "python_core"], check=True, capture_output=True
        ).stdout
        folder.mkdir(parents=True, exist_ok=True)
        with tarfile.open(fileobj=__import__("io").BytesIO(archive)) as tar:
            tar.extractall(folder, filter="data")
    return folder


def child_times(core: Path, args: argparse.Namespace) -> dict[str, float]:
    """The single-thread figures of another python_core, from a child process."""
    command = [sys.executable, __file__, "--single-only", "--map", args.map, "--queries", str(args.queries)]
    command += ["--cluster", str(args.cluster)]
    env = {**os.environ, CORE_ENV: str(core)}
    done = subprocess.run(command, check=True, capture_output=True, text=True, env=env)
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def own_times(nav: GridNavigator, pairs: list[Pair], passes: int = 1) -> dict[str, float]:
    """Microseconds per query of each kind: the fastest of ``passes`` passes over the queries
    (the one least slowed by other processes on a shared machine)."""
    return {
        "exact": min(single_thread(nav, pairs, False) for _ in range(passes)),
        "hierarchical": min(single_thread(nav, pairs, True) for _ in range(passes)),
    }


def before_after(args: argparse.Namespace) -> None:
    """Both codes timed alike: each in a child process, rounds alternating."""
    core = baseline_core(args.baseline)
    child_times(core, args)  # compiles the baseline's kernels on its first run
    mine: list[dict[str, float]] = []
    theirs: list[dict[str, float]] = []
    for _ in range(args.rounds):
        theirs.append(child_times(core, args))
        mine.append(child_times(ROOT, args))
    print(f"\nsingle thread, us per query (child processes; median of {args.rounds} alternating rounds,")
    print("each the fastest of 3 passes over the queries)")
    for kind in ("exact", "hierarchical"):
        old = statistics.median(t[kind] for t in theirs)
        new = statistics.median(t[kind] for t in mine)
        print(
            f"  {kind:<13} baseline {args.baseline}: {old:8.1f}  this code: {new:8.1f}  ratio {new / old:.3f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--map", default="32room_000")
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--cluster", type=int, default=32)
    parser.add_argument("--chunk", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--baseline", default=BASELINE)
    parser.add_argument("--single-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    warm_up()
    nav, pairs = load(args.map, args.queries, args.cluster)
    repeat: Callable[[], dict[str, float]] = lambda: own_times(nav, pairs)  # noqa: E731
    repeat()  # the hierarchy's query kernels load on their first call
    if args.single_only:
        print(json.dumps(own_times(nav, pairs, passes=3)))
        return
    print(f"map {args.map}, {len(pairs)} queries, cluster {args.cluster}, {os.cpu_count()} cores")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    scaling(nav, pairs, args)
    if args.baseline != "none":
        before_after(args)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
