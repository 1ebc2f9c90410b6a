"""Exact searches confined to one cluster (a rectangle of cells): the bricks of HPA*.

Quick start::

    import numpy as np
    from python_core.hpa.graph.cluster_search import rect_search, new_scratch
    walk, w = np.ones(16, np.uint8), np.ones(16)
    dist, parent, closed = new_scratch(16)
    no_stops = np.zeros(0, np.int64)
    rect_search(walk, w, 4, 0, 0, 4, 4, 1, 1.0, 1.0, 0, 15, 0, 1.0, dist, parent, closed, no_stops)
    assert abs(dist[15] - 3 * 2**0.5) < 1e-12

Every function here is one plain-Python function over numbers and numpy arrays, compiled by
:func:`python_core.compiled.jit` (numba) when available. Cells are global flat ids ``y * width + x``;
the scratch arrays are *local* to the rectangle: index ``(y - y0) * lw + (x - x0)``.
Entering cell ``v`` costs ``step_length * weights[v]``; a ``reverse`` search walks the moves
backwards (it charges the weight of the cell it leaves), so its distances are costs *to* the source.
"""

from __future__ import annotations

import math

import numpy as np

from python_core._types import F64, I64, U8
from python_core.compiled import jit
from python_core.heaps.indexed import heap_decrease, heap_pop, heap_push
from python_core.hpa.steps import (
    MOVE_DX,
    MOVE_DY,
    inline_jit,
    legal_from,
    move_count,
    octile,
    step_length,
    step_target,
)

__all__ = [
    "NO_PARENT",
    "cluster_rect",
    "cluster_rows",
    "cluster_table",
    "new_scratch",
    "parent_walk",
    "push_cells",
    "rect_search",
    "uniform_flags",
]


NO_PARENT = 4
"""Direction code of a tree's root and of cells it cannot reach (the code of the move ``(0, 0)``)."""


@jit
def uniform_flags(walk: U8, weights: F64, width: int, height: int, csize: int, clusters: I64) -> U8:  # noqa: PLR0917
    """Per given cluster, 1 when its open cells share one weight (or it has none), else 0.

    Example:
        >>> uniform_flags(np.array([1, 0, 1, 1], np.uint8), np.array([2.0, 5.0, 2.0, 3.0]), 4, 1, 2,
        ...               np.array([0, 1])).tolist()
        [1, 0]
    """
    ncx = (width + csize - 1) // csize
    out = np.ones(clusters.shape[0], dtype=np.uint8)
    for i in range(clusters.shape[0]):
        x0, y0 = (clusters[i] % ncx) * csize, (clusters[i] // ncx) * csize
        first = -1.0
        for y in range(y0, min(y0 + csize, height)):
            for x in range(x0, min(x0 + csize, width)):
                if walk[y * width + x] == 0:
                    continue
                if first < 0.0:
                    first = weights[y * width + x]
                elif weights[y * width + x] != first:
                    out[i] = 0
                    break
            if out[i] == 0:
                break
    return out


@jit
def new_scratch(size: int) -> tuple[F64, I64, U8]:
    """Fresh ``(dist, parent, closed)`` scratch arrays of ``size`` entries (inf, -1, 0).

    Example:
        >>> [a.shape for a in new_scratch(3)]
        [(3,), (3,), (3,)]
    """
    return np.full(size, np.inf), np.full(size, -1, dtype=np.int64), np.zeros(size, dtype=np.uint8)


@inline_jit
def cluster_rect(cluster: int, ncx: int, csize: int, width: int, height: int) -> tuple[int, int, int, int]:
    """``(x0, y0, lw, lh)`` of a cluster (as :meth:`AbstractGraph.rect`), for compiled code.

    Example:
        >>> cluster_rect(3, 2, 4, 6, 6)
        (4, 4, 2, 2)
    """
    x0, y0 = (cluster % ncx) * csize, (cluster // ncx) * csize
    return x0, y0, min(csize, width - x0), min(csize, height - y0)


@jit
def _mark_stops(closed: U8, stops: I64, old: int, new: int) -> int:
    """Set ``closed`` to ``new`` at the stop cells where it is ``old``; return how many changed.

    ``closed`` codes: 1 settled, 2 a stop cell not settled yet, 0 otherwise.
    """
    count = 0
    for i in range(stops.shape[0]):
        if closed[stops[i]] == old:
            closed[stops[i]] = new
            count += 1
    return count


@jit
def rect_search(  # noqa: PLR0917 (positional only: compiled kernel)
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
    target: int,
    reverse: int,
    h_scale: float,
    dist: F64,
    parent: I64,
    closed: U8,
    stops: I64,
) -> int:
    """A* (``target >= 0``, octile heuristic) or Dijkstra (``target < 0``) inside a rectangle.

    Args:
        walk: global walkable flags (uint8).
        weights: global cell weights.
        width: grid columns.
        x0: rectangle left column.
        y0: rectangle top row.
        lw: rectangle width.
        lh: rectangle height.
        diag: diagonal rule code (see :func:`~python_core.hpa.steps.step_allowed`).
        cw: cell width (cost of an x step at weight 1).
        ch: cell height.
        source: global start cell (never entered, so it need not be walkable).
        target: global goal cell, or -1 for a Dijkstra.
        reverse: 1 to charge the weight of the cell left (costs towards ``source``).
        h_scale: heuristic multiplier (smallest weight), only used with a target.
        dist: local out: cost per cell; must come filled with inf.
        parent: local out: predecessor (local index) per cell; must come filled with -1.
        closed: local out: 1 per settled cell; must come filled with 0.
        stops: local cells; a Dijkstra ends once all of them are settled (exact there, and at
            every settled cell); empty: settle the whole rectangle.

    Returns:
        Number of expansions.

    Example:
        >>> d, p, c = new_scratch(3)
        >>> rect_search(np.ones(3, np.uint8), np.ones(3), 3, 0, 0, 3, 1, 0, 1.0, 1.0, 0, -1, 0, 1.0, d, p, c,
        ...             np.zeros(0, np.int64))
        3
    """
    dl = math.hypot(cw, ch)
    n_moves = move_count(diag)
    tx, ty = (target % width, target // width) if target >= 0 else (0, 0)
    sl = (source // width - y0) * lw + (source % width - x0)
    size = lw * lh
    heap_nodes = np.empty(size, dtype=np.int32)
    heap_keys = np.empty(size)
    heap_pos = np.empty(size, dtype=np.int32)
    pending = _mark_stops(closed, stops, 0, 2)
    dist[sl] = 0.0
    n_open = heap_push(heap_nodes, heap_keys, heap_pos, dist, 0, sl, 0.0)
    expanded = 0
    while n_open > 0:
        cur, n_open = heap_pop(heap_nodes, heap_keys, heap_pos, dist, n_open)
        if closed[cur] == 2:
            pending -= 1
        closed[cur] = 1
        expanded += 1
        lx, ly = cur % lw, cur // lw
        x, y = lx + x0, ly + y0
        if (target >= 0 and y * width + x == target) or (target < 0 and stops.shape[0] and pending == 0):
            break
        g = dist[cur]
        for k in range(n_moves):
            nxt = step_target(lx, ly, k, lw, lh)
            if nxt < 0 or closed[nxt] == 1 or not legal_from(walk, width, x, y, k, diag):
                continue
            dx, dy = MOVE_DX[k], MOVE_DY[k]
            node = (y + dy) * width + x + dx
            ng = g + step_length(k, cw, ch, dl) * (weights[y * width + x] if reverse else weights[node])
            if ng < dist[nxt]:
                fresh = dist[nxt] == np.inf
                dist[nxt] = ng
                parent[nxt] = cur
                h = 0.0
                if target >= 0:
                    h = h_scale * octile(abs(tx - x - dx), abs(ty - y - dy), diag, cw, ch, dl)
                if fresh:
                    n_open = heap_push(heap_nodes, heap_keys, heap_pos, dist, n_open, nxt, ng + h)
                else:
                    heap_decrease(heap_nodes, heap_keys, heap_pos, dist, nxt, ng + h)
    _mark_stops(closed, stops, 2, 0)  # leave closed as 1 settled, 0 not
    return expanded


@inline_jit
def push_cells(out: I64, n: int, cells: I64, m: int, backwards: bool) -> tuple[I64, int]:
    """Append ``cells[:m]`` (or them reversed) to ``out[:n]``, growing ``out`` when full.

    Returns:
        ``(out, n + m)``: ``out`` may be a new, larger array.

    Example:
        >>> out, n = push_cells(np.zeros(1, np.int64), 0, np.array([1, 2, 3]), 3, True)
        >>> out[:n].tolist()
        [3, 2, 1]
    """
    if n + m > out.shape[0]:
        grown = np.empty(2 * (n + m), dtype=np.int64)
        grown[:n] = out[:n]
        out = grown
    for i in range(m):
        out[n + i] = cells[m - 1 - i] if backwards else cells[i]
    return out, n + m


@jit
def parent_walk(parent: I64, x0: int, y0: int, lw: int, width: int, end: int, out: I64) -> int:  # noqa: PLR0917
    """Write ``end, parent(end), ...`` up to the search's source (global cells) into ``out``.

    Args:
        parent: a :func:`rect_search`'s local parents.
        x0: rectangle left column.
        y0: rectangle top row.
        lw: rectangle width.
        width: grid columns.
        end: a global cell the search settled.
        out: receives the cells; at least as long as the path.

    Returns:
        The number of cells written (1 when ``end`` is the source).

    Example:
        >>> out = np.zeros(3, np.int64)
        >>> parent_walk(np.array([-1, 0, 1]), 0, 0, 3, 3, 2, out), out.tolist()
        (3, [2, 1, 0])
    """
    cur = (end // width - y0) * lw + end % width - x0
    m = 0
    while cur >= 0:
        out[m] = (cur // lw + y0) * width + cur % lw + x0
        m += 1
        cur = parent[cur]
    return m


@jit
def cluster_rows(  # noqa: PLR0917
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
    trans: I64,
    rows: I64,
    table: F64,
    dirs: U8,
) -> None:
    """Recompute the given rows of a cluster's cost table in place (and those rows' trees).

    Row i is one Dijkstra from transition i confined to the cluster: ``table[i, j]`` = cost from
    i to j, ``inf`` where j cannot be reached inside the cluster. Without trees (``dirs`` of
    shape ``(0, 0)``) each search ends once every transition is settled. With ``dirs`` of shape
    ``(k, lw * lh)`` each settles the whole cluster and ``dirs[i]`` receives transition i's
    shortest-path tree: per local cell the move that entered it, code ``(dy + 1) * 3 + (dx + 1)``,
    :data:`NO_PARENT` for the root and unreachable cells (read by
    :mod:`python_core.hpa.graph.cluster_trees`).

    Example:
        >>> walk, w, ends = np.ones(4, np.uint8), np.ones(4), np.array([0, 3])
        >>> table = np.zeros((2, 2))
        >>> cluster_rows(walk, w, 4, 0, 0, 4, 1, 0, 1.0, 1.0, ends, np.array([1]), table,
        ...              np.zeros((0, 0), np.uint8))
        >>> table.tolist()
        [[0.0, 0.0], [3.0, 0.0]]
    """
    k = trans.shape[0]
    size = lw * lh
    dist = np.empty(size)
    parent = np.empty(size, dtype=np.int64)
    closed = np.empty(size, dtype=np.uint8)
    local = (trans // width - y0) * lw + (trans % width - x0)
    trees = dirs.size > 0
    stops = local[:0] if trees else local  # a tree needs the whole cluster settled
    for r in range(rows.shape[0]):
        i = rows[r]
        dist[:] = np.inf
        parent[:] = -1
        closed[:] = 0
        rect_search(
            walk, weights, width, x0, y0, lw, lh, diag, cw, ch, trans[i], -1, 0, 1.0, dist, parent, closed,
            stops,
        )  # fmt: skip
        for j in range(k):
            table[i, j] = dist[local[j]]
        if trees:
            for c in range(size):
                p = parent[c]
                dirs[i, c] = NO_PARENT if p < 0 else (c // lw - p // lw + 1) * 3 + (c % lw - p % lw + 1)


@jit
def cluster_table(  # noqa: PLR0917
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
    trans: I64,
    dirs: U8,
    symmetric: bool = False,
) -> F64:
    """Exact costs between the transition cells of one cluster: ``out[i, j]`` = cost from i to j
    (every row of :func:`cluster_rows`, and every tree when ``dirs`` has room for them).

    ``symmetric``: the caller knows that the cluster's open cells share one weight, so a cost from
    i to j is the cost from j to i (every move has its reverse, under the same diagonal rule, at
    the same price). Without trees, row i's search then stops once the transitions after i are
    settled, and the rest is mirrored: on a big map without trees, about a third less work.

    Returns:
        ``(k, k)`` float64 matrix with zeros on the diagonal.

    Example:
        >>> walk, w, ends = np.ones(4, np.uint8), np.ones(4), np.array([0, 3])
        >>> cluster_table(walk, w, 4, 0, 0, 4, 1, 0, 1.0, 1.0, ends, np.zeros((0, 0), np.uint8))
        array([[0., 3.],
               [3., 0.]])
        >>> trees = np.zeros((2, 3), np.uint8)
        >>> _ = cluster_table(walk, w, 3, 0, 0, 3, 1, 0, 1.0, 1.0, np.array([0, 2]), trees)
        >>> trees.tolist()
        [[4, 5, 5], [3, 3, 4]]
        >>> cluster_table(walk, w, 4, 0, 0, 4, 1, 0, 1.0, 1.0, ends, np.zeros((0, 0), np.uint8), True)
        array([[0., 3.],
               [3., 0.]])
    """
    k = trans.shape[0]
    out = np.full((k, k), np.inf)
    if not symmetric or dirs.size > 0:
        cluster_rows(walk, weights, width, x0, y0, lw, lh, diag, cw, ch, trans, np.arange(k), out, dirs)
        return out
    size = lw * lh
    dist, parent, closed = np.empty(size), np.empty(size, dtype=np.int64), np.empty(size, dtype=np.uint8)
    local = (trans // width - y0) * lw + (trans % width - x0)
    for i in range(k):
        out[i, i] = 0.0
        if i + 1 == k:  # every cost of the last row is mirrored already
            break
        dist[:] = np.inf
        parent[:] = -1
        closed[:] = 0
        rect_search(
            walk, weights, width, x0, y0, lw, lh, diag, cw, ch, trans[i], -1, 0, 1.0, dist, parent, closed,
            local[i + 1 :],
        )  # fmt: skip
        for j in range(i + 1, k):
            out[i, j] = out[j, i] = dist[local[j]]
    return out
