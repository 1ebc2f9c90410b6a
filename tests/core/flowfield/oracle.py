"""The test oracle: costs to a goal set by scipy's Dijkstra over the grid's move graph, built here
from the grid's rules (Godot's diagonal modes, entering a cell costs step length x its weight)."""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse
from scipy.sparse.csgraph import dijkstra

from python_core.grid import GridGraph

_STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, 1), (1, -1), (-1, -1))


def goal_costs(
    grid: GridGraph, goals: list[tuple[int, int]], *, agents_block: bool = False, from_goals: bool = False
) -> np.ndarray:
    """Cost from every cell to the nearest goal (inf when none is reachable, and on walls);
    ``from_goals``: from the nearest goal to every cell instead."""
    h, w = grid.height, grid.width
    walk = grid.walkable.copy()
    enter = walk.copy()
    if agents_block:
        for x, y in grid.agents.values():
            enter[y, x] = False
    weights = grid.weights
    cw, ch = grid.cell_size
    mode = grid.diagonal.value
    rows, cols, vals = [], [], []
    ys, xs = np.nonzero(walk)
    for x, y in zip(xs.tolist(), ys.tolist(), strict=True):
        for dx, dy in _STEPS:
            nx, ny = x + dx, y + dy
            if not (0 <= nx < w and 0 <= ny < h and enter[ny, nx]):
                continue
            if dx and dy:
                a, b = enter[y, nx], enter[ny, x]
                ok = {"always": True, "never": False, "at_least_one_walkable": a or b,
                      "only_if_no_obstacles": a and b}[mode]  # fmt: skip
                if not ok:
                    continue
            length = math.hypot(dx * cw, dy * ch)
            rows.append(y * w + x)
            cols.append(ny * w + nx)
            vals.append(length * weights[ny, nx] + 0.0)
    n = w * h
    # explicit zeros would vanish from a sparse matrix: a tiny stand-in, corrected below
    data = np.array(vals) if vals else np.zeros(0)
    zero = data == 0
    data[zero] = 1e-300
    graph = scipy.sparse.csr_matrix((data, (np.array(rows, int), np.array(cols, int))), shape=(n, n))
    sources = [y * w + x for x, y in goals if enter[y, x]]
    if not sources:
        return np.full((h, w), np.inf)
    dist = dijkstra(graph if from_goals else graph.T.tocsr(), directed=True, indices=sources, min_only=True)
    dist[dist < 1e-200] = 0.0
    out = np.asarray(dist).reshape(h, w)
    out[~walk] = np.inf
    return out
