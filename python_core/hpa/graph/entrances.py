"""Entrances between neighbouring clusters (Botea, Mueller, Schaeffer 2004) and their transitions.

Quick start::

    import numpy as np
    from python_core.hpa.graph.entrances import VERTICAL, border_crossings
    walk = np.ones(4 * 8, np.uint8)                       # 8 columns x 4 rows, clusters of 4
    cells, costs = border_crossings(walk, np.ones(32), 8, 4, 4, 3, 1.0, 1.0, VERTICAL, 0, 0, 6)
    assert cells.tolist() == [[9, 10]]                    # one short entrance: one mid transition

A *border* is named ``(kind, cx, cy)``: ``VERTICAL`` between clusters (cx, cy) | (cx+1, cy),
``HORIZONTAL`` between (cx, cy) / (cx, cy+1), and, for squeezes through a cluster corner,
``CORNER`` (cx, cy) -> (cx+1, cy+1) and ``ANTI_CORNER`` (cx+1, cy) -> (cx, cy+1). An entrance is a
maximal run of walkable cell pairs facing each other across the border; a run of up to
``long_len`` pairs gets one transition pair, a longer one two, at its ends. The one pair is the
run's lightest (the smallest sum of its two cells' weights), the middlemost of those: its middle on
a one-weight map; on weighted ground a path then crosses where crossing is cheap, which lowers
the mean cost of weighted maps' paths.

A longer run whose cells differ in weight is cut into the fewest pieces of at most ``long_len``
pairs, each with its lightest pair as a transition, instead of two transitions at its ends, which
may be heavy cells that every path then pays for: on ``bench/hpa_weighted.py``'s maps pieces
about halve the mean and worst excess cost, for a few more nodes at the same query time.
One-weight runs keep their two end transitions. Every legal
diagonal crossing then starts or ends next to a run cell of the same cluster column/row, except a
*squeeze* (both side cells blocked, legal only with ``DiagonalMode.ALWAYS``): each squeeze is an
entrance of its own, so the abstract graph keeps every connection the grid has.
"""

from __future__ import annotations

import math

import numpy as np

from python_core._types import F64, I64, U8
from python_core.compiled import jit

__all__ = [
    "ANTI_CORNER",
    "CORNER",
    "HORIZONTAL",
    "VERTICAL",
    "Border",
    "border_crossings",
    "border_exact",
    "borders_of",
    "side_geometry",
]

VERTICAL = 0
HORIZONTAL = 1
CORNER = 2
ANTI_CORNER = 3

Border = tuple[int, int, int]
"""``(kind, cx, cy)``."""


@jit
def _append(cells: I64, costs: F64, m: int, a: int, b: int, ab: float, ba: float) -> int:  # noqa: PLR0917
    cells[m, 0], cells[m, 1], costs[m, 0], costs[m, 1] = a, b, ab, ba
    return m + 1


@jit
def _corner(width: int, height: int, csize: int, cx: int, cy: int) -> int:
    """Top-left cell of the 2 x 2 block at the corner after cluster ``(cx, cy)``; -1 off the grid."""
    bx, by = (cx + 1) * csize - 1, (cy + 1) * csize - 1  # last column / row of the first cluster
    return -1 if bx + 1 >= width or by + 1 >= height else by * width + bx


@jit
def _side(width: int, height: int, csize: int, vertical: bool, cx: int, cy: int) -> tuple[int, int, int, int]:  # noqa: PLR0917
    """A side border as ``(first, n, step, across)``: its first cluster's cells are ``first + t *
    step`` for ``t < n`` (``n = 0`` off the grid), each facing the cell ``across`` further on."""
    bx, by = (cx + 1) * csize - 1, (cy + 1) * csize - 1  # last column / row of the first cluster
    if (vertical and bx + 1 >= width) or (not vertical and by + 1 >= height):
        return 0, 0, 1, 1
    lo = cy * csize if vertical else cx * csize
    n = min(lo + csize, height if vertical else width) - lo
    if vertical:
        return lo * width + bx, n, width, 1
    return by * width + lo, n, 1, width


side_geometry = _side
"""``side_geometry(width, height, csize, vertical, cx, cy)``: a side border as ``(first, n, step,
across)`` (its first cluster's cells ``first + t * step``, each facing the cell ``across`` on)."""


@jit
def _cheapest(weights: F64, base0: int, step: int, across: int, run: int, end: int) -> int:  # noqa: PLR0917
    """The pair of the run ``[run, end)`` whose two cells weigh least, the middlemost on ties."""
    mid2 = run + end - 1  # twice the middle position
    best, best_w, best_off = run, np.inf, 0
    for t in range(run, end):
        a = base0 + t * step
        w = weights[a] + weights[a + across]
        off = abs(2 * t - mid2)
        if w < best_w or (w == best_w and off < best_off):
            best, best_w, best_off = t, w, off
    return best


@jit
def _cross(cells: I64, costs: F64, m: int, weights: F64, side: tuple[int, int, int, float], p: int) -> int:  # noqa: PLR0917
    """Append the transition pair at position ``p`` of a side border ``side = (base0, step,
    across, straight step length)``; return the new count."""
    base0, step, across, straight = side
    a = base0 + p * step
    b = a + across
    return _append(cells, costs, m, a, b, straight * weights[b], straight * weights[a])


@jit
def _uneven(weights: F64, base0: int, step: int, across: int, run: int, end: int) -> bool:  # noqa: PLR0917
    """Whether the cells of the run ``[run, end)`` (both sides) differ in weight."""
    w = weights[base0 + run * step]
    for t in range(run, end):
        a = base0 + t * step
        if weights[a] != w or weights[a + across] != w:
            return True
    return False


@jit
def border_crossings(  # noqa: PLR0917, PLR0912 (compiled kernel: one flat loop per case)
    walk: U8,
    weights: F64,
    width: int,
    height: int,
    csize: int,
    diag: int,
    cw: float,
    ch: float,
    kind: int,
    cx: int,
    cy: int,
    long_len: int,
) -> tuple[I64, F64]:
    """The transition pairs of one border.

    Args:
        walk: global walkable flags.
        weights: global weights.
        width: grid columns.
        height: grid rows.
        csize: cluster size in cells.
        diag: diagonal rule code (0 never, 1 always, 2 at least one, 3 no obstacles).
        cw: cell width.
        ch: cell height.
        kind: ``VERTICAL``, ``HORIZONTAL``, ``CORNER`` or ``ANTI_CORNER``.
        cx: cluster column of the border's first cluster (left / top-left).
        cy: cluster row.
        long_len: runs longer than this get two transitions (one per piece of at most this many
            pairs when their cells differ in weight).

    Returns:
        ``(cells, costs)``: ``(m, 2)`` cells (first cluster's cell, second's) and the step costs
        ``(first -> second, second -> first)``.

    Example:
        >>> c, _ = border_crossings(np.ones(8, np.uint8), np.ones(8), 4, 2, 2, 0, 1.0, 1.0, 1, 0, 0, 6)
        >>> c.shape
        (0, 2)
    """
    dl = math.hypot(cw, ch)
    cap = 2 * csize + 4
    cells = np.empty((cap, 2), dtype=np.int64)
    costs = np.empty((cap, 2))
    m = 0
    if kind >= CORNER:
        corner = _corner(width, height, csize, cx, cy)
        if diag != 1 or corner < 0:
            return cells[:0], costs[:0]
        # CORNER: top-left -> bottom-right past the other two cells of the block
        a, b, s1, s2 = corner, corner + width + 1, corner + 1, corner + width
        if kind == ANTI_CORNER:
            a, b, s1, s2 = s1, s2, a, b
        if walk[a] and walk[b] and not walk[s1] and not walk[s2]:
            m = _append(cells, costs, m, a, b, dl * weights[b], dl * weights[a])
        return cells[:m], costs[:m]
    vertical = kind == VERTICAL
    # a cell at position t along the border: base0 + t * step on side 0 (first cluster), + across on side 1
    base0, n, step, across = _side(width, height, csize, vertical, cx, cy)
    straight = cw if vertical else ch
    run = -1
    for t in range(n + 1):
        pair = t < n and walk[base0 + t * step] != 0 and walk[base0 + t * step + across] != 0
        if pair and run < 0:
            run = t
        if not pair and run >= 0:
            length = t - run
            side = (base0, step, across, straight)
            if length <= long_len:
                m = _cross(cells, costs, m, weights, side, _cheapest(weights, base0, step, across, run, t))
            elif not _uneven(weights, base0, step, across, run, t):
                m = _cross(cells, costs, m, weights, side, run)
                m = _cross(cells, costs, m, weights, side, t - 1)
            else:
                parts = -(-length // long_len)  # pieces of at most long_len pairs, one pick each
                for k in range(parts):
                    lo, hi = run + k * length // parts, run + (k + 1) * length // parts
                    m = _cross(
                        cells, costs, m, weights, side, _cheapest(weights, base0, step, across, lo, hi)
                    )
            run = -1
    if diag == 1:
        for t in range(n):
            a = base0 + t * step
            for d in (-1, 1):
                if t + d < 0 or t + d >= n:
                    continue
                b = base0 + (t + d) * step + across
                s1, s2 = a + across, base0 + (t + d) * step
                if walk[a] and walk[b] and not walk[s1] and not walk[s2]:
                    m = _append(cells, costs, m, a, b, dl * weights[b], dl * weights[a])
    return cells[:m], costs[:m]


@jit
def border_exact(  # noqa: PLR0917 (compiled kernel: positional)
    walk: U8, width: int, height: int, csize: int, diag: int, kind: int, cx: int, cy: int
) -> bool:
    """Whether every legal move across this border is one of its transition pairs.

    True when no entrance is longer than one pair (its one transition is then the only way
    across) and, without diagonals or with no corner cutting (``diag`` 0 or 3), no diagonal move
    crosses it: within a side border one would need two adjacent pairs, and across a cluster
    corner (``CORNER`` / ``ANTI_CORNER``) a fully open 2 x 2 block. Squeezes (``diag`` 1) are
    transitions already; other diagonal rules cross beside a pair, so they are never exact.

    Example:
        >>> walk = np.ones(16, np.uint8)
        >>> border_exact(walk, 4, 4, 2, 3, 0, 0, 0), border_exact(walk, 4, 4, 2, 3, 2, 0, 0)
        (False, False)
        >>> walk[[2, 6, 4, 5]] = 0                    # column 2 of rows 0-1, row 1 of columns 0-1
        >>> border_exact(walk, 4, 4, 2, 3, 0, 0, 0), border_exact(walk, 4, 4, 2, 3, 1, 0, 0)
        (True, True)
    """
    if diag in (1, 2):
        return False
    if kind >= CORNER:
        a = _corner(width, height, csize, cx, cy)
        return diag == 0 or a < 0 or not (walk[a] and walk[a + 1] and walk[a + width] and walk[a + width + 1])
    base0, n, step, across = _side(width, height, csize, kind == VERTICAL, cx, cy)
    before = False
    for t in range(n):
        pair = walk[base0 + t * step] != 0 and walk[base0 + t * step + across] != 0
        if pair and before:
            return False
        before = pair
    return True


def borders_of(cx: int, cy: int) -> list[tuple[Border, int]]:
    """The borders a cluster takes part in, each with the cluster's side (0 first, 1 second).

    Example:
        >>> borders_of(1, 1)[:2]
        [((0, 1, 1), 0), ((0, 0, 1), 1)]
    """
    return [
        ((VERTICAL, cx, cy), 0),
        ((VERTICAL, cx - 1, cy), 1),
        ((HORIZONTAL, cx, cy), 0),
        ((HORIZONTAL, cx, cy - 1), 1),
        ((CORNER, cx, cy), 0),
        ((CORNER, cx - 1, cy - 1), 1),
        ((ANTI_CORNER, cx - 1, cy), 0),
        ((ANTI_CORNER, cx, cy - 1), 1),
    ]
