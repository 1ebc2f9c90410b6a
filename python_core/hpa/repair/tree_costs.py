"""What a tree repair reads of one cached cluster tree: costs by walking it, moves, best entries.

Quick start (inside a compiled repair; ``tree`` is one row of a cluster's ``dirs``)::

    cost = cell_cost(walk, weights, width, x0, y0, lw, cw, ch, tree, root, d, stamp, now, cell, old)
    best, move = best_entry(walk, weights, width, x0, y0, lw, lh, diag, cw, ch, mark, d, v)

A tree stores one move per local cell (code ``(dy + 1) * 3 + (dx + 1)``, ``NO_PARENT`` at the
root and unreached cells), not costs: a repair prices the few cells it looks at by walking up
their tree paths, memoised per tree (``stamp == now``), since those cells lie side by side.
"""

from __future__ import annotations

import math

import numpy as np

from python_core._types import F64, I32, I64, U8
from python_core.compiled import jit
from python_core.hpa.graph.cluster_search import NO_PARENT
from python_core.hpa.steps import MOVE_DX, MOVE_DY, legal_into, move_count, step_length, step_source

__all__ = ["OldCosts", "best_entry", "cell_cost", "move_of", "old_tree_cost", "touches_change"]

OldCosts = tuple[F64, I32, I64]
"""The memo of :func:`old_tree_cost`: costs, the tree each is valid for, a stack of local cells."""


@jit
def touches_change(mark: U8, lw: int, ux: int, uy: int, dx: int, dy: int) -> bool:  # noqa: PLR0917
    """Whether the move from local (ux, uy) by (dx, dy) touches a changed cell (ends or corners)."""
    if mark[uy * lw + ux] == 2 or mark[(uy + dy) * lw + ux + dx] == 2:
        return True
    return dx != 0 and dy != 0 and (mark[uy * lw + ux + dx] == 2 or mark[(uy + dy) * lw + ux] == 2)


@jit
def cell_cost(  # noqa: PLR0917
    walk: U8, weights: F64, width: int, x0: int, y0: int, lw: int, cw: float, ch: float,
    tree: U8, root: int, d: F64, stamp: I32, now: int, cell: int, old: OldCosts,
) -> float:  # fmt: skip
    """The tree cost of a local cell (memoised per tree; inf for walls and unreached cells)."""
    if stamp[cell] != now:
        stamp[cell] = now
        if walk[(cell // lw + y0) * width + cell % lw + x0] == 0:
            d[cell] = np.inf
        elif cell == root:
            d[cell] = 0.0
        elif tree[cell] == NO_PARENT:
            d[cell] = np.inf
        else:
            d[cell] = old_tree_cost(tree, lw, width, x0, y0, cell, weights, cw, ch, now, old)
    return float(d[cell])


@jit
def old_tree_cost(  # noqa: PLR0917
    tree: U8, lw: int, width: int, x0: int, y0: int, cell: int, weights: F64, cw: float, ch: float,
    now: int, old: OldCosts,
) -> float:  # fmt: skip
    """:func:`~python_core.hpa.graph.cluster_trees.tree_cost` of a local cell in the tree ``now`` walks
    before the change, memoised for every cell of the walk: neighbouring cells share nearly all
    their path, which a walk per cell would go up again (``old``: costs, the tree each is valid
    for, and a stack of local cells)."""
    costs, seen, stack = old
    dl = math.hypot(cw, ch)
    n, cur = 0, cell
    while seen[cur] != now and tree[cur] != NO_PARENT:  # up to a memoised cell or the root
        stack[n] = cur
        n += 1
        code = int(tree[cur])
        cur -= (code // 3 - 1) * lw + code % 3 - 1
    cost = costs[cur] if seen[cur] == now else 0.0
    for i in range(n - 1, -1, -1):  # back down, each cell charged the weight of the cell it enters
        c = stack[i]
        code = int(tree[c])
        dx, dy = code % 3 - 1, code // 3 - 1
        step = dl if dx != 0 and dy != 0 else (cw if dx != 0 else ch)
        cost += step * weights[(c // lw + y0) * width + c % lw + x0]
        costs[c], seen[c] = cost, now
    return cost


@jit
def best_entry(  # noqa: PLR0917
    walk: U8, weights: F64, width: int, x0: int, y0: int, lw: int, lh: int, diag: int, cw: float,
    ch: float, mark: U8, d: F64, v: int,
) -> tuple[float, int]:  # fmt: skip
    """The cheapest legal move into local cell ``v`` from a block cell of finite cost: ``(cost,
    move code)``, ``(inf, NO_PARENT)`` when there is none."""
    dl = math.hypot(cw, ch)
    vx, vy = v % lw, v // lw
    gv = (vy + y0) * width + vx + x0
    best, move = np.inf, NO_PARENT
    for k in range(move_count(diag)):
        u = step_source(vx, vy, k, lw, lh)
        if u < 0 or mark[u] == 0 or d[u] == np.inf or not legal_into(walk, width, vx + x0, vy + y0, k, diag):
            continue
        ng = d[u] + step_length(k, cw, ch, dl) * weights[gv]
        if ng < best:
            best, move = ng, (MOVE_DY[k] + 1) * 3 + MOVE_DX[k] + 1
    return best, move


@jit
def move_of(tree: U8, code: U8, listed: U8, cell: int) -> int:
    """The move code a cell has now: its repaired one when listed, else the tree's."""
    return int(code[cell]) if listed[cell] else int(tree[cell])
