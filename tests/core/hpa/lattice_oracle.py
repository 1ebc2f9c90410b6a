"""An oracle for HPA* on tile lattices: the grid's graph built in plain Python from the layout's
neighbour table (checked against Godot's own dump in tests/core/grid/layouts) and solved by
scipy's Dijkstra. No kernel of ours runs in it."""

from __future__ import annotations

import numpy as np
from scipy.sparse import csr_matrix  # type: ignore[import-untyped]
from scipy.sparse.csgraph import dijkstra  # type: ignore[import-untyped]

from python_core.grid.layouts import TileGrid
from python_core.grid.layouts.geometry import neighbour_table


def moves(grid: TileGrid) -> dict[tuple[int, int], float]:
    """``(i, j) -> cost`` of every step the grid allows: sides, corners under its diagonal rule,
    the world length between centres times the weight of the cell entered."""
    layout, w, h = grid.layout, grid.width, grid.height
    table = neighbour_table(layout)
    walk, weights = grid.walkable, grid.weights
    mx, my = layout.map_origin
    centres = grid.cell_points(np.arange(w * h))
    out: dict[tuple[int, int], float] = {}

    def parity(x: int, y: int) -> int:
        axis = layout.parity_axis
        if axis < 0:
            return 0
        value = (y + my) if axis == 1 else (x + mx)
        shifted = value % 2
        return shifted if layout.layout == 0 else 1 - shifted

    def is_open(x: int, y: int) -> bool:
        return 0 <= x < w and 0 <= y < h and bool(walk[y, x])

    rule = grid.diagonal.value
    for y in range(h):
        for x in range(w):
            if not walk[y, x]:
                continue
            p = parity(x, y)
            targets = [(int(dx), int(dy)) for dx, dy in table.sides[p]]
            if rule != "never":
                for k, (dx, dy) in enumerate(table.corners[p]):
                    a, b = (table.sides[p][i] for i in table.corner_sides[p][k])
                    free = [is_open(x + int(a[0]), y + int(a[1])), is_open(x + int(b[0]), y + int(b[1]))]
                    if rule == "always" or (any(free) if rule == "at_least_one_walkable" else all(free)):
                        targets.append((int(dx), int(dy)))
            for dx, dy in targets:
                if is_open(x + dx, y + dy):
                    i, j = y * w + x, (y + dy) * w + x + dx
                    out[i, j] = float(np.hypot(*(centres[j] - centres[i]))) * float(weights[y + dy, x + dx])
    return out


def distances(grid: TileGrid, sources: np.ndarray) -> np.ndarray:
    """Optimal costs from each flat source cell to every cell (``inf``: unreachable)."""
    steps = moves(grid)
    n = grid.width * grid.height
    if not steps:
        return np.full((len(sources), n), np.inf)
    rows, cols = zip(*steps, strict=True)
    matrix = csr_matrix((list(steps.values()), (rows, cols)), shape=(n, n))
    return np.asarray(dijkstra(matrix, indices=sources))
