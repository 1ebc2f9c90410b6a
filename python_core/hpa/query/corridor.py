"""Corridor refinement: exact A* restricted to the clusters the abstract path crosses.

Quick start::

    import numpy as np
    from python_core.hpa.query.corridor import corridor_astar
    walk, w = np.ones(64, np.uint8), np.ones(64)
    allowed = np.array([0, 1, 2, 3], np.int64)                # every cluster of an 8 x 8 grid, size 4
    assert corridor_astar(walk, w, 8, 8, 4, allowed, 3, 1.0, 1.0, 0, 63, 1.0).tolist()[-1] == 63

The abstract path's own refinement lies inside the corridor, so the corridor's optimum is never
dearer; in practice it is within a fraction of a percent of the grid's optimum, because the path
is no longer forced through the entrances' transition cells. Memory is per corridor cluster
(``slot * csize**2 + local cell``), never per grid cell, so it scales with the path, not the map.
"""

from __future__ import annotations

import heapq
import math

import numpy as np

from python_core._types import F64, I64, U8
from python_core.compiled import jit
from python_core.hpa.steps import (
    MOVE_DX,
    MOVE_DY,
    legal_from,
    move_count,
    octile,
    step_length,
    step_target,
)

__all__ = ["corridor_astar"]


@jit
def _slot(slots: I64, csize: int, ncx: int, width: int, cell: int) -> int:
    """Local index of a cell in the corridor arrays, or -1 outside the corridor."""
    x, y = cell % width, cell // width
    s = slots[(y // csize) * ncx + x // csize]
    if s < 0:
        return -1
    return int(s * csize * csize + (y % csize) * csize + x % csize)


@jit
def corridor_astar(  # noqa: PLR0917 (compiled kernel: positional, one hot loop)
    walk: U8,
    weights: F64,
    width: int,
    height: int,
    csize: int,
    clusters: I64,
    diag: int,
    cw: float,
    ch: float,
    start: int,
    goal: int,
    h_scale: float,
) -> I64:
    """Exact A* (octile heuristic) from ``start`` to ``goal`` through the given clusters only.

    Args:
        walk: global walkable flags.
        weights: global weights.
        width: grid columns.
        height: grid rows.
        csize: cluster size.
        clusters: cluster ids ``cy * ncx + cx`` of the corridor (must hold the start and goal).
        diag: diagonal rule code.
        cw: cell width.
        ch: cell height.
        start: start cell.
        goal: goal cell.
        h_scale: heuristic multiplier (smallest weight).

    Returns:
        The path's cells, start first; empty when the corridor holds no path.

    Example:
        >>> corridor_astar(np.ones(4, np.uint8), np.ones(4), 4, 1, 4, np.array([0]), 0, 1.0, 1.0, 3, 0,
        ...                1.0).tolist()
        [3, 2, 1, 0]
    """
    ncx = (width + csize - 1) // csize
    slots = np.full(ncx * ((height + csize - 1) // csize), -1, dtype=np.int64)
    for i in range(clusters.shape[0]):
        slots[clusters[i]] = i
    size = clusters.shape[0] * csize * csize
    dist = np.full(size, np.inf)
    parent = np.full(size, -1, dtype=np.int64)
    closed = np.zeros(size, dtype=np.uint8)
    dl = math.hypot(cw, ch)
    n_moves = move_count(diag)
    gx, gy = goal % width, goal // width
    sl = _slot(slots, csize, ncx, width, start)
    dist[sl] = 0.0
    heap = [(0.0, -0.0, 0, start)]  # (f, -g, counter, cell): deeper first on ties, then FIFO
    counter = 1
    found = False
    while heap:
        cur = heapq.heappop(heap)[3]
        cl = _slot(slots, csize, ncx, width, cur)
        if closed[cl]:
            continue
        closed[cl] = 1
        if cur == goal:
            found = True
            break
        x, y, g = cur % width, cur // width, dist[cl]
        for k in range(n_moves):
            nxt = step_target(x, y, k, width, height)  # the grid as the rectangle: local ids are global
            nl = -1 if nxt < 0 else _slot(slots, csize, ncx, width, nxt)
            if nl < 0 or closed[nl] or not legal_from(walk, width, x, y, k, diag):
                continue
            nx, ny = x + MOVE_DX[k], y + MOVE_DY[k]
            ng = g + step_length(k, cw, ch, dl) * weights[nxt]
            if ng < dist[nl]:
                dist[nl], parent[nl] = ng, cl
                h = h_scale * octile(abs(gx - nx), abs(gy - ny), diag, cw, ch, dl)
                heapq.heappush(heap, (ng + h, -ng, counter, nxt))
                counter += 1
    if not found:
        return np.zeros(0, dtype=np.int64)
    out = []
    cl = _slot(slots, csize, ncx, width, goal)
    while cl >= 0:
        slot, local = cl // (csize * csize), cl % (csize * csize)
        c = clusters[slot]
        out.append(((c // ncx) * csize + local // csize) * width + (c % ncx) * csize + local % csize)
        cl = parent[cl]
    result = np.array(out[::-1], dtype=np.int64)
    return result
