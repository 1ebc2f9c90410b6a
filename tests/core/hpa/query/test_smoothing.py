"""HPA* path smoothing (python_core.hpa.query.smoothing): the same cells as a plain reference greedy (gallop,
bisect, corner scan, each probe through line_cost), legal steps under every diagonal rule, never dearer."""

from __future__ import annotations

import itertools
from collections import deque
from typing import NamedTuple

import numpy as np
import pytest

from python_core.grid.cells import world_points
from python_core.hpa.query.smoothing import (
    FAIL_LIMIT,
    line_cell,
    line_cost,
    path_cost,
    shortcut_costs,
    smooth_passes,
)

DIAGS = (0, 1, 2, 3)  # never, always, at least one side walkable, no corner cutting
STEPS = [(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy]


class Grid(NamedTuple):
    walk: np.ndarray
    weights: np.ndarray
    width: int
    diag: int
    cw: float = 1.0
    ch: float = 1.0

    def smooth(
        self, nodes: np.ndarray, window: int = 96, fail_limit: int = 24, one_weight: float = 0.0
    ) -> np.ndarray:
        out: np.ndarray = shortcut_costs(
            nodes, self.walk, self.weights, self.width, self.diag, self.cw, self.ch, window, fail_limit,
            one_weight,
        )[0]  # fmt: skip
        return out

    def cost(self, nodes: np.ndarray) -> float:
        return float(path_cost(nodes, self.weights, self.width, self.cw, self.ch))

    def step_ok(self, a: int, b: int) -> bool:
        """The move a -> b is one legal step (adjacent, walkable target, the diagonal rule)."""
        w = self.width
        ax, ay, bx, by = a % w, a // w, b % w, b // w
        dx, dy = bx - ax, by - ay
        if max(abs(dx), abs(dy)) != 1 or not self.walk[b]:
            return False
        if dx == 0 or dy == 0:
            return True
        sides = (bool(self.walk[ay * w + bx]), bool(self.walk[by * w + ax]))
        return {0: False, 1: True, 2: any(sides), 3: all(sides)}[self.diag]

    def neighbours(self, a: int) -> list[int]:
        w, h = self.width, len(self.walk) // self.width
        x, y = a % w, a // w
        near = [(y + dy) * w + x + dx for dx, dy in STEPS if 0 <= x + dx < w and 0 <= y + dy < h]
        return [b for b in near if self.step_ok(a, b)]


def shape_cells(a: int, b: int, shape: int, width: int) -> list[int]:
    """The cells after ``a`` of the way to ``b``: its line (shape 0), or the line's steps with the
    diagonal ones first (1) or last (2), written plainly."""
    if shape == 0:
        steps = max(abs(b % width - a % width), abs(b // width - a // width))
        return [line_cell(a, b, k, width) for k in range(1, steps + 1)]
    dx, dy = b % width - a % width, b // width - a // width
    major, minor = max(abs(dx), abs(dy)), min(abs(dx), abs(dy))
    sx, sy = int(np.sign(dx)), int(np.sign(dy))
    straight = (sx, 0) if abs(dx) >= abs(dy) else (0, sy)
    moves = [(sx, sy)] * minor + [straight] * (major - minor)
    x, y, out = a % width, a // width, []
    for mx, my in moves if shape == 1 else moves[::-1]:
        x, y = x + mx, y + my
        out.append(y * width + x)
    return out


def reference(grid: Grid, nodes: np.ndarray, window: int = 96, fail_limit: int = 24) -> list[int]:
    """The smoother written plainly: every probe walks each shape from scratch (the line with
    line_cost, the bends by their cells) and takes the first one better than the path."""
    walk, weights, width, diag, cw, ch = grid
    n = len(nodes)
    prefix = [0.0]
    for k in range(n - 1):
        prefix.append(prefix[-1] + grid.cost(nodes[k : k + 2]))

    def better(i: int, j: int) -> int:
        """The first shape from path cell i to j no dearer than the path, or -1."""
        budget, (a, b) = prefix[j] - prefix[i], (int(nodes[i]), int(nodes[j]))
        limit = budget + 1e-9 * (1.0 + budget)
        if line_cost(a, b, walk, weights, width, diag, cw, ch) <= limit:
            return 0
        dx, dy = abs(b % width - a % width), abs(b // width - a // width)
        for shape in (1, 2) if 0 < min(dx, dy) < max(dx, dy) else ():
            cells = [a, *shape_cells(a, b, shape, width)]
            legal = all(grid.step_ok(u, v) for u, v in itertools.pairwise(cells))
            if legal and grid.cost(np.array(cells)) <= limit:
                return shape
        return -1

    out, i = [int(nodes[0])], 0
    while i < n - 1:
        last = min(n - 1, i + window)
        good, step, shape = i + 1, 1, 0
        while good + step <= last and (got := better(i, good + step)) >= 0:
            good, step, shape = good + step, 2 * step, got
        bad = min(good + step, last + 1)
        while bad - good > 1:
            mid = (good + bad) // 2
            got = better(i, mid)
            good, bad, shape = (mid, bad, got) if got >= 0 else (good, mid, shape)
        if good == i + 1:
            for j in range(min(last, i + fail_limit), i + 2, -1):
                if (got := better(i, j)) >= 0:
                    good, shape = j, got
                    break
        out += shape_cells(int(nodes[i]), int(nodes[good]), shape if good > i + 1 else 0, width)
        i = good
    return out


def test_a_bend_passes_where_the_line_does_not() -> None:
    """A wall on the line's middle cell: the path is shortcut by the way with its diagonal steps
    first (as short as the line), where the line alone kept the detour."""
    width = 8
    walk = np.ones(width * 4, dtype=np.uint8)
    walk[1 * width + 3] = 0  # on the line from (0, 0) to (6, 2), not on the bends
    walk[1 * width + 4] = 0
    grid = Grid(walk, np.ones(width * 4), width, 3)
    detour = np.array([0, 1, 2, 3, 4, 5, 6, 7 + width, 6 + 2 * width], dtype=np.int64)
    out = grid.smooth(detour)
    assert_valid(grid, out, detour)
    assert grid.cost(out) == pytest.approx(4 + 2 * 2**0.5)  # the octile distance from (0, 0) to (6, 2)
    assert out.tolist() == reference(grid, detour)


def bfs_path(grid: Grid, s: int, g: int) -> list[int] | None:
    """A fewest-steps path (the staircases and detours a grid search leaves), or None."""
    parent = {s: s}
    queue = deque([s])
    while queue:
        a = queue.popleft()
        if a == g:
            path = [a]
            while path[-1] != s:
                path.append(parent[path[-1]])
            return path[::-1]
        for b in grid.neighbours(a):
            if b not in parent:
                parent[b] = a
                queue.append(b)
    return None


def random_walk(rng: np.random.Generator, grid: Grid, length: int) -> list[int]:
    """A wandering valid path that doubles back on itself."""
    path = [int(rng.choice(np.flatnonzero(grid.walk)))]
    for _ in range(length):
        options = grid.neighbours(path[-1])
        if not options:
            break
        path.append(int(rng.choice(options)))
    return path


def assert_valid(grid: Grid, out: np.ndarray, nodes: np.ndarray) -> None:
    assert out[0] == nodes[0]
    assert out[-1] == nodes[-1]
    for a, b in itertools.pairwise(out.tolist()):
        assert grid.step_ok(a, b), (a, b)
    before = grid.cost(nodes)
    assert grid.cost(out) <= before + 1e-9 * (1.0 + before)


CASES = [
    (seed, diag, weighted, size)
    for seed in range(3)
    for diag in DIAGS
    for weighted in (False, True)
    for size in ((1.0, 1.0), (2.0, 0.5))
]


@pytest.mark.parametrize(("seed", "diag", "weighted", "size"), CASES)
def test_same_cells_as_reference_and_valid(
    seed: int, diag: int, weighted: bool, size: tuple[float, float]
) -> None:
    rng = np.random.default_rng(seed)
    width, height = 40, 36
    walk = (rng.random(width * height) > 0.25).astype(np.uint8)
    # one weight everywhere (1, 2 or 3 by seed): the smoother may then price lines by their shape
    weights = rng.uniform(1.0, 3.0, width * height) if weighted else np.full(width * height, 1.0 + seed)
    grid = Grid(walk, weights, width, diag, *size)
    paths = [random_walk(rng, grid, 150) for _ in range(3)]
    for s, g in rng.choice(np.flatnonzero(walk), (8, 2)):
        path = bfs_path(grid, int(s), int(g))
        if path is not None and len(path) > 1:
            paths.append(path)
    for path in paths:
        nodes = np.array(path, dtype=np.int64)
        for window, fail_limit in ((96, 24), (5, 3), (1, 1)):
            out = grid.smooth(nodes, window, fail_limit)
            assert out.tolist() == reference(grid, nodes, window, fail_limit)
            assert_valid(grid, out, nodes)
            if not weighted:
                assert grid.smooth(nodes, window, fail_limit, 1.0 + seed).tolist() == out.tolist()
            assert_valid(grid, grid.smooth(out, window, fail_limit), nodes)  # the second pass


@pytest.mark.parametrize("width", [1, 2, 3])
def test_narrow_grids(width: int) -> None:
    """Steps are decoded without a division where the grid is wide enough; narrow grids divide."""
    rng = np.random.default_rng(width)
    height = 30
    for diag in DIAGS:
        grid = Grid(np.ones(width * height, np.uint8), rng.uniform(1.0, 2.0, width * height), width, diag)
        nodes = np.array(random_walk(rng, grid, 80), dtype=np.int64)
        out = grid.smooth(nodes)
        assert out.tolist() == reference(grid, nodes)
        assert_valid(grid, out, nodes)


def test_straight_lines_and_corners() -> None:
    """An open room: a staircase becomes the straight line; a wall corner is cut only where allowed."""
    width = 12
    grid = Grid(np.ones(width * width, np.uint8), np.ones(width * width), width, 3)
    stair = [0]
    for k in range(22):  # right, down, right, down ... from (0, 0) to (11, 11)
        stair.append(stair[-1] + (1 if k % 2 == 0 else width))
    assert grid.smooth(np.array(stair)).tolist() == [k * (width + 1) for k in range(12)]
    grid.walk[5 * width + 6] = 0  # (6, 5): the diagonal (5, 5) -> (6, 6) cuts its corner
    around = np.array([5 * width + 5, 6 * width + 5, 6 * width + 6])  # down, then right
    for diag, expected in ((3, around.tolist()), (0, around.tolist()), (2, [65, 78]), (1, [65, 78])):
        assert grid._replace(diag=diag).smooth(around).tolist() == expected
    grid.weights[6 * width + 6] = 3.0  # entering the goal diagonally now costs more than the detour
    assert grid._replace(diag=1).smooth(around).tolist() == around.tolist()


def test_tiny_inputs() -> None:
    grid = Grid(np.ones(9, np.uint8), np.ones(9), 3, 3)
    assert grid.smooth(np.zeros(0, np.int64)).tolist() == []
    assert grid.smooth(np.array([4])).tolist() == [4]
    assert grid.smooth(np.array([4, 5])).tolist() == [4, 5]
    assert grid._replace(diag=1).smooth(np.array([0, 1, 2, 5, 8]), 32, 8).tolist() == [0, 4, 8]


def test_passes_repeat_only_while_they_gain() -> None:
    """smooth_passes: a second pass after a gaining one equals two shortcut calls; after a pass
    that gains nothing it stops (the returned cost is the returned path's)."""
    rng = np.random.default_rng(4)
    width = 40
    grid = Grid((rng.random(width * width) > 0.2).astype(np.uint8), np.ones(width * width), width, 3)
    checked = 0
    for s, g in rng.choice(np.flatnonzero(grid.walk), (20, 2)):
        path = bfs_path(grid, int(s), int(g))
        if path is None or len(path) < 3:
            continue
        nodes = np.array(path, dtype=np.int64)
        once, before, after = shortcut_costs(
            nodes, grid.walk, grid.weights, width, 3, 1.0, 1.0, 96, FAIL_LIMIT
        )
        out, cost = smooth_passes(nodes, grid.walk, grid.weights, width, 3, 1.0, 1.0, 96, 2)
        gained = after < before  # by the pass's own sums (a tie swapped for a bend may round lower)
        assert out.tolist() == (grid.smooth(once, fail_limit=FAIL_LIMIT) if gained else once).tolist()
        assert cost == pytest.approx(grid.cost(out), rel=1e-12)
        checked += gained
    assert checked  # some first pass gained
    straight = np.arange(5, 15, dtype=np.int64)  # a straight row: nothing to gain, one pass
    out, cost = smooth_passes(straight, grid.walk * 0 + 1, grid.weights, width, 3, 1.0, 1.0, 96, 2)
    assert out.tolist() == straight.tolist()
    assert cost == 9.0


@pytest.mark.parametrize("diag", DIAGS)
def test_a_pass_reports_the_costs_of_its_input_and_output(diag: int) -> None:
    """shortcut_costs sums the costs as it goes (no path_cost per pass): both must be the
    path_cost of the paths, on weighted cells, with one shared weight, and with non-square cells."""
    rng = np.random.default_rng(11 + diag)
    width = 36
    walk = (rng.random(width * width) > 0.25).astype(np.uint8)
    weights = rng.choice([1.0, 1.5, 3.0], width * width)
    for one_weight, cw, ch in ((0.0, 1.0, 1.0), (0.0, 2.0, 0.5), (2.0, 1.0, 1.0), (2.0, 0.75, 1.25)):
        grid = Grid(
            walk, weights if one_weight == 0.0 else np.full(width * width, one_weight), width, diag, cw, ch
        )
        for s, g in rng.choice(np.flatnonzero(walk), (12, 2)):
            path = bfs_path(grid, int(s), int(g))
            if path is None:
                continue
            nodes = np.array(path, dtype=np.int64)
            out, before, after = shortcut_costs(
                nodes, walk, grid.weights, width, diag, cw, ch, 96, 24, one_weight
            )
            assert out.tolist() == grid.smooth(nodes, one_weight=one_weight).tolist()
            assert before == pytest.approx(grid.cost(nodes), rel=1e-12)
            assert after == pytest.approx(grid.cost(out), rel=1e-12)
            assert after <= before * (1 + 1e-12)


@pytest.mark.parametrize("width", [1, 2, 3, 5])
def test_path_cost_and_world_points_decode_steps_on_narrow_grids(width: int) -> None:
    """path_cost and world_points read a step's offset without dividing; on grids of one or two
    columns (where offsets are ambiguous) and between cells that are not neighbours they must
    still give what dividing gives."""
    rng = np.random.default_rng(width)
    height = 7
    cells = rng.integers(0, width * height, 40)  # jumps as well as steps
    walk_steps = [0]
    for _ in range(40):  # a random walk of legal 8-connected steps
        x, y = walk_steps[-1] % width, walk_steps[-1] // width
        dx, dy = STEPS[rng.integers(len(STEPS))]
        if 0 <= x + dx < width and 0 <= y + dy < height:
            walk_steps.append((y + dy) * width + x + dx)
    weights = rng.random(width * height) + 1
    for nodes in (cells, np.array(walk_steps, dtype=np.int64)):
        points = world_points(nodes, width, 3.0, -1.0, 2.0, 0.5)
        assert points.tolist() == [
            [3.0 + (n % width) * 2.0, -1.0 + (n // width) * 0.5] for n in nodes.tolist()
        ]
        expected = 0.0
        for a, b in itertools.pairwise(nodes.tolist()):
            dx, dy = b % width - a % width, b // width - a // width
            expected += (np.hypot(2.0, 0.5) if dx and dy else (2.0 if dx else 0.5)) * weights[b]
        assert path_cost(nodes, weights, width, 2.0, 0.5) == pytest.approx(expected, rel=1e-12)
