"""HPA* refinement on one weight (python_core.hpa.query.refine): the bounded link search that skips
steps the cell before makes directly for less (DOMINATED) still finds a path of exactly the optimal
cost, on non-square cells and a weight other than 1, under every diagonal rule (a heapq Dijkstra
in this file is the oracle); and the straight line is skipped only when the optimum is dearer than
it (line_may_do), so refine_chain's links keep their table costs."""

from __future__ import annotations

import heapq
import itertools
import math

import numpy as np
import pytest

from python_core.hpa.query.refine import DOMINATED, bounded_link, line_may_do, refine_chain
from python_core.hpa.query.smoothing import path_cost

SIDE = 16
WEIGHT = 2.0
CELLS = ((1.0, 1.0), (1.0, 2.5), (3.0, 1.0))
STEPS = [(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy]


def step_ok(walk: np.ndarray, diag: int, a: int, b: int) -> bool:
    ax, ay, bx, by = a % SIDE, a // SIDE, b % SIDE, b // SIDE
    if not walk[b]:
        return False
    if ax == bx or ay == by:
        return True
    sides = (bool(walk[ay * SIDE + bx]), bool(walk[by * SIDE + ax]))
    return {0: False, 1: True, 2: any(sides), 3: all(sides)}[diag]


def oracle(walk: np.ndarray, diag: int, cw: float, ch: float, a: int) -> dict[int, float]:
    """Dijkstra over the grid: the step's world length times the one weight."""
    dist, todo = {a: 0.0}, [(0.0, a)]
    while todo:
        d, u = heapq.heappop(todo)
        if d > dist[u]:
            continue
        x, y = u % SIDE, u // SIDE
        for dx, dy in STEPS:
            if not (0 <= x + dx < SIDE and 0 <= y + dy < SIDE):
                continue
            v = (y + dy) * SIDE + x + dx
            if step_ok(walk, diag, u, v):
                nd = d + math.hypot(dx * cw, dy * ch) * WEIGHT
                if nd < dist.get(v, math.inf):
                    dist[v] = nd
                    heapq.heappush(todo, (nd, v))
    return dist


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
        dist = oracle(walk, diag, cw, ch, a)
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
            assert all(step_ok(walk, diag, int(u), int(v)) for u, v in itertools.pairwise(cells))
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
    dist = oracle_block(walk, side, csize, a)
    if b not in dist:
        pytest.skip("walled off in this draw")
    got = refine_chain(
        walk, weights, side, side, csize, 3, 1.0, 1.0, WEIGHT, WEIGHT, np.array([a, b]), np.array([dist[b]])
    )
    assert got[0] == a
    assert got[-1] == b
    assert path_cost(got, weights, side, 1.0, 1.0) == pytest.approx(dist[b], rel=1e-9)


def oracle_block(walk: np.ndarray, side: int, csize: int, a: int) -> dict[int, float]:
    """Dijkstra inside the top-left ``csize`` block of a ``side``-wide grid, no corner cutting."""
    dist, todo = {a: 0.0}, [(0.0, a)]
    while todo:
        d, u = heapq.heappop(todo)
        if d > dist[u]:
            continue
        x, y = u % side, u // side
        for dx, dy in STEPS:
            nx, ny = x + dx, y + dy
            if not (0 <= nx < csize and 0 <= ny < csize):
                continue
            v = ny * side + nx
            if not walk[v] or (dx and dy and not (walk[y * side + nx] and walk[ny * side + x])):
                continue
            nd = d + math.hypot(dx, dy) * WEIGHT
            if nd < dist.get(v, math.inf):
                dist[v] = nd
                heapq.heappush(todo, (nd, v))
    return dist
