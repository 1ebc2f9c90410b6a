"""Tiles of a field without the exactness check: an A* from the goals toward the tiles asked for.

Quick start (:meth:`python_core.flowfield.FlowField.extend` calls it first)::

    tiles, cost, dirs, whole, settled = solve_from_goals(field, asked, budget)  # cs * cs a tile
    # whole: False when it gave up past ``budget`` settled cells (tiles: those settled whole)

Why: the region solver's octile bounds fail next to the walls of a map of rooms, so even a unit
ten cells from its goal room got a field of the whole map (85-130 ms on a 512 x 512 crowd map),
and a long field filled the map too (1.4-1.7 full passes on a 4096 x 4096 one).

The search runs backwards from the goals over the whole grid, ordered by ``g + h`` where ``g`` is
the cost to the goals and ``h`` the smallest weight times the octile (manhattan for ``never``)
distance to the nearest tile asked for: a consistent bound, so every cell is settled at its exact
cost, as a Dijkstra would (with ``h = 0`` for many tiles, where the bound costs more than it
saves). Storage is allocated a tile at a time as the search reaches tiles. It goes on until every
open cell of the tiles asked for is settled, and then every cell of the tiles their chains of
directions run through (the field's invariant: a computed cell's chain stays in computed tiles;
those cells are settled already, having lower costs, and their tiles are waited for in turn).
Only those tiles are handed back.

Pockets (open cells walled off from every goal) are never settled: each component of a tile asked
for is flooded once (over the grid's cells, up to ``POCKET_CELLS`` tiles' worth) and not waited for
when the flood closes without reaching a goal or a settled cell. A larger pocket is waited for: the
search runs dry (the cells left are then unreachable, exactly) or past ``budget`` settled cells,
where it gives up (None) and the caller computes every tile in one pass.
"""

# Compiled kernels take their arguments positionally: numba.njit does not compile keywords.
# ruff: noqa: PLR0917, PLR0912, PLR0915

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from python_core._types import DIAG_ALWAYS, DIAG_NEVER, F64, I64, U8
from python_core.compiled import jit
from python_core.flowfield.moves import (
    DX,
    DY,
    GOAL,
    MOVES,
    UNREACHABLE,
    WALL,
    _is_goal,
    _moves_from,
    _open,
    _step_length,
)
from python_core.flowfield.tiles import FieldGround, FieldTiles
from python_core.heaps.lazy import heap_pop, heap_push

__all__ = ["HEURISTIC_TILES", "POCKET_CELLS", "solve_from_goals"]

HEURISTIC_TILES = 16
"""Up to this many tiles asked for, the search is guided toward them (an A*); past it, it runs as a
Dijkstra (the bound's cost per cell grows with the tiles)."""
POCKET_CELLS = 4
"""A tile's component is flooded up to this many tiles' worth of cells to tell a pocket."""


def solve_from_goals(field: FieldTiles, tiles: I64, budget: int) -> tuple[I64, F64, U8, bool, int]:
    """Exact costs and directions of ``tiles`` (unknown tile ids) and of the tiles their chains run
    through: ``(tile ids, costs, directions, True, cells settled)``. When the search settled more
    than ``budget`` cells first: the unknown tiles it had settled whole, and False (their chains may
    run through tiles not given: the caller computes every tile left)."""
    grid, cs, tx = field.grid, field.cs, field.tiles_x
    guide = tiles if tiles.size <= HEURISTIC_TILES else tiles[:0]
    rects = np.stack(
        [
            (guide % tx) * cs,
            (guide // tx) * cs,
            np.minimum((guide % tx) * cs + cs, grid.width) - 1,
            np.minimum((guide // tx) * cs + cs, grid.height) - 1,
        ],
        axis=1,
    ).astype(np.int64)
    done, slots, cost, dirs, ok, settled = _search(
        field.ground(), field.goal_nodes, tiles, field.known_slot, rects, field._min_weight(), budget
    )
    return done, cost[slots], dirs[slots], ok, int(settled)


@jit
def _h(
    x: int, y: int, rects: npt.NDArray[np.int64], cw: float, ch: float, diag: float, diagonal: int
) -> float:
    """The octile distance (at weight 1) from ``(x, y)`` to the nearest rectangle."""
    best = math.inf
    for i in range(rects.shape[0]):
        dx = max(rects[i, 0] - x, 0, x - rects[i, 2])
        dy = max(rects[i, 1] - y, 0, y - rects[i, 3])
        if diagonal == DIAG_NEVER:
            d = dx * cw + dy * ch
        else:
            m = min(dx, dy)
            d = diag * m + cw * (dx - m) + ch * (dy - m)
        best = min(best, d)
    return 0.0 if rects.shape[0] == 0 else best


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
def _search(
    ground: FieldGround,
    goals: npt.NDArray[np.int64],
    wanted: npt.NDArray[np.int64],
    known_slot: npt.NDArray[np.int32],
    rects: npt.NDArray[np.int64],
    wmin: float,
    budget: int,
) -> tuple[
    npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.float64], npt.NDArray[np.uint8], bool, int
]:
    """Returns ``(tiles, slots, cost, dirs, ok, settled)``: the tile ids done (ascending; the wanted ones and
    their chains' tiles, none known before), their rows in ``cost`` / ``dirs`` (``cs * cs`` per
    allocated tile), False when it gave up, and the cells it settled."""
    walk, occ, agents, weights = ground.walk, ground.occ, ground.agents, ground.weights
    width, height, diagonal, cw = ground.width, ground.height, ground.diagonal, ground.cw
    ch, cs, tiles_x, tiles_y = ground.ch, ground.cs, ground.tiles_x, ground.tiles_y
    block = cs * cs
    diag = math.hypot(cw, ch)
    n_tiles = tiles_x * tiles_y
    slot_of = np.full(n_tiles, -1, dtype=np.int64)
    # One row per tile of the map, filled in the order the search reaches tiles: np.empty only
    # reserves the address space, so the memory used is the rows written. (Arrays that a loop
    # reassigns while it grows them cost numba every access inside that loop.)
    cap = n_tiles
    tile_at = np.empty(cap, dtype=np.int64)
    cost = np.empty((cap, block))
    dirs = np.empty((cap, block), dtype=np.uint8)
    allowed = np.empty((cap, block), dtype=np.uint8)
    settled = np.empty((cap, block), dtype=np.bool_)
    left = np.empty(cap, dtype=np.int64)  # open cells not settled and not in a pocket
    target = np.empty(cap, dtype=np.bool_)
    used = 0
    keys = np.empty(1024, dtype=np.float64)
    items = np.empty(1024, dtype=np.int64)
    size = 0
    queue = np.empty(n_tiles, dtype=np.int64)  # target tiles in the order they became targets
    walked = np.zeros(n_tiles, dtype=np.bool_)
    queued = 0
    waiting = 0
    settled_count = 0
    reach = 8 if diagonal == DIAG_ALWAYS else 4
    flood_cap = 1
    while flood_cap < 8 * POCKET_CELLS * block:
        flood_cap *= 2
    seen = np.full(flood_cap, -1, dtype=np.int64)
    members = np.empty(POCKET_CELLS * block, dtype=np.int64)
    # seed: the goals (their tiles allocated first), then the tiles asked for
    pending = np.concatenate((goals, np.full(wanted.shape[0], -1, dtype=np.int64)))
    for i in range(wanted.shape[0]):
        t = wanted[i]
        pending[goals.shape[0] + i] = ((t // tiles_x) * cs) * width + (t % tiles_x) * cs
    for p in range(pending.shape[0]):
        node = pending[p]
        t = (node // width // cs) * tiles_x + node % width // cs
        if slot_of[t] >= 0:
            continue
        _allocate(ground, t, used,
                  tile_at, cost, dirs, allowed, settled, left, target)  # fmt: skip
        slot_of[t] = used
        used += 1
    for i in range(goals.shape[0]):
        node = goals[i]
        if _open(walk, occ, agents, node):
            x, y = node % width, node // width
            s = slot_of[(y // cs) * tiles_x + x // cs]
            local = (y % cs) * cs + x % cs
            cost[s, local] = 0.0
            dirs[s, local] = GOAL
            f = wmin * _h(x, y, rects, cw, ch, diag, diagonal)
            keys, items, size = heap_push(keys, items, size, f, s * block + local)
    ok = True
    guided = rects.shape[0] > 0
    # targets are registered here (and in the closure walks below)
    for i in range(wanted.shape[0]):
        t = wanted[i]
        s = slot_of[t]
        if not target[s]:
            target[s] = True
            queue[queued] = t
            queued += 1
            _mark_pockets(ground, goals, reach, t, s, slot_of,
                          settled, left, seen, members)  # fmt: skip
            if left[s] > 0:
                waiting += 1
    while ok:
        # settle cells until every target tile is whole (or nothing is left to settle)
        while waiting > 0 and size > 0:
            f, item, size = heap_pop(keys, items, size)
            s, local = item // block, item % block
            if settled[s, local]:
                continue
            settled[s, local] = True
            settled_count += 1
            if settled_count >= budget:
                ok = False
                break
            left[s] -= 1
            if left[s] == 0 and target[s]:
                waiting -= 1
            t = tile_at[s]
            x = (t % tiles_x) * cs + local % cs
            y = (t // tiles_x) * cs + local // cs
            node = y * width + x
            d = cost[s, local]
            for k in range(8):
                ux, uy = x - DX[k], y - DY[k]
                if not (0 <= ux < width and 0 <= uy < height):
                    continue
                ut = (uy // cs) * tiles_x + ux // cs
                us = slot_of[ut]
                if us < 0:
                    _allocate(ground, ut, used,
                              tile_at, cost, dirs, allowed, settled, left, target)  # fmt: skip
                    slot_of[ut] = used
                    us = used
                    used += 1
                ulocal = (uy % cs) * cs + ux % cs
                if settled[us, ulocal] or not allowed[us, ulocal] >> k & 1:
                    continue
                cand = d + _step_length(k, cw, ch, diag) * weights[node]
                if cand < cost[us, ulocal]:
                    cost[us, ulocal] = cand
                    dirs[us, ulocal] = k
                    f = cand + wmin * _h(ux, uy, rects, cw, ch, diag, diagonal) if guided else cand
                    keys, items, size = heap_push(keys, items, size, f, us * block + ulocal)
        if not ok:
            break
        if size == 0:
            waiting = 0  # the goals' whole reach is settled: the open cells left are unreachable
        # the chains of the whole target tiles not walked yet may add tiles
        added = False
        for q in range(queued):
            t = queue[q]
            s = slot_of[t]
            if walked[t] or (left[s] > 0 and size > 0):
                continue
            walked[t] = True
            # a chain leaves the tile by one step from one of its cells: look at each next cell
            for local in range(block):
                k = dirs[s, local]
                if k >= 8 or not settled[s, local]:
                    continue
                nx = (t % tiles_x) * cs + local % cs + DX[k]
                ny = (t // tiles_x) * cs + local // cs + DY[k]
                nt = (ny // cs) * tiles_x + nx // cs
                ns = slot_of[nt]
                if target[ns] or known_slot[nt] >= 0:
                    continue  # its cells' next steps are looked at too (or known tiles hold them)
                target[ns] = True
                queue[queued] = nt
                queued += 1
                added = True
                _mark_pockets(ground, goals, reach, nt, ns,
                              slot_of, settled, left, seen, members)  # fmt: skip
                if left[ns] > 0 and size > 0:
                    waiting += 1
        if not added and waiting == 0:
            break
    done = np.empty(max(queued, used), dtype=np.int64)
    n = 0
    if ok:
        for q in range(queued):
            if known_slot[queue[q]] < 0:
                done[n] = queue[q]
                n += 1
    else:  # gave up: every tile settled whole is exact all the same
        for s in range(used):
            if left[s] == 0 and known_slot[tile_at[s]] < 0:
                done[n] = tile_at[s]
                n += 1
    done = np.sort(done[:n])
    slots = np.empty(n, dtype=np.int64)
    for i in range(n):
        slots[i] = slot_of[done[i]]
    return done, slots, cost[:used], dirs[:used], ok, settled_count


@jit
def _allocate(
    ground: FieldGround,
    t: int,
    s: int,
    tile_at: npt.NDArray[np.int64],
    cost: npt.NDArray[np.float64],
    dirs: npt.NDArray[np.uint8],
    allowed: npt.NDArray[np.uint8],
    settled: npt.NDArray[np.bool_],
    left: npt.NDArray[np.int64],
    target: npt.NDArray[np.bool_],
) -> None:
    """Fill slot ``s`` for tile ``t``: walls, the move bits, no cost yet."""
    walk, occ, agents, width = ground.walk, ground.occ, ground.agents, ground.width
    height, diagonal, cs, tiles_x = ground.height, ground.diagonal, ground.cs, ground.tiles_x
    tile_at[s] = t
    target[s] = False
    left[s] = 0
    x0, y0 = (t % tiles_x) * cs, (t // tiles_x) * cs
    for local in range(cs * cs):
        x, y = x0 + local % cs, y0 + local // cs
        cost[s, local] = np.inf
        settled[s, local] = False
        allowed[s, local] = 0
        dirs[s, local] = WALL
        if x < width and y < height and walk[y * width + x] != 0:
            dirs[s, local] = UNREACHABLE
            allowed[s, local] = _moves_from(walk, occ, agents, MOVES, diagonal, x, y, width, height)
            left[s] += 1


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
