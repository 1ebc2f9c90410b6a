"""The flow-field oracle for units of size k, built here without the core's clearance or sized view:
the grid eroded by numpy slicing (an anchor is open when its k x k footprint lies inside the grid
on walkable cells), footprint-highest weights by a loop of maxima, and scipy's Dijkstra over that
eroded grid (tests/core/flowfield/oracle.py); plus a cell-by-cell check that a step keeps the
footprint clear under the grid's diagonal mode."""

from __future__ import annotations

import numpy as np

from python_core.grid import GridGraph
from tests.core.flowfield.oracle import goal_costs


def eroded(grid: GridGraph, k: int) -> tuple[np.ndarray, np.ndarray]:
    """``(open, weights)`` of the anchors of size-``k`` units: open where the footprint fits,
    the footprint's highest weight (cells past the edge count as walls)."""
    h, w = grid.height, grid.width
    walk = np.zeros((h + k, w + k), dtype=bool)
    walk[:h, :w] = grid.walkable
    heavy = np.zeros((h + k, w + k))
    heavy[:h, :w] = grid.weights
    fits = np.ones((h, w), dtype=bool)
    top = np.zeros((h, w))
    for dy in range(k):
        for dx in range(k):
            fits &= walk[dy : dy + h, dx : dx + w]
            top = np.maximum(top, heavy[dy : dy + h, dx : dx + w])
    return fits, np.where(fits, top, 1.0)


def sized_goal_costs(
    grid: GridGraph, goals: list[tuple[int, int]], k: int, *, agents_block: bool = False
) -> np.ndarray:
    """Cost from every anchor to the nearest goal for size-``k`` units (inf when unreachable);
    with ``agents_block``, anchors whose footprint meets another agent's are not entered."""
    fits, weights = eroded(grid, k)
    surface = GridGraph(fits, diagonal=grid.diagonal, weights=weights, cell_size=grid.cell_size)
    if agents_block:
        sizes = grid.agent_sizes
        blocked = np.zeros((grid.height, grid.width), dtype=bool)
        for agent, (x, y) in grid.agents.items():
            a = sizes.get(agent, 1)
            for ay in range(max(0, y - k + 1), min(grid.height, y + a)):
                for ax in range(max(0, x - k + 1), min(grid.width, x + a)):
                    blocked[ay, ax] = True
        for i, (y, x) in enumerate(zip(*np.nonzero(blocked), strict=True)):
            surface.place_agent(i + 1, (int(x), int(y)))  # a stand-in per blocked anchor
    return goal_costs(surface, goals, agents_block=agents_block)


def footprint_clear(grid: GridGraph, k: int, a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Whether a size-``k`` unit steps from anchor ``a`` to the neighbouring anchor ``b`` on the
    grid's own cells: both footprints on walkable cells inside the grid, and for a diagonal step
    the two corner cells the swept square adds, as the diagonal mode asks."""
    walk = grid.walkable

    def free(x: int, y: int) -> bool:
        return 0 <= x < grid.width and 0 <= y < grid.height and bool(walk[y, x])

    for x, y in (a, b):
        if not all(free(x + i, y + j) for i in range(k) for j in range(k)):
            return False
    dx, dy = b[0] - a[0], b[1] - a[1]
    if not (dx and dy):
        return True
    new_x, old_x = (a[0] + k, a[0]) if dx > 0 else (a[0] - 1, a[0] + k - 1)
    new_y, old_y = (a[1] + k, a[1]) if dy > 0 else (a[1] - 1, a[1] + k - 1)
    c1, c2 = free(new_x, old_y), free(old_x, new_y)
    return {
        "always": True, "never": False, "at_least_one_walkable": c1 or c2, "only_if_no_obstacles": c1 and c2,
    }[grid.diagonal.value]  # fmt: skip
