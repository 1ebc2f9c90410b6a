"""Exact grid search, ours against Godot's AStarGrid2D and Python peers: one run, same maps, same queries.

Usage::

    .venv/bin/python bench/grid_speed.py                    # every map, 200 queries each (many minutes)
    .venv/bin/python bench/grid_speed.py --quick            # 40 queries, no generated maps, no sidecar
    .venv/bin/python bench/grid_speed.py --maps den520d Aurora --queries 100
    .venv/bin/python bench/grid_speed.py --maps random256 maze-400-4 32room_000 --no-peers --no-reference
    .venv/bin/python bench/grid_speed.py --weighted --maps random256 den520d --no-peers   # terrain weights

Maps: every ``.map`` in /work/shared/benchmarks/grid plus two generated 2048 x 2048 grids
(bench/generated_maps.py). Queries: sampled from each scenario file with a fixed seed, one from each
of N equal slices of the file (so the longest buckets are in), or random pairs on the generated
maps, whose optimal lengths come from our exact A* and are cross-checked against Godot. Every cost
is checked against the optimal length (tolerance ``10**(floor(log10 L) - 5)``). Prints a table
(median and p95 ms per query, ratio to Godot's best of jumping off/on, mismatches), then writes
docs/benchmarks/grid_speed.md and grid_speed.png. Sidecar memory, start-up and find_many scaling
come from bench/sidecar_metrics.py (skipped with --no-sidecar).
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench import grid_peers, sidecar_metrics  # noqa: E402
from bench.generated_maps import GENERATED, random_queries, terrain_weights  # noqa: E402
from python_core.compiled import JIT_ENABLED, warm_up  # noqa: E402
from python_core.formats.movingai import length_tolerance, read_map, read_scenarios  # noqa: E402
from python_core.grid import GridGraph  # noqa: E402
from python_core.grid.search import dispatch, reference  # noqa: E402
from python_core.result import PathResult  # noqa: E402

DATA = REPO.parent / "shared" / "benchmarks" / "grid"
OUT = REPO / "docs" / "benchmarks"
SMALL_CELLS = 70_000  # maps up to this size also run the slow pure-Python peers on every query
SLOW_QUERIES = 10  # queries the pure-Python peers get on larger maps
OURS = ("python A*", "compiled A*", "JPS", "ours (auto)")
GODOT = ("godot A*", "godot jumping")


@dataclass
class Row:
    """One variant on one map."""

    map_name: str
    size: str
    variant: str
    seconds: list[float]
    mismatches: int

    def median_ms(self) -> float:
        return 1000.0 * float(np.median(self.seconds)) if self.seconds else math.nan

    def p95_ms(self) -> float:
        return 1000.0 * float(np.percentile(self.seconds, 95)) if self.seconds else math.nan


def sample_scenarios(
    name: str, count: int, seed: int
) -> tuple[list[tuple[tuple[int, int], ...]], list[float]]:
    """One random scenario from each of ``count`` equal slices of the file (longest buckets too)."""
    scenarios = read_scenarios(DATA / f"{name}.map.scen")
    rng = np.random.default_rng(seed)
    edges = np.linspace(0, len(scenarios), min(count, len(scenarios)) + 1).astype(int)
    picked = [scenarios[int(rng.integers(a, b))] for a, b in itertools.pairwise(edges)]
    return [(s.start, s.goal) for s in picked], [s.optimal_length for s in picked]


def load(
    name: str, count: int, seed: int
) -> tuple[np.ndarray, list[tuple[tuple[int, int], ...]], list[float]]:
    """Mask, queries and optimal lengths of a benchmark or generated map."""
    if name in GENERATED:
        mask = GENERATED[name]()
        grid = GridGraph(mask, diagonal="only_if_no_obstacles")
        queries, lengths = [], []
        # Small maps take their optimal lengths from the reference A* (not the code under test).
        oracle = reference.find_path if mask.size <= SMALL_CELLS else _compiled_astar
        for s, g in random_queries(mask, 2 * count, seed=seed):
            result = oracle(grid, s, g)
            if result.found and len(queries) < count:
                queries.append((s, g))
                lengths.append(result.cost)
        return mask, queries, lengths
    queries, lengths = sample_scenarios(name, count, seed)
    return read_map(DATA / f"{name}.map"), queries, lengths


def _compiled_astar(grid: GridGraph, start: tuple[int, int], goal: tuple[int, int]) -> PathResult:
    return dispatch.find_path(grid, start, goal, method="astar")


def mismatches(costs: list[float], lengths: list[float]) -> int:
    """Costs off their optimal length by more than the scenario tolerance (no path counts)."""
    return sum(1 for c, L in zip(costs, lengths, strict=False) if not abs(c - L) <= length_tolerance(L))


def time_ours(grid: GridGraph, queries: list, method: str) -> tuple[list[float], list[float]]:
    """Per-query seconds and costs of grid.find_path, or of the reference A* for ``"reference"``
    (validation and PathResult included)."""

    def find(s: tuple[int, int], g: tuple[int, int]) -> PathResult:
        if method == "reference":
            return reference.find_path(grid, s, g)
        return dispatch.find_path(grid, s, g, method=method)

    find(queries[0][0], queries[0][1])  # build caches untimed
    costs, secs = [], []
    for s, g in queries:
        t0 = time.perf_counter()
        result = find(s, g)
        secs.append(time.perf_counter() - t0)
        costs.append(result.cost if result.found else math.nan)
    return costs, secs


def bench_map(name: str, args: argparse.Namespace) -> list[Row]:
    """Every variant on one map (with ``--weighted``, on the map with terrain weights)."""
    mask, queries, lengths = load(name, args.queries, args.seed)
    h, w = mask.shape
    size = f"{w}x{h}"
    small = mask.size <= SMALL_CELLS
    weights = terrain_weights(mask.shape, seed=args.seed) if args.weighted else None
    grid = GridGraph(mask, diagonal="only_if_no_obstacles", weights=weights)
    if weights is not None:
        name = f"{name}+weights"
        lengths = weighted_lengths(grid, queries, small=small)
    rows = []
    for variant, run, few in our_runs(grid, mask, name, args, small=small):
        subset = queries[:SLOW_QUERIES] if few else queries
        costs, secs = run(subset)
        rows.append(Row(name, size, variant, secs, mismatches(costs, lengths)))
        print(f"  {name:>16} {variant:<18} {rows[-1].median_ms():9.3f} ms", flush=True)
    if args.godot.exists():
        (off_c, off_t), (on_c, on_t) = grid_peers.run_godot(args.godot, mask, queries, weights=weights)
        rows.append(Row(name, size, "godot A*", off_t, mismatches(off_c, lengths)))
        if weights is None:  # Godot's jumping ignores weight scales: no exact peer on weighted maps
            rows.append(Row(name, size, "godot jumping", on_t, mismatches(on_c, lengths)))
        print(f"  {name:>16} godot A* / jumping  {median_ms(off_t):9.3f} / {median_ms(on_t):.3f} ms")
    return rows


Runner = Callable[[list], tuple[list[float], list[float]]]


def our_runs(
    grid: GridGraph, mask: np.ndarray, name: str, args: argparse.Namespace, *, small: bool
) -> list[tuple[str, Runner, bool]]:
    """``(variant, runner, few queries only)`` of our searches and the Python peers."""
    runs: list[tuple[str, Runner, bool]] = [("compiled A*", lambda q: time_ours(grid, q, "astar"), False)]
    if not args.weighted:  # JPS is exact on uniform weights only
        runs.append(("JPS", lambda q: time_ours(grid, q, "jps"), False))
    runs.append(("ours (auto)", lambda q: time_ours(grid, q, "auto"), False))
    if not args.no_reference:
        runs.insert(0, ("python A*", lambda q: time_ours(grid, q, "reference"), not small))
    if not args.no_peers and not args.weighted:
        runs.append(("tcod", lambda q: grid_peers.run_tcod(mask, q), not small and name in GENERATED))
        if small:
            runs.append(("python-pathfinding", lambda q: grid_peers.run_pathfinding(mask, q), False))
            runs.append(("networkx", lambda q: grid_peers.run_networkx(mask, q), False))
    return runs


def weighted_lengths(grid: GridGraph, queries: list, *, small: bool) -> list[float]:
    """Optimal costs on a weighted grid: the reference A* on small maps, else our compiled A*
    (cross-checked by Godot's A*, whose mismatches the table shows)."""
    oracle = reference.find_path if small else _compiled_astar
    return [oracle(grid, s, g).cost for s, g in queries]


def median_ms(seconds: list[float]) -> float:
    return 1000.0 * float(np.median(seconds)) if seconds else math.nan


def godot_best(rows: list[Row], name: str) -> float:
    meds = [r.median_ms() for r in rows if r.map_name == name and r.variant in GODOT]
    return min(meds) if meds else math.nan


def table(rows: list[Row]) -> list[str]:
    """The markdown table (also printed)."""
    lines = [
        "| map | size | variant | queries | median ms | p95 ms | ratio to Godot best | mismatches |",
        "|---|---|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        best = godot_best(rows, r.map_name)
        ratio = r.median_ms() / best if not math.isnan(best) else math.nan
        lines.append(
            f"| {r.map_name} | {r.size} | {r.variant} | {len(r.seconds)} | {r.median_ms():.3f} | "
            f"{r.p95_ms():.3f} | {ratio:.3f} | {r.mismatches} |"
        )
    return lines


def verdicts(rows: list[Row]) -> list[str]:
    """Per map of 256 x 256 or more: ours (auto) median <= Godot's best, and zero mismatches."""
    out = []
    for name in dict.fromkeys(r.map_name for r in rows):
        ours = next(r for r in rows if r.map_name == name and r.variant == "ours (auto)")
        w, h = (int(v) for v in ours.size.split("x"))
        if w < 256 or h < 256:
            continue
        best = godot_best(rows, name)
        bad = sum(r.mismatches for r in rows if r.map_name == name and r.variant in OURS)
        ok = ours.median_ms() <= best and bad == 0
        out.append(
            f"- {name}: ours {ours.median_ms():.3f} ms vs Godot best {best:.3f} ms "
            f"(ratio {ours.median_ms() / best:.3f}), our mismatches {bad}: {'PASS' if ok else 'FALLS SHORT'}"
        )
    return out


def chart(rows: list[Row], path: Path) -> None:
    """Grouped bars of median ms per query, log scale, one group per map."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(dict.fromkeys(r.map_name for r in rows))
    variants = [v for v in ("compiled A*", "JPS", "godot A*", "godot jumping", "tcod") if any(
        r.variant == v for r in rows)]  # fmt: skip
    fig, ax = plt.subplots(figsize=(max(8, 1.2 * len(names)), 4.5))
    width = 0.8 / max(1, len(variants))
    for i, variant in enumerate(variants):
        values = [next((r.median_ms() for r in rows if r.map_name == n and r.variant == variant), 0.0)
                  for n in names]  # fmt: skip
        ax.bar(np.arange(len(names)) + i * width, values, width, label=variant)
    ax.set_xticks(np.arange(len(names)) + 0.4 - width / 2, names, rotation=30, ha="right")
    ax.set_yscale("log")
    ax.set_ylabel("median ms per query (log)")
    ax.set_title("Exact grid search: 8-connected, no corner cutting")
    ax.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--maps", nargs="*", help="map names (default: all plus the generated ones)")
    parser.add_argument("--queries", type=int, default=200, help="queries per map (default 200)")
    parser.add_argument("--quick", action="store_true", help="40 queries, benchmark maps only, no sidecar")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--godot", type=Path, default=REPO / ".godot" / "godot")
    parser.add_argument(
        "--weighted",
        action="store_true",
        help="terrain weights 1-4 on every map (A* only; Godot without jumping)",
    )
    parser.add_argument("--no-peers", action="store_true", help="skip tcod / pathfinding / networkx")
    parser.add_argument("--no-reference", action="store_true", help="skip timing the python reference A*")
    parser.add_argument("--no-sidecar", action="store_true", help="skip memory, start-up, find_many")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    if args.quick:
        args.queries, args.no_sidecar = min(args.queries, 40), True
    names = args.maps or sorted(p.stem for p in DATA.glob("*.map")) + ([] if args.quick else list(GENERATED))
    print(f"numba JIT: {JIT_ENABLED}; warm-up {warm_up():.2f} s")
    rows: list[Row] = []
    for name in names:
        rows += bench_map(name, args)
    lines = table(rows)
    checks = verdicts(rows)
    print("\n".join(["", *lines, "", *checks]))
    extra = [] if args.no_sidecar else sidecar_metrics.report(REPO)
    print("\n".join(extra))
    args.out.mkdir(parents=True, exist_ok=True)
    chart(rows, args.out / "grid_speed.png")
    doc = [
        "# Exact grid search speed",
        "",
        "Written by `bench/grid_speed.py` (one run, same maps, same queries for every variant). "
        "8-connected, sqrt(2) diagonals, no corner cutting. Times are per query; ours include "
        "validation and building the `PathResult`, Godot's are `get_id_path` timed in GDScript. "
        f"Pure-Python peers ran on {SLOW_QUERIES} queries on maps over {SMALL_CELLS} cells.",
        "",
        *lines,
        "",
        "## Ours against Godot's best (maps of 256 x 256 or more)",
        "",
        *checks,
        "",
        *extra,
        "",
        "![chart](grid_speed.png)",
        "",
    ]
    (args.out / "grid_speed.md").write_text("\n".join(doc), encoding="utf-8")
    return 1 if any("FALLS SHORT" in c for c in checks) else 0


if __name__ == "__main__":
    raise SystemExit(main())
