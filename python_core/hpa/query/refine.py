"""Refinement: a chain of transition cells made concrete, cluster by cluster.

Quick start::

    import numpy as np
    from python_core.hpa.query.refine import refine_chain
    walk, w = np.ones(4, np.uint8), np.ones(4)
    cells = refine_chain(walk, w, 4, 1, 4, 0, 1.0, 1.0, 1.0, 1.0, np.array([0, 3]), np.array([3.0]))
    assert cells.tolist() == [0, 1, 2, 3]

Two consecutive transitions in one cluster are joined by the straight grid line when it is legal
and as cheap as the table says (then it is an optimal path), else by a depth-first search bounded
by that cost (:func:`bounded_link`), else by an exact A* confined to the cluster
(:func:`~python_core.hpa.graph.cluster_search.rect_search`). A long chain is refined from both
ends at once, on two cores (:mod:`~python_core.hpa.query.refine_ends`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from python_core._types import F64, I32, I64, U8
from python_core.compiled import jit
from python_core.hpa.graph.cluster_search import parent_walk, push_cells, rect_search
from python_core.hpa.steps import (
    MOVE_DX,
    MOVE_DY,
    inline_jit,
    legal_from,
    move_count,
    octile,
    step_allowed,
    step_length,
)

__all__ = [
    "DOMINATED",
    "MOVE_ORDER",
    "bounded_link",
    "link_cells",
    "link_scratch",
    "refine_chain",
    "straight_line",
]


def _move_order() -> npt.NDArray[np.int64]:
    """Per direction to the target (``3 (sy + 1) + sx + 1`` of its signs), the 8 moves, those
    pointing most towards it first (ties: the move table's order). Row 4 (on the target) is unused."""
    order = np.empty((9, 8), dtype=np.int64)
    for sy in (-1, 0, 1):
        for sx in (-1, 0, 1):
            length = math.hypot(sx, sy) or 1.0
            score = [
                -(MOVE_DX[k] * sx + MOVE_DY[k] * sy) / math.hypot(MOVE_DX[k], MOVE_DY[k]) / length
                for k in range(8)
            ]
            order[3 * (sy + 1) + sx + 1] = np.argsort(np.array(score), kind="stable")
    return order


MOVE_ORDER = _move_order()
"""The moves tried first by :func:`bounded_link`, by direction to its target."""


def _dominated() -> npt.NDArray[np.int64]:
    """Per move that entered a cell (row) and move out of it (column): 1 when the cell the second
    reaches is the first one's start or a straight step from it, 2 when a diagonal step from it,
    else 0. Either way that start reaches it directly for less than through the two moves (any
    cell size; one weight on every cell), a diagonal when the diagonal rule lets it."""
    table = np.zeros((8, 8), dtype=np.int64)
    for came in range(8):
        for k in range(8):
            sx, sy = MOVE_DX[came] + MOVE_DX[k], MOVE_DY[came] + MOVE_DY[k]
            if abs(sx) <= 1 and abs(sy) <= 1:
                table[came, k] = 1 if sx == 0 or sy == 0 else 2
    return table


DOMINATED = _dominated()
""":func:`bounded_link` on one weight skips a move to a cell the cell before reaches directly for
less: that cell tries it itself (or has, or the bound or a cheaper visit ruled it out), so no
path within the bound is lost, and a fifth fewer cells are visited on a 20% random map."""
VISIT_FACTOR = 8
""":func:`bounded_link` gives up after this many cell visits per cell of its rectangle (then the
caller runs the A*): a bound on a search that has no worst case of its own."""


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


@inline_jit
def line_may_do(  # noqa: PLR0917 (inlined into a compiled kernel: positional)
    width: int, diag: int, cw: float, ch: float, one_weight: float, a: int, b: int, cost: float
) -> bool:
    """Whether the straight grid line from ``a`` to ``b`` may cost ``cost``, the optimum: on one
    weight a legal line costs the octile distance, so a dearer optimum means a blocked line (nine
    links in ten on a 20% random map), known without walking it.

    Example:
        >>> line_may_do(4, 3, 1.0, 1.0, 1.0, 0, 3, 3.0), line_may_do(4, 3, 1.0, 1.0, 1.0, 0, 3, 3.5)
        (True, False)
    """
    if one_weight == 0.0:
        return True
    dl = math.hypot(cw, ch)
    line = one_weight * octile(abs(b % width - a % width), abs(b // width - a // width), diag, cw, ch, dl)
    return cost <= line + 1e-9 * (1.0 + line)


@jit
def bounded_link(  # noqa: PLR0917, PLR0912, PLR0915 (compiled kernel: positional, one hot loop)
    walk: U8,
    weights: F64,
    width: int,
    x0: int,
    y0: int,
    lw: int,
    lh: int,
    diag: int,
    cw: float,
    ch: float,
    a: int,
    b: int,
    h_scale: float,
    one_weight: float,
    bound: float,
    best: F64,
    marks: I32,
    stamp: int,
    stack: I64,
    moves: I64,
    gs: F64,
    out: I64,
) -> int:
    """A path from ``a`` to ``b`` inside a rectangle costing at most ``bound`` (the cluster
    table's cost, the optimum there: so the path found is an optimal one), by a depth-first
    search that tries the moves towards ``b`` first and enters only cells whose cost so far plus
    the octile estimate stays within ``bound``, and that it reaches cheaper than before. The
    bound leaves a narrow band around an optimal path, so the search mostly walks straight
    down it: no open list, no heap, a fraction of the A*'s cells. With ``one_weight``, it does not
    step to a cell the cell before reaches directly for less (:data:`DOMINATED`).

    Args:
        walk: global walkable flags.
        weights: global cell weights (the entered cell's is charged).
        width: grid columns.
        x0: rectangle left column.
        y0: rectangle top row.
        lw: rectangle width.
        lh: rectangle height.
        diag: diagonal rule code.
        cw: cell width.
        ch: cell height.
        a: global start cell, inside the rectangle.
        b: global target cell, inside the rectangle.
        h_scale: heuristic multiplier (smallest weight).
        one_weight: the weight every open cell has, ``0`` when they differ (then each entered
            cell's weight is read).
        bound: the most the path may cost.
        best: local scratch: cheapest cost so far per cell, valid where ``marks`` is ``stamp``.
        marks: local scratch (int32).
        stamp: a number no earlier call with these scratch arrays used.
        stack: local scratch: the cells of the current branch.
        moves: local scratch: per depth, the next move to try, plus 16 times the move that
            entered that depth's cell.
        gs: local scratch: the cost at each depth.
        out: receives the path's global cells, ``b`` included, ``a`` not.

    Returns:
        The number of cells written, or ``-1`` when none was found within the bound and
        :data:`VISIT_FACTOR` visits a cell (the caller then searches exactly).

    Example:
        >>> n, walk, i64 = 9, np.ones(9, np.uint8), np.int64
        >>> s = (np.empty(n), np.zeros(n, np.int32), 1, np.empty(n, i64), np.empty(n, i64), np.empty(n))
        >>> out = np.empty(n, i64)
        >>> m = bounded_link(walk, np.ones(9), 3, 0, 0, 3, 3, 1, 1.0, 1.0, 0, 8, 1.0, 1.0, 2 * 2**0.5, *s,
        ...                  out)
        >>> out[:m].tolist()
        [4, 8]
    """
    dl = math.hypot(cw, ch)
    n_moves = move_count(diag)
    limit = bound + 1e-9 * (1.0 + bound)
    tx, ty = b % width - x0, b // width - y0  # local coordinates from here on
    lx, ly = a % width - x0, a // width - y0  # the current cell's, kept as the search moves
    start, target = ly * lw + lx, ty * lw + tx
    marks[start], best[start] = stamp, 0.0
    stack[0], moves[0], gs[0] = start, 0, 0.0
    depth, visits, cap = 0, 0, VISIT_FACTOR * lw * lh
    while depth >= 0:
        cur = stack[depth]
        if cur == target:
            for i in range(depth):
                out[i] = (stack[i + 1] // lw + y0) * width + stack[i + 1] % lw + x0
            return depth
        sy = 0 if ty == ly else (1 if ty > ly else -1)
        row = 3 * (sy + 1) + (0 if tx == lx else (1 if tx > lx else -1)) + 1
        g, i, nxt, ng, nlx, nly = gs[depth], moves[depth] & 15, -1, 0.0, 0, 0
        came = moves[depth] >> 4  # the move that entered this cell (depth 0: none)
        # rejections cheapest first (arithmetic, then the scratch, then the grid): the same moves
        # pass as when legality came first, so the same path, for some 1/3 less time a link
        while i < 8:
            k = MOVE_ORDER[row, i]
            i += 1
            if k >= n_moves:
                continue
            nlx, nly = lx + MOVE_DX[k], ly + MOVE_DY[k]
            if nlx < 0 or nly < 0 or nlx >= lw or nly >= lh:
                continue
            step = step_length(k, cw, ch, dl)
            h = h_scale * octile(abs(tx - nlx), abs(ty - nly), diag, cw, ch, dl)
            if g + step * h_scale + h > limit:  # beyond the bound even at the smallest weight
                continue
            if one_weight > 0.0:  # then h_scale is that weight: ng is the sum just checked
                ng = g + step * one_weight
                if depth > 0 and _dominated_step(walk, width, lx + x0, ly + y0, came, k, diag):
                    continue
            else:
                ng = g + step * weights[(nly + y0) * width + nlx + x0]
                if ng + h > limit:
                    continue
            cand = nly * lw + nlx
            if marks[cand] == stamp and ng >= best[cand]:  # reached before at no more cost: all
                continue  # beyond it was tried
            if legal_from(walk, width, lx + x0, ly + y0, k, diag):
                nxt = cand
                break
        moves[depth] = i | (came << 4)
        if nxt < 0:
            depth -= 1
            if depth >= 0:
                lx, ly = stack[depth] % lw, stack[depth] // lw
            continue
        marks[nxt], best[nxt] = stamp, ng
        visits += 1
        if visits > cap:
            return -1
        depth += 1
        stack[depth], moves[depth], gs[depth] = nxt, MOVE_ORDER[row, i - 1] << 4, ng
        lx, ly = nlx, nly
    return -1


@inline_jit
def _dominated_step(walk: U8, width: int, x: int, y: int, came: int, k: int, diag: int) -> bool:  # noqa: PLR0917
    """Whether move ``k`` out of global ``(x, y)``, entered by move ``came``, reaches a cell the
    cell before reaches directly for less (:data:`DOMINATED`; a diagonal only if the rule lets it)."""
    kind = int(DOMINATED[came, k])
    if kind != 2:
        return kind == 1
    px, py = x - MOVE_DX[came], y - MOVE_DY[came]
    return step_allowed(walk, width, px, py, MOVE_DX[came] + MOVE_DX[k], MOVE_DY[came] + MOVE_DY[k], diag)


@jit
def link_scratch(size: int) -> tuple[F64, I64, U8, F64, I32, I64, I64, F64, I64]:
    """The working arrays of :func:`link_cells` for a cluster of ``size`` cells: the A*'s
    ``dist``, ``parent``, ``closed``; :func:`bounded_link`'s ``best``, ``marks``, ``stack``,
    ``moves``, ``gs``; and the link's cells (``seg``)."""
    return (
        np.empty(size), np.empty(size, dtype=np.int64), np.empty(size, dtype=np.uint8), np.empty(size),
        np.zeros(size, dtype=np.int32), np.empty(size, dtype=np.int64), np.empty(size, dtype=np.int64),
        np.empty(size), np.empty(size, dtype=np.int64),
    )  # fmt: skip


@inline_jit
def link_cells(grid: Any, a: int, b: int, cost: float, stamp: int, work: Any) -> tuple[int, bool]:  # noqa: PLR0917
    """The cells of the link from transition ``a`` to ``b`` costing ``cost``, written into
    ``work``'s last array (:func:`link_scratch`), ``b`` included and ``a`` not: ``(count,
    backwards)``, ``backwards`` when they are written from ``b`` to ``a``.

    ``grid`` is ``(walk, weights, width, height, csize, diag, cw, ch, h_scale, one_weight)``;
    ``stamp`` a number no earlier link with these ``work`` arrays used. Cells in different clusters
    are one step apart (an entrance crossing); two in one cluster are joined by the straight grid
    line when it is legal and costs ``cost`` (the exact table cost: then it is an optimal path),
    else by :func:`bounded_link`, else by an exact A* confined to the cluster.
    """
    walk, weights, width, height, csize, diag, cw, ch, h_scale, one_weight = grid
    dist, parent, closed, best, marks, stack, moves, gs, seg = work
    ax, ay, bx, by = a % width, a // width, b % width, b // width
    if ax // csize != bx // csize or ay // csize != by // csize:
        seg[0] = b  # a crossing: b is a neighbour of a
        return 1, False
    if line_may_do(width, diag, cw, ch, one_weight, a, b, cost) and straight_line(
        walk, weights, width, diag, cw, ch, a, b, cost, seg
    ):
        return max(abs(bx - ax), abs(by - ay)), False
    x0, y0 = (ax // csize) * csize, (ay // csize) * csize
    lw, lh = min(csize, width - x0), min(csize, height - y0)
    m = bounded_link(
        walk, weights, width, x0, y0, lw, lh, diag, cw, ch, a, b, h_scale, one_weight, cost, best, marks,
        stamp, stack, moves, gs, seg,
    )  # fmt: skip
    if m >= 0:
        return m, False
    dist[:] = np.inf
    parent[:] = -1
    closed[:] = 0
    rect_search(
        walk, weights, width, x0, y0, lw, lh, diag, cw, ch, a, b, 0, h_scale, dist, parent, closed, seg[:0]
    )
    return parent_walk(parent, x0, y0, lw, width, b, seg) - 1, True  # b ... a, then a dropped


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
    one_weight: float,
    chain: I64,
    link_costs: F64,
) -> I64:
    """Concrete cells of a chain of transition cells, link by link (:func:`link_cells`).

    Returns:
        The cells from ``chain[0]`` to ``chain[-1]``, both included.

    Example:
        >>> refine_chain(np.ones(4, np.uint8), np.ones(4), 4, 1, 4, 0, 1.0, 1.0, 1.0, 0.0, np.array([0, 3]),
        ...              np.array([3.0]))
        array([0, 1, 2, 3])
    """
    grid = (walk, weights, width, height, csize, diag, cw, ch, h_scale, one_weight)
    work = link_scratch(csize * csize)
    out = np.empty(max(16, 4 * chain.shape[0]), dtype=np.int64)
    out[0] = chain[0]
    n = 1
    for i in range(chain.shape[0] - 1):
        m, backwards = link_cells(grid, chain[i], chain[i + 1], link_costs[i], i + 1, work)
        out, n = push_cells(out, n, work[8], m, backwards)
    result: I64 = out[:n].copy()
    return result
