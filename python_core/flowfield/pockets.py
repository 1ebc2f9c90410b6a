"""Pockets for the goal search: open cells of a tile walled off from every goal, which the search
must not wait for (they never settle).

Quick start (:mod:`.goal_search` calls it for every tile it waits for)::

    _mark_pockets(ground, goals, reach, tile, slot, slot_of, settled, left, seen, members)

Each component of the tile is flooded (breadth first, over the grid's cells, agents ignored) up to
``POCKET_CELLS`` tiles' worth of cells; one that closes without an open goal or a settled cell is a
pocket, and its cells in the tile are taken off ``left`` (the cells the search waits for).
"""

# Compiled kernels take their arguments positionally: numba.njit does not compile keywords.
# ruff: noqa: PLR0917, PLR0912

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from python_core.compiled import jit
from python_core.flowfield.moves import DX, DY, _is_goal, _open
from python_core.flowfield.tiles import FieldGround

__all__ = ["POCKET_CELLS"]

POCKET_CELLS = 4
"""A tile's component is flooded up to this many tiles' worth of cells to tell a pocket."""


@jit
def _hash_add(table: npt.NDArray[np.int64], key: int) -> bool:
    """Insert ``key`` into an open-addressing set (``-1`` empty); False when it was there."""
    mask = table.shape[0] - 1
    i = ((key * 2654435761) >> 16) & mask  # in int64 for grids below 2^31 cells
    while table[i] != -1:
        if table[i] == key:
            return False
        i = (i + 1) & mask
    table[i] = key
    return True


@jit
def _hash_clear(table: npt.NDArray[np.int64], keys: npt.NDArray[np.int64], count: int) -> None:
    """Empty the set again, its keys being ``keys[:count]`` (cheaper than clearing the table):
    every slot is found on the intact table first, then emptied."""
    mask = table.shape[0] - 1
    where = np.empty(count, dtype=np.int64)
    for j in range(count):
        i = ((keys[j] * 2654435761) >> 16) & mask
        while table[i] != keys[j]:
            i = (i + 1) & mask
        where[j] = i
    for j in range(count):
        table[where[j]] = -1


@jit
def _mark_pockets(
    ground: FieldGround,
    goals: npt.NDArray[np.int64],
    reach: int,
    t: int,
    s: int,
    slot_of: npt.NDArray[np.int64],
    settled: npt.NDArray[np.bool_],
    left: npt.NDArray[np.int64],
    seen: npt.NDArray[np.int64],
    members: npt.NDArray[np.int64],
) -> None:
    """Flood (breadth first, over the grid's cells, agents ignored) each component of tile ``t``
    (slot ``s``) from its first open cell not settled; a component that closes without an open
    goal or a settled cell is a pocket: its cells in the tile are not waited for. A flood that runs
    out of room counts as reaching a goal (waited for: a search that runs dry still ends)."""
    walk, occ, agents, width = ground.walk, ground.occ, ground.agents, ground.width
    height, cs, tiles_x = ground.height, ground.cs, ground.tiles_x
    limit = members.shape[0]
    x0, y0 = (t % tiles_x) * cs, (t // tiles_x) * cs
    done = np.zeros(cs * cs, dtype=np.bool_)
    for local in range(cs * cs):
        x, y = x0 + local % cs, y0 + local // cs
        if x >= width or y >= height or done[local] or walk[y * width + x] == 0 or settled[s, local]:
            continue
        start = y * width + x
        _hash_add(seen, start)
        members[0] = start
        head, count, live = 0, 1, False
        while head < count:
            c = members[head]
            head += 1
            cx, cy = c % width, c // width
            cslot = slot_of[(cy // cs) * tiles_x + cx // cs]
            if (_is_goal(goals, c) and _open(walk, occ, agents, c)) or (
                cslot >= 0 and settled[cslot, (cy % cs) * cs + cx % cs]
            ):
                live = True
                break
            for k in range(reach):
                nx, ny = cx + DX[k], cy + DY[k]
                if not (0 <= nx < width and 0 <= ny < height) or walk[ny * width + nx] == 0:
                    continue
                nn = ny * width + nx
                if count == limit:
                    live = True  # too big to tell
                    break
                if _hash_add(seen, nn):
                    members[count] = nn
                    count += 1
            if live:
                break
        _hash_clear(seen, members, count)
        for i in range(count):  # every cell found is in this component
            c = members[i]
            cx, cy = c % width, c // width
            if (cy // cs) * tiles_x + cx // cs == t:
                c_local = (cy % cs) * cs + cx % cs
                if not done[c_local]:
                    done[c_local] = True
                    if not live and not settled[s, c_local]:
                        left[s] -= 1
