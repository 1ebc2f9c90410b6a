"""HPA* queries from several threads on one shared hierarchy, in each of its query paths.

Trees and the all-pairs table (one compiled call), a weighted grid, two levels (level 2's scratch),
no trees (endpoint searches, the abstract A*, corridors), budgets and the exact check: every
threaded answer must equal the answer of the same query run alone (tests/core/threads.py).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from python_core.formats.movingai import read_scenarios
from python_core.grid import DiagonalMode, GridGraph
from python_core.hpa import HierarchicalGrid
from python_core.hpa.query.abstract_search import QID_LIMIT
from python_core.result import QueryOptions
from tests.core.threads import THREADS, answer, assert_same_in_threads, plain

DATA = Path(__file__).resolve().parents[2] / "data" / "movingai"

Pair = tuple[tuple[int, int], tuple[int, int]]


def scenario_pairs(name: str, count: int) -> list[Pair]:
    scenarios = read_scenarios(DATA / f"{name}.map.scen")
    picks = np.linspace(0, len(scenarios) - 1, count).astype(int)
    return [(scenarios[i].start, scenarios[i].goal) for i in picks]


def weighted_grid(size: int = 96) -> GridGraph:
    rng = np.random.default_rng(11)
    walk = rng.random((size, size)) > 0.25
    weights = rng.choice([1.0, 2.0, 3.5], (size, size))
    return GridGraph(walk, diagonal=DiagonalMode.ONLY_IF_NO_OBSTACLES, weights=weights)


def random_pairs(grid: GridGraph, count: int, seed: int) -> list[Pair]:
    rng = np.random.default_rng(seed)
    cells = np.argwhere(grid.walkable)[:, ::-1]
    picks = rng.integers(0, len(cells), (count, 2))
    return [(tuple(cells[a].tolist()), tuple(cells[b].tolist())) for a, b in picks]  # type: ignore[misc]


def mixed_queries(hpa: HierarchicalGrid, pairs: list[Pair]) -> list[Callable[[], Any]]:
    """Smoothed and raw paths, corridors, small budgets, partial fallbacks and reachability."""
    tight = QueryOptions(max_expansions=3)
    calls: list[Callable[[], Any]] = []
    for i, (s, g) in enumerate(pairs):
        kind = i % 5
        if kind == 0:
            calls.append(lambda s=s, g=g: hpa.find_path(s, g))
        elif kind == 1:
            calls.append(lambda s=s, g=g: hpa.find_path(s, g, smooth=False))
        elif kind == 2:
            calls.append(lambda s=s, g=g: hpa.find_path(s, g, corridor=True))
        elif kind == 3:
            calls.append(lambda s=s, g=g: hpa.find_path(s, g, options=tight))
        else:
            calls.append(lambda s=s, g=g: (hpa.is_reachable(s, g), hpa.find_path(g, s).cost))
    return calls


def same_cells(hpa: HierarchicalGrid) -> Callable[[], None]:
    """A change that keeps every answer but renews the query scratch: each thread's first query of
    the next round rebuilds its record and level 2's scratch."""
    cell = np.argwhere(hpa.grid.walkable)[0][::-1]

    def change() -> None:
        hpa.set_walkable([cell], True)

    return change


CASES = {
    "trees and table": lambda: (GridGraph.from_movingai(DATA / "den520d.map"), {"cluster_size": 16}),
    "weighted": lambda: (weighted_grid(), {"cluster_size": 16}),
    "two levels": lambda: (
        GridGraph.from_movingai(DATA / "den520d.map"),
        {"cluster_size": 16, "levels": 2, "region_clusters": 4},
    ),
    "no trees": lambda: (
        GridGraph.from_movingai(DATA / "den520d.map"),
        {"cluster_size": 16, "tree_budget": 0, "table_budget": 0},
    ),
    "stale table rows": lambda: (weighted_grid(), {"cluster_size": 16, "repair_seconds": 0.0}),
}


@pytest.mark.parametrize("case", list(CASES))
def test_hierarchical_queries_in_threads_match_one_thread(case: str) -> None:
    grid, options = CASES[case]()
    hpa = HierarchicalGrid(grid, **options).build()
    if case == "stale table rows":  # a time-boxed change leaves rows for the abstract search
        hpa.set_walkable(np.argwhere(~grid.walkable)[:20][:, ::-1], True)
        assert hpa.pending_rows > 0
    pairs = scenario_pairs("den520d", 60) if grid.width == 256 else random_pairs(grid, 60, 2)
    # (a change with a zero time box could leave other rows stale: other, equally right answers)
    change = None if case == "stale table rows" else same_cells(hpa)
    expected = assert_same_in_threads(mixed_queries(hpa, pairs), between_rounds=change)
    assert any(isinstance(a, tuple) and a[0] == "found" for a in expected)
    assert len(hpa._pool.idle()) <= THREADS


def test_exact_checks_counted_from_threads_add_up() -> None:
    """Short detours re-run by the exact search are counted once each, from every thread."""
    grid = weighted_grid()
    hpa = HierarchicalGrid(grid, cluster_size=16, exact_check=8.0).build()
    pairs = random_pairs(grid, 80, 9)
    calls = [lambda s=s, g=g: hpa.find_path(s, g) for s, g in pairs]
    assert_same_in_threads(calls, rounds=2)
    one_pass = hpa.checked_queries // (1 + THREADS * 2)
    assert one_pass > 0
    assert hpa.checked_queries == one_pass * (1 + THREADS * 2)


@pytest.mark.parametrize("case", ["trees and table", "weighted", "two levels", "no trees"])
def test_batches_answer_as_single_queries_do_and_in_threads(case: str) -> None:
    """find_many (one compiled call with trees) gives each pair what find_path gives it, its
    errors included; batches from several threads give what they give alone."""
    grid, options = CASES[case]()
    hpa = HierarchicalGrid(grid, **options).build()
    pairs = scenario_pairs("den520d", 80) if grid.width == 256 else random_pairs(grid, 80, 5)
    pairs[3] = (pairs[3][0], pairs[3][0])  # start == goal
    wall = tuple(np.argwhere(~grid.walkable)[0][::-1].tolist())
    pairs[7] = (pairs[7][0], wall)  # an unreachable goal: no_path, or the exact partial path
    starts, goals = [s for s, _ in pairs], [g for _, g in pairs]
    for opts in (None, QueryOptions(max_expansions=5), QueryOptions(allow_partial=True)):
        for smooth in (True, False):
            alone = [plain(hpa.find_path(s, g, options=opts, smooth=smooth)) for s, g in pairs]
            assert plain(hpa.find_many(starts, goals, options=opts, smooth=smooth)) == alone
    assert answer(lambda: hpa.find_many([wall], [pairs[0][1]])) == answer(
        lambda: hpa.find_path(wall, pairs[0][1])
    )
    batches = [
        lambda i=i: hpa.find_many(starts[i : i + 20], goals[i : i + 20], smooth=i % 40 == 0)
        for i in range(0, 80, 20)
    ]
    assert_same_in_threads(batches, between_rounds=same_cells(hpa))


def test_a_batch_across_the_query_number_limit_finds_what_it_found() -> None:
    grid = weighted_grid()
    hpa = HierarchicalGrid(grid, cluster_size=16, table_budget=0).build()  # the abstract search stamps
    pairs = random_pairs(grid, 30, 6)
    starts, goals = [s for s, _ in pairs], [g for _, g in pairs]
    before = plain(hpa.find_many(starts, goals))
    (scratch,) = hpa._pool.idle()
    scratch.qid = QID_LIMIT - 10
    assert plain(hpa.find_many(starts, goals)) == before
    assert scratch.qid == 30
