"""The refinement tests' oracle: a plain heapq Dijkstra over a small grid of flat cells, with the
grid kernels' diagonal rules and step lengths, so a bounded link search's cost can be checked."""

from __future__ import annotations

import heapq
import math

import numpy as np

STEPS = [(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy]
"""The eight moves as (dx, dy)."""


def step_ok(walk: np.ndarray, width: int, diag: int, a: int, b: int) -> bool:
    """Whether one move from flat cell ``a`` to its neighbour ``b`` is legal under ``diag``
    (0 never, 1 always, 2 at least one side walkable, 3 no corner cutting)."""
    ax, ay, bx, by = a % width, a // width, b % width, b // width
    if not walk[b]:
        return False
    if ax == bx or ay == by:
        return True
    sides = (bool(walk[ay * width + bx]), bool(walk[by * width + ax]))
    return {0: False, 1: True, 2: any(sides), 3: all(sides)}[diag]


def oracle(  # noqa: PLR0917 (a grid and a start, positional as the kernels take them)
    walk: np.ndarray,
    weights: np.ndarray,
    width: int,
    diag: int,
    a: int,
    cell: tuple[float, float] = (1.0, 1.0),
) -> dict[int, float]:
    """Every cell's cost from ``a``: the entered cell's weight times the step's world length
    (cells ``cell`` wide and high)."""
    height = walk.shape[0] // width
    cw, ch = cell
    dist, todo = {a: 0.0}, [(0.0, a)]
    while todo:
        d, u = heapq.heappop(todo)
        if d > dist[u]:
            continue
        x, y = u % width, u // width
        for dx, dy in STEPS:
            if not (0 <= x + dx < width and 0 <= y + dy < height):
                continue
            v = (y + dy) * width + x + dx
            if step_ok(walk, width, diag, u, v):
                nd = d + math.hypot(dx * cw, dy * ch) * weights[v]
                if nd < dist.get(v, math.inf):
                    dist[v] = nd
                    heapq.heappush(todo, (nd, v))
    return dist
