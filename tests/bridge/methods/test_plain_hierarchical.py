"""The usual hierarchical query takes the short way (``HierarchicalGrid.find_plain``): the same wire
map as the navigator's hierarchical result encoded, byte for byte, whatever the query and the
hierarchy; anything else goes the navigator's way, with its errors."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

from bridge.client import Client
from bridge.methods.hierarchy_params import HierarchyState, parse_hierarchy
from bridge.methods.kinds import KINDS
from bridge.methods.params import Params
from bridge.methods.queries import Query, encode_result, parse_query, run_query
from bridge.methods.registry import GraphEntry, Registry
from python_core import GridGraph, QueryOptions
from python_core.errors import AStarError
from python_core.navigation.grid import GridNavigator


def _navigator(smooth: bool, agents: bool) -> GridNavigator:
    walkable = np.random.default_rng(5).random((40, 48)) > 0.25
    walkable[0, :] = walkable[:, 0] = True
    grid = GridGraph(walkable, diagonal="only_if_no_obstacles")
    if agents:
        grid.place_agent(1, (5, 0))
        grid.place_agent(2, (0, 7))
    nav = GridNavigator(grid)
    spec = parse_hierarchy(Params({"cluster_size": 8, "smooth": smooth}, "hierarchy"))
    nav.build_hierarchy(spec.options())
    return nav


OPTIONS = [
    QueryOptions(),
    QueryOptions(max_expansions=4096),
    QueryOptions(max_expansions=1),
    QueryOptions(max_expansions=0),
    QueryOptions(ignore_agents=True),
    QueryOptions(agent=1),
    QueryOptions(allow_partial=True),
    QueryOptions(heuristic="manhattan"),
    QueryOptions(size=2),
]


def _ends(nav: GridNavigator) -> list[tuple[Any, Any]]:
    """Pairs of walkable cells near and far, a start to itself, a wall as the goal, cells outside."""
    opened = np.argwhere(nav.grid.walkable)[:, ::-1]
    cells = [(int(x), int(y)) for x, y in opened]
    walls = np.argwhere(~nav.grid.walkable)[:, ::-1]
    pairs: list[tuple[Any, Any]] = list(zip(cells[::37], cells[::-29], strict=False))
    pairs += [(c, c) for c in cells[::211]]
    pairs += [(cells[0], (int(walls[0][0]), int(walls[0][1]))), ((0, 0), (5, 0)), ((0, 0), (0, 12))]
    pairs += [((int(walls[1][0]), int(walls[1][1])), cells[5]), ((0, 0), (48, 3)), ((-1, 0), (3, 3))]
    return pairs


@pytest.mark.parametrize("smooth", [True, False])
@pytest.mark.parametrize("agents", [False, True])
def test_the_short_way_answers_as_the_navigator(smooth: bool, agents: bool) -> None:
    nav = _navigator(smooth, agents)
    hpa = nav.hierarchy
    assert hpa is not None
    assert hpa.find_plain(*_ends(nav)[0], QueryOptions(), smooth) is not None
    statuses, errors = set(), 0
    for options in OPTIONS:
        for start, goal in _ends(nav):
            try:
                want: Any = encode_result(nav.find_path(start, goal, options, hierarchical=True), 2)
            except AStarError as exc:
                want = type(exc)
            query = Query("g", start, goal, options, hierarchical=True, cells=True, smooth=smooth)
            for budget in (None, 4096, 2):
                expected = want
                if budget is not None and not isinstance(want, type):
                    budgeted = dataclasses.replace(options, max_expansions=budget)
                    if options.max_expansions is not None and options.max_expansions <= budget:
                        budgeted = options
                    expected = encode_result(nav.find_path(start, goal, budgeted, hierarchical=True), 2)
                try:
                    got: Any = run_query(nav, query, budget)
                except AStarError as exc:
                    got = type(exc)
                assert got == expected, (options, start, goal, budget)
                if isinstance(got, dict):
                    statuses.add(got["status"])
                else:
                    errors += 1
    assert {"found", "no_path", "budget_exhausted"} <= statuses
    assert errors  # a blocked start and cells outside the grid raise as the navigator's


def test_the_parse_notes_the_hierarchy_s_smoothing_for_hierarchical_queries_only() -> None:
    registry = Registry(max_graphs=2)
    for graph_id, smooth in (("smooth", True), ("raw", False)):
        nav = _navigator(smooth, agents=False)
        state = HierarchyState(
            parse_hierarchy(Params({"cluster_size": 8, "smooth": smooth}, "h")), built=True
        )
        registry.put(GraphEntry(graph_id, KINDS["grid"], nav, hierarchy=state))
        hierarchical = parse_query(Client.query(graph_id, (0, 0), (9, 3), hierarchical=True), registry, 10**6)
        assert hierarchical.smooth is smooth
        assert parse_query(Client.query(graph_id, (0, 0), (9, 3)), registry, 10**6).smooth is None
