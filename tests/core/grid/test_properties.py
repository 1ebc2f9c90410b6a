"""Property tests: A* on random small grids costs exactly what scipy's Dijkstra says (the oracle).

The oracle graph is built here from the rules as stated (Godot's four diagonal modes, step length in
world units times the weight of the entered cell), without python_core's search code.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from python_core.grid import GridGraph
from python_core.result import PathStatus, QueryOptions
from tests.core.grid.conftest import Finder

MODES = ["always", "never", "at_least_one_walkable", "only_if_no_obstacles"]
MOVES = [(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy]


def diagonal_allowed(mode: str, side_x: bool, side_y: bool) -> bool:
    return {
        "always": True,
        "never": False,
        "at_least_one_walkable": side_x or side_y,
        "only_if_no_obstacles": side_x and side_y,
    }[mode]


def oracle_costs(
    open_: np.ndarray, weights: np.ndarray, mode: str, cell: tuple[float, float], start: tuple[int, int]
) -> np.ndarray:
    """Dijkstra distances from ``start`` to every cell (flat y * w + x); ``inf`` when unreachable."""
    height, width = open_.shape
    rows, cols, data = [], [], []
    for y in range(height):
        for x in range(width):
            for dx, dy in MOVES:
                nx, ny = x + dx, y + dy
                if not (0 <= nx < width and 0 <= ny < height) or not open_[ny, nx]:
                    continue
                if dx and dy and not diagonal_allowed(mode, bool(open_[y, nx]), bool(open_[ny, x])):
                    continue
                rows.append(y * width + x)
                cols.append(ny * width + nx)
                data.append(math.hypot(dx * cell[0], dy * cell[1]) * weights[ny, nx])
    graph = csr_matrix((data, (rows, cols)), shape=(width * height, width * height))
    return np.asarray(dijkstra(graph, directed=True, indices=start[1] * width + start[0]))


@dataclass(frozen=True)
class Scene:
    walls: np.ndarray
    weights: np.ndarray
    mode: str
    cell: tuple[float, float]
    start: tuple[int, int]
    goal: tuple[int, int]
    agents: list[tuple[int, int]]
    heuristic: str | None


@st.composite
def scenes(draw: st.DrawFn) -> Scene:
    width, height = draw(st.integers(1, 8)), draw(st.integers(1, 8))
    cells = st.tuples(st.integers(0, width - 1), st.integers(0, height - 1))
    flat = draw(st.lists(st.booleans(), min_size=width * height, max_size=width * height))
    walls = np.array(flat, dtype=bool).reshape(height, width)
    start, goal = draw(cells), draw(cells)
    walls[start[1], start[0]] = True
    levels = st.sampled_from([0.25, 0.5, 1.0, 1.0, 2.0, 3.5])
    weights = np.array(draw(st.lists(levels, min_size=width * height, max_size=width * height)))
    mode = draw(st.sampled_from(MODES))
    heuristics = ["octile", "euclidean", "chebyshev", "zero"] + (["manhattan"] if mode == "never" else [])
    return Scene(
        walls=walls,
        weights=weights.reshape(height, width),
        mode=mode,
        cell=draw(st.sampled_from([(1.0, 1.0), (2.0, 2.0), (1.0, 3.0), (0.5, 1.5)])),
        start=start,
        goal=goal,
        agents=draw(st.lists(cells, max_size=3)),
        heuristic=draw(st.sampled_from([None, *heuristics])),
    )


@settings(max_examples=300, deadline=None)
@given(scenes())
def test_astar_cost_equals_scipy_dijkstra(find: Finder, scene: Scene) -> None:
    grid = GridGraph(scene.walls, diagonal=scene.mode, weights=scene.weights, cell_size=scene.cell)
    open_ = scene.walls.copy()
    for i, agent_cell in enumerate(scene.agents):
        grid.place_agent(i, agent_cell)
        open_[agent_cell[1], agent_cell[0]] = False  # agents block like walls (the start is never entered)
    costs = oracle_costs(open_, scene.weights, scene.mode, scene.cell, scene.start)
    expected = costs[scene.goal[1] * grid.width + scene.goal[0]]
    result = find(grid, scene.start, scene.goal, options=QueryOptions(heuristic=scene.heuristic))
    if scene.start == scene.goal:
        assert result.found
        assert result.cost == 0.0
    elif math.isinf(expected):
        assert result.status is PathStatus.NO_PATH
        assert len(result) == 0
    else:
        assert result.found
        assert result.cost == pytest.approx(expected, rel=1e-9, abs=1e-12)
        assert_path_is_valid(grid, open_, scene.mode, result.nodes.tolist(), result.cost)


def assert_path_is_valid(
    grid: GridGraph, open_: np.ndarray, mode: str, nodes: list[int], cost: float
) -> None:
    width = grid.width
    cells = [(n % width, n // width) for n in nodes]
    total = 0.0
    for (x0, y0), (x1, y1) in itertools.pairwise(cells):
        dx, dy = x1 - x0, y1 - y0
        assert (dx, dy) in MOVES
        assert open_[y1, x1]
        if dx and dy:
            assert diagonal_allowed(mode, bool(open_[y0, x1]), bool(open_[y1, x0]))
        total += math.hypot(dx * grid.cell_size[0], dy * grid.cell_size[1]) * grid.weights[y1, x1]
    assert total == pytest.approx(cost, rel=1e-12)


@settings(max_examples=100, deadline=None)
@given(scenes())
def test_partial_path_ends_at_the_reachable_cell_nearest_the_goal(find: Finder, scene: Scene) -> None:
    grid = GridGraph(scene.walls, diagonal=scene.mode)
    (gx, gy), width = scene.goal, grid.width
    result = find(
        grid, scene.start, scene.goal, options=QueryOptions(allow_partial=True, heuristic="euclidean")
    )
    if result.found:
        return
    costs = oracle_costs(scene.walls, np.ones(scene.walls.shape), scene.mode, (1.0, 1.0), scene.start)
    reachable = np.flatnonzero(np.isfinite(costs))
    assert result.status is PathStatus.PARTIAL
    end = int(result.nodes[-1])
    assert end in reachable
    nearest = np.hypot(reachable % width - gx, reachable // width - gy).min()
    assert math.hypot(end % width - gx, end // width - gy) == pytest.approx(nearest)
    assert result.cost == pytest.approx(costs[end])
