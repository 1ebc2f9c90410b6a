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
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from python_core._types import DIAG_ALWAYS, DIAG_NEVER, F64, I64, U8
from python_core.compiled import jit
from python_core.flowfield.guide import SearchGuide, guide_bound, no_guide
from python_core.flowfield.moves import (
    DX,
    DY,
    GOAL,
    MOVES,
    UNREACHABLE,
    WALL,
    _moves_from,
    _open,
    _step_length,
)
from python_core.flowfield.pockets import POCKET_CELLS, _mark_pockets
from python_core.flowfield.tiles import FieldGround, FieldTiles
from python_core.heaps.lazy import heap_pop, heap_push

__all__ = ["HEURISTIC_TILES", "POCKET_CELLS", "solve_from_goals"]

HEURISTIC_TILES = 16
"""Up to this many tiles asked for, the search is guided toward them (an A*); past it, it runs as a
Dijkstra (the bound's cost per cell grows with the tiles)."""


def solve_from_goals(
    field: FieldTiles, tiles: I64, budget: int, guide: SearchGuide | None = None
) -> tuple[I64, F64, U8, bool, int]:
    """Exact costs and directions of ``tiles`` (unknown tile ids) and of the tiles their chains run
    through: ``(tile ids, costs, directions, True, cells settled)``. When the search settled more
    than ``budget`` cells first: the unknown tiles it had settled whole, and False (their chains may
    run through tiles not given: the caller computes every tile left). ``guide``: landmark terms
    toward ``tiles`` (:mod:`.guide`), taken with the octile bound (their maximum)."""
    grid, cs, tx = field.grid, field.cs, field.tiles_x
    aim = tiles if tiles.size <= HEURISTIC_TILES else tiles[:0]
    rects = np.stack(
        [
            (aim % tx) * cs,
            (aim // tx) * cs,
            np.minimum((aim % tx) * cs + cs, grid.width) - 1,
            np.minimum((aim // tx) * cs + cs, grid.height) - 1,
        ],
        axis=1,
    ).astype(np.int64)
    sl = _slots(field.known_slot.size, cs * cs)
    done, rows, ok, settled, _ = _search(
        field.ground(), field.goal_nodes, tiles, field.known_slot, field.closed, field._dirs, rects,
        field._min_weight(), budget, no_guide() if guide is None else guide, sl,
    )  # fmt: skip
    return done, sl.cost[rows], sl.dirs[rows], ok, int(settled)


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


class _Slots(NamedTuple):
    """The search's storage, one row of ``cs * cs`` cells per tile it reached (``np.empty`` only
    reserves address space: the memory used is the rows written): the tile of each row, costs,
    directions, move bits, settled cells, cells whose chain was walked, open cells not settled and
    not in a pocket, and whether the tile is waited for."""

    tile_at: npt.NDArray[np.int64]
    cost: npt.NDArray[np.float64]
    dirs: npt.NDArray[np.uint8]
    allowed: npt.NDArray[np.uint8]
    settled: npt.NDArray[np.bool_]
    chained: npt.NDArray[np.bool_]
    left: npt.NDArray[np.int64]
    target: npt.NDArray[np.bool_]


def _slots(cap: int, block: int) -> _Slots:
    return _Slots(
        np.empty(cap, dtype=np.int64), np.empty((cap, block)), np.empty((cap, block), dtype=np.uint8),
        np.empty((cap, block), dtype=np.uint8), np.empty((cap, block), dtype=np.bool_),
        np.empty((cap, block), dtype=np.bool_), np.empty(cap, dtype=np.int64), np.empty(cap, dtype=np.bool_),
    )  # fmt: skip


@jit
def _search(
    ground: FieldGround,
    goals: npt.NDArray[np.int64],
    wanted: npt.NDArray[np.int64],
    known_slot: npt.NDArray[np.int32],
    closed: npt.NDArray[np.bool_],
    stored: npt.NDArray[np.uint8],
    rects: npt.NDArray[np.int64],
    wmin: float,
    budget: int,
    guide: SearchGuide,
    sl: _Slots,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], bool, int, int]:
    """Returns ``(tiles, slots, ok, settled, used)``: the tile ids done (ascending; the wanted ones
    and the tiles their chains cross, none known before), their rows in ``sl``, False when it gave
    up, the cells it settled and the rows used."""
    width, height, diagonal, cw = ground.width, ground.height, ground.diagonal, ground.cw
    ch, cs, tiles_x, tiles_y = ground.ch, ground.cs, ground.tiles_x, ground.tiles_y
    weights = ground.weights
    cost, dirs, allowed, settled, left, target = sl.cost, sl.dirs, sl.allowed, sl.settled, sl.left, sl.target
    block = cs * cs
    diag = math.hypot(cw, ch)
    n_tiles = tiles_x * tiles_y
    slot_of = np.full(n_tiles, -1, dtype=np.int64)
    used = 0
    keys = np.empty(1024, dtype=np.float64)
    items = np.empty(1024, dtype=np.int64)
    size = 0
    queue = np.empty(n_tiles, dtype=np.int64)  # target tiles in the order they became targets
    walked = np.zeros(n_tiles, dtype=np.bool_)
    deferred = np.empty(64, dtype=np.int64)  # chain cells met before they were settled (ties)
    n_deferred = 0
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
        if slot_of[t] < 0:
            used = _allocate(ground, t, used, slot_of, sl)
    for i in range(goals.shape[0]):
        node = goals[i]
        if _open(ground.walk, ground.occ, ground.agents, node):
            x, y = node % width, node // width
            s = slot_of[(y // cs) * tiles_x + x // cs]
            local = (y % cs) * cs + x % cs
            cost[s, local] = 0.0
            dirs[s, local] = GOAL
            f = max(wmin * _h(x, y, rects, cw, ch, diag, diagonal), guide_bound(guide, node))
            keys, items, size = heap_push(keys, items, size, f, s * block + local)
    ok = True
    guided = rects.shape[0] > 0
    marked = guide.row.shape[0] > 0
    # the tiles asked for: waited for whole (a known one only has its chains walked)
    for i in range(wanted.shape[0]):  # unique ids
        t = wanted[i]
        s = slot_of[t]
        queue[queued] = t
        queued += 1
        if known_slot[t] < 0:  # (a known one is no target: its cells are stored already)
            target[s] = True
            _mark_pockets(ground, goals, reach, t, s, slot_of, settled, left, seen, members)
            waiting += 1 if left[s] > 0 else 0
    asked = queued  # only these tiles' cells start chains: the tiles those cross are not closed
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
            t = sl.tile_at[s]
            x = (t % tiles_x) * cs + local % cs
            y = (t // tiles_x) * cs + local // cs
            node = y * width + x
            d = cost[s, local]
            for k in range(8):
                ux, uy = x - DX[k], y - DY[k]
                if not (0 <= ux < width and 0 <= uy < height):
                    continue
                ut = (uy // cs) * tiles_x + ux // cs
                if slot_of[ut] < 0:
                    used = _allocate(ground, ut, used, slot_of, sl)
                us = slot_of[ut]
                ulocal = (uy % cs) * cs + ux % cs
                if settled[us, ulocal] or not allowed[us, ulocal] >> k & 1:
                    continue
                cand = d + _step_length(k, cw, ch, diag) * weights[node]
                if cand < cost[us, ulocal]:
                    cost[us, ulocal] = cand
                    dirs[us, ulocal] = k
                    h = wmin * _h(ux, uy, rects, cw, ch, diag, diagonal) if guided else 0.0
                    f = cand + (max(h, guide_bound(guide, uy * width + ux)) if marked else h)
                    keys, items, size = heap_push(keys, items, size, f, us * block + ulocal)
        if not ok:
            break
        if size == 0:
            waiting = 0  # the goals' whole reach is settled: the open cells left are unreachable
        # walk the chains of the tiles asked for once whole (and the chain cells met before they
        # were settled): every tile a chain crosses is stored, and a new one is waited for
        heads = deferred[:n_deferred].copy()
        n_deferred = 0
        before = queued
        for i in range(heads.shape[0]):
            queued, used, waiting, n_deferred, deferred = _walk(
                heads[i], ground, goals, reach, known_slot, closed, stored, slot_of, sl, queue,
                queued, used, waiting, size, seen, members, deferred, n_deferred,
            )  # fmt: skip
        for q in range(asked):
            t = queue[q]
            s = slot_of[t]
            if walked[t] or (left[s] > 0 and size > 0 and known_slot[t] < 0):
                continue
            walked[t] = True
            x0, y0 = (t % tiles_x) * cs, (t // tiles_x) * cs
            for local in range(block):
                x, y = x0 + local % cs, y0 + local // cs
                if x < width and y < height and ground.walk[y * width + x] != 0:
                    queued, used, waiting, n_deferred, deferred = _walk(
                        y * width + x, ground, goals, reach, known_slot, closed, stored, slot_of, sl,
                        queue, queued, used, waiting, size, seen, members, deferred, n_deferred,
                    )  # fmt: skip
        if queued == before and n_deferred == 0:
            break  # after settling every target is whole: all walked, no tile added
    done = np.empty(max(queued, used), dtype=np.int64)
    n = 0
    if ok:
        for q in range(queued):
            if known_slot[queue[q]] < 0:
                done[n] = queue[q]
                n += 1
    else:  # gave up: every tile settled whole is exact all the same
        for s in range(used):
            if left[s] == 0 and known_slot[sl.tile_at[s]] < 0:
                done[n] = sl.tile_at[s]
                n += 1
    done = np.sort(done[:n])
    rows = np.empty(n, dtype=np.int64)
    for i in range(n):
        rows[i] = slot_of[done[i]]
    return done, rows, ok, settled_count, used


@jit
def _walk(
    head: int,
    ground: FieldGround,
    goals: npt.NDArray[np.int64],
    reach: int,
    known_slot: npt.NDArray[np.int32],
    closed: npt.NDArray[np.bool_],
    stored: npt.NDArray[np.uint8],
    slot_of: npt.NDArray[np.int64],
    sl: _Slots,
    queue: npt.NDArray[np.int64],
    queued: int,
    used: int,
    waiting: int,
    size: int,
    seen: npt.NDArray[np.int64],
    members: npt.NDArray[np.int64],
    deferred: npt.NDArray[np.int64],
    n_deferred: int,
) -> tuple[int, int, int, int, npt.NDArray[np.int64]]:
    """Follow the chain of directions from ``head`` (units follow the stored directions in known
    tiles, this search's elsewhere) until a goal, a cell walked before or a closed tile (whose
    chains all end on goals through computed tiles). A tile not known that it crosses becomes a
    target; a chain cell not settled yet (a tie of ``g + h``) is deferred to the next walk."""
    width, cs, tiles_x = ground.width, ground.cs, ground.tiles_x
    c = head
    while True:
        x, y = c % width, c // width
        t = (y // cs) * tiles_x + x // cs
        local = (y % cs) * cs + x % cs
        if known_slot[t] >= 0 and closed[t]:
            return queued, used, waiting, n_deferred, deferred
        if slot_of[t] < 0:
            used = _allocate(ground, t, used, slot_of, sl)
        s = slot_of[t]
        if known_slot[t] >= 0:
            k = stored[known_slot[t], local]
        else:
            if not sl.target[s]:
                sl.target[s] = True
                queue[queued] = t
                queued += 1
                _mark_pockets(ground, goals, reach, t, s, slot_of, sl.settled, sl.left, seen, members)
                waiting += 1 if sl.left[s] > 0 and size > 0 else 0
            if not sl.settled[s, local]:
                if sl.left[s] > 0 and size > 0:  # not settled yet: walked again after settling
                    if n_deferred == deferred.shape[0]:
                        bigger = np.empty(2 * n_deferred, dtype=np.int64)
                        bigger[:n_deferred] = deferred
                        deferred = bigger
                    deferred[n_deferred] = c
                    n_deferred += 1
                return queued, used, waiting, n_deferred, deferred  # else unreachable
            k = sl.dirs[s, local]
        if sl.chained[s, local]:
            return queued, used, waiting, n_deferred, deferred
        sl.chained[s, local] = True
        if k >= 8:
            return queued, used, waiting, n_deferred, deferred
        c = (y + DY[k]) * width + x + DX[k]


@jit
def _allocate(ground: FieldGround, t: int, s: int, slot_of: npt.NDArray[np.int64], sl: _Slots) -> int:
    """Fill row ``s`` for tile ``t`` (walls, the move bits, no cost yet); returns the rows used."""
    walk, occ, agents, width = ground.walk, ground.occ, ground.agents, ground.width
    height, diagonal, cs, tiles_x = ground.height, ground.diagonal, ground.cs, ground.tiles_x
    slot_of[t] = s
    sl.tile_at[s] = t
    sl.target[s] = False
    sl.left[s] = 0
    x0, y0 = (t % tiles_x) * cs, (t // tiles_x) * cs
    for local in range(cs * cs):
        x, y = x0 + local % cs, y0 + local // cs
        sl.cost[s, local] = np.inf
        sl.settled[s, local] = False
        sl.chained[s, local] = False
        sl.allowed[s, local] = 0
        sl.dirs[s, local] = WALL
        if x < width and y < height and walk[y * width + x] != 0:
            sl.dirs[s, local] = UNREACHABLE
            sl.allowed[s, local] = _moves_from(walk, occ, agents, MOVES, diagonal, x, y, width, height)
            sl.left[s] += 1
    return s + 1
