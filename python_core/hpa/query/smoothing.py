"""Shortcutting of a refined HPA* path along straight grid lines, never making it worse.

Quick start::

    import numpy as np
    from python_core.hpa.query.smoothing import shortcut_costs
    walk, w = np.ones(9, np.uint8), np.ones(9)
    path = np.array([0, 1, 2, 5, 8])                      # around the edge of an empty 3 x 3 grid
    smoothed, before, after = shortcut_costs(path, walk, w, 3, 3, 1.0, 1.0, 32, 8)
    assert smoothed.tolist() == [0, 4, 8] and after < before

From an anchor cell the smoother looks for a far later path cell whose straight 8-connected line
(a Bresenham line: ``max(|dx|, |dy|)`` steps, each one column and/or row: :func:`line_cell`) is
*better*: every step legal (walkable cells, the diagonal rule) and no dearer than the path piece it
replaces (weights count). Where the line fails, the same steps with the diagonal ones first, then
last (two *bends*, as short on open ground) are tried: on scattered walls one of them often passes
where the line does not, and one pass with them gets closer than two without (bench/hpa_speed.py's
maps: brc202d's mean cost 1.0026 -> 1.0022 in two thirds of the time). It probes the cells 2, 4,
8, ... ahead, bisects between the last better and the first worse one, and where even the line two
cells ahead fails (a corner the path hugs) takes the farthest better line up to ``fail_limit``
cells ahead; then it continues from there.
The result is a valid path whose cost never exceeds the input's; ``window`` bounds the look-ahead,
so an anchor costs O(log window) line checks and a call is linear in the path length.

A line check walks its line once without a division (one remainder along the major axis), stops
at the first illegal step or as soon as the cost spent exceeds the budget, and runs inline in the
search loop (a call per line would cost more than a short line); targets on the straight run from
the anchor need no check. On a few hundred path cells a call takes a few microseconds, about five
times less than probing with :func:`line_cost`, and returns the same cells.
"""

from __future__ import annotations

import math

import numpy as np

from python_core._types import F64, I64, U8
from python_core.compiled import jit
from python_core.grid.cells import NOT_A_STEP, step_offset
from python_core.hpa.steps import step_allowed

__all__ = [
    "FAIL_LIMIT",
    "SMOOTH_PASSES",
    "line_cell",
    "line_cost",
    "line_fill",
    "path_cost",
    "shortcut_costs",
    "smooth_passes",
]


SMOOTH_PASSES = 1
"""Shortcut passes of a smoothed HPA* query. With the bends one pass gets closer than two did with
lines alone, in about two thirds of their time (a second pass: brc202d 1.0022 -> 1.0017 for 60%
more smoothing time)."""

FAIL_LIMIT = 8
"""How far past a corner the path hugs :func:`smooth_passes` looks (``fail_limit``). On the
benchmark's maps looking farther gives the same total cost within rounding and only makes the
first pass slower."""


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
def path_cost(nodes: I64, weights: F64, width: int, cw: float, ch: float, one_weight: float = 0.0) -> float:  # noqa: PLR0917
    """Sum of ``step_length * weight(entered cell)`` along a path of adjacent cells (``one_weight >
    0``: every cell's weight, ``weights`` unread).

    Example:
        >>> path_cost(np.array([0, 1, 4]), np.ones(9), 3, 1.0, 1.0)
        2.0
    """
    dl = math.hypot(cw, ch)
    cost = 0.0
    x = nodes[0] % width if nodes.shape[0] else 0
    for i in range(1, nodes.shape[0]):
        sx, sy = step_offset(nodes[i] - nodes[i - 1], x, width)  # no division: half the time
        if sx == NOT_A_STEP:
            sx = nodes[i] % width - nodes[i - 1] % width
            sy = nodes[i] // width - nodes[i - 1] // width
        x += sx
        length = dl if sx != 0 and sy != 0 else (cw if sx != 0 else ch)
        cost += length * (one_weight if one_weight > 0.0 else weights[nodes[i]])
    return cost


@jit
def _farthest(  # noqa: PLR0917, PLR0912, PLR0915 (compiled kernel: positional, one search with its line check inline)
    xs: I64,
    ys: I64,
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
    one_weight: float,
    dl: float,
) -> tuple[int, float, int]:
    """The path index in ``(i, last]`` that the anchor ``i`` jumps to (``i + 1`` keeps the step),
    the cost of the line there (of the step, for ``i + 1``) and its shape (:func:`line_fill`).

    Probes lines from ``i`` to path cells ``i + 2, i + 4, i + 8, ...`` while they are better (legal
    and no dearer than the piece they replace), bisects between the last better and the first worse
    one, and when even ``i + 2`` fails takes the farthest better line among ``i + 3 ..
    i + fail_limit`` (a corner the path hugs). Targets on the straight run that starts at ``i`` are
    better without a check (the line is that run). Each check walks its line from ``i`` once, with
    no division, stopping at the first illegal step or as soon as the cost already spent exceeds
    the budget; it is written inline because a call per line costs more than a short line.
    With ``one_weight > 0`` (every open cell has that weight) a line's cost is known from its
    shape, so the check reads only the walkable flags. ``dl`` is the diagonal's length,
    ``math.hypot(cw, ch)``, computed once per pass by the caller (a hundred ``hypot`` calls were
    a tenth of a query's smoothing).
    """
    ax, ay = xs[i], ys[i]
    start, base = ay * width + ax, prefix[i]
    sx, sy = xs[i + 1] - ax, ys[i + 1] - ay
    straight = i + 1  # the straight run of (adjacent) steps from i ends at path index `straight`
    while (
        straight < last
        and max(abs(sx), abs(sy)) <= 1
        and xs[straight + 1] - xs[straight] == sx
        and ys[straight + 1] - ys[straight] == sy
    ):
        straight += 1
    good, step, bad, good_shape = i + 1, 1, last + 1, 0
    good_cost = prefix[i + 1] - base  # a straight run is its own line: its cost is the path's
    phase, scan = 0, min(last, i + fail_limit) + 1  # phase 0 gallop, 1 bisect, 2 scan down to i + 3
    while True:
        if phase == 0:
            j = good + step
            if j > last:
                phase = 1
                continue
            if j <= straight:
                good, step, good_cost, good_shape = j, 2 * step, prefix[j] - base, 0
                continue
        elif phase == 1:
            if bad - good <= 1:
                if good > i + 1:
                    break
                phase = 2
                continue
            j = (good + bad) // 2
            if j <= straight:
                good, good_cost, good_shape = j, prefix[j] - base, 0
                continue
        else:
            scan -= 1
            if scan < i + 3:
                break
            j = scan
        # the line from i to j: every step moves one cell along the major axis, and also one along
        # the minor axis (a diagonal step) when the remainder wraps, as line_cell rounds
        bx, by = xs[j], ys[j]
        budget = prefix[j] - base
        limit = budget + 1e-9 * (1.0 + budget)  # rounding aside, a tie is better
        adx, ady = abs(bx - ax), abs(by - ay)
        ux = 1 if bx >= ax else -1
        uy = width if by >= ay else -width
        if adx >= ady:
            steps, minor, umaj, umin, cmaj = adx, ady, ux, uy, cw
        else:
            steps, minor, umaj, umin, cmaj = ady, adx, uy, ux, ch
        # diagonal code 0: a line with a diagonal step is illegal; and a line never has more cells
        # than the piece it replaces (true of adjacent steps; keeps `out` in bounds for any input)
        legal = (diag != 0 or minor == 0) and steps <= j - i
        weighed = one_weight <= 0.0
        shape_cost = one_weight * (cmaj * steps + (dl - cmaj) * minor)
        if not weighed:  # the line's cost follows from its shape: only walls and corners fail it
            legal = legal and shape_cost <= limit
        # shapes: the Bresenham line, then (where it fails) its diagonal steps first or last: all
        # as short, and on scattered walls one of the bends often passes where the line does not
        ok, cost, shape = False, np.inf, 0
        for shape in range(3 if legal and 0 < minor < steps else 1 if legal else 0):
            rem, cur, ok = steps, start, True
            entered = 0.0  # weights of every cell entered, and of those entered diagonally:
            diagonal = 0.0  # cost = cmaj * entered + (dl - cmaj) * diagonal, and dl >= cmaj
            for t in range(steps):
                nxt = cur + umaj
                rem += 2 * minor
                wrapped = rem >= 2 * steps
                if wrapped:
                    rem -= 2 * steps
                if wrapped if shape == 0 else (t < minor if shape == 1 else t >= steps - minor):
                    if diag != 1:  # unsigned indices (cells are never negative): no wraparound check
                        side_a, side_b = walk[np.uint64(nxt)] != 0, walk[np.uint64(cur + umin)] != 0
                        if not (side_a and side_b if diag == 3 else side_a or side_b):
                            ok = False
                            break
                    nxt += umin
                    if weighed:
                        diagonal += weights[nxt]
                if walk[np.uint64(nxt)] == 0:
                    ok = False
                    break
                if weighed:
                    entered += weights[nxt]
                    if cmaj * entered > limit:  # a lower bound of the cost spent so far
                        ok = False
                        break
                cur = nxt
            if ok:
                cost = cmaj * entered + (dl - cmaj) * diagonal if weighed else shape_cost
                ok = cost <= limit
            if ok:
                break
        if phase == 0:
            if ok:
                good, step, good_cost, good_shape = j, 2 * step, cost, shape
            else:
                bad, phase = j, 1
        elif phase == 1:
            if ok:
                good, good_cost, good_shape = j, cost, shape
            else:
                bad = j
        elif ok:
            good, good_cost, good_shape = j, cost, shape
            break
    return good, good_cost, good_shape


@jit
def line_fill(out: I64, m: int, ax: int, ay: int, bx: int, by: int, width: int, shape: int = 0) -> int:  # noqa: PLR0917
    """Write the cells after ``(ax, ay)`` of its line to ``(bx, by)`` from ``out[m]``; return the end.

    ``shape`` 0: the cells of :func:`line_cell`, without its divisions; 1 / 2: the same steps with
    the diagonal ones first / last (:func:`_farthest`'s bends).

    Example:
        >>> out = np.zeros(3, np.int64)
        >>> line_fill(out, 0, 0, 0, 3, 1, 4), out.tolist(), line_fill(out, 0, 0, 0, 3, 1, 4, 1), out.tolist()
        (3, [1, 6, 7], 3, [5, 6, 7])
    """
    adx, ady = abs(bx - ax), abs(by - ay)
    steps = max(adx, ady)
    ux = 1 if bx >= ax else -1
    uy = width if by >= ay else -width
    umaj, umin, minor = (ux, uy, ady) if adx >= ady else (uy, ux, adx)
    rem = steps  # the remainder of (2 k minor + steps) / (2 steps): line_cell's rounding, no division
    cur = ay * width + ax
    for t in range(steps):
        cur += umaj
        rem += 2 * minor
        wrapped = rem >= 2 * steps
        if wrapped:
            rem -= 2 * steps
        if wrapped if shape == 0 else (t < minor if shape == 1 else t >= steps - minor):
            cur += umin
        out[m] = cur
        m += 1
    return m


@jit
def shortcut_costs(  # noqa: PLR0917
    nodes: I64,
    walk: U8,
    weights: F64,
    width: int,
    diag: int,
    cw: float,
    ch: float,
    window: int,
    fail_limit: int,
    one_weight: float = 0.0,
) -> tuple[I64, float, float]:
    """Greedy straight-line shortcuts along a valid path (see the module docstring), with the
    costs of the path before and after (read off the pass's own sums: a :func:`path_cost` per
    pass was about 2 us of a 474-cell path on brc202d).

    Args:
        nodes: the path's cells, adjacent steps.
        walk: walkable flags.
        weights: cell weights.
        width: grid columns.
        diag: diagonal rule code.
        cw: cell width.
        ch: cell height.
        window: how many path cells ahead an anchor looks at most.
        fail_limit: when the line two cells ahead already fails, how many path cells ahead an
            anchor still looks for a line past the corner.
        one_weight: the weight of every open cell when they share one (lines are then priced
            from their shape, and only the walkable flags are read), else ``0``.

    Returns:
        ``(path, cost before, cost after)``: the smoothed path has the same ends, valid steps and
        a cost ``<=`` the input's.

    Example:
        >>> shortcut_costs(np.array([4]), np.ones(9, np.uint8), np.ones(9), 3, 1, 1.0, 1.0, 8, 4)
        (array([4]), 0.0, 0.0)
    """
    n = nodes.shape[0]
    if n == 0:
        empty: I64 = nodes.copy()
        return empty, 0.0, 0.0
    xs = np.empty(n, dtype=np.int64)
    ys = np.empty(n, dtype=np.int64)
    prefix = np.zeros(n)  # path cost up to each cell
    dl = math.hypot(cw, ch)
    x, y, spent, prev = nodes[0] % width, nodes[0] // width, 0.0, nodes[0]
    xs[0], ys[0] = x, y
    # running values in locals, not re-read from the arrays (faster)
    for i in range(1, n):
        cell = nodes[i]
        sx, sy = step_offset(cell - prev, x, width)  # an adjacent step, decoded without a division
        if sx == NOT_A_STEP:  # a grid of one or two columns
            sx, sy = cell % width - x, cell // width - y
        x, y, prev = x + sx, y + sy, cell
        xs[i], ys[i] = x, y
        length = dl if sx != 0 and sy != 0 else (cw if sx != 0 else ch)
        spent += length * (one_weight if one_weight > 0.0 else weights[cell])
        prefix[i] = spent
    out = np.empty(n, dtype=np.int64)  # a line is never longer than the piece it replaces
    out[0] = nodes[0]
    m = 1
    i = 0
    cost = 0.0
    while i < n - 1:
        best, piece, shape = _farthest(
            xs, ys, prefix, i, min(n - 1, i + window), walk, weights, width, diag, cw, ch, fail_limit,
            one_weight, dl,
        )  # fmt: skip
        if best == i + 1:
            out[m] = nodes[best]
            m += 1
        else:
            m = line_fill(out, m, xs[i], ys[i], xs[best], ys[best], width, shape)
        i = best
        cost += piece
    result: I64 = out[:m].copy()
    return result, prefix[n - 1], cost


@jit
def smooth_passes(  # noqa: PLR0917 (compiled kernel: positional)
    nodes: I64,
    walk: U8,
    weights: F64,
    width: int,
    diag: int,
    cw: float,
    ch: float,
    window: int,
    passes: int,
    one_weight: float = 0.0,
) -> tuple[I64, float]:
    """Up to ``passes`` :func:`shortcut_costs` passes (``fail_limit`` :data:`FAIL_LIMIT`), each only while
    the one before made the path cheaper; returns the path and its cost.

    After a pass that gains nothing the next one rarely does (on the benchmark's Moving AI maps,
    never): on rooms whose doors hold single transitions the refined path is already optimal, and
    skipping the second pass halves the smoothing time; where the first pass gains (caves, open
    ground: most of the queries there) the second one still runs.

    Example:
        >>> smooth_passes(np.array([0, 1, 2, 5, 8]), np.ones(9, np.uint8), np.ones(9), 3, 1, 1.0, 1.0, 8, 2)
        (array([0, 4, 8]), 2.8284271247461903)
    """
    if passes <= 0:
        return nodes, path_cost(nodes, weights, width, cw, ch, one_weight)
    cost = np.inf
    for _ in range(passes):
        smoothed, before, now = shortcut_costs(
            nodes, walk, weights, width, diag, cw, ch, window, FAIL_LIMIT, one_weight
        )  # fmt: skip
        gained = now < before
        nodes, cost = smoothed, now
        if not gained:
            break
    return nodes, cost
