"""Compiled kernels of a unit size's index: connected parts, landmark distances, A* with landmarks.

Quick start (:mod:`.size_index` builds with these; :mod:`.dispatch` searches with the last)::

    count = label_parts(passable, 3, stride, diagonal, labels, stack)   # parts of clearance >= 3
    distances_from(passable, 3, stride, diagonal, cw, ch, w, seeds, rows, table, slot, count, ...)
    outcome, expanded = astar_landmarks(passable, 3, stride, s, t, ...)  # exact, fewer expansions

All of them read the padded clearance of :mod:`.prepared` with a unit size's threshold (a node is
open when its value is ``>= min_clear``) and move by :data:`.astar._MOVES`, so a part is exactly
what a search for that size can reach, and a distance what it would pay (uniform weights only:
entering a cell costs the step times the one weight, the same products as the A* kernel).

ALT (Goldberg & Harrelson): for a landmark ``L`` and the true distances ``d``, the triangle
inequality gives ``d(n, t) >= |d(L, t) - d(L, n)|`` on an undirected graph, and that bound is
consistent. Its maximum over a few landmarks, and the grid's own estimate, stays both, so A*
with it returns the optimum; on an eroded grid that is a maze it is far tighter than octile.
Many landmarks make the bounds tight (a landmark lies behind most goals) but each is a load per
generated node: so a search uses only the few whose bounds are largest between its start and
goal (Goldberg & Harrelson's active landmarks), chosen once per query.

The distances of only the nodes of parts big enough to have landmarks are kept, node by node
(``table[rows[n] * count + i]``: a node's distances are adjacent, one or two cache lines), so a
map that erodes into thousands of islands spends no memory on them.
"""

# Compiled kernels take their arguments positionally: numba.njit does not compile keywords.
# ruff: noqa: PLR0917

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from python_core._types import DIAG_ALWAYS, DIAG_NEVER, SEARCH_BUDGET, SEARCH_FOUND, SEARCH_NO_PATH
from python_core.compiled import jit, register_warm_up
from python_core.grid.search.astar import _DX, _DY, _MOVES, _open_around, estimate
from python_core.heaps.packed import heap_decrease, heap_pop, heap_push, pack_key

__all__ = ["ACTIVE", "astar_landmarks", "distances_from", "farthest_per_part", "label_parts"]

U8s = npt.NDArray[np.uint8]
I32s = npt.NDArray[np.int32]
I64s = npt.NDArray[np.int64]
F64s = npt.NDArray[np.float64]

ACTIVE = 4
"""Landmarks a query evaluates per generated node: those whose bounds between its start and goal
are the largest (on random512-10-0 at size 3, four of 64 were as fast as six or eight, and
tighter than two)."""


@jit
def label_parts(passable: U8s, min_clear: int, stride: int, diagonal: int, labels: I32s, stack: I32s) -> int:
    """Number every part of the nodes open for ``min_clear`` (1, 2, ...) in ``labels`` (zeros on
    entry; closed nodes stay 0); return how many. Parts join 4-neighbours, and 8-neighbours under
    ``always`` (the only rule whose diagonal step may pass two closed sides: under the others a
    diagonal's open side links the same two nodes)."""
    offsets = (1, -1, stride, -stride, stride + 1, stride - 1, -stride + 1, -stride - 1)
    n_links = 8 if diagonal == DIAG_ALWAYS else 4
    count = 0
    for first in range(passable.shape[0]):
        if passable[first] < min_clear or labels[first] != 0:
            continue
        count += 1
        labels[first] = count
        stack[0] = first
        top = 1
        while top > 0:
            top -= 1
            node = stack[top]
            for k in range(n_links):
                nbr = node + offsets[k]
                if passable[nbr] >= min_clear and labels[nbr] == 0:
                    labels[nbr] = count
                    stack[top] = nbr
                    top += 1
    return count


@jit
def distances_from(
    passable: U8s,
    min_clear: int,
    stride: int,
    diagonal: int,
    cell_w: float,
    cell_h: float,
    weight: float,
    seeds: I64s,
    rows: I32s,
    table: F64s,
    slot: int,
    count: int,
    closed: U8s,
    heap_nodes: I32s,
    heap_keys: F64s,
    pos: I32s,
) -> None:
    """Dijkstra from every node of ``seeds`` at once (one per part, so each part gets its own
    seed's distances) over the nodes open for ``min_clear``, into ``table[rows[node] * count +
    slot]`` (inf where no seed reaches); every node a seed reaches has a row (``rows >= 0``: the
    seeds' parts have rows); ``closed`` is scratch, one byte a node."""
    diag = math.hypot(cell_w, cell_h)
    offsets = (1, -1, stride, -stride, stride + 1, stride - 1, -stride + 1, -stride - 1)
    costs = (
        cell_w * weight, cell_w * weight, cell_h * weight, cell_h * weight,
        diag * weight, diag * weight, diag * weight, diag * weight,
    )  # fmt: skip
    n_moves = 4 if diagonal == DIAG_NEVER else 8
    keys = heap_keys.view(np.int64)
    for row in range(table.shape[0] // count):
        table[row * count + slot] = math.inf
    closed[:] = 0
    size = 0
    for seed in seeds:
        table[rows[seed] * count + slot] = 0.0
        size = heap_push(heap_nodes, keys, pos, size, seed, pack_key(0.0, 0.0))
    while size > 0:
        node, size = heap_pop(heap_nodes, keys, pos, size)
        closed[node] = 1
        d_node = table[rows[node] * count + slot]
        moves = _MOVES[diagonal, _open_around(passable, node, stride, min_clear)]
        for k in range(n_moves):
            if not (moves >> k) & 1:
                continue
            nbr = node + offsets[k]
            if closed[nbr]:
                continue
            new_d = d_node + costs[k]
            at = rows[nbr] * count + slot
            old = table[at]
            if new_d >= old:
                continue
            table[at] = new_d
            if old < math.inf:
                heap_decrease(heap_nodes, keys, pos, nbr, pack_key(new_d, 0.0))
            else:
                size = heap_push(heap_nodes, keys, pos, size, nbr, pack_key(new_d, 0.0))


@jit
def farthest_per_part(labels: I32s, rows: I32s, parts: int, nearest: F64s) -> I64s:
    """For each part ``1..parts`` with rows, its node farthest from the landmarks chosen so far
    (the largest ``nearest[row]``, the distance to the nearest of them: inf for all before the
    first, which is then the part's first node in scan order, on its rim); -1 for parts without
    rows; entry 0 is unused."""
    best = np.full(parts + 1, -1.0)
    chosen = np.full(parts + 1, -1, dtype=np.int64)
    for node in range(labels.shape[0]):
        row = rows[node]
        if row < 0:
            continue
        part = labels[node]
        if nearest[row] > best[part]:
            best[part] = nearest[row]
            chosen[part] = node
    return chosen


@jit
def _active(rows: I32s, table: F64s, count: int, goal: int, start: int, active: int) -> tuple[I64s, F64s]:
    """The ``active`` landmarks (of ``count`` per row) whose bounds between ``start`` and ``goal``
    are the largest (Goldberg & Harrelson's active landmarks: those behind one end as seen from
    the other), in slot order, and the goal's distances to them; none when an end has no row."""
    a, b = rows[goal], rows[start]
    if active <= 0 or a < 0 or b < 0:
        return np.empty(0, dtype=np.int64), np.empty(0)
    bound = np.empty(count)
    for i in range(count):
        bound[i] = abs(table[a * count + i] - table[b * count + i])
    picked = np.empty(min(active, count), dtype=np.int64)
    for j in range(picked.shape[0]):
        top = 0
        for i in range(1, count):
            if bound[i] > bound[top]:
                top = i
        picked[j] = top
        bound[top] = -1.0
    picked.sort()
    return picked, table[a * count + picked]


@jit
def astar_landmarks(
    passable: U8s,
    min_clear: int,
    stride: int,
    start: int,
    goal: int,
    diagonal: int,
    cell_w: float,
    cell_h: float,
    weight: float,
    heuristic: int,
    rows: I32s,
    landmarks: F64s,
    count: int,
    active: int,
    max_expansions: int,
    g: F64s,
    parent: I32s,
    stamp: I32s,
    pos: I32s,
    heap_nodes: I32s,
    heap_keys: F64s,
    tag: int,
) -> tuple[int, int]:
    """A* on a uniform grid (every open cell weighs ``weight``) whose estimate is the larger of the
    grid heuristic ``heuristic`` and the bound of the ``active`` landmarks best for this start and
    goal (of ``count`` per row); the workspace contract of :func:`.astar.astar_padded`. Node ``n``'s
    distances are ``landmarks[rows[n] * count : rows[n] * count + count]``; a goal without a row
    (a part too small to have landmarks) is searched with the grid heuristic alone.

    Returns:
        ``(outcome, expanded)``: found (``g[goal]`` the cost), no path, or the budget spent.
    """
    diag = math.hypot(cell_w, cell_h)
    offsets = (1, -1, stride, -stride, stride + 1, stride - 1, -stride + 1, -stride - 1)
    costs = (
        cell_w * weight, cell_w * weight, cell_h * weight, cell_h * weight,
        diag * weight, diag * weight, diag * weight, diag * weight,
    )  # fmt: skip
    n_moves = 4 if diagonal == DIAG_NEVER else 8
    keys = heap_keys.view(np.int64)
    closed_tag = tag + 1
    gy = goal // stride
    gx = goal - gy * stride
    slots, at_goal = _active(rows, landmarks, count, goal, start, active)
    g[start] = 0.0
    parent[start] = -1
    stamp[start] = tag
    size = heap_push(heap_nodes, keys, pos, 0, start, pack_key(0.0, 0.0))
    expanded = 0
    while size > 0:
        if expanded == max_expansions:
            return SEARCH_BUDGET, expanded
        node, size = heap_pop(heap_nodes, keys, pos, size)
        stamp[node] = closed_tag
        expanded += 1
        if node == goal:
            return SEARCH_FOUND, expanded
        y = node // stride
        x = node - y * stride
        g_node = g[node]
        moves = _MOVES[diagonal, _open_around(passable, node, stride, min_clear)]
        for k in range(n_moves):
            if not (moves >> k) & 1:
                continue
            nbr = node + offsets[k]
            mark = stamp[nbr]
            if mark == closed_tag:
                continue
            new_g = g_node + costs[k]
            if mark == tag and new_g >= g[nbr]:
                continue
            g[nbr] = new_g
            parent[nbr] = node
            h = estimate(heuristic, abs(gx - x - _DX[k]), abs(gy - y - _DY[k]), cell_w, cell_h, diag, weight)
            row = rows[nbr] * count
            if row >= 0:  # a node the start reaches shares its part, so has a row: never false
                for i in range(slots.shape[0]):
                    h = max(h, abs(at_goal[i] - landmarks[row + slots[i]]))
            if mark == tag:
                heap_decrease(heap_nodes, keys, pos, nbr, pack_key(new_g + h, h))
            else:
                stamp[nbr] = tag
                size = heap_push(heap_nodes, keys, pos, size, nbr, pack_key(new_g + h, h))
    return SEARCH_NO_PATH, expanded


@register_warm_up
def _warm_up() -> None:
    """Each kernel once, with the array types a size's index passes (flat C-contiguous arrays)."""
    stride = 5
    passable = np.zeros(stride * 4, dtype=np.uint8)
    passable[[6, 7, 8, 11, 12, 13]] = 3
    n = passable.shape[0]
    labels = np.zeros(n, dtype=np.int32)
    parts = label_parts(passable, 2, stride, DIAG_ALWAYS, labels, np.empty(n, np.int32))
    heap = (np.empty(n, np.int32), np.empty(n, np.float64), np.empty(n, np.int32))
    rows = np.where(labels > 0, np.cumsum(labels > 0, dtype=np.int32) - 1, -1).astype(np.int32)
    table = np.empty(int(rows.max()) + 1, dtype=np.float64)
    seeds = farthest_per_part(labels, rows, parts, np.full(table.shape[0], np.inf))[1:]
    distances_from(
        passable, 2, stride, DIAG_NEVER, 1.0, 1.0, 1.0, seeds[seeds >= 0], rows, table, 0, 1,
        np.zeros(n, np.uint8), *heap,
    )  # fmt: skip
    work = (np.empty(n), np.empty(n, np.int32), np.zeros(n, np.int32), np.empty(n, np.int32))
    astar_landmarks(
        passable, 2, stride, 6, 13, 3, 1.0, 1.0, 1.0, 1, rows, table, 1, 4, -1, *work, heap[0], heap[1], 2
    )  # fmt: skip
