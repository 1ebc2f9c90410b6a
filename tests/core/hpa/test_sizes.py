"""HPA* for units of any size (python_core.hpa.sizes): on Moving AI and random maps, sizes 1-4,
every path is footprint-clear step by step and found exactly when scipy's Dijkstra on the eroded
grid finds one, at a cost within bounds of its optimum; batches, radii and bad input."""

from __future__ import annotations

import numpy as np
import pytest

from python_core.errors import BlockedEndpointError, InvalidQueryError, OutOfBoundsError
from python_core.grid import DiagonalMode, GridGraph
from python_core.hpa import HierarchicalGrid
from python_core.navigation import GridNavigator, HierarchyOptions, PlaceAgent
from python_core.result import PathStatus, QueryOptions
from tests.core.hpa.hierarchy_checks import DATA, MODES, random_grid
from tests.core.hpa.sized_checks import Oracle, assert_footprint_clear, eroded

MAPS = ["arena", "den312d", "den520d", "lak303d", "maze-100-1"]
SIZES = (1, 2, 3, 4)


def check_sizes(hpa: HierarchicalGrid, *, starts: int, goals: int, seed: int) -> list[float]:
    """For each size: random anchors with room (and some cells without) against the oracle; the
    cost ratios of the found paths."""
    grid, rng, ratios = hpa.grid, np.random.default_rng(seed), []
    for k in SIZES:
        oracle = Oracle(grid, k)
        anchors = np.argwhere(oracle.walk)[:, ::-1]
        if not len(anchors):
            continue
        cells = np.argwhere(np.ones(oracle.walk.shape, dtype=bool))[:, ::-1]
        for _ in range(starts):
            start = tuple(anchors[rng.integers(len(anchors))].tolist())
            best = oracle.costs_from(start)
            ends = [anchors[rng.integers(len(anchors))] for _ in range(goals)]
            ends.append(cells[rng.integers(len(cells))])  # often without room: no path then
            for end in ends:
                goal = (int(end[0]), int(end[1]))
                got = hpa.find_path(start, goal, options=QueryOptions(size=k))
                optimum = float(best[goal[1] * grid.width + goal[0]])
                assert got.found == np.isfinite(optimum), (k, start, goal)
                assert hpa.is_reachable(start, goal, size=k) == got.found
                if got.found:
                    assert_footprint_clear(grid, got, k, start, goal)
                    assert got.cost >= optimum - 1e-9
                    ratios.append(got.cost / optimum if optimum > 0 else 1.0)
    return ratios


@pytest.mark.parametrize("name", MAPS)
def test_movingai_paths_for_sizes_1_to_4_are_footprint_clear_and_near_the_oracle(name: str) -> None:
    grid = GridGraph.from_movingai(DATA / f"{name}.map")
    hpa = HierarchicalGrid(grid, cluster_size=16).build()
    ratios = check_sizes(hpa, starts=3, goals=6, seed=len(name))
    assert len(ratios) >= 15  # maze-100-1's one-cell corridors hold size 1 only
    assert np.mean(ratios) <= 1.05, np.mean(ratios)
    assert max(ratios) <= 1.25, max(ratios)
    assert hpa.sizes == tuple(k for k in (2, 3, 4) if eroded(np.asarray(grid.walkable), k).any())


@pytest.mark.parametrize("mode", MODES)
def test_random_maps_for_sizes_1_to_4_in_every_diagonal_mode(mode: DiagonalMode) -> None:
    rng = np.random.default_rng(5)
    walk = rng.random((40, 40)) > 0.12  # sparse walls: room for sizes up to 4
    weights = rng.uniform(1.0, 3.0, walk.shape) if mode is DiagonalMode.ALWAYS else None
    hpa = HierarchicalGrid(GridGraph(walk, diagonal=mode, weights=weights), cluster_size=8).build()
    ratios = check_sizes(hpa, starts=3, goals=5, seed=7)
    assert len(ratios) > 30
    assert np.mean(ratios) <= 1.08, np.mean(ratios)


def test_a_wide_unit_goes_around_a_narrow_gap_and_its_points_are_footprint_centres() -> None:
    grid = GridGraph.from_strings([
        "..........",
        "..........",
        "....@.....",
        "....@.....",
        "....@.....",
        "..........",
        "....@.....",
        "....@.....",
        "....@.....",
        "....@.....",
    ], diagonal="only_if_no_obstacles", cell_size=2.0, origin=(10.0, 20.0))  # fmt: skip
    hpa = HierarchicalGrid(grid, cluster_size=4).build()
    small = hpa.find_path((0, 6), (8, 6))
    big = hpa.find_path((0, 6), (8, 6), options=QueryOptions(size=2))
    assert (4, 5) in [(int(n) % 10, int(n) // 10) for n in small.nodes]  # through the one-cell gap
    assert big.found
    assert min(int(n) // 10 for n in big.nodes) <= 0  # around the top: the gap is one cell
    assert_footprint_clear(grid, big, 2, (0, 6), (8, 6))
    assert big.points[0].tolist() == [11.0 + 0 * 2.0 + 0.0, 20.0 + 6 * 2.0 + 1.0]
    radius = hpa.find_path((0, 6), (8, 6), options=QueryOptions(radius=1.5))  # 2r / 2.0 -> 2 cells
    assert radius.nodes.tolist() == big.nodes.tolist()
    assert radius.cost == big.cost


def test_size_1_is_the_default_path_bit_for_bit() -> None:
    grid = random_grid(3, DiagonalMode.ONLY_IF_NO_OBSTACLES, size=40, weighted=True)
    hpa = HierarchicalGrid(grid, cluster_size=8).build()
    for start, goal in [((0, 0), (39, 39)), ((5, 30), (33, 2))]:
        if not (grid.walkable[start[1], start[0]] and grid.walkable[goal[1], goal[0]]):
            continue
        plain, sized = hpa.find_path(start, goal), hpa.find_path(start, goal, options=QueryOptions(size=1))
        assert sized.status is plain.status
        assert sized.nodes.tolist() == plain.nodes.tolist()
        assert sized.points.tolist() == plain.points.tolist()
        assert sized.cost == plain.cost
    assert hpa.sizes == ()


def test_a_sized_batch_answers_as_its_queries_one_by_one() -> None:
    grid = GridGraph(np.random.default_rng(2).random((48, 48)) > 0.1, diagonal="only_if_no_obstacles")
    hpa = HierarchicalGrid(grid, cluster_size=12).build()
    anchors = np.argwhere(Oracle(grid, 3).walk)[:, ::-1]
    rng = np.random.default_rng(4)
    starts = anchors[rng.integers(len(anchors), size=12)]
    goals = anchors[rng.integers(len(anchors), size=12)]
    goals[0] = starts[0]
    options = QueryOptions(size=3)
    batch = hpa.find_batch(starts, goals, options=options)
    for i, (start, goal) in enumerate(zip(starts.tolist(), goals.tolist(), strict=True)):
        one = hpa.find_path(start, goal, options=options)
        got = batch.result(i)
        assert got.status is one.status
        assert got.nodes.tolist() == one.nodes.tolist()
        assert np.allclose(got.points, one.points)
    listed = hpa.find_many(starts[:3], goals[:3], options=options)
    assert [r.cost for r in listed] == pytest.approx([batch.result(i).cost for i in range(3)])


def test_bad_sizes_and_ends_raise_and_build_no_layer() -> None:
    grid = GridGraph.from_strings(["....@", "....@", "....."])
    hpa = HierarchicalGrid(grid, cluster_size=4).build()
    for options in ({"size": 0}, {"size": 256}, {"size": True}, {"size": 2, "radius": 1.0}):
        with pytest.raises(InvalidQueryError):
            hpa.find_path((0, 0), (3, 1), options=QueryOptions(**options))
        with pytest.raises(InvalidQueryError):
            hpa.find_batch([(0, 0)], [(3, 1)], options=QueryOptions(**options))
    for bad in (0, 256, 2.0):
        with pytest.raises(InvalidQueryError):
            hpa.for_size(bad)  # type: ignore[arg-type]
        with pytest.raises(InvalidQueryError):
            hpa.is_reachable((0, 0), (1, 1), size=bad)  # type: ignore[arg-type]
    with pytest.raises(OutOfBoundsError):
        hpa.find_path((9, 0), (0, 0), options=QueryOptions(size=2))
    assert hpa.sizes == ()  # a bad query builds no layer
    with pytest.raises(BlockedEndpointError, match="size-2"):
        hpa.find_path((3, 0), (0, 0), options=QueryOptions(size=2))  # (4, 0) is a wall
    assert hpa.find_path((0, 0), (3, 1), options=QueryOptions(size=2)).status is PathStatus.NO_PATH
    assert hpa.find_path((0, 0), (2, 1), options=QueryOptions(size=2)).found
    assert not hpa.is_reachable((0, 0), (3, 2), size=2)
    assert hpa.find_path((0, 0), (3, 1)).found  # size 1 unchanged


def test_a_sized_partial_path_stops_before_a_gap_too_narrow() -> None:
    grid = GridGraph.from_strings([
        "......@.........",
        "......@.........",
        "......@.........",
        "................",
        "......@.........",
        "......@.........",
    ], diagonal="only_if_no_obstacles")  # fmt: skip
    hpa = HierarchicalGrid(grid, cluster_size=4).build()
    walled = QueryOptions(size=2, allow_partial=True)
    partial = hpa.find_path((0, 0), (10, 0), options=walled)  # the one-cell gap is too narrow
    assert partial.status is PathStatus.PARTIAL
    end = int(partial.nodes[-1])
    assert end % 16 < 6  # the closest anchor on this side of the wall
    assert_footprint_clear(grid, partial, 2, (0, 0), (end % 16, end // 16))
    assert hpa.find_path((0, 0), (10, 0), options=QueryOptions(size=2)).status is PathStatus.NO_PATH


def test_a_navigator_gives_way_when_an_agent_is_under_the_wide_unit_footprint() -> None:
    grid = GridGraph(np.ones((8, 12), dtype=bool), diagonal="never")
    nav = GridNavigator(grid)
    nav.build_hierarchy(HierarchyOptions(cluster_size=4))
    nav.apply([PlaceAgent(7, (5, 1))])  # beside a one-cell unit's row, under a 2x2 unit's
    small = nav.find_path((0, 0), (10, 0), hierarchical=True)
    assert [int(n) // 12 for n in small.nodes] == [0] * 11  # straight along row 0: not in the way
    wide = nav.find_path((0, 0), (10, 0), QueryOptions(size=2), hierarchical=True)
    assert wide.found
    assert_footprint_clear(grid, wide, 2, (0, 0), (10, 0))
    for node in wide.nodes.tolist():  # no footprint covers the agent's cell
        x, y = node % 12, node // 12
        assert not (x <= 5 < x + 2 and y <= 1 < y + 2), (x, y)
    assert wide.cost == nav.find_path((0, 0), (10, 0), QueryOptions(size=2)).cost
