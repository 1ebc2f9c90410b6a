"""A batch's short detours (python_core.hpa.query.batches): the rows it sends to the exact search are
those find_path sends there, so a batch answers each pair as find_path does."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from python_core.formats.movingai import read_scenarios
from python_core.grid import GridGraph
from python_core.hpa import HierarchicalGrid

DATA = Path(__file__).resolve().parents[3] / "data" / "movingai"


@pytest.mark.parametrize("cell_size", [(1.0, 1.0), (2.0, 0.5)])
def test_batches_check_the_short_detours_find_path_checks(cell_size: tuple[float, float]) -> None:
    """lak303d with 16-cell clusters has short paths over 10% above their bound: every pair of a
    batch has find_path's cost and cells, and the exact search runs as often (the rows within
    the slack are dropped at once, the rest tested again one by one)."""
    grid = GridGraph.from_movingai(DATA / "lak303d.map", cell_size=cell_size)
    scenarios = [s for s in read_scenarios(DATA / "lak303d.map.scen") if s.optimal_length > 0][::2]
    starts = np.array([s.start for s in scenarios])
    goals = np.array([s.goal for s in scenarios])
    single = HierarchicalGrid(grid, cluster_size=16).build()
    expected = [single.find_path(tuple(s), tuple(g)) for s, g in zip(starts, goals, strict=True)]
    batched = HierarchicalGrid(grid, cluster_size=16).build()
    batch = batched.find_batch(starts, goals)
    assert single.checked_queries > 0
    assert batched.checked_queries == single.checked_queries
    for i, result in enumerate(expected):
        assert batch.costs[i] == pytest.approx(result.cost, rel=1e-12), i
        assert batch.result(i).nodes.tolist() == result.nodes.tolist(), i
