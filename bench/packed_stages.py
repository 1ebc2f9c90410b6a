"""Where a small ``path.find_packed`` request's time goes: the same batch (1, 10, 100 queries of a
map's scenario) through a warm sidecar's socket beside one ``path.find``, and each stage of the
server's pipeline timed in this process on the same batch and graph; the socket, the event loop,
the hop to a search thread and back are what is left of the round trip.

    .venv/bin/python bench/packed_stages.py                      # brc202d and 32room_000
    .venv/bin/python bench/packed_stages.py --maps brc202d --sizes 1 100

A command, not a test: medians of interleaved rounds (every kind of request in turn, the same rest
before each), the machine's load printed beside them.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from bench.grid_speed import load  # noqa: E402
from bench.hpa_speed import CLUSTER  # noqa: E402
from bench.request_stages import loaded_registry  # noqa: E402
from bench.request_timing import interleaved, machine_state, start_warm_sidecar  # noqa: E402
from bridge.client import Client  # noqa: E402
from bridge.serving.batch_runner import PACKED_INLINE  # noqa: E402
from bridge.serving.packed import (  # noqa: E402
    check_packed,
    join_packed,
    packed_message,
    packed_pieces,
    parse_packed,
    run_packed_chunk,
)
from bridge.wire.answers import AnswerBudget, InFlight  # noqa: E402
from bridge.wire.stream import pack  # noqa: E402

CAP = 10**7
"""The expansion cap the in-process stages are given (the sidecar's own is larger than any query)."""


def socket_times(
    client: Client, name: str, queries: list[Any], sizes: list[int], rounds: int
) -> dict[str, float]:
    """Microseconds (median over ``rounds``) of each kind of request through the socket: one
    ``path.find`` of the first query (exact and HPA*), and ``path.find_packed`` of the first ``n``
    queries for each size, exact and HPA*."""
    starts = np.array([s for s, _ in queries], dtype=np.int32)
    goals = np.array([g for _, g in queries], dtype=np.int32)
    calls: dict[str, Callable[[], Any]] = {}
    kinds: tuple[tuple[str, dict[str, Any]], ...] = (("exact", {}), ("HPA*", {"hierarchical": True}))
    for label, options in kinds:
        one = Client.query(name, *queries[0], **options)
        calls[f"path.find {label}"] = functools.partial(client.call, "path.find", one)
        for n in sizes:
            calls[f"packed {n:>3} {label}"] = functools.partial(
                client.find_packed, name, starts[:n], goals[:n], **options
            )
    for call in calls.values():
        call()
    samples = interleaved(calls, rounds, per_round=1)
    return {key: statistics.median(v) * 1e6 for key, v in samples.items()}


def stage_times(
    name: str, mask: np.ndarray[Any, Any], hierarchy: dict[str, Any], queries: list[Any], *, n: int,
    hierarchical: bool, threads: int = 2, reps: int = 20,
) -> dict[str, float]:  # fmt: skip
    """Microseconds (best of ``reps``) of each stage of the server's pipeline for the first ``n``
    queries, on the graph the sidecar builds from the same load."""
    registry = loaded_registry(name, mask, hierarchy)
    starts = np.array([s for s, _ in queries[:n]], dtype="<i4").tobytes()
    goals = np.array([g for _, g in queries[:n]], dtype="<i4").tobytes()
    raw = {"graph": name, "starts": starts, "goals": goals, "cells": True}
    if hierarchical:
        raw["options"] = {"hierarchical": True}
    batch = parse_packed(raw, 100_000)
    count = threads

    def budget() -> AnswerBudget:
        return AnswerBudget(1 << 30, "path.find_packed", InFlight(1 << 30))

    def run(piece: range) -> dict[str, Any]:
        return run_packed_chunk(batch, piece, registry=registry, shared={name}, cap=CAP, default=None,
                                budget=budget())  # fmt: skip

    pieces = packed_pieces(batch, count, registry)
    whole = range(len(batch))
    parts = [run(p) for p in pieces]
    one = [run(whole)]
    joined = join_packed(parts)
    stages: dict[str, Callable[[], Any]] = {
        "parse_packed": lambda: parse_packed(raw, 100_000),
        "check_packed": lambda: check_packed(batch, registry, cap=CAP, default=None),
        "packed_pieces": lambda: packed_pieces(batch, count, registry),
        f"search ({len(pieces)} pieces, run_packed_chunk each)": lambda: [run(p) for p in pieces],
        "search (1 piece)": lambda: run(whole),
        "join_packed (pieces)": lambda: join_packed(parts),
        "pack (joined)": lambda: pack([1, 1, None, joined]),
        "packed_message (pieces)": lambda: packed_message(parts),
        "packed_message (1 piece)": lambda: packed_message(one),
    }
    out = {}
    for label, fn in stages.items():
        best = float("inf")
        for _ in range(reps):
            t0 = time.perf_counter()
            fn()
            best = min(best, time.perf_counter() - t0)
        out[label] = best * 1e6
    return out


def _print_stages(
    name: str, mask: np.ndarray[Any, Any], hierarchy: dict[str, Any], queries: list[Any], *, n: int,
    hierarchical: bool, times: dict[str, float],
) -> None:  # fmt: skip
    """One batch's stages, and what is left of its trip through the socket (the stages its request
    passes: on the event loop, for a hierarchical batch of PACKED_INLINE queries or fewer, parse,
    check, its search and its encoding; else parse, check, pieces, their searches one after the
    other and the answer encoded from them)."""
    label = "HPA*" if hierarchical else "exact"
    stages = stage_times(name, mask, hierarchy, queries, n=n, hierarchical=hierarchical)
    if hierarchical and n <= PACKED_INLINE:
        passed = ["parse_packed", "check_packed", "search (1 piece)", "packed_message (1 piece)"]
    else:
        passed = ["parse_packed", "check_packed", "packed_pieces", "packed_message (pieces)"]
        passed += [k for k in stages if "pieces, run" in k]
    rest = times[f"packed {n:>3} {label}"] - sum(stages[k] for k in passed)
    listed = ", ".join(f"{k} {v:.1f}" for k, v in stages.items())
    print(
        f"  stages of packed {n} {label} (us, in process, best of 20): {listed}; rest of the trip {rest:.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--maps", nargs="+", default=["brc202d", "32room_000"])
    parser.add_argument("--sizes", nargs="+", type=int, default=[1, 10, 100])
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--no-stages", action="store_true", help="the socket figures only")
    args = parser.parse_args()
    print(f"machine: {machine_state()}")
    with start_warm_sidecar("--threads", "2") as sidecar, sidecar.connect(timeout=600) as client:
        for name in args.maps:
            mask, queries, _ = load(name, max(args.sizes), 2)
            hierarchy = {"cluster_size": CLUSTER.get(name, 32), "tree_mb": 512, "table_mb": 64}
            client.load_grid(name, mask, diagonal="only_if_no_obstacles", hierarchy=hierarchy)
            times = socket_times(client, name, queries, args.sizes, args.rounds)
            client.drop(name)
            print(f"== {name}: through the socket (us, median of {args.rounds} interleaved rounds)")
            for key, us in times.items():
                print(f"  {key:<24} {us:9.1f}")
            if args.no_stages:
                continue
            for n in args.sizes:
                for hierarchical in (False, True):
                    _print_stages(name, mask, hierarchy, queries, n=n, hierarchical=hierarchical, times=times)
    print(f"machine after: {machine_state()}")


if __name__ == "__main__":
    main()
