"""Sidecar figures for bench/grid_speed.py: start-up time, memory per cell, find_many scaling.

    .venv/bin/python bench/sidecar_metrics.py            # prints the markdown lines

- start-up: ``python -m bridge serve`` until its ``listening`` line, and ``compiled.warm_up()`` in a
  fresh interpreter, with a warm numba cache (.cache/numba, filled first) and a cold one (empty dir);
- memory: VmRSS of the sidecar and its worker before/after ``graph.load_grid`` of the 2048 x 2048
  generated map and one long query, per cell; plus the in-process bytes of the dispatcher's copy;
- find_many: 1,000 ``path.find`` queries on random512-10-0 in one ``path.find_many`` with
  ``--threads 1`` and ``--threads 2``; and dispatch.find_many over forked processes.
"""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.generated_maps import open_scattered  # noqa: E402
from bridge.client.sidecar import start_sidecar  # noqa: E402
from python_core.formats.movingai import read_map, read_scenarios  # noqa: E402
from python_core.grid import GridGraph  # noqa: E402
from python_core.grid.search import dispatch  # noqa: E402

DATA = REPO.parent / "shared" / "benchmarks" / "grid"
MAZE = "random512-10-0"


def rss_bytes(pid: int) -> int:
    """Resident set size of a process, from /proc/<pid>/status."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def children(pid: int) -> list[int]:
    """The worker pool's process ids: children of any thread of ``pid`` (the pool spawns from a
    helper thread), leaving out multiprocessing's resource tracker."""
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            cmdline = Path(f"/proc/{child}/cmdline").read_bytes()
            if b"resource_tracker" not in cmdline:
                found.append(int(child))
    return sorted(found)


def startup(cache_dir: str) -> tuple[float, float]:
    """Seconds to the sidecar's listening line and to its first answered query (the workers warm
    their kernels first)."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    t0 = time.perf_counter()
    with start_sidecar("--threads", "1", env=env, stderr=subprocess.DEVNULL) as sidecar:
        listening = time.perf_counter() - t0
        with sidecar.connect() as client:
            client.load_grid("tiny", np.ones((4, 4), dtype=bool), diagonal="only_if_no_obstacles")
            assert client.find("tiny", (0, 0), (3, 3))["status"] == "found"
        answered = time.perf_counter() - t0
    return listening, answered


def warm_up_seconds(cache_dir: str) -> float:
    """Seconds of ``compiled.warm_up()`` in a fresh interpreter using ``cache_dir``."""
    code = "import time; t = time.perf_counter(); from python_core.compiled import warm_up; warm_up(); "
    code += "print(time.perf_counter() - t)"
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True,
                         check=True)  # fmt: skip
    return float(out.stdout.split()[-1])


def memory() -> list[str]:
    """Sidecar RSS per cell of the largest map, and the dispatcher's in-process copy per cell."""
    mask = open_scattered()
    cells = mask.size
    with start_sidecar("--threads", "1", stderr=subprocess.DEVNULL) as sidecar, sidecar.connect() as client:
        time.sleep(1.0)
        pids = [sidecar.process.pid, *children(sidecar.process.pid)]
        before = [rss_bytes(p) for p in pids]
        client.load_grid("big", mask, diagonal="only_if_no_obstacles")
        client.find("big", (0, 0), (0, 0))  # answered after the worker has built its replica
        loaded = [rss_bytes(p) for p in pids]
        client.find("big", (0, 0), (2047, 2047))
        queried = [rss_bytes(p) for p in pids]
    grid = GridGraph(mask, diagonal="only_if_no_obstacles")
    dispatch.find_path(grid, (0, 0), (2047, 2047))
    own = grid.walkable.nbytes + grid.weights.nbytes + 4 * cells  # walls, weights, agent counts
    lines = [f"Memory on the {mask.shape[1]}x{mask.shape[0]} map ({cells} cells), VmRSS delta per cell:"]
    for label, pid_index in (("sidecar main process", 0), ("sidecar worker", 1)):
        if pid_index < len(pids):
            lines.append(
                f"- {label}: after load {(loaded[pid_index] - before[pid_index]) / cells:.1f} B/cell, "
                "after one corner-to-corner query "
                f"{(queried[pid_index] - before[pid_index]) / cells:.1f} B/cell"
            )
    lines.append(
        f"- in process: GridGraph arrays {own / cells:.1f} B/cell + dispatch padded copy and workspace "
        f"{dispatch.workspace_bytes(grid) / cells:.1f} B/cell (virtual: pages become resident as "
        "searches touch them)"
    )
    return lines


def _queries(count: int, lines: int | None = None) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    scenarios = read_scenarios(DATA / f"{MAZE}.map.scen")[:lines]
    return [(scenarios[i % len(scenarios)].start, scenarios[i % len(scenarios)].goal) for i in range(count)]


def bridge_find_many(workers: int, queries: list) -> float:
    """Seconds of one path.find_many of ``queries`` with ``workers`` worker processes."""
    mask = read_map(DATA / f"{MAZE}.map")
    sidecar = start_sidecar("--threads", str(workers), stderr=subprocess.DEVNULL)
    with sidecar, sidecar.connect() as client:
        client.load_grid("g", mask, diagonal="only_if_no_obstacles")
        batch = [client.query("g", s, g) for s, g in queries]
        client.find_many(batch[:4])  # workers have the replica and imported everything
        t0 = time.perf_counter()
        results = client.find_many(batch)
        elapsed = time.perf_counter() - t0
    assert all(r["status"] == "found" for r in results)
    return elapsed


_GRID: GridGraph | None = None


def _chunk(chunk: list) -> int:
    assert _GRID is not None
    starts, goals = [s for s, _ in chunk], [g for _, g in chunk]
    return sum(r.found for r in dispatch.find_many(_GRID, starts, goals))


def fork_find_many(processes: int, queries: list) -> float:
    """Seconds of dispatch.find_many over ``processes`` forked processes sharing the grid."""
    global _GRID  # noqa: PLW0603 (shared with the forked children through fork)
    _GRID = GridGraph(read_map(DATA / f"{MAZE}.map"), diagonal="only_if_no_obstacles")
    dispatch.find_many(_GRID, [queries[0][0]], [queries[0][1]])
    chunks = [queries[i :: processes * 4] for i in range(processes * 4)]
    with multiprocessing.get_context("fork").Pool(processes) as pool:
        pool.map(_chunk, chunks[:processes])
        t0 = time.perf_counter()
        found = sum(pool.map(_chunk, chunks))
        elapsed = time.perf_counter() - t0
    assert found == len(queries)
    return elapsed


def report(repo: Path = REPO) -> list[str]:
    """All sidecar figures as markdown lines."""
    lines = ["## Sidecar", ""]
    warm_dir = str(repo / ".cache" / "numba")
    startup(warm_dir)  # fill the warm cache
    warm, warm_jit = startup(warm_dir), warm_up_seconds(warm_dir)
    with tempfile.TemporaryDirectory() as cold_dir:
        cold = startup(cold_dir)
    with tempfile.TemporaryDirectory() as cold_dir:
        cold_jit = warm_up_seconds(cold_dir)
    lines.append(
        f"Start-up: `bridge serve` to its listening line {warm[0]:.2f} s warm / {cold[0]:.2f} s cold; "
        f"to its first answered path.find (workers warm their kernels first) {warm[1]:.2f} s warm / "
        f"{cold[1]:.2f} s cold; `compiled.warm_up()` in a fresh interpreter {warm_jit:.2f} s warm / "
        f"{cold_jit:.2f} s cold numba cache."
    )
    lines += ["", *memory(), ""]
    queries = _queries(1000)
    one, two = bridge_find_many(1, queries), bridge_find_many(2, queries)
    lines.append(
        f"find_many via the bridge (1,000 queries, all scenario lines of {MAZE}, compiled dispatch): "
        f"1 worker {one:.2f} s, 2 workers {two:.2f} s, speed-up {one / two:.2f}x."
    )
    queries = _queries(1000)
    one, two = fork_find_many(1, queries), fork_find_many(2, queries)
    lines.append(
        f"dispatch.find_many over forked processes (1,000 queries, all lines of {MAZE}): "
        f"1 process {one:.3f} s, 2 processes {two:.3f} s, speed-up {one / two:.2f}x "
        f"({os.cpu_count()} cores, shared with other jobs)."
    )
    return lines


if __name__ == "__main__":
    np.set_printoptions(precision=3)
    print("\n".join(report()))
