"""Whether a size's landmarks (ALT) pay on a grid: probe queries solved with and without them.

Quick start (:mod:`.size_index` calls this once it has built a size's landmarks)::

    from python_core.grid.search.landmark_choice import landmarks_pay
    keep = landmarks_pay(grid, prepared, index, use_jps=False)

Landmarks make each expansion dearer (eight more loads and a max, about :data:`ALT_COST` A*
expansions) and pay only where octile guides A* badly: on eroded grids that are mazes of islands
(random512-10-0 at size 3: 2,300 A* expansions against 490 with landmarks) or winding corridors
(maze-400-4). On an open eroded grid octile is near exact and JPS prunes more. So, as
:mod:`.method_choice` does for JPS, up to :data:`PROBES` seeded pairs of nodes of one part are
solved with landmarks and then by the kernel the size would run otherwise, with a budget of the
landmark search's cost (a jump point costs :data:`JUMP_COST` expansions); a probe votes for
landmarks when the other kernel runs out of it. Counts, not timings: every process decides alike.
"""

from __future__ import annotations

import math

import numpy as np

from python_core._types import DIAG_CODES, DIAG_NEVER, F64, I32, SEARCH_FOUND
from python_core.grid.search.astar import astar_padded
from python_core.grid.search.grid_view import GridView
from python_core.grid.search.heuristics import HEURISTIC_CODES, resolve_heuristic
from python_core.grid.search.jps import jps_padded
from python_core.grid.search.landmark_kernels import ACTIVE, astar_landmarks
from python_core.grid.search.prepared import Prepared, Workspace

__all__ = ["ALT_COST", "JUMP_COST", "PROBES", "landmarks_pay"]

ALT_COST = 1.5
"""A* expansions one expansion with eight landmarks costs (measured about 1.2 on random512-10-0
and maze-400-4; rounded up, so landmarks must win clearly)."""
JUMP_COST = 5
"""A* expansions one jump point costs (:data:`.method_choice.PRUNING_NEEDED`'s measure)."""
PROBES = 9
"""Votes per decision (odd)."""
_ATTEMPTS = 30
_SEED = 38_038


def landmarks_pay(  # noqa: PLR0917
    grid: GridView, p: Prepared, labels: I32, rows: I32, table: F64, count: int, size: int, *, use_jps: bool
) -> bool:
    """Whether A* with the landmarks ``table`` (``count`` a row, ``rows`` each node's) beats the
    kernel the size would run otherwise (JPS when ``use_jps``, else A* with the grid's estimate)
    on probe queries within the parts (``labels``) that have landmarks; ties keep them out."""
    opened = np.flatnonzero(rows >= 0)
    if opened.size < 2:
        return False
    rng = np.random.default_rng(_SEED)
    work = Workspace.for_nodes(p.passable.shape[0])
    (cw, ch), diagonal = grid.cell_size, DIAG_CODES[grid.diagonal]
    code = HEURISTIC_CODES[resolve_heuristic(None, eight_connected=diagonal != DIAG_NEVER)]
    votes = [0, 0]  # without, with
    for _ in range(_ATTEMPTS):
        s = int(opened[rng.integers(opened.size)])
        part = np.flatnonzero((labels == labels[s]) & (rows >= 0))
        t = int(part[rng.integers(part.size)])
        if s == t:
            continue
        arrays = (work.g, work.parent, work.stamp, work.pos, work.heap_nodes, work.heap_keys)
        outcome, alt = astar_landmarks(
            p.passable, size, p.stride, s, t, diagonal, cw, ch, p.uniform_weight, code, rows, table, count,
            ACTIVE, -1, *arrays, work.next_tag(),
        )  # fmt: skip
        if outcome != SEARCH_FOUND:
            continue
        budget = max(1, math.ceil(ALT_COST * alt / (JUMP_COST if use_jps else 1)))
        if use_jps:
            outcome, _ = jps_padded(
                p.passable, size, p.stride, s, t, cw, ch, p.uniform_weight, budget, *arrays, work.next_tag()
            )
        else:
            outcome, _, _ = astar_padded(
                p.passable, size, p.weights, p.uniform_weight, p.stride, s, t, diagonal, cw, ch, code,
                p.min_weight, budget, -1, *arrays, work.next_tag(),
            )  # fmt: skip
        votes[int(outcome != SEARCH_FOUND)] += 1
        if sum(votes) == PROBES:
            break
    return votes[1] > votes[0]
