"""A unit size's index (issue 38, speed): the eroded grid's parts and its ALT landmarks.

The parts must equal scipy's labels of the independently eroded grid (4-connected, 8 under
``always``), the landmark distances scipy's Dijkstra from the same landmarks, and every answer
the oracle's (tests/core/grid/test_unit_size_oracle.py's swept-footprint graph), before and after
cells close (the index is kept: its labels are made again when a search finds no path through a
part that split) and open (dropped, then built again once the size's queries paid for it).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import ndimage
from scipy.sparse.csgraph import dijkstra

from python_core.grid import DiagonalMode, GridGraph
from python_core.grid.search.dispatch import choose_method
from python_core.grid.search.grid_view import GridView
from python_core.grid.search.landmark_choice import JUMP_COST
from python_core.grid.search.landmark_kernels import ACTIVE
from python_core.grid.search.prepared import is_ready, prepared_for
from python_core.grid.search.size_index import LANDMARKS, MIN_PART_NODES, SizeIndex, prime
from python_core.result import PathStatus, QueryOptions
from tests.core.grid.test_unit_size_oracle import check_against_oracle, eroded, oracle_graph

ONLY = DiagonalMode.ONLY_IF_NO_OBSTACLES


def maze(cells: int = 10, corridor: int = 4, seed: int = 38) -> np.ndarray:
    """A perfect maze of ``cells`` x ``cells`` rooms, corridors ``corridor`` wide and walls one
    cell thick, with a few walls knocked through for loops (maze-400-4 in small)."""
    rng = np.random.default_rng(seed)
    pitch = corridor + 1
    side = cells * pitch + 1
    mask = np.zeros((side, side), dtype=bool)
    seen = np.zeros((cells, cells), dtype=bool)
    stack = [(0, 0)]
    seen[0, 0] = True
    while stack:
        x, y = stack[-1]
        mask[1 + y * pitch : (y + 1) * pitch, 1 + x * pitch : (x + 1) * pitch] = True
        nbrs = [(x + dx, y + dy) for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))]
        nbrs = [(a, b) for a, b in nbrs if 0 <= a < cells and 0 <= b < cells and not seen[b, a]]
        if not nbrs:
            stack.pop()
            continue
        a, b = nbrs[rng.integers(len(nbrs))]
        _knock(mask, (x, y), (a, b), pitch)
        seen[b, a] = True
        stack.append((a, b))
    for _ in range(cells):  # loops: a path has more than one way round
        x, y = int(rng.integers(cells - 1)), int(rng.integers(cells))
        _knock(mask, (x, y), (x + 1, y), pitch)
    return mask


def _knock(mask: np.ndarray, a: tuple[int, int], b: tuple[int, int], pitch: int) -> None:
    (x0, y0), (x1, y1) = sorted([a, b])
    mask[1 + y0 * pitch : (y1 + 1) * pitch, 1 + x0 * pitch : (x1 + 1) * pitch] = True


def index_of(grid: GridView, size: int) -> SizeIndex:
    """The grid's index of ``size`` with its landmarks tried (as once its queries paid for them)."""
    p = prepared_for(grid)
    if size not in p.size_indexes:
        anchors = np.flatnonzero(eroded(grid.walkable, size))
        a, b = int(anchors[0]), int(anchors[-1])
        options = QueryOptions(size=size)
        grid.find_path((a % grid.width, a // grid.width), (b % grid.width, b // grid.width), options=options)
    index = p.size_indexes[size]
    if not index.tried:
        prime(grid, p, index, use_jps=choose_method(grid, QueryOptions(size=size)) == "jps")
    return index


def labels_of(grid: GridGraph, index: SizeIndex) -> np.ndarray:
    assert index.labels is not None
    return index.labels.reshape(grid.height + 2, grid.width + 2)[1:-1, 1:-1]


def same_parts(ours: np.ndarray, theirs: np.ndarray) -> bool:
    """Whether two labellings split the same cells into the same parts (numbers aside)."""
    if not np.array_equal(ours > 0, theirs > 0):
        return False
    pairs = np.unique(np.stack([ours[ours > 0], theirs[theirs > 0]]), axis=1)
    return len(np.unique(pairs[0])) == len(np.unique(pairs[1])) == pairs.shape[1]


def fresh_parts(mask: np.ndarray, size: int, mode: DiagonalMode) -> np.ndarray:
    structure = np.ones((3, 3)) if mode is DiagonalMode.ALWAYS else None
    return np.asarray(ndimage.label(eroded(mask, size), structure=structure)[0])


def random_islands(seed: int = 5) -> np.ndarray:
    """A random map whose size-3 erosion falls apart into islands (random512-10-0 in small)."""
    return np.random.default_rng(seed).random((40, 44)) > 0.1


@pytest.mark.parametrize("mode", list(DiagonalMode))
def test_the_parts_are_scipys_labels_of_the_eroded_grid(mode: DiagonalMode) -> None:
    mask = random_islands()
    grid = GridGraph(mask, diagonal=mode)
    for size in (2, 3):
        assert same_parts(labels_of(grid, index_of(grid, size)), fresh_parts(mask, size, mode)), size


def test_a_query_between_two_parts_is_no_path_without_a_search() -> None:
    mask = random_islands()
    grid = GridGraph(mask, diagonal=ONLY)
    parts = fresh_parts(mask, 3, ONLY)
    sizes = np.bincount(parts.ravel())
    big, other = np.argsort(sizes[1:])[::-1][:2] + 1
    (ay, ax), (by, bx) = np.argwhere(parts == big)[0], np.argwhere(parts == other)[0]
    result = grid.find_path((int(ax), int(ay)), (int(bx), int(by)), options=QueryOptions(size=3))
    assert (result.status, result.expanded) == (PathStatus.NO_PATH, 0)
    distances = dijkstra(oracle_graph(mask, np.ones(mask.shape), 3, ONLY, (1.0, 1.0)), indices=[ay * 44 + ax])
    assert np.isinf(distances[0, by * 44 + bx])
    partial = grid.find_path(
        (int(ax), int(ay)), (int(bx), int(by)), options=QueryOptions(size=3, allow_partial=True)
    )
    assert partial.status is PathStatus.PARTIAL  # a partial answer still walks as near as it can


def test_landmark_distances_are_scipys_dijkstra_from_the_same_landmarks() -> None:
    mask = maze()
    grid = GridGraph(mask, diagonal=ONLY, cell_size=(1.0, 1.5))
    index = index_of(grid, 3)
    assert index.landmarks is not None, "a maze at size 3 should keep its landmarks"
    assert index.rows is not None
    graph = oracle_graph(mask, np.ones(mask.shape), 3, ONLY, (1.0, 1.5))
    rows = index.rows.reshape(grid.height + 2, grid.width + 2)[1:-1, 1:-1]
    table = index.landmarks.reshape(-1, index.count)
    assert np.array_equal(rows >= 0, eroded(mask, 3))  # the maze is one part, big enough for rows
    has_row = rows >= 0
    for i in range(index.count):
        column = np.full(mask.shape, np.inf)
        column[has_row] = table[rows[has_row], i]
        sources = np.flatnonzero(column.ravel() == 0.0)  # one landmark per part
        want = dijkstra(graph, indices=sources, min_only=True).reshape(mask.shape)
        np.testing.assert_allclose(column[has_row], want[has_row], rtol=1e-12)


def test_only_big_parts_keep_landmark_distances_and_every_answer_is_the_oracles() -> None:
    # a maze (one big part at size 3) beside random islands (parts under MIN_PART_NODES): the
    # islands' nodes have no row and cost no landmark memory; their queries, and every query that
    # starts or ends there, search with octile alone and still equal the oracle's
    mask = np.concatenate([maze(cells=8)[:40], random_islands()[:, :30]], axis=1)  # 40 x 71
    grid = GridGraph(mask, diagonal=ONLY)
    index = index_of(grid, 3)
    assert index.rows is not None
    assert index.landmarks is not None
    rows = index.rows.reshape(grid.height + 2, grid.width + 2)[1:-1, 1:-1]
    parts = fresh_parts(mask, 3, ONLY)
    big = np.bincount(parts.ravel()) >= MIN_PART_NODES
    big[0] = False
    assert np.array_equal(rows >= 0, big[parts])
    assert (parts[:, 41:] > 0).any()  # the islands have anchors, none with a row
    assert not (rows[:, 41:] >= 0).any()
    assert index.landmarks.size == index.count * int(big[parts].sum())
    assert 1 < ACTIVE < index.count <= LANDMARKS
    check_against_oracle(grid, mask, np.ones(mask.shape), np.random.default_rng(8))


@pytest.mark.parametrize("mode", list(DiagonalMode))
def test_paths_with_landmarks_are_the_oracles(mode: DiagonalMode) -> None:
    mask = maze(cells=8)
    grid = GridGraph(mask, diagonal=mode, cell_size=(1.0, 1.5) if mode is ONLY else (1.0, 1.0))
    for size in (2, 3):
        assert index_of(grid, size).landmarks is not None, (mode, size)
    check_against_oracle(grid, mask, np.ones(mask.shape), np.random.default_rng(3))


def test_agents_block_searches_with_landmarks_as_walls_would() -> None:
    mask = maze(cells=8)
    grid = GridGraph(mask, diagonal=ONLY)
    assert index_of(grid, 3).landmarks is not None
    anchors = np.flatnonzero(eroded(mask, 3))
    rng = np.random.default_rng(11)
    blocked = mask.copy()
    for agent, node in enumerate(rng.choice(anchors, 4, replace=False).tolist()):
        grid.place_agent(agent, (node % grid.width, node // grid.width), size=2)
        blocked[node // grid.width : node // grid.width + 2, node % grid.width : node % grid.width + 2] = (
            False
        )
    graph = oracle_graph(blocked, np.ones(mask.shape), 3, ONLY, (1.0, 1.0))
    starts = rng.choice(np.flatnonzero(eroded(blocked, 3)), 3, replace=False)
    distances = dijkstra(graph, indices=starts)
    for row, start in enumerate(starts.tolist()):
        for goal in rng.choice(anchors, 8).tolist():
            result = grid.find_path(
                divmod(start, grid.width)[::-1], divmod(goal, grid.width)[::-1], options=QueryOptions(size=3)
            )
            want = distances[row, goal]
            assert result.found == bool(np.isfinite(want))
            if result.found:
                assert result.cost == pytest.approx(want, rel=1e-9)


def test_closed_cells_keep_the_index_and_a_split_part_is_labelled_again() -> None:
    mask = maze(cells=6)
    grid = GridGraph(mask, diagonal=ONLY)
    index = index_of(grid, 3)
    before = index.landmarks.copy() if index.landmarks is not None else None
    # wall up one whole corridor cross-section: (one of) the maze's parts splits in two
    ys = np.nonzero(eroded(mask, 3))[0]
    closed = mask.copy()
    row = int(np.median(ys))
    door = [(x, row + dy) for x in range(grid.width) for dy in range(3) if mask[row + dy, x]]
    grid.set_walkable(door, False)
    closed[[y for _, y in door], [x for x, _ in door]] = False
    after = prepared_for(grid).size_indexes[3]
    assert after is index
    assert index.stale
    if before is not None:  # kept: still lower bounds of the (longer) distances now
        np.testing.assert_array_equal(index.landmarks, before)
    fresh = fresh_parts(closed, 3, ONLY)
    above, below = fresh[:row, :].max(), fresh[row + 3 :, :].max()
    (ay, ax), (by, bx) = np.argwhere(fresh == above)[0], np.argwhere(fresh == below)[0]
    if above != below:
        first = grid.find_path((int(ax), int(ay)), (int(bx), int(by)), options=QueryOptions(size=3))
        assert first.status is PathStatus.NO_PATH
        assert first.expanded > 0  # searched: the labels are due again, for the next query
        assert index.due
        assert not is_ready(grid, 3)  # so the sidecar sends it to a thread, off the event loop
        again = grid.find_path((int(ax), int(ay)), (int(bx), int(by)), options=QueryOptions(size=3))
        assert (again.status, again.expanded) == (PathStatus.NO_PATH, 0)
        assert not index.stale
        assert same_parts(labels_of(grid, index), fresh)
    check_against_oracle(grid, closed, np.ones(mask.shape), np.random.default_rng(4))


def test_opened_cells_drop_the_index_until_its_size_paid_for_a_new_one() -> None:
    mask = random_islands(seed=9)
    grid = GridGraph(mask, diagonal=ONLY)
    index = index_of(grid, 3)
    walls = np.argwhere(~mask)[:6]
    grid.set_walkable([(int(x), int(y)) for y, x in walls], True)
    opened = mask.copy()
    opened[walls[:, 0], walls[:, 1]] = True
    assert index.labels is None
    assert index.landmarks is None
    rng = np.random.default_rng(6)
    check_against_oracle(grid, opened, np.ones(mask.shape), rng)  # exact without it
    anchors = np.flatnonzero(eroded(opened, 3))
    for _ in range(10_000):  # each query pays toward the labels' rebuild
        a, b = rng.choice(anchors, 2).tolist()
        grid.find_path((a % 44, a // 44), (b % 44, b // 44), options=QueryOptions(size=3))
        if index.labels is not None:
            break
    assert prepared_for(grid).size_indexes[3] is index
    assert same_parts(labels_of(grid, index), fresh_parts(opened, 3, ONLY))


def test_landmarks_come_once_the_sizes_queries_paid_for_them() -> None:
    mask = maze(cells=8)
    grid = GridGraph(mask, diagonal=ONLY)
    anchors = np.flatnonzero(eroded(mask, 3))
    rng = np.random.default_rng(2)
    prepared_for(grid)  # what a load does
    assert is_ready(grid, 3)  # its first query labels the parts at once: a small grid
    big = GridGraph(np.ones((300, 300), dtype=bool), diagonal=ONLY)
    prepared_for(big)
    assert not is_ready(big, 3)  # a big one's first query labels on a thread in the sidecar
    spent = 0  # in A* expansions: a jump point counts JUMP_COST
    weight = JUMP_COST if choose_method(grid, QueryOptions(size=3)) == "jps" else 1
    for _ in range(10_000):
        a, b = rng.choice(anchors, 2).tolist()
        ends = (a % grid.width, a // grid.width), (b % grid.width, b // grid.width)
        spent += grid.find_path(*ends, options=QueryOptions(size=3)).expanded * weight
        index = prepared_for(grid).size_indexes[3]
        assert is_ready(grid, 3) == (not index.due)
        if index.tried:
            break
    assert index.landmarks is not None
    assert spent >= index.count * index.opened  # never before the queries spent the build's cost
    open_grid = GridGraph(np.ones((64, 64), dtype=bool), diagonal=ONLY)
    for i in range(200):  # cheap queries (JPS, a few jump points): they never pay for landmarks
        open_grid.find_path((i % 60, 0), (60, 60 - i % 60), options=QueryOptions(size=2))
    assert not prepared_for(open_grid).size_indexes[2].tried


def test_landmarks_only_where_they_pay_and_only_on_uniform_weights() -> None:
    open_grid = GridGraph(np.ones((64, 64), dtype=bool), diagonal=ONLY)
    assert index_of(open_grid, 2).landmarks is None  # octile is exact there: JPS/A* win the probes
    mask = maze(cells=8)
    weights = np.where(mask, 1.0, 1.0)
    weights[1, 1] = 2.0  # weights that differ: distances would depend on the direction walked
    weighted = GridGraph(mask, diagonal=ONLY, weights=weights)
    index = index_of(weighted, 3)
    assert index.landmarks is None
    assert index.labels is not None
