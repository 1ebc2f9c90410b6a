"""method_choice: when the probes run, what is cached, and that either choice stays exact.

Which kernel wins a probe is a timing, so no test here asserts the choice on a map where both can
win; bench/grid_speed.py shows the choices and their speed.
"""

from __future__ import annotations

import math
import os

import numpy as np

from python_core.grid import GridGraph
from python_core.grid.search import dispatch, method_choice
from python_core.grid.search.reference import find_path as reference_path
from tests.python_snippet import run_snippet


def random_grid(size: int, blocked: float, seed: int) -> GridGraph:
    mask = np.random.default_rng(seed).random((size, size)) >= blocked
    return GridGraph(mask, diagonal="only_if_no_obstacles")


def test_small_grids_take_jps_without_probing() -> None:
    grid = random_grid(100, 0.25, 1)
    assert dispatch.choose_method(grid) == "jps"
    assert grid not in method_choice._DECISIONS


def test_the_decision_is_kept_across_small_edits_and_redone_after_large_ones() -> None:
    grid = random_grid(160, 0.25, 2)
    first = dispatch.choose_method(grid)
    decision = method_choice._DECISIONS[grid]
    grid.set_walkable([(3, 3)], False)
    assert dispatch.choose_method(grid) == first
    assert method_choice._DECISIONS[grid] is decision  # not probed again
    assert decision.version == grid.version
    cells = [(x, y) for x in range(160) for y in range(0, 160, 20) if grid.walkable[y, x]]
    grid.set_walkable(cells, False)  # 1280 cells: 5% of the grid
    dispatch.choose_method(grid)
    assert method_choice._DECISIONS[grid] is not decision


def test_no_probe_votes_where_jps_finds_no_path() -> None:
    mask = np.zeros((130, 130), dtype=bool)
    mask[::2, ::2] = True  # isolated cells: no probe pair is connected
    grid = GridGraph(mask, diagonal="only_if_no_obstacles")
    assert method_choice.probe_votes(grid.walkable, (1.0, 1.0), 1.0) == (0, 0)
    assert dispatch.choose_method(grid) == "jps"  # no evidence: JPS, as before probing existed


def test_votes_never_exceed_the_probe_count() -> None:
    grid = random_grid(200, 0.1, 3)
    astar_votes, jps_votes = method_choice.probe_votes(grid.walkable, (1.0, 1.0), 1.0)
    assert 0 < astar_votes + jps_votes <= method_choice.PROBES


def test_the_choice_is_the_same_in_every_process() -> None:
    # Votes are expansion counts, not timings: a sidecar worker and its client must agree on
    # paths and expanded counts. A fresh interpreter decides as this one for three kinds of map.
    setup = (
        "import numpy as np\n"
        "from python_core.grid import GridGraph\n"
        "from python_core.grid.search import dispatch\n"
        "rng = np.random.default_rng(7)\n"
        "rooms = np.ones((300, 300), bool); rooms[::30, :] = False; rooms[:, ::30] = False\n"
        "rooms[::30, 10:14] = True; rooms[10:14, ::30] = True\n"
        "maps = [rng.random((256, 256)) >= 0.25, rooms, rng.random((200, 260)) >= 0.05]\n"
        "choices = [dispatch.choose_method(GridGraph(m, diagonal='only_if_no_obstacles')) for m in maps]\n"
    )
    here: dict[str, object] = {}
    exec(setup, here)  # the same text runs in the child
    there = run_snippet(setup + "print(choices)\n", dict(os.environ), timeout=300).strip()
    assert there == str(here["choices"])
    assert "jps" in str(here["choices"])  # the rooms


def test_auto_is_exact_on_a_probed_random_map() -> None:
    grid = random_grid(140, 0.25, 4)
    rng = np.random.default_rng(5)
    ys, xs = np.nonzero(grid.walkable)
    for _ in range(6):
        i, j = rng.integers(len(xs), size=2)
        start, goal = (int(xs[i]), int(ys[i])), (int(xs[j]), int(ys[j]))
        ref = reference_path(grid, start, goal)
        for method in ("auto", "astar", "jps"):
            got = dispatch.find_path(grid, start, goal, method=method)
            assert got.status is ref.status
            assert math.isclose(got.cost, ref.cost, rel_tol=1e-9, abs_tol=1e-9)
