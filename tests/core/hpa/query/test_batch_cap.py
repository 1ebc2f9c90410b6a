"""HierarchicalGrid.find_batch(max_cells=...): a batch of long paths stops once its paths hold that
many cells and answers the pairs before; asking again for the rest gives the uncapped batch."""

from __future__ import annotations

import numpy as np
import pytest

from python_core.grid import GridGraph
from python_core.grid.layouts import TileGrid, TileLayout
from python_core.hpa import HierarchicalGrid
from python_core.navigation import HierarchyOptions
from python_core.navigation.tile_grid import TileNavigator
from python_core.path_batch import PathBatch

WALK = np.ones((48, 64), dtype=bool)
WALK[20, 2:60] = False
WALK[5:40, 30] = False


@pytest.fixture(scope="module")
def hpa() -> HierarchicalGrid:
    return HierarchicalGrid(GridGraph(WALK, diagonal="only_if_no_obstacles"), cluster_size=8).build()


def _pairs() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    cells = np.argwhere(WALK)[:, ::-1]
    starts, goals = cells[rng.choice(len(cells), 24)], cells[rng.choice(len(cells), 24)]
    goals[5] = starts[5]  # start == goal: answered outside the kernel
    return starts, goals


def _in_steps(
    hpa: HierarchicalGrid, starts: np.ndarray, goals: np.ndarray, cap: int, *, corridor: bool
) -> list[PathBatch]:
    parts, lo = [], 0
    while lo < len(starts):
        part = hpa.find_batch(starts[lo:], goals[lo:], max_cells=cap, corridor=corridor)
        assert len(part) >= 1
        parts.append(part)
        lo += len(part)
    return parts


@pytest.mark.parametrize("corridor", [False, True])  # the kernel batch, and query by query
def test_capped_steps_give_the_uncapped_batch(hpa: HierarchicalGrid, corridor: bool) -> None:
    starts, goals = _pairs()
    whole = hpa.find_batch(starts, goals, corridor=corridor)
    parts = _in_steps(hpa, starts, goals, 60, corridor=corridor)
    assert len(parts) > 3  # the cap did stop it: 24 paths of dozens of cells
    for part in parts[:-1]:  # each stopped part holds the cap, but not before its last path
        assert part.offsets[-1] >= 60 > part.offsets[-2]
    joined = PathBatch.from_results([r for part in parts for r in part.results()])
    for key in ("status", "costs", "expanded", "offsets", "nodes", "points"):
        np.testing.assert_array_equal(getattr(joined, key), getattr(whole, key), err_msg=key)


def test_a_cap_of_one_cell_answers_one_pair_at_a_time(hpa: HierarchicalGrid) -> None:
    starts, goals = _pairs()
    first = hpa.find_batch(starts, goals, max_cells=1)
    assert len(first) == 1
    assert first.result(0).cost == pytest.approx(hpa.find_path(tuple(starts[0]), tuple(goals[0])).cost)
    assert len(hpa.find_batch(starts, goals, max_cells=None)) == len(starts)


def test_a_tile_grids_hierarchical_batch_stops_at_the_cap_too() -> None:
    grid = TileGrid(np.ones((12, 16), bool), layout=TileLayout("hexagon"))
    nav = TileNavigator(grid)
    nav.build_hierarchy(HierarchyOptions(cluster_size=8))
    starts, goals = np.array([[0, 0], [1, 1], [2, 0]]), np.array([[15, 11], [14, 10], [15, 0]])
    whole = nav.find_batch(starts, goals, hierarchical=True)
    first = nav.find_batch(starts, goals, hierarchical=True, max_cells=1)
    assert (len(whole), len(first)) == (3, 1)
    assert first.result(0).cost == whole.result(0).cost
