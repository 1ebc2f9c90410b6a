"""The compiled grid search (A*, JPS, agents, find_many) from several threads on one shared grid.

Every threaded answer must equal the answer of the same query run alone (tests/core/threads.py).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from python_core.formats.movingai import read_scenarios
from python_core.grid import DiagonalMode, GridGraph
from python_core.grid.clearance import clearance_of
from python_core.grid.search import dispatch
from python_core.grid.search.prepared import prepared_for
from python_core.result import QueryOptions
from tests.core.threads import THREADS, assert_same_in_threads

DATA = Path(__file__).resolve().parents[2] / "data" / "movingai"

Pair = tuple[tuple[int, int], tuple[int, int]]


def scenario_pairs(name: str, count: int) -> list[Pair]:
    """``count`` scenarios of a test map, from every bucket (short and long paths)."""
    scenarios = read_scenarios(DATA / f"{name}.map.scen")
    picks = np.linspace(0, len(scenarios) - 1, count).astype(int)
    return [(scenarios[i].start, scenarios[i].goal) for i in picks]


def random_pairs(grid: GridGraph, count: int, seed: int) -> list[Pair]:
    rng = np.random.default_rng(seed)
    cells = np.argwhere(grid.walkable)[:, ::-1]
    picks = rng.integers(0, len(cells), (count, 2))
    return [(tuple(cells[a].tolist()), tuple(cells[b].tolist())) for a, b in picks]  # type: ignore[misc]


def same_walls(grid: GridGraph) -> Callable[[], None]:
    """A change that keeps every answer but moves :attr:`GridGraph.version`: the next queries all
    find the padded copy out of date at once and race to rebuild it."""
    cell = np.argwhere(grid.walkable)[0][::-1]
    return lambda: grid.set_walkable([cell], True)


def queries(grid: GridGraph, pairs: list[Pair], **kwargs: Any) -> list[Callable[[], Any]]:
    return [lambda s=s, g=g: grid.find_path(s, g, **kwargs) for s, g in pairs]


@pytest.mark.parametrize("method", ["astar", "jps"])
def test_exact_queries_on_a_moving_ai_map_match_one_thread(method: str) -> None:
    grid = GridGraph.from_movingai(DATA / "den520d.map")
    pairs = scenario_pairs("den520d", 60)
    expected = assert_same_in_threads(queries(grid, pairs, method=method), between_rounds=same_walls(grid))
    assert sum(1 for a in expected if a[0] == "found") == len(pairs)


def test_weighted_a_star_with_partial_paths_and_budgets_matches_one_thread() -> None:
    rng = np.random.default_rng(3)
    walk = rng.random((160, 160)) > 0.3
    grid = GridGraph(walk, diagonal=DiagonalMode.ALWAYS, weights=rng.uniform(1.0, 4.0, walk.shape))
    pairs = random_pairs(grid, 48, 4)
    calls = queries(grid, pairs[:16]) + queries(grid, pairs[16:32], options=QueryOptions(allow_partial=True))
    calls += queries(grid, pairs[32:], options=QueryOptions(max_expansions=500, allow_partial=True))
    expected = assert_same_in_threads(calls)
    assert {a[0] for a in expected} >= {"found", "budget_exhausted"}


def test_queries_with_agents_placed_match_one_thread_and_leave_the_walls_alone() -> None:
    """Each query blocks the other agents' cells in its own copy of the walls: a query of another
    thread (one that ignores agents, or is another agent) must never see them."""
    grid = GridGraph.from_movingai(DATA / "den520d.map")
    rng = np.random.default_rng(5)
    cells = np.argwhere(grid.walkable)[:, ::-1]
    for agent, k in enumerate(rng.choice(len(cells), 40, replace=False)):
        grid.place_agent(agent, tuple(cells[k].tolist()))
    pairs = scenario_pairs("den520d", 40)
    starts = [grid.agents[a] for a in range(8)]
    calls = queries(grid, pairs[:12]) + queries(grid, pairs[12:24], options=QueryOptions(ignore_agents=True))
    calls += queries(grid, pairs[24:], options=QueryOptions(allow_partial=True))
    calls += [  # agents asking from their own cells (never blocked by themselves), to others' cells
        lambda a=a, s=s: grid.find_path(
            s, starts[(a + 1) % 8], options=QueryOptions(agent=a, allow_partial=True)
        )
        for a, s in enumerate(starts)
    ]
    expected = assert_same_in_threads(calls, between_rounds=same_walls(grid))
    assert {a[0] for a in expected} >= {"found", "partial"}
    # the shared padded copy has no agent in it after all that
    padded = prepared_for(grid).passable.reshape(grid.height + 2, grid.width + 2)[1:-1, 1:-1]
    assert np.array_equal(padded, clearance_of(grid.walkable))


def test_find_many_batches_in_threads_match_one_thread() -> None:
    grid = GridGraph.from_movingai(DATA / "den520d.map")
    pairs = scenario_pairs("den520d", 90)
    batches = [pairs[i : i + 15] for i in range(0, len(pairs), 15)]

    def batch(part: list[Pair]) -> Callable[[], Any]:
        starts, goals = [s for s, _ in part], [g for _, g in part]
        return lambda: dispatch.find_many(grid, starts, goals)

    assert_same_in_threads([batch(part) for part in batches])


def test_workspaces_number_the_queries_that_ran_at_once_not_the_queries() -> None:
    grid = GridGraph.from_movingai(DATA / "den520d.map")
    pairs = scenario_pairs("den520d", 30)
    for s, g in pairs:
        grid.find_path(s, g)
    assert len(prepared_for(grid).spare) == 1  # one thread: one workspace, reused
    assert_same_in_threads(queries(grid, pairs))
    assert 1 <= len(prepared_for(grid).spare) <= THREADS
