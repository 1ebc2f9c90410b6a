"""python_core.hpa.query.refine_ends: a chain refined from both ends at once gives refine_chain's
cells, whichever end reaches which link first: each span stops at the other's claims, a link both
ends refined is kept once, and the back span alone does a chain the helper never started."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

from python_core.hpa.query.refine import refine_chain
from python_core.hpa.query.refine_ends import SPLIT_LINKS, join_spans, refine_from_both_ends, refine_span
from python_core.hpa.query.smoothing import path_cost
from tests.core.hpa.query.grid_oracle import oracle, step_ok

SIZE, CLUSTERS = 16, 30


def long_chain() -> tuple[tuple[Any, ...], list[float]]:
    """A chain of 59 links (over SPLIT_LINKS) across 30 clusters of a random map: each cluster's
    two transitions on an open row, joined by the cluster's optimal path, then a crossing."""
    rng = np.random.default_rng(3)
    width = SIZE * CLUSTERS
    grid = (rng.random((SIZE, width)) > 0.2).astype(np.uint8)
    grid[8, :] = 1  # the transitions' row is open, so every link has a path
    walk, weights = grid.reshape(-1), np.ones(SIZE * width)
    chain, costs = [], []
    for i in range(CLUSTERS):
        a, b = 8 * width + SIZE * i, 8 * width + SIZE * i + SIZE - 1
        inside = grid[:, SIZE * i : SIZE * (i + 1)].reshape(-1)
        costs += [oracle(inside, np.ones(SIZE * SIZE), SIZE, 3, 8 * SIZE)[8 * SIZE + SIZE - 1], 1.0]
        chain += [a, b]
    chain_arr, costs_arr = np.array(chain, dtype=np.int64), np.array(costs[:-1])
    assert chain_arr.shape[0] - 1 >= SPLIT_LINKS
    return (walk, weights, width, SIZE, SIZE, 3, 1.0, 1.0, 1.0, 0.0, chain_arr, costs_arr), costs[:-1]


def span(args: tuple[Any, ...], claimed: np.ndarray, backwards: bool) -> tuple[np.ndarray, np.ndarray]:
    """refine_span over refine_chain's arguments ``args``."""
    return refine_span(args[:10], args[10], args[11], claimed, backwards)


def test_both_ends_give_refine_chains_cells() -> None:
    args, costs = long_chain()
    whole = refine_chain(*args)
    for _ in range(20):  # the helper starts at a different link each time
        cells = refine_from_both_ends(args[:10], *args[10:])
        assert cells.tolist() == whole.tolist()
    walk, weights, width = args[0], args[1], args[2]
    assert all(step_ok(walk, width, 3, int(u), int(v)) for u, v in itertools.pairwise(cells))
    assert path_cost(cells, weights, width, 1.0, 1.0) == pytest.approx(sum(costs), rel=1e-9)


@pytest.mark.parametrize("meet", [0, 1, 29, 58, 59])
def test_spans_stop_at_the_other_ends_claims(meet: int) -> None:
    """The front claimed links [0, meet), the back [meet, 59): each stopped at the other's first."""
    args, _ = long_chain()
    links = 59
    claimed = np.zeros(links, np.uint8)
    claimed[meet:] = 1
    front = span(args, claimed, False)
    assert claimed.all()
    assert front[1].shape[0] == meet
    claimed = np.zeros(links, np.uint8)
    claimed[:meet] = 1
    back = span(args, claimed, True)
    assert back[1].shape[0] == links - meet
    assert int(front[1].sum()) == front[0].shape[0]
    assert join_spans(args[10], front, back).tolist() == refine_chain(*args).tolist()


def test_a_link_both_ends_refined_is_kept_once() -> None:
    args, _ = long_chain()
    front_claims, back_claims = np.zeros(59, np.uint8), np.zeros(59, np.uint8)
    front_claims[33:] = 1  # the front refined links 0-32
    back_claims[:30] = 1  # the back refined 30-58: links 30, 31 and 32 twice
    front, back = span(args, front_claims, False), span(args, back_claims, True)
    assert front[1].shape[0] + back[1].shape[0] == 59 + 3
    assert join_spans(args[10], front, back).tolist() == refine_chain(*args).tolist()


def test_the_back_span_alone_is_the_whole_chain() -> None:
    args, _ = long_chain()
    back = span(args, np.zeros(59, np.uint8), True)
    assert back[1].shape[0] == 59
    assert join_spans(args[10], None, back).tolist() == refine_chain(*args).tolist()


def test_a_short_chain_stays_in_this_thread() -> None:
    args, _ = long_chain()
    chain, costs = args[10], args[11]
    short = (*args[:10], chain[:9], costs[:8])
    assert refine_from_both_ends(short[:10], *short[10:]).tolist() == refine_chain(*short).tolist()
