"""A fleet of game servers through one gateway (issue 42): 8 client processes, each with its own
socket, x 32 graphs (copies of the two 512 x 512 Moving AI maps, each loaded once) x 10,000
scenario queries (``path.find``, exact), on LocalServing and on RayServing with 1 and 2 replicas on
this machine, in the same run, on the same queries.

    .venv/bin/python bench/fleet.py                                # everything (a few minutes)
    .venv/bin/python bench/fleet.py --queries 1000 --graphs 4     # a quick run
    .venv/bin/python bench/fleet.py --servings local,ray-2 --in-flight 4
    .venv/bin/python bench/fleet.py --hierarchical                  # HPA* (near-optimal) queries
    .venv/bin/python bench/fleet.py --paired 1000 --graphs 4       # Ray's added latency, in pairs

Per serving: the time to load the graphs, a warm-up (a few queries per graph: on Ray the replicas
build their graphs from the snapshots then), the measured run (throughput = queries / wall time from
the first send to the last answer; p50, p99 of each request's round trip, client to client), a solo
run (one client, one request at a time: the per-request cost without queueing), the answers checked
against the scenario files' optimal lengths, and CPU seconds per 1,000 paths of the gateway process
and of the processes it started (Ray's head and replicas). "added" is Ray's latency per request
over LocalServing's, same queries: the difference of the solo medians, and of the fleet p50s.
The clients run on the same cores as the gateway (2 here): their CPU is printed too.
"""

from __future__ import annotations

import argparse
import dataclasses
import multiprocessing
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.fleet_clients import (  # noqa: E402
    MAP_DIR,
    NEAR_OPTIMAL,
    ClientJob,
    ClientRun,
    Query,
    Workload,
    make_workload,
    run_client,
    tree_cpu_seconds,
    wrong_answers,
)
from bridge.client.sidecar import Sidecar, start_sidecar  # noqa: E402

Latencies = np.ndarray[Any, np.dtype[np.float64]]

SERVINGS = {
    "local": ("LocalServing", ()),
    "ray-1": ("RayServing, 1 replica", ("--ray", "local", "--ray-replicas", "1")),
    "ray-2": ("RayServing, 2 replicas", ("--ray", "local", "--ray-replicas", "2")),
}


@dataclass
class Outcome:
    """One serving's figures (``failed`` says why there are none)."""

    name: str
    failed: str = ""
    load_s: float = 0.0
    warm_s: float = 0.0
    throughput: float = 0.0
    latency_us: Latencies = field(default_factory=lambda: np.zeros(0))
    solo_us: Latencies = field(default_factory=lambda: np.zeros(0))
    wrong: int = 0
    errors: int = 0
    gateway_cpu_s: float = 0.0
    others_cpu_s: float = 0.0
    clients_cpu_s: float = 0.0


def run_serving(key: str, work: Workload, args: argparse.Namespace) -> Outcome:
    name, flags = SERVINGS[key]
    threads = ("--threads", str(args.threads)) if key == "local" else ()
    try:
        sidecar = start_sidecar(
            "--log-level", "WARNING", *flags, *threads, timeout=180, stderr=subprocess.DEVNULL
        )
    except Exception as exc:  # e.g. no RayServing in this checkout yet: the row says so
        return Outcome(name, failed=f"did not start: {exc}")
    try:
        return measure(name, sidecar, work, args)
    except Exception as exc:  # the table reports it; the other servings still run
        return Outcome(name, failed=f"{type(exc).__name__}: {exc}")
    finally:
        sidecar.stop(timeout=60)


def measure(name: str, sidecar: Sidecar, work: Workload, args: argparse.Namespace) -> Outcome:
    outcome = Outcome(name)
    ids = [graph_id for graph_id, _ in work.graphs]
    hierarchy = {"cluster_size": 32} if args.hierarchical else None
    options = {"hierarchical": True} if args.hierarchical else {}
    began = time.perf_counter()
    with sidecar.connect(timeout=600) as loader:
        for graph_id, map_name in work.graphs:
            loader.load_grid(
                graph_id, work.masks[map_name], diagonal="only_if_no_obstacles", hierarchy=hierarchy
            )
        outcome.load_s = time.perf_counter() - began
        began = time.perf_counter()
        warm = work.in_order()[: args.warm_up * len(ids)]  # every graph args.warm_up times
        for graph, sx, sy, gx, gy, _ in warm:
            loader.find(ids[graph], (sx, sy), (gx, gy), **options)
        outcome.warm_s = time.perf_counter() - began
    job = ClientJob((sidecar.host, sidecar.port, sidecar.token), ids, [], args.in_flight, options, args.batch)
    solo = work.in_order()[: args.solo]  # the graphs in turn
    [solo_run] = run_clients(dataclasses.replace(job, in_flight=1, batch=1), [solo])
    outcome.solo_us = solo_run.latency_us
    gateway_before, others_before = tree_cpu_seconds(sidecar.process.pid)
    runs = run_clients(job, work.per_client)
    gateway_after, others_after = tree_cpu_seconds(sidecar.process.pid)
    outcome.gateway_cpu_s = gateway_after - gateway_before
    outcome.others_cpu_s = max(0.0, others_after - others_before)  # a Ray worker may have exited
    outcome.clients_cpu_s = sum(run.cpu_s for run in runs)
    wall = max(run.ended for run in runs) - min(run.began for run in runs)
    outcome.throughput = work.queries / wall
    outcome.latency_us = np.concatenate([run.latency_us for run in runs])
    outcome.wrong = sum(
        wrong_answers(q, run, near=args.hierarchical) for q, run in zip(work.per_client, runs, strict=True)
    )
    outcome.errors = sum(len(run.errors) for run in runs)
    return outcome


def run_clients(template: ClientJob, per_client: list[list[Query]]) -> list[ClientRun]:
    """One process per client (``template`` with its queries); all connect first, then start
    together."""
    context = multiprocessing.get_context("spawn")
    start = context.Event()
    pipes, processes = [], []
    for queries in per_client:
        mine, theirs = context.Pipe(duplex=False)
        job = dataclasses.replace(template, queries=queries)
        process = context.Process(target=run_client, args=(job, start, theirs), daemon=True)
        process.start()
        pipes.append(mine)
        processes.append(process)
    try:
        for pipe in pipes:
            if (ready := pipe.recv()) != "ready":
                raise RuntimeError(f"a client failed to start: {ready}")
        start.set()
        runs = [pipe.recv() for pipe in pipes]
    finally:
        for process in processes:
            process.join(timeout=60)
            if process.is_alive():
                process.kill()
    for run in runs:
        if not isinstance(run, ClientRun):
            raise RuntimeError(f"a client failed: {run}")
    return runs


def paired(work: Workload, args: argparse.Namespace) -> str:
    """Ray's added latency per request measured in pairs: a LocalServing gateway and a 1-replica
    RayServing gateway run at once, one client asks each the same query in turn (which one first
    alternates), so the machine's load, however it drifts, weighs on both sides of a pair alike."""
    sidecars: list[Sidecar] = []
    try:
        sidecars.append(start_sidecar("--log-level", "WARNING", "--threads", str(args.threads),
                                      stderr=subprocess.DEVNULL))  # fmt: skip
        sidecars.append(start_sidecar("--log-level", "WARNING", *SERVINGS["ray-1"][1], timeout=180,
                                      stderr=subprocess.DEVNULL))  # fmt: skip
        clients = [sidecar.connect(timeout=600) for sidecar in sidecars]
        for client in clients:
            for graph_id, map_name in work.graphs:
                client.load_grid(graph_id, work.masks[map_name], diagonal="only_if_no_obstacles")
        queries = work.in_order()
        ids = [graph_id for graph_id, _ in work.graphs]
        for graph, sx, sy, gx, gy, _ in queries[: args.warm_up * len(ids)]:
            for client in clients:
                client.find(ids[graph], (sx, sy), (gx, gy))
        times = np.zeros((args.paired, 2))
        for k in range(args.paired):
            graph, sx, sy, gx, gy, _ = queries[k % len(queries)]
            for side in (k % 2, 1 - k % 2):
                began = time.perf_counter()
                clients[side].find(ids[graph], (sx, sy), (gx, gy))
                times[k, side] = (time.perf_counter() - began) * 1e3
    finally:
        for sidecar in sidecars:
            sidecar.stop(timeout=60)
    added = times[:, 1] - times[:, 0]
    q25, q50, q75 = np.percentile(added, [25, 50, 75])
    local, ray = np.median(times, axis=0)
    return (
        f"paired, {args.paired} queries asked of both at once: LocalServing p50 {local:.2f} ms, "
        f"RayServing (1 replica) p50 {ray:.2f} ms; Ray's added latency per request: median "
        f"{q50:+.2f} ms (quartiles {q25:+.2f} / {q75:+.2f})"
    )


def table(outcomes: list[Outcome], work: Workload, args: argparse.Namespace) -> str:
    local = next((o for o in outcomes if o.name == SERVINGS["local"][0] and not o.failed), None)
    header = (
        "| serving | load | warm-up | paths/s | p50 ms | p99 ms | solo p50 ms | added p50 (solo / fleet) "
        "| CPU s per 1,000 paths: gateway / Ray / clients | wrong / errors |"
    )
    lines = [header, "|" + "---|" * 10]
    for o in outcomes:
        if o.failed:
            lines.append(f"| {o.name} | {o.failed} |" + " |" * 8)
            continue
        p50, p99 = np.percentile(o.latency_us, [50, 99]) / 1e3
        solo = float(np.median(o.solo_us)) / 1e3
        added = "-"
        if local is not None and local is not o:
            solo_added = solo - float(np.median(local.solo_us)) / 1e3
            fleet_added = p50 - float(np.percentile(local.latency_us, 50)) / 1e3
            added = f"{solo_added:+.2f} / {fleet_added:+.2f} ms"
        per = 1000 / work.queries
        cpu = f"{o.gateway_cpu_s * per:.2f} / {o.others_cpu_s * per:.2f} / {o.clients_cpu_s * per:.2f}"
        lines.append(
            f"| {o.name} | {o.load_s:.1f} s | {o.warm_s:.1f} s | {o.throughput:,.0f} | {p50:.2f} | "
            f"{p99:.2f} | {solo:.2f} | {added} | {cpu} | {o.wrong} / {o.errors} |"
        )
    clients = len(work.per_client)
    search = ("HPA* (cluster 32)" if args.hierarchical else "exact search") + (
        f", path.find_packed of {args.batch} queries a request (p50, p99: per request)"
        if args.batch > 1
        else ", path.find"
    )
    wrong = f"found no path or cost not within {NEAR_OPTIMAL}x the scenario's optimal length"
    if not args.hierarchical:
        wrong = "found no path or cost not the scenario's optimal length"
    lines.append(
        f"\n{clients} clients x {len(work.graphs)} graphs x {work.queries:,} queries, {args.in_flight} in "
        f"flight per client; solo: {args.solo} queries, one at a time; {search}, diagonal "
        f"only_if_no_obstacles; wrong = {wrong}"
    )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=8, help="game-server processes (default 8)")
    parser.add_argument("--graphs", type=int, default=32, help="512x512 graphs loaded (default 32)")
    parser.add_argument("--queries", type=int, default=10_000, help="queries in all (default 10,000)")
    parser.add_argument("--in-flight", type=int, default=1, help="requests outstanding per client")
    parser.add_argument("--solo", type=int, default=200, help="queries of the one-client run")
    parser.add_argument("--warm-up", type=int, default=2, help="queries per graph before measuring")
    parser.add_argument("--threads", type=int, default=2, help="LocalServing's search threads")
    parser.add_argument("--servings", default="local,ray-1,ray-2", help="of: " + ", ".join(SERVINGS))
    parser.add_argument("--maps", type=Path, default=MAP_DIR, help="folder of the Moving AI maps")
    parser.add_argument("--paired", type=int, default=0, help="only the paired added-latency run, N queries")
    parser.add_argument("--batch", type=int, default=1, help="queries per request (path.find_packed)")
    parser.add_argument("--hierarchical", action="store_true", help="HPA* queries (cluster size 32)")
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args()
    keys = [key.strip() for key in args.servings.split(",") if key.strip()]
    unknown = [key for key in keys if key not in SERVINGS]
    if unknown or min(args.clients, args.graphs, args.queries, args.in_flight, args.batch) < 1:
        parser.error(f"unknown serving {unknown} or a count < 1")
    work = make_workload(args.maps, args.graphs, args.clients, args.queries, args.seed)
    if args.paired:
        print(paired(work, args))
        return 0
    outcomes = []
    for key in keys:
        print(f"[fleet] {SERVINGS[key][0]} ...", file=sys.stderr, flush=True)
        outcomes.append(run_serving(key, work, args))
    print(table(outcomes, work, args))
    return 0 if all(not o.failed and o.wrong == 0 and o.errors == 0 for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
