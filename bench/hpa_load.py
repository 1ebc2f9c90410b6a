"""How fast a big generated map loads with HPA*, and what it then costs and answers (issue 41).

    .venv/bin/python bench/hpa_load.py                          # 1024, 2048, 4096; defaults and cluster 32
    .venv/bin/python bench/hpa_load.py --sizes 4096 --configs defaults --runs 3

Per map size (square, 20% of the cells blocked at random, ``random_blocked`` with a fixed seed,
8-connected without corner cutting) and hierarchy (``defaults``: ``hierarchy: {}``; ``c32``:
``{"cluster_size": 32}``), a fresh sidecar over its socket:

- the plain grid is loaded first and kept (its RSS growth is the grid's own share, and that of
  its first exact query the search workspace's, which the hierarchy's first query, exact
  until its tables are priced, touches as well), then the
  grid again with the hierarchy: the load's wall time, the hierarchy's ``build_seconds`` (the
  part the load waits for), the sidecar's RSS growth beside the grid (``/proc/<pid>/status``
  VmRSS: the second load's growth minus the first's) in bytes a cell when the load returns and
  once the tables are priced, and ``graph.info``'s own ``bytes``;
- "answering": the load plus the first hierarchical query (on grids of 2048 x 2048 and more the
  load returns before the cluster tables are priced, and queries meanwhile get the exact
  search's path: ``docs/hpa.md``);
- "HPA* from": when ``graph.info`` first says ``tables_ready`` (polled every 50 ms), from the
  start of the load: queries are HPA*'s from then on, and the medians below are taken
  :data:`LANDMARK_SETTLE` seconds after it (the landmark table the abstract search reads on big
  maps is computed in the background from the priced tables: ``docs/hpa.md``);
- the median hierarchical and exact ``path.find`` over the same random queries (``--queries``,
  half of them at least half the map apart) and their ratio, with the mean cost of the
  hierarchical paths over the exact ones.

With ``--in-process``, the same hierarchy is also built in this process and each hierarchical
query is asked of it and of the sidecar, one right after the other, each first in turn (the
second finds the query's memory warm): the two medians, interleaved under the same load, split a
query's time into its search and its way through the socket (request, reply, decoding).

Then, in this process, the phases of one build of the largest size (``AbstractGraph.phases``).
The goal of issue 41 for 4096 x 4096 with defaults: answering within 10 s, a hierarchical median
of at most 2 ms and at least 10x exact, at most 8 bytes a cell beside the grid.
"""

from __future__ import annotations

import argparse
import math
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.generated_maps import random_blocked, random_queries
from bridge.client import Client
from bridge.client.sidecar import Sidecar, start_sidecar
from python_core.grid import GridGraph
from python_core.hpa import HierarchicalGrid

CONFIGS: dict[str, dict[str, Any]] = {"defaults": {}, "c32": {"cluster_size": 32}}
"""Hierarchy maps sent with ``graph.load_grid``, by name."""
DIAGONAL = "only_if_no_obstacles"
BLOCKED, SEED = 0.2, 5
LANDMARK_SETTLE = 3.0
"""Seconds between ``tables_ready`` and the first timed query: the sidecar's landmark thread
(``python_core/hpa/graph/landmarks.py``, about 1 s on 4096 x 4096) is done by then."""


def rss_bytes(pid: int) -> int:
    """A process's resident set (VmRSS) in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def _wait_for_kernels(sidecar: Sidecar) -> float:
    """Seconds until the sidecar's start-up warm-up logs ``kernels ready`` (a game starts its
    sidecar with the game, long before a level loads): its log read line by line."""
    began = time.perf_counter()
    stream = sidecar.process.stderr
    assert stream is not None
    for raw in iter(stream.readline, b""):
        if b"kernels ready" in raw:
            break
    threading.Thread(target=lambda: [None for _ in iter(stream.readline, b"")], daemon=True).start()
    return time.perf_counter() - began


def _warm(client: Client, config: str) -> None:
    """A small map with the same hierarchy, queried both ways and dropped: the HPA* kernels are
    loaded once per process, before any level (bridge/serving/entries.py)."""
    small = random_blocked(128, blocked=BLOCKED, seed=SEED)
    (s, g), *_ = random_queries(small, 1)
    client.load_grid("warm", small, diagonal=DIAGONAL, hierarchy=CONFIGS[config])
    client.call("path.find", Client.query("warm", s, g, hierarchical=True))
    client.call("path.find", Client.query("warm", s, g))
    client.drop("warm")


def _interleaved(client: Client, hpa: HierarchicalGrid, queries: list[Any]) -> tuple[float, float]:
    """Median seconds of one hierarchical ``path.find`` through the socket and of the same query
    in this process, each right before the other in turn (four rounds): the second of a pair
    finds the query's tables and cells warm, so each way is first as often as second."""
    sock, here = [], []
    for turn in range(4):
        for s, g in queries:
            for way in ("socket", "here") if turn % 2 == 0 else ("here", "socket"):
                began = time.perf_counter()
                if way == "socket":
                    client.call("path.find", Client.query("map", s, g, hierarchical=True))
                else:
                    hpa.find_path(s, g)
                (sock if way == "socket" else here).append(time.perf_counter() - began)
    return statistics.median(sock), statistics.median(here)


def _medians(client: Client, queries: list[Any], **options: Any) -> tuple[float, float, list[float]]:
    """Median and 90th-percentile seconds of one ``path.find`` per query, and the costs (nan
    where none)."""
    secs, costs = [], []
    for s, g in queries:
        began = time.perf_counter()
        got = client.call("path.find", Client.query("map", s, g, **options))
        secs.append(time.perf_counter() - began)
        costs.append(float(got["cost"]) if got["status"] == "found" else float("nan"))
    return statistics.median(secs), statistics.quantiles(secs, n=10)[-1], costs


def run_one(size: int, config: str, count: int, in_process: bool = False) -> None:
    """One fresh sidecar: load, memory, first answer, medians; one printed line (two with
    ``in_process``)."""
    mask = random_blocked(size, blocked=BLOCKED, seed=SEED)
    queries = random_queries(mask, count)
    cells = size * size
    with start_sidecar("--log-level", "INFO", timeout=120, stderr=subprocess.PIPE) as sidecar:
        pid = sidecar.process.pid
        warm_up = _wait_for_kernels(sidecar)
        with sidecar.connect(timeout=900) as client:
            _warm(client, config)
            base = rss_bytes(pid)
            client.load_grid("plain", mask, diagonal=DIAGONAL)  # kept: a freed grid's pages would be reused
            # the same first query the hierarchy answers exactly until its tables are priced: the
            # search workspace pages it touches are the grid's share, not the hierarchy's
            plain = rss_bytes(pid) - base
            client.call("path.find", Client.query("plain", *queries[0]))
            workspace = rss_bytes(pid) - base - plain
            base = rss_bytes(pid)
            began = time.perf_counter()
            client.load_grid("map", mask, diagonal=DIAGONAL, hierarchy=CONFIGS[config])
            loaded = time.perf_counter() - began
            grown = rss_bytes(pid) - base
            client.call("path.find", Client.query("map", *queries[0], hierarchical=True))
            answering = time.perf_counter() - began
            while not client.info("map")["hierarchy"].get("tables_ready", True):
                time.sleep(0.05)
            ready = time.perf_counter() - began
            time.sleep(LANDMARK_SETTLE)
            # the tables' pages are touched as they are priced; the landmarks' within the settle
            filled = rss_bytes(pid) - base
            info = client.info("map")["hierarchy"]
            hpa, hpa_tail, hpa_costs = _medians(client, queries, hierarchical=True)
            exact, _, exact_costs = _medians(client, queries)
            split = None
            if in_process:
                options: dict[str, Any] = {"cluster_size": 32} if config == "c32" else {}
                here = HierarchicalGrid(GridGraph(mask, diagonal=DIAGONAL), **options).build()
                here.wait_tables()
                here.graph.wait_landmarks()
                split = _interleaved(client, here, queries)
    ratios = [h / e for h, e in zip(hpa_costs, exact_costs, strict=True) if e > 0 and not math.isnan(h)]
    beside, beside_ready = (grown - plain) / cells, (filled - plain - workspace) / cells
    print(
        f"{size:>5}^2 {config:<8} (sidecar warm-up {warm_up:.0f} s) load {loaded:6.2f} s, "
        f"answering {answering:6.2f} s, HPA* from {ready:6.2f} s = {ready / cells * 1e6:5.2f} us/cell | "
        f"build {info['build_seconds']:6.2f} s | RSS "
        f"+{grown / 2**20:6.0f} MiB, grid alone +{plain / 2**20:4.0f} MiB, beside the grid "
        f"{beside:5.1f} B/cell at load, {beside_ready:5.1f} B/cell with the tables (info bytes "
        f"{info['bytes'] / cells:4.1f} B/cell) | median HPA* "
        f"{hpa * 1e3:7.3f} ms (90th percentile {hpa_tail * 1e3:6.3f}), exact {exact * 1e3:7.3f} ms = "
        f"{exact / hpa:5.1f}x | cost/exact "
        f"{statistics.mean(ratios) if ratios else float('nan'):.4f}",
        flush=True,
    )
    if split is not None:
        print(
            f"{'':>8}interleaved x4, each first in turn: socket {split[0] * 1e3:7.3f} ms, "
            f"in process {split[1] * 1e3:7.3f} ms "
            f"= {(split[0] - split[1]) * 1e3:6.3f} ms through the socket",
            flush=True,
        )


def profile(size: int, config: str) -> None:
    """The phases of one build in this process (after a small build that loads the kernels)."""
    options: dict[str, Any] = {"cluster_size": 32} if config == "c32" else {}
    HierarchicalGrid(GridGraph(random_blocked(128), diagonal=DIAGONAL), **options).build()
    grid = GridGraph(random_blocked(size, blocked=BLOCKED, seed=SEED), diagonal=DIAGONAL)
    began = time.perf_counter()
    hpa = HierarchicalGrid(grid, **options).build()
    returned = time.perf_counter() - began
    hpa.wait_tables()
    total = time.perf_counter() - began
    phases = ", ".join(f"{name} {secs:.2f} s" for name, secs in hpa.graph.phases.items())
    print(
        f"in process, {size}^2 {config}: build returned {returned:.2f} s ({phases}), tables "
        f"priced at {total:.2f} s; {hpa.graph.node_count} "
        f"transitions over {hpa.graph.cluster_count} clusters, trees {hpa.graph.has_trees}, "
        f"{hpa.nbytes / 2**20:.0f} MiB",
        flush=True,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="1024,2048,4096", help="map sides, comma-separated")
    parser.add_argument("--configs", default="defaults,c32", help=f"of {','.join(CONFIGS)}")
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--runs", type=int, default=1, help="sidecars per size and config")
    parser.add_argument("--no-profile", action="store_true", help="skip the in-process phases")
    parser.add_argument(
        "--in-process", action="store_true", help="also time each query in this process, interleaved"
    )
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    configs = args.configs.split(",")
    if unknown := sorted(set(configs) - set(CONFIGS)):
        parser.error(f"unknown configs {unknown}; expected some of {sorted(CONFIGS)}")
    print(f"random maps, {BLOCKED:.0%} blocked (seed {SEED}), {DIAGONAL}, {args.queries} queries")
    for size in sizes:
        for config in configs:
            for _ in range(args.runs):
                run_one(size, config, args.queries, args.in_process)
    if not args.no_profile:
        for config in configs:
            profile(max(sizes), config)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
