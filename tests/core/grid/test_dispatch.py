"""The dispatch (compiled A*, JPS, auto) against the plain reference A* and Moving AI lengths."""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from python_core.compiled import warm_up
from python_core.errors import BlockedEndpointError, InvalidQueryError, UnknownPointError
from python_core.formats.movingai import length_tolerance, read_scenarios
from python_core.grid import DiagonalMode, GridGraph
from python_core.grid.search import dispatch
from python_core.grid.search.reference import find_path as reference_path
from python_core.result import PathStatus, QueryOptions
from tests.python_snippet import run_snippet

DATA = Path(__file__).resolve().parents[2] / "data" / "movingai"
MAPS = sorted(p.stem for p in DATA.glob("*.map"))


def same_cost(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


def assert_valid_path(grid: GridGraph, nodes: np.ndarray, cost: float) -> None:
    """Adjacent steps, no corner cutting, cost = sum of step lengths (uniform weight 1)."""
    xs, ys = nodes % grid.width, nodes // grid.width
    walk = grid.walkable
    total = 0.0
    for i in range(1, len(nodes)):
        dx, dy = int(xs[i] - xs[i - 1]), int(ys[i] - ys[i - 1])
        assert max(abs(dx), abs(dy)) == 1
        assert walk[ys[i], xs[i]]
        if dx and dy:
            assert walk[ys[i - 1], xs[i]]
            assert walk[ys[i], xs[i - 1]]
        total += math.sqrt(2.0) if dx and dy else 1.0
    assert same_cost(total, cost)


@pytest.mark.parametrize("name", MAPS)
def test_every_variant_matches_reference_and_scenario_lengths(name: str) -> None:
    grid = GridGraph.from_movingai(DATA / f"{name}.map")
    scenarios = read_scenarios(DATA / f"{name}.map.scen")
    picked = scenarios[:: max(1, len(scenarios) // 40)] + scenarios[-3:]
    for s in picked:
        reference = reference_path(grid, s.start, s.goal)
        assert abs(reference.cost - s.optimal_length) <= length_tolerance(s.optimal_length)
        for method in ("astar", "jps", "auto"):
            result = dispatch.find_path(grid, s.start, s.goal, method=method)
            assert result.status is PathStatus.FOUND
            assert same_cost(result.cost, reference.cost), (method, s)
            assert_valid_path(grid, result.nodes, result.cost)


grids = st.integers(3, 14).flatmap(
    lambda w: st.integers(3, 14).flatmap(
        lambda h: st.tuples(
            st.lists(st.booleans(), min_size=w * h, max_size=w * h).map(
                lambda cells, w=w, h=h: np.array(cells).reshape(h, w)
            ),
            st.sampled_from(list(DiagonalMode)),
            st.booleans(),
            st.integers(0, 2**16),
        )
    )
)


@settings(max_examples=120, deadline=None)
@given(grids)
def test_random_grids_match_the_reference(case: tuple[np.ndarray, DiagonalMode, bool, int]) -> None:
    mask, mode, weighted, seed = case
    rng = np.random.default_rng(seed)
    mask[0, 0] = True
    weights = rng.uniform(0.5, 3.0, mask.shape) if weighted else None
    grid = GridGraph(mask, diagonal=mode, weights=weights, cell_size=(1.0, 1.5))
    h, w = mask.shape
    for _ in range(6):
        goal = (int(rng.integers(w)), int(rng.integers(h)))
        reference = reference_path(grid, (0, 0), goal)
        methods = ["astar", "auto"] + (["jps"] if dispatch.choose_method(grid) == "jps" else [])
        for method in methods:
            result = dispatch.find_path(grid, (0, 0), goal, method=method)
            assert result.status is reference.status
            assert same_cost(result.cost, reference.cost)


def test_partial_budget_and_agents_follow_the_reference() -> None:
    grid = GridGraph.from_strings(["....@....", "....@....", "....@...."], diagonal="only_if_no_obstacles")
    grid.place_agent(1, (2, 1))
    grid.place_agent(2, (0, 0))
    cases = [
        QueryOptions(allow_partial=True),
        QueryOptions(max_expansions=3),
        QueryOptions(max_expansions=3, allow_partial=True),
        QueryOptions(agent=2),
        QueryOptions(ignore_agents=True, heuristic="zero"),
    ]
    for opts in cases:
        for goal in ((8, 2), (3, 2), (2, 1)):
            ref = reference_path(grid, (0, 0), goal, options=opts)
            got = dispatch.find_path(grid, (0, 0), goal, options=opts)
            assert got.status is ref.status
            assert same_cost(got.cost, ref.cost)
            astar = dispatch.find_path(grid, (0, 0), goal, options=opts, method="astar")
            assert (astar.status, astar.expanded) == (ref.status, ref.expanded)  # A*: same search
            assert same_cost(astar.cost, ref.cost)
    # The agent cells were restored after each query.
    assert dispatch.find_path(grid, (0, 1), (3, 1), options=QueryOptions(ignore_agents=True)).cost == 3.0


def test_cache_follows_cell_changes() -> None:
    grid = GridGraph(np.ones((3, 5), bool), diagonal="only_if_no_obstacles")
    assert dispatch.find_path(grid, (0, 1), (4, 1)).cost == 4.0
    grid.set_walkable([(2, 0), (2, 1), (2, 2)], False)
    assert dispatch.find_path(grid, (0, 1), (4, 1)).status is PathStatus.NO_PATH
    grid.set_walkable([(2, 2)], True)
    grid.set_weights([(1, 1)], 5.0)
    assert dispatch.choose_method(grid) == "astar"
    assert same_cost(dispatch.find_path(grid, (0, 1), (4, 1)).cost, reference_path(grid, (0, 1), (4, 1)).cost)


def test_errors_match_the_reference() -> None:
    grid = GridGraph.from_strings([".@", ".."], weights=[[1.0, 1.0], [2.0, 1.0]])
    with pytest.raises(BlockedEndpointError):
        dispatch.find_path(grid, (1, 0), (0, 0))
    with pytest.raises(UnknownPointError):
        dispatch.find_path(grid, (0, 0), (1, 1), options=QueryOptions(agent=9))
    with pytest.raises(InvalidQueryError, match="method 'jps'"):
        dispatch.find_path(grid, (0, 0), (1, 1), method="jps")
    with pytest.raises(InvalidQueryError, match="starts but"):
        dispatch.find_many(grid, [(0, 0)], [])


def test_jps_refuses_partial_paths_instead_of_inventing_one() -> None:
    # JPS keeps no closest node: asked for a partial path to a walled-off goal it returned the goal
    # itself as a one-cell "partial" path of cost 0.
    grid = GridGraph.from_strings(["..@..", "..@..", "..@.."], diagonal="only_if_no_obstacles")
    options = QueryOptions(allow_partial=True)
    with pytest.raises(InvalidQueryError, match="allow_partial True"):
        dispatch.find_path(grid, (0, 0), (4, 0), options=options, method="jps")
    auto = dispatch.find_path(grid, (0, 0), (4, 0), options=options)
    assert (auto.status, auto.cost) == (PathStatus.PARTIAL, 1.0)


def test_find_many_answers_in_order() -> None:
    grid = GridGraph.from_movingai(DATA / "arena.map")
    scenarios = read_scenarios(DATA / "arena.map.scen")[:30]
    results = dispatch.find_many(grid, [s.start for s in scenarios], [s.goal for s in scenarios])
    for s, r in zip(scenarios, results, strict=True):
        assert abs(r.cost - s.optimal_length) <= length_tolerance(s.optimal_length)


def test_warm_up_reports_seconds() -> None:
    assert warm_up() >= 0.0


def test_everything_works_with_the_compiler_disabled() -> None:
    script = (
        "from python_core import compiled\n"
        "from python_core.csr import kernel\n"
        "from python_core.grid.search import dispatch, reference\n"
        "from python_core.grid import GridGraph\n"
        "from python_core.formats.movingai import read_scenarios\n"
        "assert not compiled.JIT_ENABLED and not kernel.COMPILED\n"
        "assert compiled.warm_up() >= 0\n"
        "g = GridGraph.from_movingai('tests/data/movingai/arena.map')\n"
        "for s in read_scenarios('tests/data/movingai/arena.map.scen')[::20]:\n"
        "    ref = reference.find_path(g, s.start, s.goal).cost\n"
        "    for m in ('astar', 'jps'):\n"
        "        assert abs(dispatch.find_path(g, s.start, s.goal, method=m).cost - ref) < 1e-9\n"
        "print('ok')\n"
    )
    out = run_snippet(script, dict(os.environ, ASTAR_BRIDGE_NO_JIT="1"), timeout=300)
    assert out.strip() == "ok"
