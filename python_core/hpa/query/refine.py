"""Refinement: a chain of transition cells made concrete, cluster by cluster.

Quick start::

    import numpy as np
    from python_core.hpa.query.refine import refine_chain
    walk, w = np.ones(4, np.uint8), np.ones(4)
    cells = refine_chain(walk, w, 4, 1, 4, 0, 1.0, 1.0, 1.0, np.array([0, 3]), np.array([3.0]))
    assert cells.tolist() == [0, 1, 2, 3]

Two consecutive transitions in one cluster are joined by the straight grid line when it is legal
and as cheap as the table says (then it is an optimal path), else by an exact A* confined to the
cluster (:func:`~python_core.hpa.graph.cluster_search.rect_search`).
"""

from __future__ import annotations

import math

import numpy as np

from python_core._types import F64, I64, U8
from python_core.compiled import jit
from python_core.hpa.graph.cluster_search import parent_walk, push_cells, rect_search
from python_core.hpa.steps import step_allowed

__all__ = ["refine_chain", "straight_line"]


@jit
def straight_line(  # noqa: PLR0917
    walk: U8,
    weights: F64,
    width: int,
    diag: int,
    cw: float,
    ch: float,
    a: int,
    b: int,
    budget: float,
    out: I64,
) -> bool:
    """Write the straight grid line from ``a`` to ``b`` (``b`` included, ``a`` not) into ``out``.

    Returns:
        True when every step is legal and the line costs at most ``budget`` (plus rounding).

    Example:
        >>> straight_line(np.ones(4, np.uint8), np.ones(4), 4, 0, 1.0, 1.0, 0, 3, 3.0, np.zeros(4, np.int64))
        True
    """
    ax, ay, bx, by = a % width, a // width, b % width, b // width
    dx, dy = bx - ax, by - ay
    steps = max(abs(dx), abs(dy))
    dl = math.hypot(cw, ch)
    cost = 0.0
    px, py = ax, ay
    for k in range(1, steps + 1):
        # round(k * |d| / steps), halves up: each step moves at most one column and one row
        x = ax + (1 if dx >= 0 else -1) * ((2 * k * abs(dx) + steps) // (2 * steps))
        y = ay + (1 if dy >= 0 else -1) * ((2 * k * abs(dy) + steps) // (2 * steps))
        cur = y * width + x
        if walk[cur] == 0 or not step_allowed(walk, width, px, py, x - px, y - py, diag):
            return False
        cost += (dl if x != px and y != py else (cw if x != px else ch)) * weights[cur]
        out[k - 1] = cur
        px, py = x, y
    return cost <= budget + 1e-9 * (1.0 + budget)


@jit
def refine_chain(  # noqa: PLR0917
    walk: U8,
    weights: F64,
    width: int,
    height: int,
    csize: int,
    diag: int,
    cw: float,
    ch: float,
    h_scale: float,
    chain: I64,
    link_costs: F64,
) -> I64:
    """Concrete cells of a chain of transition cells: A* inside the shared cluster per link.

    Two consecutive cells in the same cluster are joined by the straight grid line when that line
    is legal and costs ``link_costs[i]`` (the exact table cost: then it is an optimal path), else
    by an exact A* confined to the cluster; cells in different clusters are one step apart (an
    entrance crossing) and are joined directly.

    Returns:
        The cells from ``chain[0]`` to ``chain[-1]``, both included.

    Example:
        >>> refine_chain(np.ones(4, np.uint8), np.ones(4), 4, 1, 4, 0, 1.0, 1.0, 1.0, np.array([0, 3]),
        ...              np.array([3.0]))
        array([0, 1, 2, 3])
    """
    out = np.empty(max(16, 4 * chain.shape[0]), dtype=np.int64)
    out[0] = chain[0]
    n = 1
    size = csize * csize
    dist = np.empty(size)
    parent = np.empty(size, dtype=np.int64)
    closed = np.empty(size, dtype=np.uint8)
    seg = np.empty(size, dtype=np.int64)
    for i in range(chain.shape[0] - 1):
        a, b = chain[i], chain[i + 1]
        ax, ay, bx, by = a % width, a // width, b % width, b // width
        if ax // csize != bx // csize or ay // csize != by // csize:
            m = 1  # a crossing: b is a neighbour of a
            seg[0] = b
        elif straight_line(walk, weights, width, diag, cw, ch, a, b, link_costs[i], seg):
            m = max(abs(bx - ax), abs(by - ay))
        else:
            x0, y0 = (ax // csize) * csize, (ay // csize) * csize
            lw, lh = min(csize, width - x0), min(csize, height - y0)
            dist[:] = np.inf
            parent[:] = -1
            closed[:] = 0
            rect_search(
                walk, weights, width, x0, y0, lw, lh, diag, cw, ch, a, b, 0, h_scale, dist, parent, closed,
                seg[:0],
            )  # fmt: skip
            m = parent_walk(parent, x0, y0, lw, width, b, seg) - 1  # b ... a, then a dropped
            out, n = push_cells(out, n, seg, m, True)
            continue
        out, n = push_cells(out, n, seg, m, False)
    result: I64 = out[:n].copy()
    return result
