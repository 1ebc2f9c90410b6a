"""Landmark lower bounds: never above the true cost (scipy's Dijkstra, real maps, every diagonal
mode, weights), the goals' landmark distances exact, and fields built with them exact."""

from __future__ import annotations

import numpy as np
import pytest

from python_core._types import DIAG_CODES
from python_core.errors import InvalidQueryError, OutOfBoundsError
from python_core.flowfield import FlowField, Landmarks
from python_core.flowfield.bounds import _landmark_bound, goal_bound
from python_core.grid import DiagonalMode, GridGraph
from python_core.hpa import HierarchicalGrid
from tests.core.flowfield.oracle import goal_costs
from tests.core.flowfield.test_field_exact import check_field

MODES = list(DiagonalMode)


def _map(name: str, mode: DiagonalMode, *, weighted: bool) -> GridGraph:
    base = GridGraph.from_movingai(f"tests/data/movingai/{name}.map")
    weights = None
    if weighted:  # uneven weights: the costs are not symmetric, both ways are stored
        weights = np.random.default_rng(2).choice([0.5, 1.0, 1.0, 2.5], size=base.walkable.shape)
    cell = (1.0, 1.25) if weighted else 1.0
    return GridGraph(base.walkable, diagonal=mode, weights=weights, cell_size=cell)


def _open_cells(grid: GridGraph, count: int, seed: int) -> list[tuple[int, int]]:
    ys, xs = np.nonzero(grid.walkable)
    picks = np.random.default_rng(seed).choice(xs.size, size=count, replace=False)
    return [(int(xs[i]), int(ys[i])) for i in picks]


def _bounds(marks: Landmarks, goals: list[tuple[int, int]]) -> np.ndarray:
    """The check's lower bound (octile and landmarks) at every border cell, ``-inf`` elsewhere."""
    grid, cs = marks.grid, marks.cs
    w = grid.width
    tiles_x = -(-w // cs)
    nodes = np.array(sorted(y * w + x for x, y in goals), dtype=np.int64)
    g_to, g_from = marks.goal_terms(nodes)
    gx, gy = nodes % w, nodes // w
    wmin = float(grid.weights[grid.walkable].min())
    cw, ch = grid.cell_size
    out = np.full((grid.height, w), -np.inf)
    for y in range(grid.height):
        for x in range(w):
            lx, ly = x % cs, y % cs
            if 0 < lx < cs - 1 and 0 < ly < cs - 1:
                continue
            tile = (y // cs) * tiles_x + x // cs
            alt = _landmark_bound(tile, ly * cs + lx, cs, marks.to_border, marks.from_border, g_to, g_from)
            octile = goal_bound(x, y, gx, gy, cw, ch, DIAG_CODES[grid.diagonal], wmin)
            out[y, x] = max(alt, octile)
    return out


@pytest.mark.parametrize("mode", MODES, ids=[m.value for m in MODES])
@pytest.mark.parametrize(("name", "weighted"), [("den312d", False), ("maze-100-1", True), ("arena", True)])
def test_the_bound_never_exceeds_the_true_cost(mode: DiagonalMode, name: str, weighted: bool) -> None:
    grid = _map(name, mode, weighted=weighted)
    marks = Landmarks.build(grid, tile_size=8, count=4)
    assert (marks.from_border is marks.to_border) == (not weighted)
    for seed in (1, 2):
        goals = _open_cells(grid, 1 + seed, seed)
        true = goal_costs(grid, goals)
        bound = _bounds(marks, goals)
        border = np.isfinite(bound) & grid.walkable
        reachable = border & np.isfinite(true)
        assert reachable.sum() > 100
        assert np.all(bound[reachable] <= true[reachable] * (1 + 1e-12) + 1e-12)
        # not vacuous: the landmarks are tight (equal to the cost) at some cells
        assert np.sum(np.isclose(bound[reachable], true[reachable], rtol=1e-9)) > 10
        # a cell that cannot reach the goals may get inf; a reachable one never does
        assert not np.isinf(bound[reachable]).any()


@pytest.mark.parametrize("weighted", [False, True], ids=["uniform", "weighted"])
def test_the_goals_landmark_distances_are_exact(weighted: bool) -> None:
    grid = _map("den312d", DiagonalMode.ONLY_IF_NO_OBSTACLES, weighted=weighted)
    goals = _open_cells(grid, 3, 9)
    marks = Landmarks.build(grid, tile_size=8, count=3, at=[goals[0]])  # one at a goal, two picked
    assert marks.cells[0] == goals[0][1] * grid.width + goals[0][0]
    assert marks.count == 3
    nodes = np.array(sorted(y * grid.width + x for x, y in goals), dtype=np.int64)
    g_to, g_from = marks.goal_terms(nodes)
    for k, cell in enumerate(marks.cells.tolist()):
        landmark = (cell % grid.width, cell // grid.width)
        to_l = goal_costs(grid, [landmark])
        from_l = goal_costs(grid, [landmark], from_goals=True)
        assert g_to[k] == pytest.approx(max(to_l[y, x] for x, y in goals), rel=1e-12)
        assert g_from[k] == pytest.approx(min(from_l[y, x] for x, y in goals), rel=1e-12)


@pytest.mark.parametrize("mode", MODES, ids=[m.value for m in MODES])
def test_fields_with_landmarks_are_exact(mode: DiagonalMode) -> None:
    grid = _map("maze-100-1", mode, weighted=mode is DiagonalMode.ALWAYS)
    hpa = HierarchicalGrid(grid, cluster_size=8).build()
    marks = Landmarks.build(grid, tile_size=8)
    goals = _open_cells(grid, 2, 4)
    field = FlowField(grid, goals, hierarchy=hpa, landmarks=marks)
    field.extend(_open_cells(grid, 3, 5))
    assert check_field(field, goal_costs(grid, goals)) > 100


def test_agents_and_a_changed_grid_keep_fields_exact() -> None:
    grid = _map("den312d", DiagonalMode.AT_LEAST_ONE_WALKABLE, weighted=False)
    marks = Landmarks.build(grid, tile_size=8)
    goals = _open_cells(grid, 1, 3)
    starts = _open_cells(grid, 6, 6)
    for i, cell in enumerate(starts[3:]):
        grid.place_agent(i + 1, cell)
    field = FlowField(grid, goals, tile_size=8, agents_block=True, landmarks=marks)
    field.extend(starts[:3])
    check_field(field, goal_costs(grid, goals, agents_block=True))
    ys, xs = np.nonzero(grid.walkable)
    grid.set_walkable([(int(xs[5]), int(ys[5])), (int(xs[50]), int(ys[50]))], False)
    assert not marks.usable(grid, 8)  # stale: the field falls back to octile bounds
    plain = FlowField(grid, goals, tile_size=8, landmarks=marks)
    plain.extend(starts[:3])
    check_field(plain, goal_costs(grid, goals))


def test_bad_landmark_input_raises_named_errors() -> None:
    grid = GridGraph.from_strings(["....", "...."])
    with pytest.raises(InvalidQueryError):
        Landmarks.build(grid, tile_size=2, count=0)
    with pytest.raises(InvalidQueryError):
        Landmarks.build(grid, tile_size=1)
    with pytest.raises(InvalidQueryError):
        Landmarks.build(GridGraph.from_strings(["@@", "@@"]), tile_size=2)
    with pytest.raises(InvalidQueryError):
        Landmarks.build(grid, tile_size=2, count=1, at=[(0, 0), (3, 1)])
    with pytest.raises(OutOfBoundsError):
        Landmarks.build(grid, tile_size=2, at=[(9, 0)])
    marks = Landmarks.build(grid, tile_size=2, count=2)
    with pytest.raises(InvalidQueryError):
        FlowField(grid, [(0, 0)], tile_size=4, landmarks=marks)
    with pytest.raises(InvalidQueryError):
        FlowField(GridGraph.from_strings(["...."]), [(0, 0)], tile_size=2, landmarks=marks)
    with pytest.raises(InvalidQueryError):
        FlowField(grid, [(0, 0)], tile_size=2, landmarks="marks")  # type: ignore[arg-type]
    field = FlowField(grid, [(0, 0)], tile_size=2, landmarks=marks)
    assert field.extend([(3, 1)])
    assert field.cost_at((3, 1)) == pytest.approx(2 + 2**0.5)


def test_a_field_stays_near_its_corridor_with_or_without_landmarks() -> None:
    """den520d: the A* from the goal (goal_search.py) keeps the field to the tiles the starts'
    paths cross (the region solver's octile check used to reach every tile); landmarks, which
    only the repairs' check reads, change nothing there. Exact either way."""
    grid = GridGraph.from_movingai("tests/data/movingai/den520d.map")
    hpa = HierarchicalGrid(grid, cluster_size=16).build()
    marks = Landmarks.build(grid, tile_size=16)
    ys, xs = np.nonzero(grid.walkable)
    cells = list(zip(xs.tolist(), ys.tolist(), strict=True))
    picks = np.random.default_rng(5).choice(len(cells), size=3, replace=False).tolist()
    goals, starts = [cells[picks[0]]], [cells[picks[1]], cells[picks[2]]]
    sizes = []
    for bound in (None, marks):
        field = FlowField(grid, goals, hierarchy=hpa, landmarks=bound)
        field.extend(starts)
        sizes.append(len(field.tiles))
    total = field.tiles_x * field.tiles_y
    assert sizes[0] == sizes[1] < total // 4
    assert check_field(field, goal_costs(grid, goals)) > 1000
