"""Entrances between neighbouring clusters (Botea, Mueller, Schaeffer 2004) and their transitions.

Quick start::

    import numpy as np
    from python_core.hpa.entrances import VERTICAL, border_crossings
    walk = np.ones(4 * 8, np.uint8)                       # 8 columns x 4 rows, clusters of 4
    cells, costs = border_crossings(walk, np.ones(32), 8, 4, 4, 3, 1.0, 1.0, VERTICAL, 0, 0, 6)
    assert cells.tolist() == [[9, 10]]                    # one short entrance: one mid transition

A *border* is named ``(kind, cx, cy)``: ``VERTICAL`` between clusters (cx, cy) | (cx+1, cy),
``HORIZONTAL`` between (cx, cy) / (cx, cy+1), and, for squeezes through a cluster corner,
``CORNER`` (cx, cy) -> (cx+1, cy+1) and ``ANTI_CORNER`` (cx+1, cy) -> (cx, cy+1). An entrance is a
maximal run of walkable cell pairs facing each other across the border; a run of up to
``long_len`` pairs gets one transition pair in its middle, a longer one two, at its ends. Every legal
diagonal crossing then starts or ends next to a run cell of the same cluster column/row, except a
*squeeze* (both side cells blocked, legal only with ``DiagonalMode.ALWAYS``): each squeeze is an
entrance of its own, so the abstract graph keeps every connection the grid has.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

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
]

VERTICAL = 0
HORIZONTAL = 1
CORNER = 2
ANTI_CORNER = 3

Border = tuple[int, int, int]
"""``(kind, cx, cy)``."""

U8 = npt.NDArray[np.uint8]
F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]


@jit
def _append(cells: I64, costs: F64, m: int, a: int, b: int, ab: float, ba: float) -> int:  # noqa: PLR0917
    cells[m, 0], cells[m, 1], costs[m, 0], costs[m, 1] = a, b, ab, ba
    return m + 1


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
        long_len: runs longer than this get two transitions.

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
    bx, by = (cx + 1) * csize - 1, (cy + 1) * csize - 1  # last column / row of the first cluster
    if kind >= CORNER:
        if diag != 1 or bx + 1 >= width or by + 1 >= height:
            return cells[:0], costs[:0]
        a, b = by * width + bx, (by + 1) * width + bx + 1  # CORNER: top-left -> bottom-right
        s1, s2 = by * width + bx + 1, (by + 1) * width + bx
        if kind == ANTI_CORNER:
            a, b, s1, s2 = s1, s2, a, b
        if walk[a] and walk[b] and not walk[s1] and not walk[s2]:
            m = _append(cells, costs, m, a, b, dl * weights[b], dl * weights[a])
        return cells[:m], costs[:m]
    vertical = kind == VERTICAL
    if (vertical and bx + 1 >= width) or (not vertical and by + 1 >= height):
        return cells[:0], costs[:0]
    lo = cy * csize if vertical else cx * csize
    hi = min(lo + csize, height if vertical else width)
    # a cell at position t along the border, on side 0 (first cluster) or 1 (second)
    step = width if vertical else 1
    base0 = lo * width + bx if vertical else by * width + lo
    base1 = base0 + (1 if vertical else width)
    straight = cw if vertical else ch
    run = -1
    for t in range(lo, hi + 1):
        pair = t < hi and walk[base0 + (t - lo) * step] != 0 and walk[base1 + (t - lo) * step] != 0
        if pair and run < 0:
            run = t
        if not pair and run >= 0:
            length = t - run
            picks = (run + (length - 1) // 2, -1) if length <= long_len else (run, t - 1)
            for p in picks:
                if p >= 0:
                    a, b = base0 + (p - lo) * step, base1 + (p - lo) * step
                    m = _append(cells, costs, m, a, b, straight * weights[b], straight * weights[a])
            run = -1
    if diag == 1:
        for t in range(lo, hi):
            a = base0 + (t - lo) * step
            for d in (-1, 1):
                if t + d < lo or t + d >= hi:
                    continue
                b = base1 + (t + d - lo) * step
                s1, s2 = base1 + (t - lo) * step, base0 + (t + d - lo) * step
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
    bx, by = (cx + 1) * csize - 1, (cy + 1) * csize - 1  # last column / row of the first cluster
    if kind >= CORNER:
        if diag == 0 or bx + 1 >= width or by + 1 >= height:
            return True
        a = by * width + bx
        return not (walk[a] and walk[a + 1] and walk[a + width] and walk[a + width + 1])
    vertical = kind == VERTICAL
    if (vertical and bx + 1 >= width) or (not vertical and by + 1 >= height):
        return True
    lo = cy * csize if vertical else cx * csize
    hi = min(lo + csize, height if vertical else width)
    step = width if vertical else 1
    base0 = lo * width + bx if vertical else by * width + lo
    base1 = base0 + (1 if vertical else width)
    before = False
    for t in range(hi - lo):
        pair = walk[base0 + t * step] != 0 and walk[base1 + t * step] != 0
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
