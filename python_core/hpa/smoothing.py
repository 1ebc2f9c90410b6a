"""Shortcutting of a refined HPA* path along straight grid lines, never making it worse.

Quick start::

    import numpy as np
    from python_core.hpa.smoothing import shortcut
    walk, w = np.ones(9, np.uint8), np.ones(9)
    path = np.array([0, 1, 2, 5, 8])                      # around the edge of an empty 3 x 3 grid
    assert shortcut(path, walk, w, 3, 3, 1.0, 1.0, 32, 8).tolist() == [0, 4, 8]

From an anchor cell the smoother tries the straight 8-connected line to each later path cell (a
Bresenham line: ``max(|dx|, |dy|)`` steps, each one column and/or row), keeps the farthest whose
every step is legal (walkable cells, the diagonal rule) and no dearer than the path piece it
replaces (weights count), and continues from there. The result is a valid path whose cost never
exceeds the input's; ``window`` bounds the look-ahead and ``fail_limit`` stops after that many
consecutive failures, so the cost is linear in the path length.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from python_core.compiled import jit
from python_core.hpa.cluster_search import step_allowed

__all__ = ["line_cell", "line_cost", "path_cost", "shortcut"]

U8 = npt.NDArray[np.uint8]
F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]


@jit
def line_cell(a: int, b: int, k: int, width: int) -> int:
    """Cell number ``k`` of the line from ``a`` to ``b`` (``k = 0`` is ``a``)."""
    ax, ay, bx, by = a % width, a // width, b % width, b // width
    dx, dy = bx - ax, by - ay
    steps = max(abs(dx), abs(dy))
    if steps == 0:
        return a
    # round(k * |d| / steps), halves up, then the sign: every step moves at most one column / row
    x = ax + (1 if dx >= 0 else -1) * ((2 * k * abs(dx) + steps) // (2 * steps))
    y = ay + (1 if dy >= 0 else -1) * ((2 * k * abs(dy) + steps) // (2 * steps))
    return y * width + x


@jit
def line_cost(a: int, b: int, walk: U8, weights: F64, width: int, diag: int, cw: float, ch: float) -> float:  # noqa: PLR0917
    """Cost of the straight grid line from ``a`` to ``b``, or ``inf`` when a step is illegal.

    Example:
        >>> line_cost(0, 8, np.ones(9, np.uint8), np.ones(9), 3, 1, 1.0, 1.0) == 2 * 2**0.5
        True
    """
    ax, ay, bx, by = a % width, a // width, b % width, b // width
    steps = max(abs(bx - ax), abs(by - ay))
    dl = math.hypot(cw, ch)
    cost = 0.0
    prev = a
    for k in range(1, steps + 1):
        cur = line_cell(a, b, k, width)
        if walk[cur] == 0:
            return np.inf
        px, py = prev % width, prev // width
        sx, sy = cur % width - px, cur // width - py
        if not step_allowed(walk, width, px, py, sx, sy, diag):
            return np.inf
        length = dl if sx != 0 and sy != 0 else (cw if sx != 0 else ch)
        cost += length * weights[cur]
        prev = cur
    return cost


@jit
def path_cost(nodes: I64, weights: F64, width: int, cw: float, ch: float) -> float:
    """Sum of ``step_length * weight(entered cell)`` along a path of adjacent cells.

    Example:
        >>> path_cost(np.array([0, 1, 4]), np.ones(9), 3, 1.0, 1.0)
        2.0
    """
    dl = math.hypot(cw, ch)
    cost = 0.0
    for i in range(1, nodes.shape[0]):
        sx = nodes[i] % width - nodes[i - 1] % width
        sy = nodes[i] // width - nodes[i - 1] // width
        length = dl if sx != 0 and sy != 0 else (cw if sx != 0 else ch)
        cost += length * weights[nodes[i]]
    return cost


@jit
def _better(  # noqa: PLR0917
    nodes: I64,
    prefix: F64,
    i: int,
    j: int,
    walk: U8,
    weights: F64,
    width: int,
    diag: int,
    cw: float,
    ch: float,
) -> bool:
    """Whether the line from path cell i to path cell j is legal and no dearer (rounding aside)."""
    budget = prefix[j] - prefix[i]
    cost: float = line_cost(nodes[i], nodes[j], walk, weights, width, diag, cw, ch)
    better: bool = cost <= budget + 1e-9 * (1.0 + budget)
    return better


@jit
def _farthest(  # noqa: PLR0917
    nodes: I64,
    prefix: F64,
    i: int,
    last: int,
    walk: U8,
    weights: F64,
    width: int,
    diag: int,
    cw: float,
    ch: float,
    fail_limit: int,
) -> int:
    """A far path index j in (i, last] whose line from i is better: gallop, then bisect.

    Lines are tried at doubling distances, then the gap between the last success and the first
    failure is bisected: O(log window) line checks per anchor. When even the nearest line fails,
    a short linear scan (``fail_limit``) looks past a corner.
    """
    good, step = i + 1, 1
    while good + step <= last and _better(nodes, prefix, i, good + step, walk, weights, width, diag, cw, ch):
        good += step
        step *= 2
    bad = min(good + step, last + 1)
    while bad - good > 1:
        mid = (good + bad) // 2
        if _better(nodes, prefix, i, mid, walk, weights, width, diag, cw, ch):
            good = mid
        else:
            bad = mid
    if good == i + 1:
        for j in range(i + 3, min(last, i + fail_limit) + 1):
            if _better(nodes, prefix, i, j, walk, weights, width, diag, cw, ch):
                good = j
    return good


@jit
def shortcut(  # noqa: PLR0917
    nodes: I64,
    walk: U8,
    weights: F64,
    width: int,
    diag: int,
    cw: float,
    ch: float,
    window: int,
    fail_limit: int,
) -> I64:
    """Greedy straight-line shortcuts along a valid path (see the module docstring).

    Args:
        nodes: the path's cells, adjacent steps.
        walk: walkable flags.
        weights: cell weights.
        width: grid columns.
        diag: diagonal rule code.
        cw: cell width.
        ch: cell height.
        window: how many path cells ahead an anchor looks at most.
        fail_limit: stop looking after this many consecutive illegal or dearer lines.

    Returns:
        The smoothed path: same ends, valid steps, cost ``<=`` the input's.

    Example:
        >>> shortcut(np.array([4]), np.ones(9, np.uint8), np.ones(9), 3, 1, 1.0, 1.0, 8, 4).tolist()
        [4]
    """
    n = nodes.shape[0]
    prefix = np.zeros(n)
    dl = math.hypot(cw, ch)
    for i in range(1, n):
        sx = nodes[i] % width - nodes[i - 1] % width
        sy = nodes[i] // width - nodes[i - 1] // width
        length = dl if sx != 0 and sy != 0 else (cw if sx != 0 else ch)
        prefix[i] = prefix[i - 1] + length * weights[nodes[i]]
    out = np.empty(n, dtype=np.int64)  # a line is never longer than the piece it replaces
    out[0] = nodes[0]
    m = 1
    i = 0
    while i < n - 1:
        best = _farthest(
            nodes, prefix, i, min(n - 1, i + window), walk, weights, width, diag, cw, ch, fail_limit
        )
        if best == i + 1:
            out[m] = nodes[best]
            m += 1
        else:
            a, b = nodes[i], nodes[best]
            steps = max(abs(b % width - a % width), abs(b // width - a // width))
            for k in range(1, steps + 1):
                out[m] = line_cell(a, b, k, width)
                m += 1
        i = best
    result: I64 = out[:m].copy()
    return result
