"""Inserting a query's start or goal into its cluster: exact costs to the cluster's transitions.

Quick start::

    import numpy as np
    from python_core.hpa.query.endpoints import insert_endpoint
    walk, w = np.ones(16, np.uint8), np.ones(16)
    tree = insert_endpoint(walk, w, 4, 0, 0, 4, 4, 3, 1.0, 1.0, 0, 0, 1.0, np.array([3, 15]))
    assert tree.costs.tolist() == [3.0, 3 * 2**0.5]     # both straight lines: no search at all

A stop whose straight grid line from the endpoint is legal and costs no more than the lower bound
(octile distance x smallest weight) is reached optimally by that line, so only the other stops
need a Dijkstra, which ends once they are all settled. On open ground that skips the search.
That Dijkstra keeps its open cells in buckets as wide as the cheapest step
(:func:`bucket_dijkstra`), not in a heap: a 32 x 32 cluster of a 20% random map in 45 us instead
of 210. The whole insertion is one compiled call (:func:`endpoint_costs`), and on a grid of one
weight the search never reads the weights: on a 4096 x 4096 map an insertion took 46-52 us hot
and 101-116 us the first time, instead of 74-83 and 126-137 (in process, 60 starts, 2026-12-07).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from python_core._types import F64, I64, U8
from python_core.compiled import jit
from python_core.hpa.graph.cluster_search import new_scratch, rect_search
from python_core.hpa.query.smoothing import line_cost, line_fill
from python_core.hpa.steps import MOVE_DX, MOVE_DY, move_count, octile

__all__ = [
    "BUCKET_SPAN",
    "EndpointTree",
    "bucket_dijkstra",
    "endpoint_costs",
    "insert_endpoint",
    "line_cells",
    "stop_costs",
]

BUCKET_SPAN = 16
""":func:`bucket_dijkstra` serves a rectangle whose dearest step costs at most this many of its
cheapest (weights up to about 11 apart on square cells); a wider spread is searched with the heap."""


@jit
def line_cells(a: int, b: int, width: int) -> I64:
    """The cells of the straight grid line from ``a`` to ``b``, both included.

    Example:
        >>> line_cells(0, 8, 3).tolist()
        [0, 4, 8]
    """
    ax, ay, bx, by = a % width, a // width, b % width, b // width
    out = np.empty(max(abs(bx - ax), abs(by - ay)) + 1, dtype=np.int64)
    out[0] = a
    line_fill(out, 1, ax, ay, bx, by, width, 0)
    return out


@jit
def stop_costs(  # noqa: PLR0917 (compiled kernel: positional)
    walk: U8,
    weights: F64,
    width: int,
    diag: int,
    cw: float,
    ch: float,
    cell: int,
    reverse: int,
    h_scale: float,
    stops: I64,
    costs: F64,
) -> int:
    """Fill ``costs`` with optimal straight-line costs, ``inf`` where no line is provably optimal.

    Returns:
        How many stops are left (``inf``) for a search.

    Example:
        >>> c, walk = np.zeros(2), np.ones(4, np.uint8)
        >>> stop_costs(walk, np.ones(4), 4, 3, 1.0, 1.0, 0, 0, 1.0, np.array([2, 3]), c), c.tolist()
        (0, [2.0, 3.0])
    """
    dl = np.hypot(cw, ch)
    left = 0
    for i in range(stops.shape[0]):
        a, b = (stops[i], cell) if reverse else (cell, stops[i])
        bound = h_scale * octile(abs(b % width - a % width), abs(b // width - a // width), diag, cw, ch, dl)
        cost = line_cost(a, b, walk, weights, width, diag, cw, ch)  # inf when a step is illegal
        if cost <= bound + 1e-9 * (1.0 + bound):
            costs[i] = cost
        else:
            costs[i] = np.inf
            left += 1
    return left


@jit
def bucket_dijkstra(  # noqa: PLR0917, PLR0912, PLR0915 (compiled kernel: positional, one hot loop)
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
    source: int,
    reverse: int,
    dist: F64,
    parent: I64,
    closed: U8,
    stops: I64,
    one_weight: float,
) -> int:
    """Dijkstra from ``source`` inside a rectangle, with a bucket queue (Dial's) instead of a heap.

    Each bucket spans a little less than the cheapest step of the rectangle, so no cell in a
    bucket can lower another one's cost: a bucket's cells are final once the buckets before it are
    done, in any order. The costs are those of
    :func:`~python_core.hpa.graph.cluster_search.rect_search` (a Dijkstra); among equally cheap
    paths the tree may keep another one. The live buckets wrap around a ring of at least
    ``dearest step / span + 2``.

    Args:
        walk: global walkable flags.
        weights: global cell weights (the entered cell's, or the left cell's when ``reverse``).
        width: grid columns.
        x0: rectangle left column.
        y0: rectangle top row.
        lw: rectangle width.
        lh: rectangle height.
        diag: diagonal rule code.
        cw: cell width.
        ch: cell height.
        source: global start cell, inside the rectangle.
        reverse: 1 for costs towards ``source``.
        dist: local out, filled with inf: cost per cell.
        parent: local out, filled with -1: predecessor per cell.
        closed: local out, filled with 0: 1 per settled cell.
        stops: local cells; the search ends once all are settled (empty: the whole rectangle).
        one_weight: the weight of every open cell where the grid has one (``weights`` is then not
            read: the rectangle's rows of a big map's weights are cold, a sixth of the search),
            else ``0.0``.

    Returns:
        The number of settled cells, or ``-1`` (nothing written) when the rectangle's weights
        spread over more than :data:`BUCKET_SPAN` (the caller then runs the heap's search).

    Example:
        >>> d, p, c = new_scratch(4)
        >>> bucket_dijkstra(np.ones(4, np.uint8), np.ones(4), 2, 0, 0, 2, 2, 3, 1.0, 1.0, 0, 0, d, p, c,
        ...                 np.zeros(0, np.int64), 1.0), d.round(3).tolist()
        (4, [0.0, 1.0, 1.0, 1.414])
    """
    pw, size = lw + 2, lw * lh
    opn = np.zeros(pw * (lh + 2), dtype=np.uint8)  # padded: a zero frame ends every move outwards
    uniform = one_weight > 0.0
    wl = np.empty(0 if uniform else size)
    low, high = (one_weight, one_weight) if uniform else (np.inf, 0.0)
    for ly in range(lh):
        row = (y0 + ly) * width + x0
        for lx in range(lw):
            if walk[row + lx]:
                opn[(ly + 1) * pw + lx + 1] = 1
                if not uniform:
                    w = weights[row + lx]
                    low, high = min(low, w), max(high, w)
            if not uniform:
                wl[ly * lw + lx] = weights[row + lx]
    n_moves = move_count(diag)
    dl = math.hypot(cw, ch)
    longest = dl if n_moves == 8 else max(cw, ch)
    span = min(cw, ch) * low * (1.0 - 1e-9)  # a hair under the cheapest step: rounding stays safe
    if not span > 0.0 or longest * high > BUCKET_SPAN * span:
        return -1
    ring = 4  # a power of two over the buckets live at once: the index is masked, not divided
    while ring < int(longest * high / span) + 2:
        ring *= 2
    inv_span = 1.0 / span
    step = np.empty(8)
    dpad = np.empty(8, dtype=np.int64)
    dloc = np.empty(8, dtype=np.int64)
    for k in range(8):
        step[k] = (dl if k >= 4 else (cw if k < 2 else ch)) * (one_weight if uniform else 1.0)
        dpad[k] = MOVE_DY[k] * pw + MOVE_DX[k]
        dloc[k] = MOVE_DY[k] * lw + MOVE_DX[k]
    buckets = np.empty((ring, size + 1), dtype=np.int32)  # grown when a bucket fills (rare)
    counts = np.zeros(ring, dtype=np.int64)
    pending = 0
    for i in range(stops.shape[0]):
        if closed[stops[i]] == 0:
            closed[stops[i]] = 2  # a stop not settled yet
            pending += 1
    src = (source // width - y0) * lw + source % width - x0
    dist[src] = 0.0
    buckets[0, 0], counts[0], queued = src, 1, 1
    settled, at = 0, 0
    while queued > 0:
        b = at & (ring - 1)
        if counts[b] == 0:
            at += 1
            continue
        counts[b] -= 1
        queued -= 1
        cur = buckets[b, counts[b]]
        if closed[cur] == 1:
            continue  # a stale entry: settled from an earlier bucket
        if closed[cur] == 2:
            pending -= 1
        closed[cur] = 1
        settled += 1
        if pending == 0 and stops.shape[0]:
            break
        g = dist[cur]
        p = (cur // lw + 1) * pw + cur % lw + 1
        for k in range(n_moves):
            if opn[p + dpad[k]] == 0:
                continue
            if k >= 4 and diag != 1:  # the diagonal rule, on the padded copy
                a, c = opn[p + MOVE_DX[k]], opn[p + MOVE_DY[k] * pw]
                if (diag == 3 and (a == 0 or c == 0)) or (diag == 2 and a == 0 and c == 0):
                    continue
            nxt = cur + dloc[k]
            if closed[nxt] == 1:
                continue
            ng = g + (step[k] if uniform else step[k] * (wl[cur] if reverse else wl[nxt]))
            if ng < dist[nxt]:
                dist[nxt], parent[nxt] = ng, cur
                nb = int(ng * inv_span) & (ring - 1)
                if counts[nb] == buckets.shape[1]:
                    grown = np.empty((ring, 2 * buckets.shape[1]), dtype=np.int32)
                    grown[:, : buckets.shape[1]] = buckets
                    buckets = grown
                buckets[nb, counts[nb]] = nxt
                counts[nb] += 1
                queued += 1
    for i in range(stops.shape[0]):
        if closed[stops[i]] == 2:
            closed[stops[i]] = 0
    return settled


@dataclass(frozen=True, slots=True)
class EndpointTree:
    """A start or goal inserted into its cluster.

    ``costs[i]`` is the exact cost between the endpoint and ``stops[i]`` (from the endpoint, or to
    it when ``reverse``); a stop settled by the Dijkstra (``closed``) has its path in ``parent``
    (local indices), any other finite one is reached by its straight line.
    """

    cell: int
    reverse: int
    x0: int
    y0: int
    lw: int
    parent: I64
    closed: U8
    costs: F64

    def path_to(self, end: int, width: int) -> I64:
        """Cells from the endpoint to ``end`` in tree order (reverse trees: reverse it to walk)."""
        cur = (end // width - self.y0) * self.lw + end % width - self.x0
        if not self.closed[cur]:
            cells: I64 = (
                line_cells(end, self.cell, width)[::-1].copy()
                if self.reverse
                else line_cells(self.cell, end, width)
            )
            return cells
        out = [cur]
        while self.parent[cur] >= 0:
            cur = int(self.parent[cur])
            out.append(cur)
        local = np.asarray(out[::-1], dtype=np.int64)
        return (local // self.lw + self.y0) * width + local % self.lw + self.x0


@jit
def endpoint_costs(  # noqa: PLR0917 (compiled kernel: positional)
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
    cell: int,
    reverse: int,
    h_scale: float,
    stops: I64,
    one_weight: float,
) -> tuple[F64, I64, U8]:
    """:func:`insert_endpoint`'s work in one compiled call (its numpy glue cost a 32 x 32 cluster
    some 15 us): ``(costs, parent, closed)``, the straight lines first, then one Dijkstra (the
    bucket queue's, or the heap's where weights spread too wide) for the stops left.

    Example:
        >>> costs, _, _ = endpoint_costs(np.ones(4, np.uint8), np.ones(4), 2, 0, 0, 2, 2, 3, 1.0, 1.0,
        ...                              0, 0, 1.0, np.array([3]), 1.0)
        >>> costs.round(3).tolist()
        [1.414]
    """
    costs = np.empty(stops.shape[0])
    left = stop_costs(walk, weights, width, diag, cw, ch, cell, reverse, h_scale, stops, costs)
    dist, parent, closed = new_scratch(lw * lh)
    if left:
        pending = np.flatnonzero(costs == np.inf)
        local = (stops[pending] // width - y0) * lw + stops[pending] % width - x0
        settled = bucket_dijkstra(
            walk, weights, width, x0, y0, lw, lh, diag, cw, ch, cell, reverse, dist, parent, closed, local,
            one_weight,
        )  # fmt: skip
        if settled < 0:
            rect_search(
                walk, weights, width, x0, y0, lw, lh, diag, cw, ch, cell, -1, reverse, 1.0, dist, parent,
                closed, local,
            )  # fmt: skip
        costs[pending] = dist[local]
    return costs, parent, closed


def insert_endpoint(  # noqa: PLR0917 (mirrors the kernels' positional arguments)
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
    cell: int,
    reverse: int,
    h_scale: float,
    stops: I64,
    one_weight: float = 0.0,
) -> EndpointTree:
    """Exact costs between ``cell`` and each global cell of ``stops`` inside the rectangle.

    Straight lines first (see the module docstring), then one Dijkstra for the rest
    (:func:`endpoint_costs`; ``one_weight``: :func:`bucket_dijkstra`'s).

    Returns:
        The :class:`EndpointTree`; ``costs`` is ``inf`` where a stop cannot be reached inside.
    """
    costs, parent, closed = endpoint_costs(
        walk, weights, width, x0, y0, lw, lh, diag, cw, ch, cell, reverse, h_scale, stops, float(one_weight)
    )
    return EndpointTree(cell, reverse, x0, y0, lw, parent, closed, costs)
