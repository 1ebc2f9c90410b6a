"""HPA* refinement (python_core.hpa.query.refine): the bounded depth-first link search finds a path
of exactly the optimal cost (a plain heapq Dijkstra in this file is the oracle) under every
diagonal rule and on weighted cells (or gives up there, for the A*), reports none below the
optimum or to a walled-off cell, and refine_chain joins a chain of transitions at the cost of its
links."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from python_core.hpa.query.refine import bounded_link, refine_chain
from python_core.hpa.query.smoothing import path_cost
from tests.core.hpa.query.grid_oracle import oracle, step_ok

DIAGS = (0, 1, 2, 3)  # never, always, at least one side walkable, no corner cutting
SIDE = 14


def link(walk: np.ndarray, weights: np.ndarray, diag: int, a: int, b: int, bound: float) -> np.ndarray | None:  # noqa: PLR0917
    n = walk.shape[0]
    scratch = (
        np.empty(n),
        np.zeros(n, np.int32),
        1,
        np.empty(n, np.int64),
        np.empty(n, np.int64),
        np.empty(n),
    )
    out = np.empty(n, np.int64)
    one = 1.0 if (weights == 1.0).all() else 0.0  # both ways of pricing a step
    m = bounded_link(
        walk, weights, SIDE, 0, 0, SIDE, SIDE, diag, 1.0, 1.0, a, b, 1.0, one, bound, *scratch, out
    )
    return None if m < 0 else out[:m]


@pytest.mark.parametrize("diag", DIAGS)
@pytest.mark.parametrize("weighted", [False, True])
def test_bounded_link_finds_an_optimal_path(diag: int, weighted: bool) -> None:
    rng = np.random.default_rng(diag + 10 * weighted)
    checked = 0
    for _ in range(12):
        walk = (rng.random(SIDE * SIDE) >= 0.3).astype(np.uint8)
        weights = rng.choice([1.0, 2.5], SIDE * SIDE) if weighted else np.ones(SIDE * SIDE)
        open_cells = np.flatnonzero(walk)
        a = int(open_cells[0])
        dist = oracle(walk, weights, SIDE, diag, a)
        for b in rng.choice(open_cells, 6):
            best = dist.get(int(b))
            path = link(walk, weights, diag, a, int(b), math.inf if best is None else best)
            if best is None or b == a:
                continue
            if path is None:  # gave up (VISIT_FACTOR): refine_chain then runs the A*
                assert weighted, "unit weights: the octile estimate keeps the search narrow"
                continue
            assert path[-1] == b
            cells = np.concatenate(([a], path))
            assert all(step_ok(walk, SIDE, diag, int(u), int(v)) for u, v in itertools.pairwise(cells))
            assert path_cost(cells, weights, SIDE, 1.0, 1.0) == pytest.approx(best, rel=1e-9)
            # below the optimum there is nothing to find
            assert link(walk, weights, diag, a, int(b), best * 0.999 - 1e-6) is None
            checked += 1
    assert checked > (10 if weighted else 25)


def test_bounded_link_reports_a_walled_off_target() -> None:
    walk = np.ones(SIDE * SIDE, np.uint8)
    walk.reshape(SIDE, SIDE)[:, 7] = 0  # a full wall between the halves
    assert link(walk, np.ones(SIDE * SIDE), 3, 0, SIDE * SIDE - 1, math.inf) is None


def test_refine_chain_costs_its_links() -> None:
    """Two transitions of one cluster behind a wall: the line is blocked, the link search joins
    them at the table's cost; a crossing to the next cluster is one step."""
    width = 2 * SIDE
    walk = np.ones(width * SIDE, np.uint8)
    walk.reshape(SIDE, width)[2:12, 6] = 0
    weights = np.ones(width * SIDE)
    a, b, c = 7 * width + 0, 7 * width + SIDE - 1, 7 * width + SIDE
    best = oracle(walk[: width * SIDE], weights, width, 3, a)[b]  # the wall keeps it inside the cluster
    cells = refine_chain(
        walk, weights, width, SIDE, SIDE, 3, 1.0, 1.0, 1.0, 1.0, np.array([a, b, c]), np.array([best, 1.0])
    )
    assert (cells[0], cells[-1]) == (a, c)
    assert b in cells
    assert path_cost(cells, weights, width, 1.0, 1.0) == pytest.approx(best + 1.0, rel=1e-9)
