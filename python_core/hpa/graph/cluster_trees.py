"""Cached shortest-path trees inside a cluster: one per transition, one byte per cell.

Quick start::

    import numpy as np
    from python_core.hpa.graph.cluster_search import cluster_table
    from python_core.hpa.graph.cluster_trees import tree_walk
    walk, w, dirs = np.ones(16, np.uint8), np.ones(16), np.zeros((2, 16), np.uint8)
    table = cluster_table(walk, w, 4, 0, 0, 4, 4, 3, 1.0, 1.0, np.array([0, 15]), dirs)
    cells = np.empty(16, np.int64)
    n, cost = tree_walk(dirs[0], 0, 0, 4, 4, 0, 15, w, 1.0, 1.0, cells)   # 15 -> ... -> 0

A tree is the exact Dijkstra from one transition over its whole cluster, recorded by the search
that prices the cluster's cost table (:func:`~python_core.hpa.graph.cluster_search.cluster_table`) as
the move that entered each cell: code ``(dy + 1) * 3 + (dx + 1)``, and :data:`NO_PARENT` for the
root and for unreachable cells. With the trees, HPA* needs no search to insert a goal (its cost
from every transition is a walk up each tree), to insert a start (the same walks priced in the
start's direction, ``reverse``: exact where the cluster has one weight or no diagonal moves, a
near-cheapest way elsewhere), or to refine an abstract edge into cells (a walk up the tree of its
first transition).
"""

from __future__ import annotations

import math

import numpy as np

from python_core._types import F64, I64, U8
from python_core.compiled import jit
from python_core.hpa.graph.cluster_search import NO_PARENT

__all__ = ["NO_PARENT", "tree_cost", "tree_rows", "tree_walk"]


@jit
def tree_walk(  # noqa: PLR0917 (compiled kernel: positional)
    dirs: U8,
    x0: int,
    y0: int,
    lw: int,
    width: int,
    root: int,
    cell: int,
    weights: F64,
    cw: float,
    ch: float,
    out: I64,
    one_weight: float = 0.0,
    reverse: bool = False,
    first: int = 0,
    dl: float = 0.0,
) -> tuple[int, float]:
    """Walk one tree from ``cell`` up to its root, writing the global cells into ``out``.

    Args:
        dirs: the tree's direction codes (local cells).
        x0: cluster left column.
        y0: cluster top row.
        lw: cluster width.
        width: grid columns.
        root: the tree's root (its transition cell).
        cell: global cell to start from (inside the cluster).
        weights: global cell weights.
        cw: cell width.
        ch: cell height.
        out: receives ``cell, parent(cell), ..., root``; at least ``lw * lh`` long.
        one_weight: the weight of every open cell when they share one (then ``weights`` is not
            read: a query's walks touch less memory), else ``0``.
        reverse: price the walk itself, ``cell`` -> root, instead of the tree's path root ->
            ``cell``: the same cells, but each step charges the cell the walk enters (the parent).
            Where weights differ that can cost more or less than the tree's direction, and it is
            not always the cheapest way from ``cell`` to the root (the tree is the cheapest way
            from the root).
        first: where the tree starts in ``dirs`` (a pool of trees, read in place: a slice per
            walk costs two atomic reference counts, a measurable share of a short walk).
        dl: the diagonal's length, ``math.hypot(cw, ch)``, when the caller has it (a loop of
            walks computes it once); ``0`` computes it here.

    Returns:
        ``(n, cost)``: cells written, and the cost of the path root -> ``cell`` (each step
        charges the weight of the cell it enters; ``cell`` -> root with ``reverse``);
        ``(0, inf)`` when the root does not reach ``cell``.

    Example:
        >>> out, w = np.empty(3, np.int64), np.ones(3)
        >>> tree_walk(np.array([4, 5, 5], np.uint8), 0, 0, 3, 3, 0, 2, w, 1.0, 1.0, out), out.tolist()
        ((3, 2.0), [2, 1, 0])
        >>> tree_walk(np.array([4, 4, 5], np.uint8), 0, 0, 3, 3, 0, 1, w, 1.0, 1.0, out)
        (0, inf)
        >>> heavy = np.array([1.0, 2.0, 3.0])  # root 0 -> 2 enters 1 and 2; 2 -> 0 enters 1 and 0
        >>> tree = np.array([4, 5, 5], np.uint8)
        >>> tree_walk(tree, 0, 0, 3, 3, 0, 2, heavy, 1.0, 1.0, out)
        (3, 5.0)
        >>> tree_walk(tree, 0, 0, 3, 3, 0, 2, heavy, 1.0, 1.0, out, 0.0, True)
        (3, 3.0)
    """
    if dl <= 0.0:
        dl = math.hypot(cw, ch)
    cur = first + (cell // width - y0) * lw + cell % width - x0
    n, cost = 0, 0.0
    out[0] = cell
    if dirs[cur] == NO_PARENT and cell != root:
        return 0, np.inf
    here = cell  # global twin of cur, stepped alongside so the loop divides by constants only
    while dirs[cur] != NO_PARENT:
        code = int(dirs[cur])
        dx, dy = code % 3 - 1, code // 3 - 1
        length = dl if dx != 0 and dy != 0 else (cw if dx != 0 else ch)
        if not reverse:
            cost += length * (one_weight if one_weight > 0.0 else weights[here])
        cur -= dy * lw + dx
        here -= dy * width + dx
        if reverse:
            cost += length * (one_weight if one_weight > 0.0 else weights[here])
        n += 1
        out[n] = here
    return n + 1, cost


@jit
def tree_cost(  # noqa: PLR0917 (compiled kernel: positional)
    tree: U8, lw: int, width: int, x0: int, y0: int, cell: int, root: int, weights: F64, cw: float, ch: float
) -> float:
    """Cost of a tree's path from its root to local ``cell`` (``inf`` when the tree misses it).

    Example:
        >>> tree_cost(np.array([4, 5, 5], np.uint8), 3, 3, 0, 0, 2, 0, np.ones(3), 1.0, 1.0)
        2.0
    """
    if tree[cell] == NO_PARENT and cell != root:
        return np.inf
    dl = math.hypot(cw, ch)
    cost = 0.0
    cur = cell
    here = (cell // lw + y0) * width + cell % lw + x0
    while tree[cur] != NO_PARENT:
        code = int(tree[cur])
        dx, dy = code % 3 - 1, code // 3 - 1
        cost += (dl if dx != 0 and dy != 0 else (cw if dx != 0 else ch)) * weights[here]
        cur -= dy * lw + dx
        here -= dy * width + dx
    return cost


@jit
def tree_rows(  # noqa: PLR0917 (compiled kernel: positional)
    dirs: U8, trans: I64, rows: I64, x0: int, y0: int, lw: int, width: int, weights: F64, cw: float,
    ch: float, table: F64,
) -> None:  # fmt: skip
    """Fill rows of a cluster's cost table by walking their trees to every transition.

    Example:
        >>> table = np.zeros((2, 2))
        >>> tree_rows(np.array([[4, 5, 5], [3, 3, 4]], np.uint8), np.array([0, 2]), np.array([0, 1]),
        ...           0, 0, 3, 3, np.ones(3), 1.0, 1.0, table)
        >>> table.tolist()
        [[0.0, 2.0], [2.0, 0.0]]
    """
    local = (trans // width - y0) * lw + trans % width - x0
    for r in range(rows.shape[0]):
        i = rows[r]
        for j in range(trans.shape[0]):
            table[i, j] = tree_cost(dirs[i], lw, width, x0, y0, local[j], local[i], weights, cw, ch)
