"""Checks the unit-size HPA* tests share, written apart from the code they check: the grid eroded
for a size by numpy slicing, scipy's Dijkstra on it, and a path's footprint checked cell by cell on
the original grid (diagonal steps: the swept square's two corner cells, by the diagonal rule)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from python_core.grid import DiagonalMode, GridGraph
from python_core.result import PathResult


def eroded(walk: np.ndarray, k: int) -> np.ndarray:
    """``out[y, x]``: the k x k cells from ``(x, y)`` rightwards and downwards are all open and in."""
    h, w = walk.shape
    out = np.zeros((h, w), dtype=bool)
    if k <= h and k <= w:
        fits = np.ones((h - k + 1, w - k + 1), dtype=bool)
        for dy, dx in itertools.product(range(k), repeat=2):
            fits &= walk[dy : dy + h - k + 1, dx : dx + w - k + 1]
        out[: h - k + 1, : w - k + 1] = fits
    return out


def footprint_weights(weights: np.ndarray, k: int) -> np.ndarray:
    """The highest weight under each anchor's footprint (where it fits)."""
    h, w = weights.shape
    out = weights.copy()
    if k <= h and k <= w:
        top = np.zeros((h - k + 1, w - k + 1))
        for dy, dx in itertools.product(range(k), repeat=2):
            top = np.maximum(top, weights[dy : dy + h - k + 1, dx : dx + w - k + 1])
        out[: h - k + 1, : w - k + 1] = top
    return out


class Oracle:
    """scipy's Dijkstra over the grid eroded for size ``k`` (the diagonal rule on the eroded grid,
    which is the swept-footprint rule)."""

    def __init__(self, grid: GridGraph, k: int) -> None:
        self.walk = eroded(np.asarray(grid.walkable), k)
        weights = footprint_weights(np.asarray(grid.weights), k)
        h, w = self.walk.shape
        (cw, ch), mode = grid.cell_size, grid.diagonal
        padded = np.pad(self.walk, 1)  # padded[y + 1, x + 1] is walk[y, x]; outside: closed

        def shifted(dx: int, dy: int) -> np.ndarray:
            return padded[1 + dy : 1 + dy + h, 1 + dx : 1 + dx + w]

        ys, xs = np.mgrid[0:h, 0:w]
        rows, cols, costs = [], [], []
        for dx, dy in itertools.product((-1, 0, 1), repeat=2):
            if (dx, dy) == (0, 0) or (dx and dy and mode is DiagonalMode.NEVER):
                continue
            ok = self.walk & shifted(dx, dy)
            if dx and dy and mode is DiagonalMode.ONLY_IF_NO_OBSTACLES:
                ok &= shifted(dx, 0) & shifted(0, dy)
            if dx and dy and mode is DiagonalMode.AT_LEAST_ONE_WALKABLE:
                ok &= shifted(dx, 0) | shifted(0, dy)
            y, x = ys[ok], xs[ok]
            rows.append(y * w + x)
            cols.append((y + dy) * w + x + dx)
            costs.append(math.hypot(cw * dx, ch * dy) * weights[y + dy, x + dx])
        edges = (np.concatenate(costs), (np.concatenate(rows), np.concatenate(cols)))
        self.matrix = csr_matrix(edges, shape=(h * w, h * w))
        self.width = w

    def costs_from(self, start: tuple[int, int]) -> np.ndarray:
        """Optimal costs from ``start`` to every anchor (inf: none)."""
        return dijkstra(self.matrix, indices=start[1] * self.width + start[0])


def assert_footprint_clear(
    grid: GridGraph, result: PathResult, k: int, start: tuple[int, int], goal: tuple[int, int]
) -> None:
    """Every footprint on the path lies on open cells, every diagonal step's swept corners obey
    the diagonal rule, the cost is recomputed from the footprints' highest weights, and the points
    are footprint centres."""
    walk, weights, w = np.asarray(grid.walkable), np.asarray(grid.weights), grid.width
    h = grid.height
    cells = [(int(n) % w, int(n) // w) for n in result.nodes]
    assert cells[0] == start
    assert cells[-1] == goal

    def free(x: int, y: int) -> bool:
        return 0 <= x < w and 0 <= y < h and bool(walk[y, x])

    for x, y in cells:
        assert all(free(x + i, y + j) for i in range(k) for j in range(k)), (x, y, k)
    cost = 0.0
    (cw, ch), mode = grid.cell_size, grid.diagonal
    for (x, y), (nx, ny) in itertools.pairwise(cells):
        dx, dy = nx - x, ny - y
        assert max(abs(dx), abs(dy)) == 1, (x, y, nx, ny)
        if dx and dy:
            only_new_x, only_old_x = (x + k, x) if dx > 0 else (x - 1, x + k - 1)
            only_old_y, only_new_y = (y, y + k) if dy > 0 else (y + k - 1, y - 1)
            corners = (free(only_new_x, only_old_y), free(only_old_x, only_new_y))
            assert mode is not DiagonalMode.NEVER
            if mode is DiagonalMode.ONLY_IF_NO_OBSTACLES:
                assert all(corners), (x, y, nx, ny, k)
            if mode is DiagonalMode.AT_LEAST_ONE_WALKABLE:
                assert any(corners), (x, y, nx, ny, k)
        top = max(float(weights[ny + j, nx + i]) for i in range(k) for j in range(k))
        cost += math.hypot(cw * dx, ch * dy) * top
    assert result.cost == pytest.approx(cost, rel=1e-9, abs=1e-9)
    (ox, oy), half = grid.origin, (k - 1) / 2
    centres = [[ox + (x + half) * cw, oy + (y + half) * ch] for x, y in cells]
    assert np.allclose(result.points, centres, rtol=0, atol=1e-9)
