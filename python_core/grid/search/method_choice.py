"""Whether Jump Point Search pays on a grid: a few probe queries raced between the two kernels.

Quick start (:func:`dispatch.choose_method <python_core.grid.search.dispatch.choose_method>` calls
this once JPS is known to be exact for the query)::

    from python_core.grid.search.method_choice import prefers_jps
    use_jps = prefers_jps(grid, padded_passable, stride, (cell_w, cell_h), weight)

Both kernels are exact, so the choice is only about speed. JPS expands jump points instead of
cells, but each expansion scans lines of cells and costs about five A* expansions (measured: 380
ns against 75 ns on a random map). How much it prunes is a property of the map: on random or open
maps A* expands only 2-4 times as many nodes as JPS, and A* is faster; on rooms, mazes with wide
corridors and game maps 20-160 times as many, and JPS is 3-10 times faster. No count over the
cells separated these sets in our benchmark maps, so the map is measured: :data:`PROBES` seeded
pairs of cells, each solved by JPS (at most :data:`JPS_BUDGET` jump points) and then by A*, and
each probe votes for the faster kernel; ties go to JPS. A* stops after :data:`ASTAR_BUDGET_FACTOR`
times JPS's jump points: JPS has won by then. Grids under :data:`MIN_PROBED_CELLS` are not probed.
The decision is cached per grid and kept across edits until the number of open cells moves by
more than :data:`REPROBE_FRACTION` of the cells (a game editing a few cells per frame pays no
probe). Timings make the vote noisy only on maps where both kernels are about as fast.
"""

from __future__ import annotations

import time
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from python_core._types import DIAG_ONLY_IF_NO_OBSTACLES, SEARCH_FOUND, U8
from python_core.grid.search.astar import astar_padded
from python_core.grid.search.heuristics import HEURISTIC_CODES
from python_core.grid.search.jps import jps_padded

if TYPE_CHECKING:
    from python_core.grid.graph import GridGraph

__all__ = [
    "ASTAR_BUDGET_FACTOR",
    "JPS_BUDGET",
    "MIN_PROBED_CELLS",
    "PROBES",
    "REPROBE_FRACTION",
    "prefers_jps",
    "probe_votes",
]

MIN_PROBED_CELLS = 128 * 128
"""Smaller grids are not probed and take JPS: their queries take microseconds either way."""
PROBES = 9
"""Votes per decision (odd: no ties when every probe votes)."""
PROBE_ATTEMPTS = 60
"""Random pairs tried at most; pairs with a wall at either end, or that JPS cannot solve within
its budget, do not vote."""
PROBE_REACH = 128
"""Each probe's goal lies within this many cells of its start along x and y: far enough to
cross a few rooms or maze corridors, near enough to keep a probe around a millisecond."""
JPS_BUDGET = 3_000
"""Jump points a probe's JPS search may expand; a probe that needs more is left out."""
ASTAR_BUDGET_FACTOR = 10
"""A probe's A* stops after this many times the jump points JPS expanded (JPS has won by then:
one jump point costs about five A* expansions)."""
REPROBE_FRACTION = 0.02
"""Share of the cells by which the open count must move before the map is probed again."""
_SEED = 20_231
_OCTILE = HEURISTIC_CODES["octile"]


@dataclass(slots=True)
class _Decision:
    version: int
    shape: tuple[int, int]
    open_cells: int
    use_jps: bool


_DECISIONS: weakref.WeakKeyDictionary[GridGraph, _Decision] = weakref.WeakKeyDictionary()


def prefers_jps(grid: GridGraph, passable: U8, stride: int, cell: tuple[float, float], weight: float) -> bool:
    """Whether JPS is the faster exact kernel on ``grid`` (whose padded cells are ``passable``).

    Call only where JPS is exact (uniform weight ``weight > 0``, no corner cutting, octile).

    Args:
        grid: the grid; the decision is cached for it.
        passable: its padded 0/1 cells without agents (``astar.pad_cells``).
        stride: padded row length.
        cell: cell size ``(w, h)``.
        weight: the common cell weight.

    Returns:
        True when JPS should run.
    """
    shape = (grid.height, grid.width)
    if grid.width * grid.height < MIN_PROBED_CELLS:
        return True
    cached = _DECISIONS.get(grid)
    if cached is not None and cached.version == grid.version:
        return cached.use_jps
    open_cells = int(np.count_nonzero(grid.walkable))
    moved = abs(open_cells - cached.open_cells) if cached is not None else 0
    if cached is not None and cached.shape == shape and moved <= REPROBE_FRACTION * grid.width * grid.height:
        cached.version = grid.version
        return cached.use_jps
    astar_wins, jps_wins = probe_votes(passable, stride, shape, cell, weight)
    use_jps = jps_wins >= astar_wins
    _DECISIONS[grid] = _Decision(grid.version, shape, open_cells, use_jps)
    return use_jps


def probe_votes(
    passable: U8, stride: int, shape: tuple[int, int], cell: tuple[float, float], weight: float
) -> tuple[int, int]:
    """How many probe queries A* and JPS each answered faster (probes JPS could not solve within
    :data:`JPS_BUDGET` jump points do not vote).

    A* runs with a budget of :data:`ASTAR_BUDGET_FACTOR` times the jump points JPS expanded; when
    it runs out, JPS wins the probe without the rest of A*'s time being spent. Votes, not summed
    seconds, so one probe slowed by another process's time slice cannot decide.

    Returns:
        ``(astar_wins, jps_wins)``.
    """
    height, width = shape
    rng = np.random.default_rng(_SEED)
    work = _Workspace(passable.size)
    votes = [0, 0]
    for _ in range(PROBE_ATTEMPTS):
        sx, sy = int(rng.integers(1, width + 1)), int(rng.integers(1, height + 1))
        gx = int(np.clip(sx + rng.integers(-PROBE_REACH, PROBE_REACH + 1), 1, width))
        gy = int(np.clip(sy + rng.integers(-PROBE_REACH, PROBE_REACH + 1), 1, height))
        start, goal = sy * stride + sx, gy * stride + gx
        if goal != start and passable[start] and passable[goal]:
            winner = _race(passable, stride, start, goal, cell=cell, weight=weight, w=work)
            if winner >= 0:
                votes[winner] += 1
                if votes[0] + votes[1] == PROBES:
                    break
    return votes[0], votes[1]


class _Workspace:
    """Search arrays of the probes' own (a probe never touches a query's workspace)."""

    def __init__(self, n: int) -> None:
        self.g, self.parent, self.stamp = np.empty(n), np.empty(n, np.int32), np.zeros(n, np.int32)
        self.pos, self.heap_nodes, self.heap_keys = np.empty(n, np.int32), np.empty(n, np.int32), np.empty(n)
        self.unused_weights = np.zeros(1)
        self.tag = 0

    def next_tag(self) -> int:
        self.tag += 2
        return self.tag


def _race(
    passable: U8,
    stride: int,
    start: int,
    goal: int,
    *,
    cell: tuple[float, float],
    weight: float,
    w: _Workspace,
) -> int:
    """0 when A* answers faster, 1 when JPS does, -1 when JPS found no path within its budget."""
    t0 = time.perf_counter()
    outcome, jumps = jps_padded(
        passable, stride, start, goal, cell[0], cell[1], weight, JPS_BUDGET,
        w.g, w.parent, w.stamp, w.pos, w.heap_nodes, w.heap_keys, w.next_tag(),
    )  # fmt: skip
    jps_seconds = time.perf_counter() - t0
    if outcome != SEARCH_FOUND:
        return -1
    t0 = time.perf_counter()
    outcome, _, _ = astar_padded(
        passable, w.unused_weights, weight, stride, start, goal, DIAG_ONLY_IF_NO_OBSTACLES,
        cell[0], cell[1], _OCTILE, weight, ASTAR_BUDGET_FACTOR * jumps, -1,
        w.g, w.parent, w.stamp, w.pos, w.heap_nodes, w.heap_keys, w.next_tag(),
    )  # fmt: skip
    astar_seconds = time.perf_counter() - t0
    return 0 if outcome == SEARCH_FOUND and astar_seconds < jps_seconds else 1
