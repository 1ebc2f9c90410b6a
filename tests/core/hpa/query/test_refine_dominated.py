"""HPA* refinement on one weight (python_core.hpa.query.refine): the bounded link search that skips
steps the cell before makes directly for less (DOMINATED) still finds a path of exactly the optimal
cost, on non-square cells and a weight other than 1, under every diagonal rule (a heapq Dijkstra
in this file is the oracle); and the straight line is skipped only when the optimum is dearer than
it (line_may_do), so refine_chain's links keep their table costs."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from python_core.hpa.query.refine import DOMINATED, bounded_link, line_may_do, refine_chain
from python_core.hpa.query.smoothing import path_cost
from tests.core.hpa.query.grid_oracle import oracle, step_ok

SIDE = 16
WEIGHT = 2.0
CELLS = ((1.0, 1.0), (1.0, 2.5), (3.0, 1.0))


def test_dominated_marks_the_cells_next_to_the_cell_before() -> None:
    # entered by a step right (move 0): up-left (move 7) is straight above the cell before,
    # up (move 3) diagonal from it, right again (move 0) two cells on
    assert (DOMINATED[0, 7], DOMINATED[0, 3], DOMINATED[0, 0], DOMINATED[0, 1]) == (1, 2, 0, 1)


@pytest.mark.parametrize("diag", [0, 1, 2, 3])
@pytest.mark.parametrize(("cw", "ch"), CELLS)
def test_bounded_link_on_one_weight_finds_an_optimal_path(diag: int, cw: float, ch: float) -> None:
    rng = np.random.default_rng(7 * diag + int(10 * cw + ch))
    n, checked = SIDE * SIDE, 0
    weights = np.full(n, WEIGHT)
    for _ in range(10):
        walk = (rng.random(n) >= 0.25).astype(np.uint8)
        open_cells = np.flatnonzero(walk)
        a = int(open_cells[0])
        dist = oracle(walk, weights, SIDE, diag, a, (cw, ch))
        for b in rng.choice(open_cells, 8):
            best = dist.get(int(b))
            if best is None or b == a:
                continue
            out = np.empty(n, np.int64)
            scratch = (np.empty(n), np.zeros(n, np.int32), 1, np.empty(n, np.int64), np.empty(n, np.int64))
            m = bounded_link(
                walk, weights, SIDE, 0, 0, SIDE, SIDE, diag, cw, ch, a, int(b), WEIGHT, WEIGHT, best,
                *scratch, np.empty(n), out,
            )  # fmt: skip
            assert m >= 0, "one weight: the search never gives up on a reachable cell"
            cells = np.concatenate(([a], out[:m]))
            assert cells[-1] == b
            assert all(step_ok(walk, SIDE, diag, int(u), int(v)) for u, v in itertools.pairwise(cells))
            assert path_cost(cells, weights, SIDE, cw, ch) == pytest.approx(best, rel=1e-9)
            checked += 1
    assert checked > 30


def test_line_may_do_only_rules_out_lines_dearer_than_the_optimum() -> None:
    # 3 across and 1 down: a diagonal and two straight steps, 2 + sqrt(2) at weight 1
    line = 2 + math.sqrt(2)
    assert line_may_do(8, 3, 1.0, 1.0, 1.0, 0, 11, line)
    assert not line_may_do(8, 3, 1.0, 1.0, 1.0, 0, 11, line + 0.01)
    assert line_may_do(8, 3, 1.0, 1.0, 0.0, 0, 11, line + 5.0), "several weights: the line is walked"


def test_refine_chain_on_one_weight_costs_its_links() -> None:
    rng = np.random.default_rng(3)
    side, csize = 32, 8
    walk = (rng.random(side * side) >= 0.2).astype(np.uint8)
    weights = np.full(side * side, WEIGHT)
    cells = np.flatnonzero(walk[: side * csize].reshape(csize, side)[:, :csize].ravel() != 0)
    a, b = int(cells[0]), int(cells[-1])  # local cells of the first 8 x 8 cluster: global row = local
    a, b = (a // csize) * side + a % csize, (b // csize) * side + b % csize
    block = np.zeros_like(walk)  # the cluster alone: the oracle stays inside it
    block.reshape(side, side)[:csize, :csize] = walk.reshape(side, side)[:csize, :csize]
    dist = oracle(block, weights, side, 3, a)
    if b not in dist:
        pytest.skip("walled off in this draw")
    got = refine_chain(
        walk, weights, side, side, csize, 3, 1.0, 1.0, WEIGHT, WEIGHT, np.array([a, b]), np.array([dist[b]])
    )
    assert got[0] == a
    assert got[-1] == b
    assert path_cost(got, weights, side, 1.0, 1.0) == pytest.approx(dist[b], rel=1e-9)
