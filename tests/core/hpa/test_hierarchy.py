"""HPA* (python_core.hpa): valid paths, found iff exact search finds one, near-optimal costs,
reachability equal to a flood fill (scipy), progress reports (local updates:
test_hierarchy_updates.py)."""

from __future__ import annotations

import copy
import math
import os
import pickle

import numpy as np
import pytest
from scipy import ndimage

from python_core.errors import BlockedEndpointError, InvalidGraphError, OutOfBoundsError
from python_core.formats.movingai import length_tolerance, read_scenarios
from python_core.grid import DiagonalMode, GridGraph
from python_core.grid.search import dispatch
from python_core.hpa import HierarchicalGrid
from python_core.hpa.graph.entrances import VERTICAL, border_crossings
from python_core.hpa.query.abstract_search import QID_LIMIT, split_cell
from python_core.result import PathStatus, QueryOptions
from tests.core.hpa.hierarchy_checks import (
    DATA,
    MODES,
    assert_same_unsmoothed_costs,
    assert_valid,
    check_against_exact,
    random_grid,
    random_pairs,
    unsmoothed_ratios,
)
from tests.python_snippet import run_snippet


@pytest.mark.parametrize(("name", "cluster"), [("den312d", 16), ("lak303d", 16), ("maze-100-1", 10)])
def test_movingai_paths_are_valid_and_within_one_percent_of_published_optima(name: str, cluster: int) -> None:
    grid = GridGraph.from_movingai(DATA / f"{name}.map")
    hpa = HierarchicalGrid(grid, cluster_size=cluster).build()
    scenarios = read_scenarios(DATA / f"{name}.map.scen")
    ratios = []
    for s in scenarios[:: max(1, len(scenarios) // 80)]:
        result = hpa.find_path(s.start, s.goal)
        assert result.found
        assert_valid(grid, result, s.start, s.goal)
        assert result.cost >= s.optimal_length - length_tolerance(s.optimal_length)
        ratios.append(result.cost / s.optimal_length if s.optimal_length else 1.0)
    assert np.mean(ratios) <= 1.01, np.mean(ratios)
    assert max(ratios) <= 1.10, max(ratios)


def test_a_short_entrance_crosses_at_its_lightest_pair() -> None:
    """One vertical border (8 x 4 cells, 4-cell clusters), one entrance of four pairs: the middle
    pair (lower middle on an even run) on equal weights, else the lightest pair, the middlemost of
    equally light ones."""
    walk = np.ones(32, np.uint8)
    weights = np.ones(32)

    def pair_rows() -> list[int]:
        cells, _ = border_crossings(walk, weights, 8, 4, 4, 3, 1.0, 1.0, VERTICAL, 0, 0, 6)
        return [int(a) // 8 for a, _ in cells]

    assert pair_rows() == [1]
    weights[[3 * 8 + 3, 3 * 8 + 4]] = 0.5  # row 3's pair is the lightest
    assert pair_rows() == [3]
    weights[[0 * 8 + 3, 0 * 8 + 4]] = 0.5  # rows 0 and 3 tie: both as far from the middle, the first
    assert pair_rows() == [0]
    weights[[2 * 8 + 3, 2 * 8 + 4]] = (1.5, 0.25)  # the pair's sum counts: 1.75 loses to 1.0
    assert pair_rows() == [0]
    weights[2 * 8 + 3] = 0.5  # 0.75 wins
    assert pair_rows() == [2]


@pytest.mark.parametrize("tree_budget", [64 << 20, 0])
def test_short_detours_are_checked_against_the_exact_search(tree_budget: int) -> None:
    """Over all 1060 lak303d scenarios, 16-cell clusters leave four short paths over 10% above
    optimal (worst 1.23); ``exact_check`` re-runs the suspicious short ones exactly."""
    grid = GridGraph.from_movingai(DATA / "lak303d.map")
    scenarios = [s for s in read_scenarios(DATA / "lak303d.map.scen") if s.optimal_length > 0]

    def ratios(hpa: HierarchicalGrid) -> np.ndarray:
        out = []
        for s in scenarios:
            result = hpa.find_path(s.start, s.goal)
            assert_valid(grid, result, s.start, s.goal)
            assert result.cost >= s.optimal_length - length_tolerance(s.optimal_length)
            out.append(result.cost / s.optimal_length)
        return np.array(out)

    unchecked = HierarchicalGrid(grid, cluster_size=16, tree_budget=tree_budget, exact_check=0).build()
    assert ratios(unchecked).max() > 1.10  # the map does have short detours to catch
    assert unchecked.checked_queries == 0
    checked = HierarchicalGrid(grid, cluster_size=16, tree_budget=tree_budget).build()
    got = ratios(checked)
    assert got.max() <= 1.10, got.max()
    assert 0 < checked.checked_queries <= 0.1 * len(scenarios)
    with pytest.raises(InvalidGraphError):
        HierarchicalGrid(grid, exact_check=-1)
    with pytest.raises(InvalidGraphError):
        HierarchicalGrid(grid, exact_check=math.inf)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("weighted", [False, True])
def test_random_grids_match_exact_search_in_every_diagonal_mode(mode: DiagonalMode, weighted: bool) -> None:
    grid = random_grid(7, mode, weighted=weighted)
    hpa = HierarchicalGrid(grid, cluster_size=12).build()
    check_against_exact(hpa, random_pairs(grid, 40, 3), mean_bound=1.01, worst_bound=1.10)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("weighted", [False, True])
def test_cached_trees_refine_like_searching_inside_clusters(mode: DiagonalMode, weighted: bool) -> None:
    grid = random_grid(13, mode, weighted=weighted)
    with_trees = HierarchicalGrid(grid, cluster_size=12).build()
    # no bias: the abstract A* must find the optimum the trees' table gives, so that only the
    # refinement differs between the two
    searching = HierarchicalGrid(grid, cluster_size=12, tree_budget=0, line_bias=0.0).build()
    assert with_trees.graph.has_trees
    assert not searching.graph.has_trees
    pairs = random_pairs(grid, 60, 4)
    if weighted and mode is not DiagonalMode.NEVER:
        # a start in a weighted cluster walks the trees backwards: no search, and a way no
        # cheaper than the search's, at most a few percent dearer (exact without diagonals)
        ratios = unsmoothed_ratios(with_trees, searching, pairs)
        assert min(ratios) >= 1.0 - 1e-9
        assert np.mean(ratios) <= 1.005
        assert max(ratios) <= 1.05
    else:
        assert_same_unsmoothed_costs(with_trees, searching, pairs, rel=1e-9)
    for start, goal in pairs:
        got = with_trees.find_path(start, goal, smooth=False)
        smoothed = with_trees.find_path(start, goal)
        if smoothed.found:
            assert_valid(grid, smoothed, start, goal)
            assert smoothed.cost <= got.cost + 1e-9


def test_trees_are_kept_only_within_their_budget() -> None:
    grid = random_grid(3, DiagonalMode.ONLY_IF_NO_OBSTACLES)
    needed = HierarchicalGrid(grid, cluster_size=12).build().graph.tree_bytes_needed()
    assert HierarchicalGrid(grid, cluster_size=12, tree_budget=needed).build().graph.has_trees
    assert not HierarchicalGrid(grid, cluster_size=12, tree_budget=needed - 1).build().graph.has_trees


@pytest.mark.parametrize("mode", MODES)
def test_reachability_matches_a_flood_fill(mode: DiagonalMode) -> None:
    grid = random_grid(11, mode, size=40)
    hpa = HierarchicalGrid(grid, cluster_size=6).build()
    # Only "always" lets a diagonal connect what 4-neighbour steps cannot (the other rules need a side).
    structure = np.ones((3, 3)) if mode is DiagonalMode.ALWAYS else None
    labels, _ = ndimage.label(grid.walkable, structure=structure)
    for start, goal in random_pairs(grid, 300, 5):
        expected = labels[start[1], start[0]] == labels[goal[1], goal[0]]
        assert hpa.is_reachable(start, goal) == expected


def one_cell_doors(seed: int, size: int = 64, room: int = 16) -> np.ndarray:
    """Rooms whose walls are the first column / row of each cluster, one open cell per wall side
    (two cells or more from the wall junctions): every entrance is one pair long and no diagonal
    squeezes past a wall (no corner cutting)."""
    rng = np.random.default_rng(seed)
    walk = rng.random((size, size)) > 0.1
    walk[:, room::room] = False
    walk[room::room, :] = False
    for k in range(room, size, room):
        for lo in range(0, size, room):
            walk[lo + rng.integers(2, room - 2), k] = True  # a door in the wall column x = k
            walk[k, lo + rng.integers(2, room - 2)] = True  # and one in the wall row y = k
    return walk


@pytest.mark.parametrize("mode", [DiagonalMode.NEVER, DiagonalMode.ONLY_IF_NO_OBSTACLES])
def test_an_exact_abstract_graph_gives_optimal_paths_and_follows_updates(mode: DiagonalMode) -> None:
    """With one-pair entrances every path between clusters crosses at transitions, so the table's
    path (not smoothed) costs what the exact search finds; a wider door or an open 2 x 2 block at
    a cluster corner makes the graph inexact, and closing it again exact."""
    grid = GridGraph(one_cell_doors(3), diagonal=mode)
    hpa = HierarchicalGrid(grid, cluster_size=16).build()
    assert hpa.graph.exact
    assert hpa.graph.pair_dist.size
    for start, goal in random_pairs(grid, 60, 4):
        exact, got = grid.find_path(start, goal), hpa.find_path(start, goal)
        assert got.found == exact.found
        if exact.found:
            assert_valid(grid, got, start, goal)
            assert got.cost == pytest.approx(exact.cost, rel=1e-9)
    door = next((16, y) for y in range(1, 15) if grid.walkable[y, 16])
    wider = (16, door[1] + 1)
    hpa.set_walkable([wider, (wider[0] - 1, wider[1])], True)
    assert not hpa.graph.exact
    hpa.set_walkable([wider], False)
    assert hpa.graph.exact
    corner = [(15, 15), (16, 15), (15, 16), (16, 16)]
    hpa.set_walkable(corner, True)
    assert hpa.graph.exact is (mode is DiagonalMode.NEVER)  # a diagonal would cross the corner
    hpa.set_walkable(corner[1:], False)
    assert hpa.graph.exact
    assert (
        not HierarchicalGrid(GridGraph(grid.walkable, diagonal="always"), cluster_size=16).build().graph.exact
    )


def test_unreachable_goals_return_no_path_without_a_search() -> None:
    grid = GridGraph.from_strings(["....@....", "....@....", "....@...."], diagonal="always")
    hpa = HierarchicalGrid(grid, cluster_size=4).build()
    result = hpa.find_path((0, 0), (8, 2))
    assert result.status is PathStatus.NO_PATH
    assert result.expanded == 0
    assert hpa.find_path((0, 0), (4, 0)).status is PathStatus.NO_PATH  # a wall as goal
    partial = hpa.find_path((0, 0), (8, 2), options=QueryOptions(allow_partial=True))
    assert partial.status is PathStatus.PARTIAL


def test_same_cell_and_same_cluster_queries() -> None:
    grid = GridGraph(np.ones((8, 8), dtype=bool))
    hpa = HierarchicalGrid(grid, cluster_size=4).build()
    assert hpa.find_path((2, 2), (2, 2)).nodes.tolist() == [18]
    assert hpa.find_path((0, 0), (3, 3)).cost == pytest.approx(3 * math.sqrt(2.0))


def test_budget_exhausted_is_reported() -> None:
    grid = GridGraph(np.ones((32, 32), dtype=bool))
    hpa = HierarchicalGrid(grid, cluster_size=4, table_budget=0).build()
    result = hpa.find_path((0, 0), (31, 31), options=QueryOptions(max_expansions=2))
    assert result.status is PathStatus.BUDGET_EXHAUSTED
    # an all-pairs table needs no abstract expansion at all
    table = HierarchicalGrid(grid, cluster_size=4).build()
    assert table.find_path((0, 0), (31, 31), options=QueryOptions(max_expansions=2)).expanded == 0


@pytest.mark.parametrize(("mode", "cluster"), [(mode, 10) for mode in MODES] + [(DiagonalMode.ALWAYS, 30)])
def test_all_pairs_table_finds_the_abstract_optimum(mode: DiagonalMode, cluster: int) -> None:
    """The table's pick reads most end costs lazily (bounds first); it must still be the optimum
    the abstract A* finds with every end cost known (30-cell clusters: dozens of transitions)."""
    grid = random_grid(
        17, mode, size=90 if cluster == 30 else 60, weighted=mode is DiagonalMode.AT_LEAST_ONE_WALKABLE
    )
    table = HierarchicalGrid(grid, cluster_size=cluster).build()
    searching = HierarchicalGrid(grid, cluster_size=cluster, table_budget=0, abstract_weight=1.0).build()
    assert table.graph.pair_dist.shape == (table.graph.node_count,) * 2
    assert searching.graph.pair_dist.size == 0
    assert_same_unsmoothed_costs(table, searching, random_pairs(grid, 60, 6), rel=1e-6)


def test_progress_is_reported_with_increasing_done_up_to_total() -> None:
    calls: list[tuple[int, int]] = []
    grid = GridGraph.from_movingai(DATA / "lak303d.map")
    HierarchicalGrid(grid, cluster_size=16).build(progress=lambda done, total: calls.append((done, total)))
    dones = [d for d, _ in calls]
    assert dones == sorted(set(dones))
    assert calls[-1][0] == calls[-1][1] == 13 * 13
    assert {t for _, t in calls} == {169}


def test_misuse_raises_typed_errors() -> None:
    grid = GridGraph.from_strings(["..@", "..."])
    with pytest.raises(InvalidGraphError):
        HierarchicalGrid(grid, cluster_size=2)
    with pytest.raises(InvalidGraphError):
        HierarchicalGrid(grid, levels=3)
    hpa = HierarchicalGrid(grid, cluster_size=4)
    with pytest.raises(InvalidGraphError):
        hpa.find_path((0, 0), (1, 1))
    hpa.build()
    with pytest.raises(BlockedEndpointError):
        hpa.find_path((2, 0), (0, 0))
    with pytest.raises(OutOfBoundsError):
        hpa.find_path((0, 0), (5, 0))


def test_changes_made_behind_the_hierarchys_back_are_refused() -> None:
    grid = GridGraph(np.ones((8, 8), dtype=bool))
    hpa = HierarchicalGrid(grid, cluster_size=4).build()
    grid.set_walkable([(1, 1)], False)
    with pytest.raises(InvalidGraphError):
        hpa.find_path((0, 0), (7, 7))
    hpa.build()
    assert hpa.find_path((0, 0), (7, 7)).found


@pytest.mark.slow  # two fresh interpreters, one running every kernel as plain Python
def test_a_tree_query_runs_the_same_with_the_compiler_disabled() -> None:
    """The query's kept values travel as one record (a numba StructRef when compiled, a plain
    class without numba): both give the same paths."""
    script = (
        "import numpy as np\n"
        "from python_core.grid import GridGraph\n"
        "from python_core.hpa import HierarchicalGrid\n"
        "rng = np.random.default_rng(5)\n"
        "grid = GridGraph(rng.random((24, 24)) > 0.2, diagonal='only_if_no_obstacles')\n"
        "hpa = HierarchicalGrid(grid, cluster_size=8).build()\n"
        "assert hpa.graph.has_trees\n"
        "cells = np.argwhere(np.asarray(grid.walkable))[:, ::-1][::37].tolist()\n"
        "for s, g in zip(cells, cells[1:]):\n"
        "    r = hpa.find_path(s, g)\n"
        "    print(r.status.value, round(r.cost, 9), r.nodes.tolist())\n"
    )
    runs = []
    for flag in ("0", "1"):
        runs.append(run_snippet(script, dict(os.environ, ASTAR_BRIDGE_NO_JIT=flag), timeout=600))
    assert runs[0] == runs[1]
    assert runs[0].count("found") >= 5


def test_a_queried_hierarchy_pickles_and_deep_copies() -> None:
    """A built hierarchy can be saved (a 4096 map takes a minute to build) even after queries,
    whose kept record is a compiled object; the copies answer the same."""
    grid = random_grid(6, DiagonalMode.ONLY_IF_NO_OBSTACLES, size=40)
    hpa = HierarchicalGrid(grid, cluster_size=8).build()
    pairs = random_pairs(grid, 12, 2)
    before = [hpa.find_path(s, g) for s, g in pairs]
    for twin in (pickle.loads(pickle.dumps(hpa)), copy.deepcopy(hpa)):
        for (s, g), expected in zip(pairs, before, strict=True):
            got = twin.find_path(s, g)
            assert got.status is expected.status
            assert got.nodes.tolist() == expected.nodes.tolist()
    assert sum(r.found for r in before) >= 6


def test_split_cell_matches_integer_division() -> None:
    """The abstract search splits cells with a float multiply and a one-row correction: it must
    give divmod's answer for every cell of small grids and at row edges of huge ones, where the
    product rounds."""
    for width in (1, 2, 3, 7, 64, 4096, 65535):
        inv = 1.0 / width
        cells = np.arange(0, 50 * width) if width < 100 else np.arange(0, 4 * width)
        edges = [k * width + d for k in (1, 12345, 1 << 20, (1 << 31) // width) for d in (-1, 0, 1)]
        for cell in [*cells.tolist(), *edges]:
            x, y = split_cell(cell, width, inv)
            assert (y, x) == divmod(cell, width), (cell, width)


@pytest.mark.parametrize(("levels", "tree_budget"), [(1, 0), (1, 64 << 20), (2, 64 << 20)])
def test_query_numbers_wrap_without_stale_stamps(levels: int, tree_budget: int) -> None:
    """The abstract search stamps its scratch with 2 qid / 2 qid + 1 in int32: near QID_LIMIT the
    hierarchy zeroes the stamps and numbers again from 1, and the queries across that point must
    find what they found before (stale stamps would pass nodes off as closed or open)."""
    grid = random_grid(7, DiagonalMode.ONLY_IF_NO_OBSTACLES, size=64)
    hpa = HierarchicalGrid(
        grid, cluster_size=8, levels=levels, region_clusters=2, tree_budget=tree_budget, table_budget=0
    ).build()
    pairs = random_pairs(grid, 12, 3)
    before = [hpa.find_path(s, g) for s, g in pairs]
    assert sum(r.expanded for r in before) > 0  # the abstract search ran
    (scratch,) = hpa._pool.idle()  # one thread: one scratch set, reused
    scratch.qid = QID_LIMIT - 5  # the wrap is a billion queries away otherwise
    after = [hpa.find_path(s, g) for s, g in pairs]
    assert hpa._pool.idle() == [scratch]
    assert scratch.qid < 20
    for a, b in zip(before, after, strict=True):
        assert (a.status, a.nodes.tolist(), a.expanded) == (b.status, b.nodes.tolist(), b.expanded)


def test_a_long_uneven_entrance_gets_a_light_transition_per_piece() -> None:
    """One vertical border (32 x 16 cells, 16-cell clusters: one entrance of 16 pairs, columns 15
    and 16): on one weight a long entrance keeps its two end transitions; once its cells differ
    in weight it is cut into pieces of at most long_len pairs (long_len 6: three pieces, rows 0-4,
    5-9 and 10-15), each crossing at its lightest pair, the middlemost on ties."""
    width, height = 32, 16
    walk = np.ones(width * height, np.uint8)
    weights = np.ones(width * height)

    def pair_rows() -> list[int]:
        cells, costs = border_crossings(walk, weights, width, height, 16, 3, 1.0, 1.0, VERTICAL, 0, 0, 6)
        assert costs.tolist() == [[weights[b], weights[a]] for a, b in cells.tolist()]
        return [int(a) // width for a, _ in cells]

    assert pair_rows() == [0, 15]
    weights[:] = 2.0  # another single weight: still the ends
    assert pair_rows() == [0, 15]
    weights[:] = 1.0
    weights[3 * width + 16] = 2.0  # one heavy cell: three pieces, middles 2, 7 and 12
    assert pair_rows() == [2, 7, 12]
    weights[[9 * width + 15, 9 * width + 16]] = 0.5  # the second piece's lightest pair is row 9
    weights[2 * width + 15] = 3.0  # the first piece's middle got heavy: the next middlemost, row 1
    assert pair_rows() == [1, 9, 12]


def test_the_line_bias_narrows_the_abstract_search_on_open_ground() -> None:
    """Open ground (1024 x 1024, 1% walls, 16-cell clusters, entrances to 12 pairs) without a
    table, so the abstract A* runs: biasing its heuristic towards the start-goal line must expand
    clearly fewer nodes than no bias over the same queries (0.80 of them when written), and the
    paths must stay valid and close to the exact search's. Out-of-range biases are refused."""
    rng = np.random.default_rng(12)
    walk = rng.random((1024, 1024)) >= 0.01
    grid = GridGraph(walk, diagonal=DiagonalMode.ONLY_IF_NO_OBSTACLES)
    plain, biased = (
        HierarchicalGrid(
            grid,
            cluster_size=16,
            long_entrance=12,
            table_budget=0,
            line_bias=b,
            defer_tables=False,
            abstract_weight=1.02,  # the weight below 1024 x 1024 cells: the bias's effect alone
        ).build()
        for b in (0.0, 0.05)
    )
    expanded = {"plain": 0, "biased": 0}
    for start, goal in random_pairs(grid, 40, 8):
        exact = dispatch.find_path(grid, start, goal)
        for name, hpa in (("plain", plain), ("biased", biased)):
            result = hpa.find_path(start, goal)
            assert_valid(grid, result, start, goal)
            assert result.cost <= 1.10 * exact.cost + 1e-9
            expanded[name] += result.expanded
    assert expanded["biased"] < 0.9 * expanded["plain"], expanded
    dijkstra = QueryOptions(heuristic="zero")  # asks for an unbiased search: same either way
    for start, goal in random_pairs(grid, 5, 9):
        a, b = (hpa.find_path(start, goal, options=dijkstra) for hpa in (plain, biased))
        assert (a.nodes.tolist(), a.expanded) == (b.nodes.tolist(), b.expanded)
    for bad in (-0.1, 1.5, float("nan"), True, "0.05"):
        with pytest.raises(InvalidGraphError):
            HierarchicalGrid(grid, line_bias=bad)  # type: ignore[arg-type]
    for bad in (0.9, 2.5, float("nan"), True, "1.1", None.__class__):
        with pytest.raises(InvalidGraphError, match="abstract_weight"):
            HierarchicalGrid(grid, abstract_weight=bad)  # type: ignore[arg-type]
