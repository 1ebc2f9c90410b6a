"""Checks the HPA* tests share: a path valid on its grid, random grids and pairs, HPA* against the
exact search."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pytest

from python_core.grid import DiagonalMode, GridGraph
from python_core.hpa import HierarchicalGrid
from python_core.result import PathResult

DATA = Path(__file__).resolve().parents[2] / "data" / "movingai"
MODES = list(DiagonalMode)


def assert_valid(grid: GridGraph, result: PathResult, start: tuple[int, int], goal: tuple[int, int]) -> None:
    """Adjacent steps, walkable cells, the diagonal rule, ends, and the cost recomputed independently."""
    walk, weights, w = grid.walkable, grid.weights, grid.width
    cells = [(int(n) % w, int(n) // w) for n in result.nodes]
    assert cells[0] == start
    assert cells[-1] == goal
    cost = 0.0
    for (x0, y0), (x1, y1) in itertools.pairwise(cells):
        dx, dy = x1 - x0, y1 - y0
        assert max(abs(dx), abs(dy)) == 1, (x0, y0, x1, y1)
        assert walk[y1, x1]
        if dx and dy:
            sides = (bool(walk[y0, x1]), bool(walk[y1, x0]))
            assert grid.diagonal is not DiagonalMode.NEVER
            if grid.diagonal is DiagonalMode.ONLY_IF_NO_OBSTACLES:
                assert all(sides)
            if grid.diagonal is DiagonalMode.AT_LEAST_ONE_WALKABLE:
                assert any(sides)
        cost += (math.sqrt(2.0) if dx and dy else 1.0) * weights[y1, x1]
    assert result.cost == pytest.approx(cost, rel=1e-9, abs=1e-9)
    assert result.points.tolist() == [[float(x), float(y)] for x, y in cells]


def random_grid(seed: int, mode: DiagonalMode, *, size: int = 48, weighted: bool = False) -> GridGraph:
    rng = np.random.default_rng(seed)
    walk = rng.random((size, size)) > 0.28
    weights = rng.uniform(1.0, 3.0, (size, size)) if weighted else None
    return GridGraph(walk, diagonal=mode, weights=weights)


def random_pairs(grid: GridGraph, count: int, seed: int) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    rng = np.random.default_rng(seed)
    open_cells = np.argwhere(grid.walkable)
    picks = rng.integers(0, len(open_cells), (count, 2))
    return [(tuple(open_cells[a][::-1].tolist()), tuple(open_cells[b][::-1].tolist())) for a, b in picks]


def check_against_exact(
    hpa: HierarchicalGrid, pairs: list, *, mean_bound: float, worst_bound: float, corridor: bool = True
) -> None:
    ratios = []
    for start, goal in pairs:
        exact = hpa.grid.find_path(start, goal)
        got = hpa.find_path(start, goal, corridor=corridor)
        assert got.found == exact.found, (start, goal)
        assert hpa.is_reachable(start, goal) == exact.found
        if exact.found:
            assert_valid(hpa.grid, got, start, goal)
            assert got.cost >= exact.cost - 1e-9
            ratios.append(got.cost / exact.cost if exact.cost > 0 else 1.0)
    assert ratios, "the sample has no reachable pair"
    assert np.mean(ratios) <= mean_bound, np.mean(ratios)
    assert max(ratios) <= worst_bound, max(ratios)


def assert_same_unsmoothed_costs(
    hpa: HierarchicalGrid, reference: HierarchicalGrid, pairs: list, *, rel: float
) -> None:
    """Same statuses, and valid paths of the reference's cost, before smoothing."""
    for start, goal in pairs:
        got = hpa.find_path(start, goal, smooth=False)
        expected = reference.find_path(start, goal, smooth=False)
        assert got.status is expected.status
        if got.found:
            assert_valid(hpa.grid, got, start, goal)
            assert got.cost == pytest.approx(expected.cost, rel=rel)


def unsmoothed_ratios(hpa: HierarchicalGrid, reference: HierarchicalGrid, pairs: list) -> list[float]:
    """Same statuses and valid paths, before smoothing; the cost ratios to the reference's."""
    ratios = []
    for start, goal in pairs:
        got = hpa.find_path(start, goal, smooth=False)
        expected = reference.find_path(start, goal, smooth=False)
        assert got.status is expected.status
        if got.found and expected.cost > 0:
            assert_valid(hpa.grid, got, start, goal)
            ratios.append(got.cost / expected.cost)
    assert ratios, "the sample has no reachable pair"
    return ratios
