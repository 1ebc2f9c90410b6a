"""Where one request's time goes: each stage of a ``path.find`` timed in this process on the same
request and graph as bench/bridge_speed.py sends through the socket; the socket, the event loop
and the session are what is left of the round trip.

    exact_breakdown(round_trip_us=95.0)                    # section 1's 64x64 rooms request
    hierarchical_breakdown("brc202d", mask, queries, {"cluster_size": 32}, {"HPA*": 110.0, "trip": 67.0})

The stages run hot here (the same call again and again, its memory in the caches); through the
socket each request meets caches the kernel, the client and other processes have used since, so
"the rest" holds that too.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

import msgpack
import numpy as np

from bridge.client import Client
from bridge.methods.hierarchy_params import parse_hierarchy
from bridge.methods.interface import LoadRequest
from bridge.methods.kinds import KINDS
from bridge.methods.params import Params
from bridge.methods.queries import parse_query, run_query
from bridge.methods.registry import GraphEntry, Registry
from bridge.serving.entries import build_entry
from bridge.wire.stream import MessageStream, StreamLimits, pack
from python_core.formats.records import to_record
from python_core.grid import GridGraph

__all__ = ["exact_breakdown", "hierarchical_breakdown", "loaded_registry", "rooms"]

CAP = 10**7
"""The expansion cap the in-process parse is given (the sidecar's own is larger than any query here)."""


def rooms(size: int = 64, room: int = 8) -> np.ndarray[Any, np.dtype[np.bool_]]:
    """Rooms of ``room`` cells with a door in the middle of each wall: a small game level."""
    walkable = np.ones((size, size), dtype=bool)
    walkable[::room, :] = walkable[:, ::room] = False
    walkable[room // 2 :: room, :] = walkable[:, room // 2 :: room] = True
    walkable[0, :] = walkable[:, 0] = True
    return walkable


def exact_breakdown(round_trip_us: float, reps: int = 2000) -> None:
    """Each stage of section 1's 64x64 request, timed here on the same request and graph."""
    grid = GridGraph(rooms(), diagonal="only_if_no_obstacles")
    kind, record = to_record(grid)
    registry = Registry(max_graphs=4)
    registry.put(GraphEntry("rooms", KINDS[kind], KINDS[kind].open(dict(record))))
    params = Client.query("rooms", (3, 3), (20, 13))
    request = [0, 1, "path.find", [params]]

    def stage(fn: Callable[[], Any]) -> float:
        fn()
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        return (time.perf_counter() - t0) / reps * 1e6

    wire = pack(request)
    stream = MessageStream(StreamLimits(max_bytes=1 << 20, max_depth=32, max_items=1 << 16))
    query = parse_query(params, registry, CAP)
    navigator = registry.get("rooms").graph
    result = run_query(navigator, query)
    answer = pack([1, 1, None, result])

    def decode() -> list[Any]:
        stream.feed(wire)
        return list(stream)

    stages = {
        "client encode (msgpack.packb)": stage(lambda: msgpack.packb(request, use_bin_type=True)),
        "server decode (MessageStream)": stage(decode),
        "validate (parse_query)": stage(lambda: parse_query(params, registry, CAP)),
        "search + result map (run_query)": stage(lambda: run_query(navigator, query)),
        "server encode (pack)": stage(lambda: pack([1, 1, None, result])),
        "client decode (msgpack.unpackb)": stage(lambda: msgpack.unpackb(answer, raw=False)),
    }
    _print(stages, round_trip_us)


def loaded_registry(name: str, mask: np.ndarray[Any, Any], hierarchy: dict[str, Any]) -> Registry:
    """A registry holding the grid ``name`` (walkable ``mask``, diagonals only if no obstacles) with
    ``hierarchy``, built as the sidecar builds it from the same ``graph.load_grid``."""
    h, w = mask.shape
    record = {"width": w, "height": h, "cells": np.ascontiguousarray(mask, dtype=np.uint8).tobytes()}
    record["diagonal"] = "only_if_no_obstacles"
    spec = parse_hierarchy(Params(dict(hierarchy), "hierarchy"))
    registry = Registry(max_graphs=4)
    registry.put(build_entry(LoadRequest(name, KINDS["grid"], record, spec), None))
    return registry


def hierarchical_breakdown(
    name: str,
    mask: np.ndarray[Any, Any],
    queries: Sequence[Any],
    hierarchy: dict[str, Any],
    round_trips_us: dict[str, float],
    *,
    reps: int = 5,
) -> None:
    """Each stage of section 3's hierarchical requests on ``name`` (its ``queries``, and each start
    to itself: the trip), on the graph and hierarchy the sidecar builds from the same load; each
    stage is the median over the queries of each query's best of ``reps`` calls.
    ``round_trips_us`` holds the socket's medians of ``"HPA*"`` and ``"trip"``."""
    registry = loaded_registry(name, mask, hierarchy)
    navigator = registry.get(name).graph
    stream = MessageStream(StreamLimits(max_bytes=1 << 20, max_depth=32, max_items=1 << 16))
    print(
        f"    where a hierarchical request's time goes on {name} (us; in process: the median over its "
        "queries of each one's best call)"
    )
    print(f"    {'':<38} {'HPA*':>8} {'trip':>8}")
    columns: dict[str, dict[str, float]] = {}
    asleep: dict[str, float] = {}
    for label, ends in (("HPA*", list(queries)), ("trip", [(s, s) for s, _ in queries])):
        params = [Client.query(name, s, g, hierarchical=True) for s, g in ends]
        requests = [[0, 1, "path.find", [p]] for p in params]
        wires = [pack(r) for r in requests]
        parsed = [parse_query(p, registry, CAP) for p in params]
        results = [run_query(navigator, q) for q in parsed]  # the sidecar's way (find_plain)
        answers = [pack([1, 1, None, r]) for r in results]

        def best(items: Sequence[Any], fn: Callable[[Any], Any]) -> float:
            return _median_best(items, fn, reps)

        columns[label] = {
            "client encode (msgpack.packb)": best(requests, lambda r: msgpack.packb(r, use_bin_type=True)),
            "server decode (MessageStream)": best(wires, stream.decode_whole),
            "validate (parse_query)": best(params, lambda p: parse_query(p, registry, CAP)),
            "HPA* search + result map (run_query)": best(parsed, lambda q: run_query(navigator, q)),
            "server encode (pack)": best(results, lambda r: pack([1, 1, None, r])),
            "client decode (msgpack.unpackb)": best(answers, lambda a: msgpack.unpackb(a, raw=False)),
        }
        asleep[label] = _median_after_sleep(parsed, lambda q: run_query(navigator, q))
    for stage in columns["HPA*"]:
        print(f"    {stage:<38} {columns['HPA*'][stage]:8.1f} {columns['trip'][stage]:8.1f}")
    rest = {label: round_trips_us[label] - sum(column.values()) for label, column in columns.items()}
    print(f"    {'socket, event loop, session (the rest)':<38} {rest['HPA*']:8.1f} {rest['trip']:8.1f}")
    print(
        f"    {'round trip (socket median)':<38} {round_trips_us['HPA*']:8.1f} {round_trips_us['trip']:8.1f}"
    )
    label = f"(the search, each {NAP * 1e6:.0f} us after a sleep)"
    print(f"    {label:<38} {asleep['HPA*']:8.1f} {asleep['trip']:8.1f}")
    search = columns["HPA*"]["HPA* search + result map (run_query)"]
    beyond = round_trips_us["HPA*"] - round_trips_us["trip"]
    print(
        f"    beyond the trip: {beyond:.1f} us, of which the search in process {search:.1f} us "
        f"({asleep['HPA*'] - asleep['trip']:.1f} us more than the trip's after a sleep) and the rest's "
        f"growth {rest['HPA*'] - rest['trip']:.1f} us"
    )


NAP = 200e-6
"""Seconds asleep before each call of :func:`_median_after_sleep` (about a request's wait): on the
benchmark VM an HPA* query then took 1.5-2.5x its time called again at once, as through the socket."""


def _median_after_sleep(items: Sequence[Any], fn: Callable[[Any], Any]) -> float:
    """Microseconds: the median over ``items`` of one call of ``fn`` each, made :data:`NAP` after
    a sleep (its caches and branch history partly lost, as a server's between two requests)."""
    times = []
    for item in items:
        time.sleep(NAP)
        t0 = time.perf_counter()
        fn(item)
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e6


def _median_best(items: Sequence[Any], fn: Callable[[Any], Any], reps: int) -> float:
    """Microseconds: the median over ``items`` of each one's fastest of ``reps`` calls of ``fn``."""
    best = []
    for item in items:
        fn(item)
        fastest = float("inf")
        for _ in range(reps):
            t0 = time.perf_counter()
            fn(item)
            fastest = min(fastest, time.perf_counter() - t0)
        best.append(fastest)
    return statistics.median(best) * 1e6


def _print(stages: dict[str, float], round_trip_us: float) -> None:
    for name, us in stages.items():
        print(f"    {name:<38} {us:7.1f} us")
    rest = round_trip_us - sum(stages.values())
    print(f"    {'socket, event loop, session (the rest)':<38} {rest:7.1f} us")
