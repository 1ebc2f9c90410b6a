"""Units of sizes 1-4 against an independent oracle (issue 38), on every Moving AI map of the test
data and on random maps (weighted too), under each of Godot's four diagonal modes.

The oracle never reads our clearance: it erodes the walls with numpy slicing (an anchor is open
when all k x k cells of its footprint are walkable and inside the grid), takes the footprint-max
weights from ``scipy.ndimage.maximum_filter``, allows a diagonal step by the swept footprint (the
(k+1) x (k+1) square swept minus both footprints is two corner cells: ``only_if_no_obstacles``
needs both walkable, ``at_least_one_walkable`` one, ``always`` none, ``never`` no diagonals) and
answers with ``scipy.sparse.csgraph.dijkstra``, one run per start. Every path we return is checked
cell by cell: each footprint on walkable cells inside the grid, each diagonal step's swept corners
as the mode asks, and its cost summed again step by step.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from scipy import ndimage
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from python_core.errors import BlockedEndpointError
from python_core.formats.movingai import read_map
from python_core.grid import DiagonalMode, GridGraph
from python_core.result import PathResult, QueryOptions

DATA = Path(__file__).resolve().parents[2] / "data" / "movingai"
MAPS = sorted(p.stem for p in DATA.glob("*.map"))
SIZES = (1, 2, 3, 4)
STARTS, GOALS = 2, 6  # per map, mode and size: one Dijkstra per start
STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, 1), (1, -1), (-1, -1))


def eroded(mask: np.ndarray, k: int) -> np.ndarray:
    """Anchors whose k x k footprint lies on walkable cells inside the grid (numpy slicing)."""
    h, w = mask.shape
    out = np.zeros((h, w), dtype=bool)
    inner = np.ones((h - k + 1, w - k + 1), dtype=bool)
    for dy in range(k):
        for dx in range(k):
            inner &= mask[dy : dy + h - k + 1, dx : dx + w - k + 1]
    out[: h - k + 1, : w - k + 1] = inner
    return out


def footprint_weights(weights: np.ndarray, k: int) -> np.ndarray:
    """The highest weight under each anchor's footprint (cells past the edge count 0)."""
    h, w = weights.shape
    padded = np.pad(weights, ((0, k), (0, k)))
    return ndimage.maximum_filter(padded, size=k, origin=-(k // 2), mode="constant")[:h, :w]


def swept_corners(x: int, y: int, dx: int, dy: int, k: int) -> set[tuple[int, int]]:
    """Cells of the square a diagonal step sweeps that neither footprint covers."""
    xs, ys = range(min(x, x + dx), max(x, x + dx) + k), range(min(y, y + dy), max(y, y + dy) + k)
    start = {(x + i, y + j) for i in range(k) for j in range(k)}
    end = {(x + dx + i, y + dy + j) for i in range(k) for j in range(k)}
    return {(cx, cy) for cx in xs for cy in ys} - start - end


def corner_rule(mode: DiagonalMode, free: list[bool]) -> bool:
    if mode is DiagonalMode.ALWAYS:
        return True
    if mode is DiagonalMode.ONLY_IF_NO_OBSTACLES:
        return all(free)
    return any(free)  # at_least_one_walkable (never has no diagonals at all)


def oracle_graph(
    mask: np.ndarray, weights: np.ndarray, k: int, mode: DiagonalMode, cell: tuple[float, float]
) -> csr_matrix:
    h, w = mask.shape
    open_ = eroded(mask, k)
    fw = footprint_weights(weights, k)
    padded = np.pad(mask, k + 1)  # corner lookups beyond the edge read False
    rows, cols, costs = [], [], []
    ys, xs = np.nonzero(open_)
    for dx, dy in STEPS if mode is not DiagonalMode.NEVER else STEPS[:4]:
        nx, ny = xs + dx, ys + dy
        ok = (nx >= 0) & (ny >= 0) & (nx < w) & (ny < h)
        ok[ok] &= open_[ny[ok], nx[ok]]
        if dx and dy and mode is not DiagonalMode.ALWAYS:
            # the two swept corner cells, by direction (see swept_corners)
            ax = xs + (k if dx > 0 else -1)
            ay = ys + (0 if dy > 0 else k - 1)
            bx = xs + (0 if dx > 0 else k - 1)
            by = ys + (k if dy > 0 else -1)
            a, b = padded[ay + k + 1, ax + k + 1], padded[by + k + 1, bx + k + 1]
            ok &= (a & b) if mode is DiagonalMode.ONLY_IF_NO_OBSTACLES else (a | b)
        length = math.hypot(*cell) if dx and dy else (cell[0] if dx else cell[1])
        rows.append(ys[ok] * w + xs[ok])
        cols.append(ny[ok] * w + nx[ok])
        costs.append(length * fw[ny[ok], nx[ok]])
    n = h * w
    return csr_matrix((np.concatenate(costs), (np.concatenate(rows), np.concatenate(cols))), shape=(n, n))


def check_path(  # noqa: PLR0917
    result: PathResult,
    mask: np.ndarray,
    weights: np.ndarray,
    k: int,
    mode: DiagonalMode,
    cell: tuple[float, float],
) -> float:
    """Every footprint clear, every step legal; returns the cost summed step by step."""
    h, w = mask.shape
    nodes = result.nodes.tolist()
    cost = 0.0
    for i, node in enumerate(nodes):
        x, y = node % w, node // w
        assert x + k <= w, (node, k)
        assert y + k <= h, (node, k)
        assert mask[y : y + k, x : x + k].all(), (node, k)
        if i == 0:
            continue
        px, py = nodes[i - 1] % w, nodes[i - 1] // w
        dx, dy = x - px, y - py
        assert max(abs(dx), abs(dy)) == 1, (nodes[i - 1], node)
        if dx and dy:
            assert mode is not DiagonalMode.NEVER
            corners = swept_corners(px, py, dx, dy, k)
            assert len(corners) == 2
            free = [0 <= cx < w and 0 <= cy < h and bool(mask[cy, cx]) for cx, cy in corners]
            assert corner_rule(mode, free), (nodes[i - 1], node, corners)
        length = math.hypot(*cell) if dx and dy else (cell[0] if dx else cell[1])
        cost += length * float(weights[y : y + k, x : x + k].max())
    return cost


def random_map(seed: int) -> tuple[np.ndarray, np.ndarray | None, tuple[float, float]]:
    rng = np.random.default_rng(seed)
    mask = rng.random((48, 56)) > 0.25
    mask[rng.integers(0, 48, 6), :] = True  # a few open rows and columns: room for big units
    mask[:, rng.integers(0, 56, 6)] = True
    weights = rng.uniform(0.5, 4.0, mask.shape) if seed % 2 else None
    return mask, weights, (1.0, 1.5) if seed % 2 else (1.0, 1.0)


CASES = [(name, None) for name in MAPS] + [("random", 1), ("random", 2)]


@pytest.mark.parametrize("mode", list(DiagonalMode))
@pytest.mark.parametrize(("name", "seed"), CASES)
def test_every_size_matches_dijkstra_on_the_swept_footprint_graph(
    name: str, seed: int | None, mode: DiagonalMode
) -> None:
    if seed is None:
        mask, weights_in, cell = read_map(DATA / f"{name}.map"), None, (1.0, 1.0)
    else:
        mask, weights_in, cell = random_map(seed)
    weights = np.ones(mask.shape) if weights_in is None else weights_in
    grid = GridGraph(mask, diagonal=mode, weights=weights_in, cell_size=cell)
    check_against_oracle(grid, mask, weights, np.random.default_rng(len(name) + (seed or 0)))


@pytest.mark.parametrize("mode", [DiagonalMode.ONLY_IF_NO_OBSTACLES, DiagonalMode.AT_LEAST_ONE_WALKABLE])
def test_after_a_door_closes_and_opens_every_size_matches_dijkstra_again(mode: DiagonalMode) -> None:
    mask = read_map(DATA / "den312d.map")
    grid = GridGraph(mask, diagonal=mode)
    rng = np.random.default_rng(8)
    check_against_oracle(grid, mask, np.ones(mask.shape), rng)  # builds the copy the changes patch
    ys, xs = np.nonzero(eroded(mask, 4))
    door = [
        (int(xs[i]) + dx, int(ys[i]) + dy)
        for i in rng.choice(len(xs), 3)
        for dx in range(4)
        for dy in range(4)
    ]
    grid.set_walkable(door, False)
    closed = mask.copy()
    closed[[y for _, y in door], [x for x, _ in door]] = False
    for k in SIZES:
        assert np.array_equal(grid.clearance >= k, eroded(closed, k)), k
    check_against_oracle(grid, closed, np.ones(mask.shape), rng)
    grid.set_walkable(door, True)
    for k in range(1, 9):
        assert np.array_equal(grid.clearance >= k, eroded(mask, k)), k
    check_against_oracle(grid, mask, np.ones(mask.shape), rng)


def check_against_oracle(
    grid: GridGraph, mask: np.ndarray, weights: np.ndarray, rng: np.random.Generator
) -> None:
    """For each size, a few starts: every goal's answer against Dijkstra's, every path checked."""
    mode, cell, w = grid.diagonal, grid.cell_size, mask.shape[1]
    for k in SIZES:
        open_ = eroded(mask, k)
        anchors = np.flatnonzero(open_)
        if not anchors.size:  # no room anywhere (1-cell corridors): every start is refused
            cell_open = int(np.flatnonzero(mask)[0])
            with pytest.raises(BlockedEndpointError, match=f"size {k}"):
                grid.find_path((cell_open % w, cell_open // w), (0, 0), options=QueryOptions(size=k))
            continue
        starts = rng.choice(anchors, STARTS, replace=False)
        distances = dijkstra(oracle_graph(mask, weights, k, mode, cell), indices=starts)
        for row, start in enumerate(starts.tolist()):
            # goals: mostly anchors with room (reachable or not), one without any
            goals = [*rng.choice(anchors, GOALS - 1).tolist(), int(rng.choice(np.flatnonzero(~open_)))]
            for goal in goals:
                result = grid.find_path(
                    (start % w, start // w), (goal % w, goal // w), options=QueryOptions(size=k)
                )
                want = distances[row, goal]
                assert result.found == bool(np.isfinite(want)), (mode, k, start, goal)
                if not result.found:
                    continue
                assert result.nodes[0] == start
                assert result.nodes[-1] == goal
                walked = check_path(result, mask, weights, k, mode, cell)
                assert walked == pytest.approx(result.cost, rel=1e-9)
                assert result.cost == pytest.approx(want, rel=1e-9), (mode, k, start, goal)
