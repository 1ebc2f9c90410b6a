"""Whether Jump Point Search pays on a grid: a few probe queries solved by both kernels.

Quick start (:func:`dispatch.choose_method <python_core.grid.search.dispatch.choose_method>` calls
this once JPS is known to be exact for the query)::

    from python_core.grid.search.method_choice import prefers_jps
    use_jps = prefers_jps(grid, weight)

Both kernels are exact, so the choice is only about speed. JPS expands jump points instead of
cells, but each expansion scans lines of cells and costs about five A* expansions. How much it
prunes is a property of the map: on random or open maps A* expands only 2-4 times as many nodes as
JPS, and A* is faster; on rooms, mazes with wide corridors and game maps 20-160 times as many, and
JPS is 3-10 times faster. No count over the cells separated these sets in our benchmark maps, so
the map is measured: up to :data:`PROBES` seeded pairs of cells, each solved by JPS (at most
:data:`JPS_BUDGET` jump points) and then by A* with a budget of :data:`PRUNING_NEEDED` times JPS's
expansions. A probe votes for JPS when A* runs out of that budget; ties go to JPS. The votes are
counts, not timings, so the choice is the same in every process (a sidecar worker and a test
agree on paths and ``expanded``). Grids under :data:`MIN_PROBED_CELLS` are not probed. The
decision is cached per grid and kept across edits until the number of open cells moves by more
than :data:`REPROBE_FRACTION` of the cells (a game editing a few cells per frame pays no probe).

Units of size k > 1 search the eroded grid (anchors with clearance >= k), which can be another map
for JPS: eroding a random map leaves small islands where JPS's long scans stop at once, and a
maze's corridors narrow. So each size gets its own decision, probed on its eroded mask (pass the
grid's clearance) and cached beside size 1's; it is kept across edits under the same rule, counted
on the grid's open cells.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np

from python_core._types import DIAG_ONLY_IF_NO_OBSTACLES, SEARCH_FOUND, U8, B
from python_core.grid.search.astar import astar_padded, pad_cells
from python_core.grid.search.grid_view import GridView
from python_core.grid.search.heuristics import HEURISTIC_CODES
from python_core.grid.search.jps import jps_padded

__all__ = [
    "JPS_BUDGET",
    "MIN_PROBED_CELLS",
    "PROBES",
    "PROBE_REACH",
    "PROBE_WINDOW",
    "PRUNING_NEEDED",
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
PROBE_WINDOW = PROBE_REACH + 32
"""A probe searches only the cells within this many of its start along x and y."""
JPS_BUDGET = 3_000
"""Jump points a probe's JPS search may expand; a probe that needs more is left out."""
PRUNING_NEEDED = 6
"""JPS wins a probe when A* needs at least this many times its expansions: one jump point costs
about five A* expansions (measured 380 ns against 75 ns on random256, 320 against 80 on
open2048)."""
REPROBE_FRACTION = 0.02
"""Share of the cells by which the open count must move before the map is probed again."""
_SEED = 20_231
_OCTILE = HEURISTIC_CODES["octile"]


@dataclass(slots=True)
class _Decision:
    version: int
    shape: tuple[int, int]
    open_cells: int  # the grid's open cells (size 1's), whatever the size decided
    use_jps: bool


_DECISIONS: weakref.WeakKeyDictionary[GridView, _Decision] = weakref.WeakKeyDictionary()
"""Size 1's decision per grid."""
_SIZED_DECISIONS: weakref.WeakKeyDictionary[GridView, dict[int, _Decision]] = weakref.WeakKeyDictionary()
"""Sizes above 1: grid -> size -> decision."""


def prefers_jps(
    grid: GridView,
    weight: float,
    open_cells: int | None = None,
    *,
    size: int = 1,
    clearance: U8 | None = None,
) -> bool:
    """Whether JPS is the faster exact kernel on ``grid`` for units of ``size``.

    Call only where JPS is exact (uniform weight ``weight > 0``, no corner cutting, octile).

    Args:
        grid: the grid; the decision is cached for it and the size.
        weight: the common cell weight.
        open_cells: the grid's open cell count when the caller knows it (counting them reads the
            whole grid: after a local change, the prepared copy's count saves that).
        size: the unit size; sizes above 1 are probed on the eroded grid.
        clearance: the grid's ``(h, w)`` clearance, needed for a size above 1.

    Returns:
        True when JPS should run.

    Raises:
        ValueError: a size above 1 without ``clearance``.

    Example:
        >>> from python_core.grid import GridGraph
        >>> prefers_jps(GridGraph(np.ones((8, 8), bool), diagonal="only_if_no_obstacles"), 1.0)
        True
    """
    if grid.width * grid.height < MIN_PROBED_CELLS:
        return True
    if size == 1:
        cached = _DECISIONS.get(grid)
    elif clearance is None:
        raise ValueError(f"prefers_jps for size {size} needs the grid's clearance")
    else:
        cached = _SIZED_DECISIONS.get(grid, {}).get(size)
    if cached is not None and cached.version == grid.version:
        return cached.use_jps
    shape = (grid.height, grid.width)
    if open_cells is None:
        open_cells = int(np.count_nonzero(grid.walkable))
    moved = abs(open_cells - cached.open_cells) if cached is not None else 0
    if cached is not None and cached.shape == shape and moved <= REPROBE_FRACTION * grid.width * grid.height:
        cached.version = grid.version
        return cached.use_jps
    mask = grid.walkable if clearance is None or size == 1 else clearance >= size
    astar_votes, jps_votes = probe_votes(mask, grid.cell_size, weight)
    use_jps = jps_votes >= astar_votes
    decision = _Decision(grid.version, shape, open_cells, use_jps)
    if size == 1:
        _DECISIONS[grid] = decision
    else:
        _SIZED_DECISIONS.setdefault(grid, {})[size] = decision
    return use_jps


def probe_votes(walkable: B, cell: tuple[float, float], weight: float) -> tuple[int, int]:
    """How many probe queries vote for A* and for JPS on a ``(h, w)`` walkable mask.

    Each probe searches a window of the grid around its start (:data:`PROBE_WINDOW` cells each
    way), so its workspace stays small whatever the grid's size. Probes with a wall at either end,
    or that JPS cannot solve within :data:`JPS_BUDGET` jump points inside the window, do not vote.

    Returns:
        ``(astar_votes, jps_votes)``.
    """
    height, width = walkable.shape
    rng = np.random.default_rng(_SEED)
    side = 2 * PROBE_WINDOW + 3
    work = _Workspace(side * side)
    votes = [0, 0]
    for _ in range(PROBE_ATTEMPTS):
        sx, sy = int(rng.integers(width)), int(rng.integers(height))
        gx = int(np.clip(sx + rng.integers(-PROBE_REACH, PROBE_REACH + 1), 0, width - 1))
        gy = int(np.clip(sy + rng.integers(-PROBE_REACH, PROBE_REACH + 1), 0, height - 1))
        if (gx, gy) == (sx, sy) or not (walkable[sy, sx] and walkable[gy, gx]):
            continue
        x0, y0 = max(0, sx - PROBE_WINDOW), max(0, sy - PROBE_WINDOW)
        window = walkable[y0 : sy + PROBE_WINDOW + 1, x0 : sx + PROBE_WINDOW + 1]
        stride = window.shape[1] + 2
        start, goal = (sy - y0 + 1) * stride + sx - x0 + 1, (gy - y0 + 1) * stride + gx - x0 + 1
        passable = pad_cells(window.view(np.uint8))
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
    """0 when A* needs fewer than :data:`PRUNING_NEEDED` times JPS's expansions, 1 when it needs
    more (A* stops there), -1 when JPS found no path within its budget."""
    outcome, jumps = jps_padded(
        passable, 1, stride, start, goal, cell[0], cell[1], weight, JPS_BUDGET,
        w.g, w.parent, w.stamp, w.pos, w.heap_nodes, w.heap_keys, w.next_tag(),
    )  # fmt: skip
    if outcome != SEARCH_FOUND:
        return -1
    outcome, _, _ = astar_padded(
        passable, 1, w.unused_weights, weight, stride, start, goal, DIAG_ONLY_IF_NO_OBSTACLES,
        cell[0], cell[1], _OCTILE, weight, PRUNING_NEEDED * jumps, -1,
        w.g, w.parent, w.stamp, w.pos, w.heap_nodes, w.heap_keys, w.next_tag(),
    )  # fmt: skip
    return 0 if outcome == SEARCH_FOUND else 1
