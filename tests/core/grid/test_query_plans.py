"""The size-1 query plans of :func:`python_core.grid.search.dispatch.find_path`: made once per
options object and prepared copy version, never stale after a change, never growing without bound."""

from __future__ import annotations

import numpy as np
import pytest

from python_core.errors import InvalidQueryError, OutOfBoundsError, UnknownPointError
from python_core.grid import GridGraph
from python_core.grid.search import dispatch, reference
from python_core.grid.search.prepared import prepared_for
from python_core.result import QueryOptions


def _grid() -> GridGraph:
    return GridGraph(np.ones((6, 8), dtype=bool), diagonal="only_if_no_obstacles")


def test_a_plan_is_made_once_per_options_object_and_answers_as_the_reference() -> None:
    grid, opts = _grid(), QueryOptions(max_expansions=1000)
    first = dispatch.find_path(grid, (0, 0), (7, 5), options=opts)
    plans = dict(prepared_for(grid).plans)
    second = dispatch.find_path(grid, (1, 0), (6, 5), options=opts)
    assert list(plans) == [id(opts)]
    assert prepared_for(grid).plans[id(opts)] is plans[id(opts)]
    for result, (s, g) in ((first, ((0, 0), (7, 5))), (second, ((1, 0), (6, 5)))):
        assert result.cost == pytest.approx(reference.find_path(grid, s, g, options=opts).cost)


def test_a_change_of_walls_or_weights_makes_a_new_plan() -> None:
    grid, opts = _grid(), QueryOptions()
    assert dispatch.find_path(grid, (0, 0), (7, 0), options=opts).cost == 7.0
    grid.set_walkable([(4, 0), (4, 1)], False)  # a wall across the straight line: the path bends
    bent = dispatch.find_path(grid, (0, 0), (7, 0), options=opts)
    assert bent.cost == pytest.approx(reference.find_path(grid, (0, 0), (7, 0), options=opts).cost)
    assert bent.cost > 7.0
    assert prepared_for(grid).plans[id(opts)].version == grid.version
    every = [(x, y) for y in range(6) for x in range(8)]
    grid.set_weights(every, 2.0)  # uniform weight 2: the plan's kernel reads the new weight
    assert dispatch.find_path(grid, (0, 0), (7, 0), options=opts).cost == pytest.approx(2 * bent.cost)


def test_new_options_objects_never_grow_the_plans_past_the_limit() -> None:
    grid = _grid()
    for budget in range(3 * dispatch.PLANS_KEPT):
        dispatch.find_path(grid, (0, 0), (1, 1), options=QueryOptions(max_expansions=budget + 10))
    assert 0 < len(prepared_for(grid).plans) <= dispatch.PLANS_KEPT


def test_planned_queries_raise_as_before() -> None:
    grid, opts = _grid(), QueryOptions()
    dispatch.find_path(grid, (0, 0), (1, 1), options=opts)  # the plan exists now
    with pytest.raises(OutOfBoundsError, match="goal"):
        dispatch.find_path(grid, (0, 0), (8, 0), options=opts)
    with pytest.raises(InvalidQueryError, match="start"):
        dispatch.find_path(grid, (0.5, 0), (1, 0), options=opts)
    with pytest.raises(UnknownPointError):
        dispatch.find_path(grid, (0, 0), (1, 0), options=QueryOptions(agent=3))
    with pytest.raises(InvalidQueryError, match="max_expansions"):
        dispatch.find_path(grid, (0, 0), (1, 0), options=QueryOptions(max_expansions=-1))
