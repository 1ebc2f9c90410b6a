"""What a path costs through the sidecar's socket, beside its floor and Godot's own A*: one run.

    .venv/bin/python bench/bridge_speed.py            # every section (several minutes)
    .venv/bin/python bench/bridge_speed.py --quick    # fewer queries and maps

A command, not a test. Every figure is a median per query from a Python msgpack-RPC client on
loopback (bridge.Client, one connection, one request at a time) unless it says otherwise. The
sidecar is timed once all its kernels are loaded; single requests of different kinds (sections 1
and 3) are timed in short interleaved rounds with the same rest before every round, and the
machine's load is printed beside them:

1. Floor: a raw msgpack echo server (its own process, answering a same-shaped response) on
   asyncio's own event loop and on uvloop (the sidecar's, where installed: ratios are against the
   echo on the sidecar's loop) against ``graph.list`` (the sidecar's own trip, no search),
   ``path.find`` of a 1-step path on an 8x8 grid and a short path on a 64x64 rooms grid; then
   where one request's time goes, each stage timed in this process on the same request (client
   encode, server decode, validation, search, result encode, client decode) and the socket + event
   loop as the rest.
2. Exact search through the socket against Godot's AStarGrid2D in process (best of jumping off and
   on, same queries, from bench/grid_peers.py) on the benchmark maps of 256x256 and more and a
   generated random 256x256 map with 25% blocked cells; cost mismatches against the optimal lengths.
3. HPA* (``hierarchical``) through the socket against exact search through the socket, 512+ maps:
   one query per request (each pays the trip), its longest quarter, HPA* the first time a query is
   asked (its tables and trees read cold) and the second, and the same queries batched
   in one ``path.find_many`` and in one ``path.find_packed``; the trip of a hierarchical request
   with no search (each start to itself), which bounds the one-per-request ratio.
4. ``path.find_many`` of 1,000 queries on a 512x512 map with 1 and 2 search threads; 32 concurrent
   clients of single ``path.find`` on it: errors, throughput, p99.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import math
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench import grid_peers  # noqa: E402
from bench.grid_speed import DATA, load, mismatches  # noqa: E402
from bench.hpa_speed import CLUSTER  # noqa: E402
from bench.request_stages import exact_breakdown, hierarchical_breakdown, rooms  # noqa: E402
from bench.request_timing import (  # noqa: E402
    ROUND_PAUSE,
    Placement,
    batched,
    interleaved,
    machine_state,
    median_us,
    packed,
    start_echoes,
    start_warm_sidecar,
    stop_echoes,
    timed,
)
from bridge.cli.serve import LOOPS, event_loop_runner  # noqa: E402
from bridge.client import Client  # noqa: E402
from bridge.client.sidecar import Sidecar, start_sidecar  # noqa: E402
from bridge.wire.errors import BridgeError  # noqa: E402
from python_core.grid import GridGraph  # noqa: E402

BIG_MAPS = ("32room_000", "Aurora", "brc202d", "den520d", "maze-400-4", "random512-10-0")
HPA_MAPS = ("32room_000", "Aurora", "brc202d", "random512-10-0")


def _random_map(size: int = 256, blocked: float = 0.25, seed: int = 5) -> np.ndarray[Any, np.dtype[np.bool_]]:
    return np.random.default_rng(seed).random((size, size)) >= blocked


# -- 1. floor and breakdown --------------------------------------------------------------------


def floor_section(sidecar: Sidecar, calls: int, loop: str, pin: bool = False) -> None:
    """Section 1, the sidecar running on ``loop`` (``asyncio`` or ``uvloop``): the echo floor on
    asyncio's loop and on uvloop (where it is installed), ratios against the floor of the
    sidecar's loop; ``pin``: every kind timed free and pinned (:class:`Placement`: this client on
    one CPU, the sidecar and the echoes on the other), in the same interleaved rounds."""
    print(f"== 1. one request against the loopback floor (the sidecar's event loop: {loop})")
    loops = ("asyncio", "uvloop") if event_loop_runner()[0] == "uvloop" else ("asyncio",)
    echoes = start_echoes(loops)
    tiny = Client.query("tiny", (0, 0), (1, 0))
    short = Client.query("rooms", (3, 3), (20, 13))
    with contextlib.ExitStack() as stack:
        client = stack.enter_context(sidecar.connect())
        raws = {
            name: stack.enter_context(Client.connect("127.0.0.1", port)) for name, (_, port) in echoes.items()
        }
        client.load_grid("tiny", np.ones((8, 8), dtype=bool), diagonal="only_if_no_obstacles")
        client.load_grid("rooms", rooms(), diagonal="only_if_no_obstacles")
        kinds: dict[str, tuple[Client, str, dict[str, Any]]] = {
            **{f"echo {name}": (raw, "path.find", tiny) for name, raw in raws.items()},
            "list": (client, "graph.list", {}),
            "tiny": (client, "path.find", tiny),
            "rooms": (client, "path.find", short),
        }
        for target, method, params in kinds.values():
            timed(target, method, params, 100)  # every kind warmed alike
        print(f"  machine before: {machine_state()}")
        per_round = 50
        rounds = max(1, calls // per_round)
        servers = [sidecar.process.pid, *(echo.pid for echo, _ in echoes.values())]
        placement = Placement(servers) if pin else None
        calls_of = {name: functools.partial(t.call, m, p) for name, (t, m, p) in kinds.items()}
        if placement is not None:
            calls_of |= {f"{name} pinned": call for name, call in calls_of.items()}
        pooled = interleaved(
            calls_of,
            rounds,
            per_round,
            None if placement is None else lambda k: placement.use(k.endswith("pinned")),
        )
        if placement is not None:
            placement.free()
        print(f"  machine after:  {machine_state()}")
        # the method of earlier sessions, printed beside: each kind's calls back to back, kind
        # after kind, three times, the fastest run's median counting
        rows = []
        for _ in range(3):
            for name, (target, method, params) in kinds.items():
                timed(target, method, params, 100)
                rows.append((name, median_us(timed(target, method, params, calls))))
    stop_echoes(echoes)
    median = {name: median_us(samples) for name, samples in pooled.items()}
    best = {name: min(us for n, us in rows if n == name) for name in kinds}
    print(
        f"  median of {rounds} interleaved rounds x {per_round} calls per kind ({ROUND_PAUSE * 1e3:.0f} ms "
        "rest before every round); [back to back: best of 3 runs of each kind's calls in a row]"
    )
    floor = f"echo {loop}"
    for name in loops:
        label = f"raw {name}+msgpack echo round trip:"
        role = "(the floor: the sidecar's loop)" if f"echo {name}" == floor else "(the other loop)"
        print(f"  {label:<40} {median[f'echo {name}']:7.0f} us  {role:<31} [{best[f'echo {name}']:4.0f} us]")
    for name, label in (
        ("list", "graph.list (no search)"),
        ("tiny", "1-step path on 8x8"),
        ("rooms", "26-step path on 64x64 rooms"),
    ):
        ratio, old = median[name] / median[floor], best[name] / best[floor]
        print(
            f"  {label + ':':<40} {median[name]:7.0f} us  = {ratio:.2f}x the floor  "
            f"[{best[name]:4.0f} us = {old:.2f}x]"
        )
    if placement is not None:
        print(f"  pinned ({placement.describe()}), in the same rounds:")
        for name in loops:
            label = f"raw {name}+msgpack echo round trip:"
            print(f"  {label:<40} {median[f'echo {name} pinned']:7.0f} us")
        pinned_floor = median[f"{floor} pinned"]
        for name in ("list", "tiny", "rooms"):
            us = median[f"{name} pinned"]
            print(f"  {name + ':':<40} {us:7.0f} us  = {us / pinned_floor:.2f}x the floor")
    exact_breakdown(median["rooms"])


# -- 2 and 3. searches through the socket ------------------------------------------------------


def _through_socket(
    client: Client, graph: str, queries: list[Any], *, warm: bool = True, **options: Any
) -> tuple[list[float], list[float]]:
    costs, secs = [], []
    params = [Client.query(graph, s, g, **options) for s, g in queries]
    if warm:
        client.call("path.find", params[0])
    for p in params:
        t0 = time.perf_counter()
        try:
            result = client.call("path.find", p)
        except BridgeError:
            result = {"status": "error", "cost": math.nan}
        secs.append(time.perf_counter() - t0)
        costs.append(float(result["cost"]) if result["status"] == "found" else math.nan)
    return costs, secs


def exact_section(sidecar: Sidecar, godot: Path, maps: tuple[str, ...], count: int) -> None:
    print("== 2. exact search through the socket against Godot's AStarGrid2D in process (median ms)")
    print(f"  {'map':<16} {'size':>9} {'ours':>8} {'godot':>8} {'ratio':>6} {'mismatch':>8}")
    cases: list[tuple[str, Any, list[Any], list[float]]] = []
    mask = _random_map()
    grid = GridGraph(mask, diagonal="only_if_no_obstacles")
    pairs = [
        (s, g)
        for s, g in zip(np.argwhere(mask)[::97][:, ::-1], np.argwhere(mask)[::-89][:, ::-1], strict=False)
        if grid.find_path(tuple(s), tuple(g)).found
    ][:count]
    queries = [((int(s[0]), int(s[1])), (int(g[0]), int(g[1]))) for s, g in pairs]
    lengths = [grid.find_path(s, g).cost for s, g in queries]
    cases.append(("random256-25", mask, queries, lengths))
    for name in maps:
        m, q, lengths = load(name, count, 1)
        cases.append((name, m, q, lengths))
    with sidecar.connect(timeout=600) as client:
        for name, mask, queries, lengths in cases:
            client.load_grid(name, mask, diagonal="only_if_no_obstacles")
            costs, secs = _through_socket(client, name, queries)
            ours = statistics.median(secs) * 1e3
            (_, off), (_, on) = grid_peers.run_godot(godot, mask, queries)
            theirs = min(statistics.median(off), statistics.median(on)) * 1e3
            h, w = mask.shape
            print(
                f"  {name:<16} {f'{w}x{h}':>9} {ours:8.3f} {theirs:8.3f} {ours / theirs:6.2f} "
                f"{mismatches(costs, lengths):8d}",
                flush=True,
            )
            client.drop(name)


def hpa_section(
    sidecar: Sidecar, maps: tuple[str, ...], count: int, pin: bool = False, stages: bool = True
) -> None:
    """Each map with the hierarchy bench/hpa_speed.py gives it (64-cell clusters where a 32-cell
    graph's all-pairs table would not fit, its memory budgets), one query per request and then
    the same queries in one ``path.find_many`` (the trip shared); the one-per-request columns
    (exact, HPA*, trip) in short interleaved rounds (:func:`_single_requests`), with ``pin`` free
    and pinned (:class:`Placement`) in the same rounds; with ``stages``, where a hierarchical
    request's time goes (:func:`hierarchical_breakdown`)."""
    print("== 3. HPA* through the socket against exact search through the socket (median ms)")
    print("  one request per query: the trip (echo floor + the server's own work, section 1) is in")
    print("  every HPA* figure; batched: the same queries in one path.find_many, per query; packed:")
    print("  the same in one path.find_packed (endpoints and answers as arrays); trip: a hierarchical")
    print("  request from each start to itself (no search), the bound of one per request")
    placement = Placement([sidecar.process.pid]) if pin else None
    with sidecar.connect(timeout=600) as client:
        for name in maps:
            mask, queries, lengths = load(name, count, 2)
            cluster = CLUSTER.get(name, 32)
            hierarchy = {"cluster_size": cluster, "tree_mb": 512, "table_mb": 64}  # hpa_speed's budgets
            client.load_grid(name, mask, diagonal="only_if_no_obstacles", hierarchy=hierarchy)
            timings, costs = _single_requests(client, name, queries, placement)
            ratio = [c / length for c, length in zip(costs, lengths, strict=True) if not math.isnan(c)]
            # the longest quarter of the scenario buckets: where a game reaches for HPA*
            longest = sorted(range(len(lengths)), key=lengths.__getitem__)[-max(1, len(lengths) // 4) :]
            e, h, t, el, hl = _one_per_request(timings[False], longest)
            first, again = (statistics.median(vs[k] for vs in timings[False]["hpa"]) * 1e3 for k in (0, 1))
            eb, hb = (
                batched(client, name, queries, {}),
                batched(client, name, queries, {"hierarchical": True}),
            )
            ep, hp = (
                packed(client, name, queries, {}),
                packed(client, name, queries, {"hierarchical": True}),
            )
            print(
                f"  {name:<16} (cluster {cluster}) one per request: exact {e:6.3f} HPA* {h:6.3f} = "
                f"{e / h:4.1f}x (trip {t:5.3f}: at most {e / t:4.1f}x); "
                f"longest quarter: exact {el:6.3f} HPA* {hl:6.3f} = {el / hl:4.1f}x; "
                f"HPA* first asked {first:5.3f}, again {again:5.3f} | "
                f"batched: exact {eb:6.3f} HPA* {hb:6.3f} = {eb / hb:4.1f}x | "
                f"packed: exact {ep:6.3f} HPA* {hp:6.3f} = {ep / hp:4.1f}x | "
                f"cost/optimal {statistics.mean(ratio):.4f}",
                flush=True,
            )
            if placement is not None:
                e, h, t, el, hl = _one_per_request(timings[True], longest)
                print(
                    f"  {'':<16} pinned ({placement.describe()}), same rounds: exact {e:6.3f} HPA* {h:6.3f} "
                    f"= {e / h:4.1f}x (trip {t:5.3f}: at most {e / t:4.1f}x); "
                    f"longest quarter: exact {el:6.3f} HPA* {hl:6.3f} = {el / hl:4.1f}x",
                    flush=True,
                )
            client.drop(name)
            if stages:
                _, h, t, _, _ = _one_per_request(timings[False], longest)
                hierarchical_breakdown(name, mask, queries, hierarchy, {"HPA*": h * 1e3, "trip": t * 1e3})


Samples = list[list[float]]
"""Seconds of each query's requests (per query, one sample a pass)."""


def _one_per_request(kinds: dict[str, Samples], longest: list[int]) -> tuple[float, ...]:
    """Milliseconds: the medians of exact, HPA* and trip, and of exact and HPA* on ``longest``."""
    e, h, t = (statistics.median(v for vs in kinds[k] for v in vs) * 1e3 for k in ("exact", "hpa", "trip"))
    el, hl = (statistics.median(v for i in longest for v in kinds[k][i]) * 1e3 for k in ("exact", "hpa"))
    return e, h, t, el, hl


def _single_requests(
    client: Client,
    graph: str,
    queries: list[Any],
    placement: Placement | None = None,
    *,
    passes: int = 2,
    chunk: int = 10,
) -> tuple[dict[bool, dict[str, Samples]], list[float]]:
    """Seconds of each query as one exact ``path.find`` (``"exact"``), one hierarchical
    (``"hpa"``), and one hierarchical from its start to itself (``"trip"``: no search), timed in
    short interleaved rounds (``chunk`` queries of each kind in turn, :data:`ROUND_PAUSE` of rest
    before every round), free (key False) and, with a ``placement``, pinned (key True: every
    round again, pinned, right after the free one); and the hierarchical costs."""
    modes = (False, True) if placement is not None else (False,)
    timings: dict[bool, dict[str, Samples]] = {
        mode: {kind: [[] for _ in queries] for kind in ("exact", "hpa", "trip")} for mode in modes
    }
    costs: list[float] = []
    for options in ({}, {"hierarchical": True}):  # each kind warmed alike
        client.call("path.find", Client.query(graph, *queries[0], **options))
    selves = [(s, s) for s, _ in queries]
    kinds: tuple[tuple[str, list[Any], dict[str, Any]], ...] = (
        ("exact", queries, {}),
        ("hpa", queries, {"hierarchical": True}),
        ("trip", selves, {"hierarchical": True}),
    )
    for _ in range(passes):
        costs = []
        for first in range(0, len(queries), chunk):
            part = range(first, min(first + chunk, len(queries)))
            for mode in modes:
                if placement is not None:
                    placement.use(mode)
                for kind, ends, options in kinds:
                    time.sleep(ROUND_PAUSE)
                    found, secs = _through_socket(
                        client, graph, [ends[i] for i in part], warm=False, **options
                    )
                    for i, sec in zip(part, secs, strict=True):
                        timings[mode][kind][i].append(sec)
                    if kind == "hpa" and not mode:
                        costs += found
    if placement is not None:
        placement.free()
    return timings, costs


# -- 4. parallel batches and many clients ------------------------------------------------------


def _map_512() -> np.ndarray[Any, np.dtype[np.bool_]]:
    walkable = np.random.default_rng(7).random((512, 512)) > 0.25
    walkable[0, :] = walkable[:, 0] = True
    return walkable


def _queries(mask: np.ndarray[Any, Any], count: int, seed: int) -> list[dict[str, Any]]:
    cells = np.argwhere(mask)[:, ::-1]
    picks = cells[np.random.default_rng(seed).integers(0, len(cells), (count, 2))]
    return [Client.query("m512", tuple(map(int, a)), tuple(map(int, b))) for a, b in picks]


def parallel_section(count: int, clients: int, per_client: int) -> None:
    print("== 4. parallel work on a 512x512 map (25% blocked)")
    mask = _map_512()
    queries = _queries(mask, count, 3)
    rates = {}
    for threads in (1, 2):
        with start_sidecar(
            "--threads", str(threads), "--log-level", "WARNING", stderr=subprocess.DEVNULL
        ) as car:
            with car.connect(timeout=600) as client:
                client.load_grid("m512", mask, diagonal="only_if_no_obstacles")
                client.find_many(queries[:8])
                t0 = time.perf_counter()
                results = client.find_many(queries)
                rates[threads] = len(results) / (time.perf_counter() - t0)
                errors = sum(r["status"] == "error" for r in results)
            rate = rates[threads]
            print(f"  path.find_many x {count}, {threads} thread(s): {rate:8.0f} queries/s, errors {errors}")
            if threads == 2:
                many_clients(car, mask, clients, per_client)
    print(f"  find_many speed-up, 2 threads / 1: {rates[2] / rates[1]:.2f}x")


def many_clients(sidecar: Sidecar, mask: np.ndarray[Any, Any], clients: int, per_client: int) -> None:
    def work(seed: int) -> tuple[int, list[float]]:
        errors, secs = 0, []
        with sidecar.connect(timeout=600) as client:
            for query in _queries(mask, per_client, 100 + seed):
                t0 = time.perf_counter()
                try:
                    client.call("path.find", query)
                except (BridgeError, OSError):
                    errors += 1
                secs.append(time.perf_counter() - t0)
        return errors, secs

    t0 = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        outcomes = list(pool.map(work, range(clients)))
    elapsed = time.perf_counter() - t0
    errors = sum(e for e, _ in outcomes)
    secs = [s for _, ss in outcomes for s in ss]
    print(
        f"  {clients} clients x {per_client} path.find: {len(secs) / elapsed:8.0f} queries/s, "
        f"p50 {np.percentile(secs, 50) * 1e3:.2f} ms, p99 {np.percentile(secs, 99) * 1e3:.2f} ms, "
        f"errors {errors}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="fewer queries and maps")
    parser.add_argument("--godot", type=Path, default=REPO / ".godot" / "godot")
    parser.add_argument("--sections", default="1234", help="which sections to run (default 1234)")
    parser.add_argument("--maps", nargs="+", metavar="MAP", help="sections 2 and 3 on these maps only")
    parser.add_argument(
        "--pin",
        action="store_true",
        help="sections 1 and 3 also pinned (this client on one CPU, the servers on another), same rounds",
    )
    parser.add_argument(
        "--no-stages", action="store_true", help="section 3 without its in-process stage breakdown"
    )
    parser.add_argument(
        "--loop", default="auto", choices=LOOPS, help="the sidecar's event loop (serve --loop; default auto)"
    )
    args = parser.parse_args()
    calls, count = (300, 40) if args.quick else (1000, 100)
    maps = BIG_MAPS[:3] if args.quick else BIG_MAPS
    print(f"machine: {machine_state()}, data {DATA}")
    loop = event_loop_runner(args.loop)[0]  # what the sidecar, in this environment, runs on
    with start_warm_sidecar("--threads", "2", "--loop", args.loop) as sidecar:
        if "1" in args.sections:
            floor_section(sidecar, calls, loop, args.pin)
        if "2" in args.sections:
            exact_section(sidecar, args.godot, tuple(args.maps or maps), count)
        if "3" in args.sections:
            hpa_maps = args.maps or (HPA_MAPS[:2] if args.quick else HPA_MAPS)
            hpa_section(sidecar, tuple(hpa_maps), count, args.pin, not args.no_stages)
    if "4" in args.sections:
        parallel_section(1000, 32, 100 if args.quick else 1000)


if __name__ == "__main__":
    main()
