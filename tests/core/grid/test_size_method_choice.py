"""Per-size kernel choice and the bounded footprint-max weights cache (issue 38, speed).

A size-k unit searches the eroded grid (clearance >= k), which can favour the other kernel: on a
128 x 128 grid with 3% single-cell walls, size 1's probes vote A* and size 4's (each wall grown to a
4 x 4 block) vote JPS. The votes are expansion counts, so the choice is the same everywhere.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from python_core.grid import GridGraph
from python_core.grid.search import dispatch, method_choice
from python_core.grid.search.prepared import SIZED_WEIGHTS_KEPT, prepared_for
from python_core.grid.search.reference import find_path as reference_path
from python_core.result import QueryOptions


def scattered_walls() -> GridGraph:
    mask = np.random.default_rng(7).random((128, 128)) > 0.03
    return GridGraph(mask, diagonal="only_if_no_obstacles")


def test_each_size_is_probed_on_its_eroded_grid() -> None:
    grid = scattered_walls()
    clearance = grid.clearance
    for size in (1, 4):
        astar_votes, jps_votes = method_choice.probe_votes(clearance >= size, grid.cell_size, 1.0)
        expected = "jps" if jps_votes >= astar_votes else "astar"
        assert dispatch.choose_method(grid, QueryOptions(size=size)) == expected
    # the map this test is built on: the two sizes disagree (one decision per grid picked A* for both)
    assert dispatch.choose_method(grid) == "astar"
    assert dispatch.choose_method(grid, QueryOptions(size=4)) == "jps"
    assert dispatch.choose_method(grid, QueryOptions(radius=1.6)) == "jps"  # radius 1.6 -> size 4


def test_a_sized_decision_is_kept_across_small_edits_and_stays_exact() -> None:
    grid = scattered_walls()
    opts = QueryOptions(size=4)
    assert dispatch.choose_method(grid, opts) == "jps"
    decision = method_choice._SIZED_DECISIONS[grid][4]
    grid.set_walkable([(60, 60)], False)
    assert dispatch.choose_method(grid, opts) == "jps"
    assert method_choice._SIZED_DECISIONS[grid][4] is decision  # not probed again
    open_anchors = np.argwhere(grid.clearance >= 4)
    rng = np.random.default_rng(3)
    for _ in range(4):
        (sy, sx), (gy, gx) = open_anchors[rng.integers(len(open_anchors), size=2)]
        ends = ((int(sx), int(sy)), (int(gx), int(gy)))
        ref = reference_path(grid, *ends, options=opts)
        got = grid.find_path(*ends, options=opts)
        assert got.status is ref.status
        assert math.isclose(got.cost, ref.cost, rel_tol=1e-9, abs_tol=1e-9)


def test_a_size_above_one_needs_the_clearance() -> None:
    with pytest.raises(ValueError, match="clearance"):
        method_choice.prefers_jps(scattered_walls(), 1.0, size=2)


def test_footprint_max_weights_keep_only_the_sizes_used_last() -> None:
    rng = np.random.default_rng(5)
    weights = rng.integers(1, 4, size=(24, 24)).astype(float)
    grid = GridGraph(np.ones((24, 24), bool), weights=weights, diagonal="always")
    sizes = list(range(2, SIZED_WEIGHTS_KEPT + 4))
    costs = {k: grid.find_path((0, 0), (24 - k, 24 - k), options=QueryOptions(size=k)).cost for k in sizes}
    cache = prepared_for(grid).sized_weights
    assert list(cache) == sizes[-SIZED_WEIGHTS_KEPT:]  # the least recently used went first
    grid.find_path((0, 0), (5, 5), options=QueryOptions(size=sizes[-SIZED_WEIGHTS_KEPT]))
    assert list(cache)[-1] == sizes[-SIZED_WEIGHTS_KEPT]  # a hit is now the most recent
    for k in sizes[:2]:  # evicted sizes are computed again and answer the same
        again = grid.find_path((0, 0), (24 - k, 24 - k), options=QueryOptions(size=k))
        ref = reference_path(grid, (0, 0), (24 - k, 24 - k), options=QueryOptions(size=k))
        assert again.cost == costs[k]
        assert math.isclose(again.cost, ref.cost, rel_tol=1e-9)
        assert len(cache) == SIZED_WEIGHTS_KEPT
    assert dispatch.workspace_bytes(grid) >= SIZED_WEIGHTS_KEPT * 26 * 26 * 8
