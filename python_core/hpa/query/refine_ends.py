"""A long chain of transitions refined from both ends at once, on two cores.

Quick start (the arguments are :func:`~python_core.hpa.query.refine.refine_chain`'s)::

    grid = (walk, weights, width, height, csize, diag, cw, ch, h_scale, one_weight)
    cells = refine_from_both_ends(grid, chain, link_costs)     # == refine_chain(*grid, chain, link_costs)

The helper thread (:func:`~python_core.hpa.query.second_core.race`) refines links from the
chain's first on, the caller from its last back, each claiming a link in a shared flag array
before it refines it and stopping at the first link the other end claimed. Link times vary
tenfold on a random map (a straight line, or a bounded search that backtracks), so two fixed
halves finished apart, and the caller waited for a helper that woke late. On a 4096 x 4096 map
with 20% blocked, the chains of 30 queries took 0.65-0.67 ms a query from both ends, 0.68 in two
halves and 0.95-0.98 in one thread (in a quieter minute: 0.42 from both ends, 0.66 in one).

The flags are plain bytes, not atomics: two ends that read a link's flag at the same moment both
refine it (the same cells), and the join keeps the front's copy. An end stops only at a link
the other claimed, which that end then refines, so the two spans always meet.
"""

from __future__ import annotations

import numpy as np

from python_core._types import F64, I64, U8
from python_core.compiled import jit
from python_core.hpa.graph.cluster_search import push_cells
from python_core.hpa.query.refine import link_cells, link_scratch, refine_chain
from python_core.hpa.query.second_core import race

__all__ = ["SPLIT_LINKS", "Grid", "join_spans", "refine_from_both_ends", "refine_span"]

Grid = tuple[U8, F64, int, int, int, int, float, float, float, float]
"""The ``grid`` of :func:`refine_from_both_ends` and :func:`refine_span`: ``(walk, weights, width,
height, csize, diag, cw, ch, h_scale, one_weight)``, :func:`~python_core.hpa.query.refine.refine_chain`'s
first ten arguments."""

SPLIT_LINKS = 48
""":func:`refine_from_both_ends` shares a chain of at least this many links with the helper: a
shorter one costs too little (some 6 us a link on a 20% random map) to pay the thread hand-off."""


@jit
def refine_span(grid: Grid, chain: I64, link_costs: F64, claimed: U8, backwards: bool) -> tuple[I64, I64]:
    """Refine links of ``chain`` (:func:`~python_core.hpa.query.refine.link_cells`) from its first
    on, or from its last back, each claimed in ``claimed`` (one byte a link) first, up to the first
    link found claimed already (``grid``: :data:`Grid`).

    Returns:
        ``(cells, counts)`` in chain order: the cells of the links refined, each link's without its
        first transition, and each link's number of cells.

    Example:
        >>> grid = (np.ones(8, np.uint8), np.ones(8), 8, 1, 4, 0, 1.0, 1.0, 1.0, 1.0)
        >>> claimed = np.array([0, 0, 1], np.uint8)  # the other end has the last link
        >>> cells, counts = refine_span(grid, np.array([0, 3, 4, 7]), np.ones(3) * 3, claimed, False)
        >>> cells.tolist(), counts.tolist(), claimed.tolist()
        ([1, 2, 3, 4], [3, 1], [1, 1, 1])
    """
    csize = grid[4]
    work = link_scratch(csize * csize)
    links = chain.shape[0] - 1
    out = np.empty(max(16, 2 * chain.shape[0]), dtype=np.int64)
    counts = np.empty(links, dtype=np.int64)
    n = done = 0
    for k in range(links):
        i = links - 1 - k if backwards else k
        if claimed[i]:
            break
        claimed[i] = 1
        m, reversed_cells = link_cells(grid, chain[i], chain[i + 1], link_costs[i], k + 1, work)
        # from the back, each link's cells go in last to first: the whole span is turned at the end
        out, n = push_cells(out, n, work[8], m, reversed_cells != backwards)
        counts[done] = m
        done += 1
    if backwards:
        return out[:n][::-1].copy(), counts[:done][::-1].copy()
    return out[:n].copy(), counts[:done].copy()


def refine_from_both_ends(grid: Grid, chain: I64, link_costs: F64) -> I64:
    """:func:`~python_core.hpa.query.refine.refine_chain`'s cells (its first ten arguments
    as the tuple ``grid``: :data:`Grid`), a chain of :data:`SPLIT_LINKS` links or more
    refined from both ends at once (:func:`refine_span` on the helper thread from the front, in
    this one from the back).

    Example:
        >>> grid = (np.ones(64, np.uint8), np.ones(64), 64, 1, 4, 0, 1.0, 1.0, 1.0, 1.0)
        >>> refine_from_both_ends(grid, np.arange(8), np.ones(7)).tolist()
        [0, 1, 2, 3, 4, 5, 6, 7]
    """
    links = chain.shape[0] - 1
    if links < SPLIT_LINKS:
        return refine_chain(*grid, chain, link_costs)
    claimed = np.zeros(links, dtype=np.uint8)
    front, back = race(
        lambda: refine_span(grid, chain, link_costs, claimed, False),
        lambda: refine_span(grid, chain, link_costs, claimed, True),
    )
    return join_spans(chain, front, back)


def join_spans(chain: I64, front: tuple[I64, I64] | None, back: tuple[I64, I64]) -> I64:
    """The chain's cells from its two spans (:func:`refine_span`'s answers; ``front`` None when
    the helper never ran, and the back span is the whole chain), each link once: one both ends
    refined is taken from the front.

    Example:
        >>> chain = np.array([0, 2, 4])  # two links of two cells each
        >>> join_spans(chain, (np.array([1, 2, 3, 4]), np.array([2, 2])), (np.array([3, 4]), np.array([2])))
        array([0, 1, 2, 3, 4])
    """
    back_cells, back_counts = back
    if front is None:
        return np.concatenate((chain[:1], back_cells))
    front_cells, front_counts = front
    links = chain.shape[0] - 1
    twice = front_counts.shape[0] - (links - back_counts.shape[0])  # the spans meet: never below 0
    skip = int(back_counts[:twice].sum()) if twice > 0 else 0
    return np.concatenate((chain[:1], front_cells, back_cells[skip:]))
