"""The threading contract of every navigator: any number of threads may call the read methods
(resolve, find_path in every form, is_reachable, describe) on the same navigator at once, and get
what one thread alone gets; changes run between rounds, never beside a query (tests/core/threads.py).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from python_core import QueryOptions, WaypointGraph
from python_core.formats.movingai import read_scenarios
from python_core.formats.polyanya import load_polyanya_mesh, read_mesh_scenarios
from python_core.grid import GridGraph
from python_core.navigation import (
    GridNavigator,
    HierarchyOptions,
    NavMeshNavigator,
    PlaceAgent,
    SetDisabled,
    SetWalkable,
    WaypointNavigator,
)
from tests.core.threads import answer, assert_same_in_threads, plain

DATA = Path(__file__).resolve().parents[2] / "data"


def _grid_navigator() -> GridNavigator:
    """den520d in world coordinates with a hierarchy and agents standing on some of its paths."""
    grid = GridGraph.from_movingai(DATA / "movingai" / "den520d.map", origin=(0.5, 0.5))
    nav = GridNavigator(grid, world=True)
    nav.build_hierarchy(HierarchyOptions(cluster_size=16))
    rng = np.random.default_rng(8)
    cells = np.argwhere(grid.walkable)[:, ::-1]
    picks = rng.choice(len(cells), 60, replace=False)
    nav.apply([PlaceAgent(agent, tuple(cells[k].tolist())) for agent, k in enumerate(picks)])
    return nav


def test_a_grid_navigator_answers_threads_as_it_answers_one() -> None:
    nav = _grid_navigator()
    scenarios = read_scenarios(DATA / "movingai" / "den520d.map.scen")
    picks = np.linspace(0, len(scenarios) - 1, 48).astype(int)
    ends = [(tuple(float(v) + 0.4 for v in scenarios[i].start), scenarios[i].goal) for i in picks]
    mine = QueryOptions(agent=3)

    def query(i: int, world: tuple[float, float], goal: tuple[int, int]) -> Callable[[], Any]:
        def run() -> Any:
            start = nav.resolve(world)  # positions snap to cells
            if i % 4 == 0:
                return nav.find_path(start, goal)
            if i % 4 == 1:  # another agent on the hierarchy's path: the exact search answers
                return nav.find_path(start, goal, mine, hierarchical=True)
            if i % 4 == 2:
                return nav.find_path(start, goal, hierarchical=True, corridor=True)
            return (nav.is_reachable(start, goal), nav.describe(), nav.find_path(start, goal, mine))

        return run

    calls = [query(i, world, goal) for i, (world, goal) in enumerate(ends)]
    wall = np.argwhere(~nav.grid.walkable)[:1][:, ::-1]

    def same_walls() -> None:  # a change that keeps every answer, made by the writer between rounds
        nav.apply([SetWalkable(wall, np.array([False]))])

    assert_same_in_threads(calls, between_rounds=same_walls)


def test_a_waypoint_navigator_answers_threads_as_it_answers_one() -> None:
    rng = np.random.default_rng(4)
    n = 400
    positions = rng.uniform(0.0, 100.0, (n, 2))
    near = np.argsort(((positions[:, None] - positions[None]) ** 2).sum(-1), axis=1)[:, 1:5]
    edges = np.array([(a, b) for a in range(n) for b in near[a] if a < b])
    graph = WaypointGraph.from_arrays(np.arange(n), positions, rng.uniform(1.0, 2.0, n), edges)
    nav = WaypointNavigator(graph)
    nav.apply([SetDisabled(np.arange(0, n, 17), np.ones(len(range(0, n, 17)), dtype=bool))])
    pairs = rng.uniform(0.0, 100.0, (60, 2, 2))
    calls = [
        lambda a=a, b=b: nav.find_path(nav.resolve(a), nav.resolve(b), QueryOptions(allow_partial=True))
        for a, b in pairs.tolist()
    ]
    enabled = np.array([1])

    def renew() -> None:  # no flag changes, but the CSR form is built again by the next query
        nav.apply([SetDisabled(enabled, np.array([False]))])

    expected = assert_same_in_threads(calls, between_rounds=renew)
    assert any(a[0] == "found" for a in expected)


def test_a_navmesh_navigator_answers_threads_as_it_answers_one() -> None:
    nav = NavMeshNavigator(load_polyanya_mesh(DATA / "mesh" / "arena.mesh"))
    scenarios = read_mesh_scenarios(DATA / "mesh" / "arena.scen")[::8][:60]
    calls = [
        lambda s=s: (
            nav.find_path(nav.resolve(s.start), nav.resolve(s.goal), QueryOptions(max_expansions=40))
            if s.goal[0] < s.start[0]
            else nav.find_path(nav.resolve(s.start), nav.resolve(s.goal))
        )
        for s in scenarios
    ]
    expected = assert_same_in_threads(calls)
    assert any(a[0] == "found" for a in expected)


def test_batches_of_every_navigator_answer_as_its_single_queries() -> None:
    """find_many, the form a server's threads run chunks of path.find_many in, answers each pair
    as find_path does (on a grid with agents: the exact search where one stands on the path)."""
    nav = _grid_navigator()
    scenarios = read_scenarios(DATA / "movingai" / "den520d.map.scen")[::40]
    starts, goals = [s.start for s in scenarios], [s.goal for s in scenarios]
    for options in (None, QueryOptions(agent=3), QueryOptions(ignore_agents=True)):
        for hierarchical in (False, True):
            alone = [
                plain(nav.find_path(s, g, options, hierarchical=hierarchical))
                for s, g in zip(starts, goals, strict=True)
            ]
            assert plain(nav.find_many(starts, goals, options, hierarchical=hierarchical)) == alone
    chunks = [
        lambda i=i: nav.find_many(starts[i : i + 10], goals[i : i + 10], hierarchical=True)
        for i in range(0, len(starts), 10)
    ]
    assert_same_in_threads(chunks)
    mesh = NavMeshNavigator(load_polyanya_mesh(DATA / "mesh" / "arena.mesh"))
    ends = read_mesh_scenarios(DATA / "mesh" / "arena.scen")[::30]
    a, b = [mesh.resolve(e.start) for e in ends], [mesh.resolve(e.goal) for e in ends]
    assert plain(mesh.find_many(a, b)) == [plain(mesh.find_path(s, g)) for s, g in zip(a, b, strict=True)]
    graph = WaypointGraph.from_arrays([1, 2, 3], [[0, 0], [1, 0], [2, 0]], edges=[[1, 2], [2, 3]])
    points = WaypointNavigator(graph)
    assert plain(points.find_many([1, 3], [3, 2])) == [
        plain(points.find_path(1, 3)),
        plain(points.find_path(3, 2)),
    ]
    assert answer(lambda: points.find_many([1], [])) == (
        "raised",
        "InvalidQueryError",
        "1 starts but 0 goals",
    )
