"""Compiled kernels of flow fields: the tile-bounded Dijkstra with its exactness check, the repair
taint and line of sight.

Quick start (most callers use :class:`python_core.flowfield.FlowField`)::

    cost, dirs, culprits, violated = solve_region(...)   # see the docstring

Cells are flat ids ``y * width + x``; a tile ``t = ty * tiles_x + tx`` holds the cells of one HPA*
cluster, stored row-major in a ``cs * cs`` block (cells past the grid's edge stay walls). A
direction byte is the move toward the next cell, in the grid kernels' move order (``DX``/``DY``):
``0..7``, or :data:`GOAL`, :data:`UNREACHABLE`, :data:`WALL`.

The exactness argument (see docs/flowfield.md): the real Dijkstra over the region's cells gives
``d_R(v)``, the cost of a real path (inside the region, then an exact known cell or a goal), an
upper bound of the true cost ``d(v)``. The bound Dijkstra seeds every exit into an unknown tile
with a LOWER bound of that cell's cost (``wmin * octile distance to the nearest goal``): any path
from ``v`` either stays in the region (cost ``>= d_R(v)``) or leaves it first at such an exit (cost
``>= E(v)``). Where ``d_R(v) <= E(v)``, ``d_R(v) = d(v)``. A cell where the bound is lower is a
violation; the caller keeps the tiles without one (exact) and solves the others again with the
tiles the bounds came from.
"""

# Compiled kernels take their arguments positionally: numba.njit does not compile keywords.
# ruff: noqa: PLR0917, PLR0912, PLR0915

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from python_core._types import DIAG_ALWAYS, DIAG_AT_LEAST_ONE_WALKABLE, DIAG_NEVER
from python_core.compiled import jit
from python_core.grid.search.astar import _MOVES
from python_core.heaps.lazy import heap_pop, heap_push

__all__ = [
    "DX",
    "DY",
    "GOAL",
    "MOVES",
    "UNREACHABLE",
    "WALL",
    "follow_cost",
    "goal_bound",
    "line_of_sight",
    "solve_region",
    "tainted_tiles",
]

DX = np.array([1, -1, 0, 0, 1, -1, 1, -1], dtype=np.int64)
DY = np.array([0, 0, 1, -1, 1, 1, -1, -1], dtype=np.int64)
MOVES = _MOVES
"""``MOVES[diagonal, around]``: bit ``k`` set when move ``k`` is allowed (the grid A*'s table)."""
GOAL = 8
"""Direction byte of a goal cell (cost 0)."""
UNREACHABLE = 9
"""Direction byte of a walkable cell from which no goal can be reached."""
WALL = 10
"""Direction byte of a blocked cell (a wall, or an agent's cell where agents block and no exit)."""
SLACK = 1e-9
"""Relative slack of the exactness check: sums of the same steps in another order differ in their
last bits, so a bound equal to the real cost in exact arithmetic must not count as lower."""


@jit
def _open(walk: npt.NDArray[np.uint8], occ: npt.NDArray[np.int32], agents: bool, node: int) -> bool:
    return walk[node] != 0 and not (agents and occ[node] > 0)


@jit
def _moves_from(
    walk: npt.NDArray[np.uint8],
    occ: npt.NDArray[np.int32],
    agents: bool,
    moves: npt.NDArray[np.uint8],
    diagonal: int,
    x: int,
    y: int,
    width: int,
    height: int,
) -> int:
    """Bit ``k`` set when move ``k`` from ``(x, y)`` is allowed (the grid A*'s rule, one lookup)."""
    around = 0
    for k in range(8):
        nx, ny = x + DX[k], y + DY[k]
        if 0 <= nx < width and 0 <= ny < height and _open(walk, occ, agents, ny * width + nx):
            around |= 1 << k
    return int(moves[diagonal, around])


@jit
def _step_length(k: int, cw: float, ch: float, diag: float) -> float:
    if k < 2:
        return cw
    if k < 4:
        return ch
    return diag


@jit
def _octile(dx: int, dy: int, cw: float, ch: float, diag: float, diagonal: int) -> float:
    """A lower bound of the move cost between cells ``(dx, dy)`` apart at weight 1."""
    if diagonal == DIAG_NEVER:
        return dx * cw + dy * ch
    m = min(dx, dy)
    return diag * m + cw * (dx - m) + ch * (dy - m)


@jit
def goal_bound(
    x: int,
    y: int,
    gx: npt.NDArray[np.int64],
    gy: npt.NDArray[np.int64],
    cw: float,
    ch: float,
    diagonal: int,
    wmin: float,
) -> float:
    """``wmin *`` the octile (manhattan for ``never``) distance to the nearest goal: a lower bound
    of the cell's cost, since every move costs at least its length times the smallest weight."""
    diag = math.hypot(cw, ch)
    best = math.inf
    for i in range(gx.shape[0]):
        best = min(best, _octile(abs(x - gx[i]), abs(y - gy[i]), cw, ch, diag, diagonal))
    return wmin * best


@jit
def border_index(lx: int, ly: int, cs: int) -> int:
    """Where a tile's border cell ``(lx, ly)`` (local) is stored in its ``4 * cs`` row: top row,
    bottom row, left column, right column (a corner under the first side it is on); ``-1`` inside."""
    if ly == 0:
        return lx
    if ly == cs - 1:
        return cs + lx
    if lx == 0:
        return 2 * cs + ly
    if lx == cs - 1:
        return 3 * cs + ly
    return -1


@jit
def _landmark_bound(
    nt: int,
    local: int,
    cs: int,
    lm_to: npt.NDArray[np.float64],
    lm_from: npt.NDArray[np.float64],
    g_to: npt.NDArray[np.float64],
    g_from: npt.NDArray[np.float64],
) -> float:
    """The best landmark lower bound of a border cell's cost (``-inf`` without landmarks):
    ``d(o, L) - max_g d(g, L)`` and ``min_g d(L, g) - d(L, o)``, less a relative 1e-12 of the
    terms for rounding (a bound a rounding above the cost would hide a violation)."""
    best = -np.inf
    b = border_index(local % cs, local // cs, cs)
    if b < 0:
        return best
    for k in range(2 * lm_to.shape[0]):
        if k % 2 == 0:
            a, c = lm_to[k // 2, nt, b], g_to[k // 2]
        else:
            a, c = g_from[k // 2], lm_from[k // 2, nt, b]
        term = a - c  # inf: no path (it would pass the landmark); nan (inf - inf) never counts
        if term < np.inf:
            term -= 1e-12 * (abs(a) + abs(c))
        if term > best:  # noqa: PLR1730 (max() of a nan is not defined the same compiled)
            best = term
    return best


@jit
def _is_goal(goals: npt.NDArray[np.int64], node: int) -> bool:
    i = np.searchsorted(goals, node)
    return bool(i < goals.shape[0] and goals[i] == node)


@jit
def solve_region(
    walk: npt.NDArray[np.uint8],
    occ: npt.NDArray[np.int32],
    agents: bool,
    weights: npt.NDArray[np.float64],
    width: int,
    height: int,
    diagonal: int,
    cw: float,
    ch: float,
    cs: int,
    tiles_x: int,
    region_tiles: npt.NDArray[np.int64],
    region_slot: npt.NDArray[np.int32],
    known_slot: npt.NDArray[np.int32],
    known_cost: npt.NDArray[np.float64],
    goals: npt.NDArray[np.int64],
    gx: npt.NDArray[np.int64],
    gy: npt.NDArray[np.int64],
    wmin: float,
    lm_to: npt.NDArray[np.float64],
    lm_from: npt.NDArray[np.float64],
    g_to: npt.NDArray[np.float64],
    g_from: npt.NDArray[np.float64],
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.uint8], npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
    """Exact costs and directions over the tiles ``region_tiles`` (``region_slot[t]`` = their index,
    ``-1`` elsewhere), given the exact costs of the known tiles (``known_slot[t]`` row of
    ``known_cost``, ``-1`` unknown) and the sorted goal ids ``goals`` (``gx``/``gy``: every goal,
    walls included, for the lower bounds). ``lm_to``/``lm_from`` (``(K, tiles, 4 * cs)``, see
    :mod:`python_core.flowfield.landmarks`) and ``g_to``/``g_from`` (``K``) add landmark bounds to
    the octile one (``K = 0``: none).

    Returns:
        ``(cost, dirs, culprits, violated)``: per region tile a ``cs * cs`` row of costs and of
        direction bytes, the unknown tiles whose lower bounds beat a real cost somewhere (sorted,
        unique), and per region tile whether one of its cells is such a violation. Every cell of
        a tile not violated is exact.
    """
    n_reg = region_tiles.shape[0]
    block = cs * cs
    diag = math.hypot(cw, ch)
    moves = MOVES
    cost = np.full((n_reg, block), np.inf)
    dirs = np.full((n_reg, block), WALL, dtype=np.uint8)
    allowed_at = np.zeros((n_reg, block), dtype=np.uint8)  # the move bits of each cell, found once
    keys = np.empty(max(64, 8 * n_reg * cs), dtype=np.float64)  # about a frontier; grows
    items = np.empty(keys.shape[0], dtype=np.int64)
    size = 0
    # seeds: goals in the region, exits into known tiles or onto goals (exact, real)
    for r in range(n_reg):
        t = region_tiles[r]
        x0, y0 = (t % tiles_x) * cs, (t // tiles_x) * cs
        for ly in range(cs):
            y = y0 + ly
            if y >= height:
                break
            for lx in range(cs):
                x = x0 + lx
                if x >= width:
                    break
                node = y * width + x
                if walk[node] == 0:
                    continue
                local = ly * cs + lx
                dirs[r, local] = UNREACHABLE
                allowed = _moves_from(walk, occ, agents, moves, diagonal, x, y, width, height)
                allowed_at[r, local] = allowed
                if _is_goal(goals, node) and _open(walk, occ, agents, node):
                    cost[r, local] = 0.0
                    dirs[r, local] = GOAL
                    keys, items, size = heap_push(keys, items, size, 0.0, r * block + local)
                    continue
                if 0 < lx < cs - 1 and 0 < ly < cs - 1:
                    continue  # inner cells have no neighbour outside their tile
                for k in range(8):
                    if not allowed >> k & 1:
                        continue
                    nx, ny = x + DX[k], y + DY[k]
                    nt = (ny // cs) * tiles_x + nx // cs
                    if region_slot[nt] >= 0:
                        continue
                    nn = ny * width + nx
                    if _is_goal(goals, nn):
                        beyond = 0.0
                    elif known_slot[nt] >= 0:
                        beyond = known_cost[known_slot[nt], (ny % cs) * cs + nx % cs]
                    else:
                        continue
                    cand = beyond + _step_length(k, cw, ch, diag) * weights[nn]
                    if cand < cost[r, local]:
                        cost[r, local] = cand
                        dirs[r, local] = k
                        keys, items, size = heap_push(keys, items, size, cand, r * block + local)
    # the real Dijkstra, backwards: a popped cell v is entered from u = v - move k
    while size > 0:
        d, item, size = heap_pop(keys, items, size)
        r, local = item // block, item % block
        if d > cost[r, local]:
            continue
        t = region_tiles[r]
        x = (t % tiles_x) * cs + local % cs
        y = (t // tiles_x) * cs + local // cs
        node = y * width + x
        for k in range(8):
            ux, uy = x - DX[k], y - DY[k]
            if not (0 <= ux < width and 0 <= uy < height):
                continue
            ur = region_slot[(uy // cs) * tiles_x + ux // cs]
            ulocal = (uy % cs) * cs + ux % cs
            if ur < 0 or not allowed_at[ur, ulocal] >> k & 1:
                continue
            cand = d + _step_length(k, cw, ch, diag) * weights[node]
            if cand < cost[ur, ulocal]:
                cost[ur, ulocal] = cand
                dirs[ur, ulocal] = k
                keys, items, size = heap_push(keys, items, size, cand, ur * block + ulocal)
    culprits, violated = _check_bounds(
        walk,
        occ,
        agents,
        weights,
        width,
        height,
        diagonal,
        cw,
        ch,
        cs,
        tiles_x,
        region_tiles,
        region_slot,
        known_slot,
        goals,
        gx,
        gy,
        wmin,
        cost,
        allowed_at,
        lm_to,
        lm_from,
        g_to,
        g_from,
    )
    return cost, dirs, culprits, violated


@jit
def _check_bounds(
    walk: npt.NDArray[np.uint8],
    occ: npt.NDArray[np.int32],
    agents: bool,
    weights: npt.NDArray[np.float64],
    width: int,
    height: int,
    diagonal: int,
    cw: float,
    ch: float,
    cs: int,
    tiles_x: int,
    region_tiles: npt.NDArray[np.int64],
    region_slot: npt.NDArray[np.int32],
    known_slot: npt.NDArray[np.int32],
    goals: npt.NDArray[np.int64],
    gx: npt.NDArray[np.int64],
    gy: npt.NDArray[np.int64],
    wmin: float,
    cost: npt.NDArray[np.float64],
    allowed_at: npt.NDArray[np.uint8],
    lm_to: npt.NDArray[np.float64],
    lm_from: npt.NDArray[np.float64],
    g_to: npt.NDArray[np.float64],
    g_from: npt.NDArray[np.float64],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
    """The bound Dijkstra: lower bounds through exits into unknown tiles, kept only where they
    beat the real cost (a bound no lower than ``d_R(v)`` at ``v`` stays no lower at every cell it
    would reach through ``v``, as ``d_R`` obeys the same steps). Returns the culprit tiles and
    the region tiles with a violation."""
    n_reg = region_tiles.shape[0]
    block = cs * cs
    diag = math.hypot(cw, ch)
    bound = np.full((n_reg, block), np.inf)
    source = np.full((n_reg, block), -1, dtype=np.int64)
    keys = np.empty(64, dtype=np.float64)
    items = np.empty(64, dtype=np.int64)
    size = 0
    for r in range(n_reg):
        t = region_tiles[r]
        x0, y0 = (t % tiles_x) * cs, (t // tiles_x) * cs
        for ly in range(cs):
            y = y0 + ly
            if y >= height:
                break
            for lx in range(cs):
                x = x0 + lx
                if x >= width:
                    break
                if 0 < lx < cs - 1 and 0 < ly < cs - 1:
                    continue
                node = y * width + x
                local = ly * cs + lx
                if walk[node] == 0 or cost[r, local] == 0.0:
                    continue
                limit = cost[r, local] * (1.0 - SLACK)
                allowed = allowed_at[r, local]
                for k in range(8):
                    if not allowed >> k & 1:
                        continue
                    nx, ny = x + DX[k], y + DY[k]
                    nt = (ny // cs) * tiles_x + nx // cs
                    if region_slot[nt] >= 0 or known_slot[nt] >= 0:
                        continue
                    nn = ny * width + nx
                    if _is_goal(goals, nn):
                        continue
                    low = goal_bound(nx, ny, gx, gy, cw, ch, diagonal, wmin)
                    if lm_to.shape[0]:
                        nlocal = (ny % cs) * cs + nx % cs
                        low = max(low, _landmark_bound(nt, nlocal, cs, lm_to, lm_from, g_to, g_from))
                    cand = low + _step_length(k, cw, ch, diag) * weights[nn]
                    if cand < limit and cand < bound[r, local]:
                        bound[r, local] = cand
                        source[r, local] = nt
                        keys, items, size = heap_push(keys, items, size, cand, r * block + local)
    while size > 0:
        d, item, size = heap_pop(keys, items, size)
        r, local = item // block, item % block
        if d > bound[r, local]:
            continue
        t = region_tiles[r]
        x = (t % tiles_x) * cs + local % cs
        y = (t // tiles_x) * cs + local // cs
        node = y * width + x
        for k in range(8):
            ux, uy = x - DX[k], y - DY[k]
            if not (0 <= ux < width and 0 <= uy < height):
                continue
            ur = region_slot[(uy // cs) * tiles_x + ux // cs]
            ulocal = (uy % cs) * cs + ux % cs
            if ur < 0 or not allowed_at[ur, ulocal] >> k & 1:
                continue
            cand = d + _step_length(k, cw, ch, diag) * weights[node]
            if cand < cost[ur, ulocal] * (1.0 - SLACK) and cand < bound[ur, ulocal]:
                bound[ur, ulocal] = cand
                source[ur, ulocal] = source[r, local]
                keys, items, size = heap_push(keys, items, size, cand, ur * block + ulocal)
    violated = np.zeros(n_reg, dtype=np.bool_)
    for r in range(n_reg):
        violated[r] = (source[r] >= 0).any()
    found = source.ravel()
    return np.unique(found[found >= 0]), violated


@jit
def tainted_tiles(
    dirs: npt.NDArray[np.uint8],
    tiles: npt.NDArray[np.int64],
    known_slot: npt.NDArray[np.int32],
    width: int,
    height: int,
    cs: int,
    tiles_x: int,
    taint: npt.NDArray[np.int64],
) -> npt.NDArray[np.bool_]:
    """Per known tile (``tiles[i]`` stored in row ``known_slot[tiles[i]]`` of ``dirs``): whether a
    cell's chain of directions passes through a cell of the sorted ``taint`` ids (the cells around
    a change that got dearer: a chain that avoids them keeps its cost, so its cell keeps its value).
    Each cell is walked once: states 0 unseen, 1 clean, 2 tainted."""
    block = cs * cs
    state = np.zeros((dirs.shape[0], block), dtype=np.uint8)
    out = np.zeros(tiles.shape[0], dtype=np.bool_)
    stack = np.empty(64, dtype=np.int64)
    for i in range(tiles.shape[0]):
        t = tiles[i]
        s = known_slot[t]
        x0, y0 = (t % tiles_x) * cs, (t // tiles_x) * cs
        for local in range(block):
            x, y = x0 + local % cs, y0 + local // cs
            if x >= width or y >= height:
                continue
            if state[s, local] != 0:
                out[i] = out[i] or state[s, local] == 2
                continue
            depth = 0
            cx, cy, cslot, clocal = x, y, s, local
            verdict = 1
            while True:
                if _is_goal(taint, cy * width + cx):
                    verdict = 2
                    break
                if cslot < 0:  # a goal in an unknown tile ends the chain
                    break
                seen = state[cslot, clocal]
                if seen != 0:
                    verdict = seen
                    break
                if depth == stack.shape[0]:
                    bigger = np.empty(2 * depth, dtype=np.int64)
                    bigger[:depth] = stack
                    stack = bigger
                stack[depth] = cslot * block + clocal
                depth += 1
                k = dirs[cslot, clocal]
                if k >= 8:
                    break
                cx, cy = cx + DX[k], cy + DY[k]
                cslot = known_slot[(cy // cs) * tiles_x + cx // cs]
                clocal = (cy % cs) * cs + cx % cs
            for j in range(depth):
                state[stack[j] // block, stack[j] % block] = verdict
            if state[s, local] == 2:
                out[i] = True
    return out


@jit
def follow_cost(
    dirs: npt.NDArray[np.uint8],
    known_slot: npt.NDArray[np.int32],
    weights: npt.NDArray[np.float64],
    width: int,
    cs: int,
    tiles_x: int,
    cw: float,
    ch: float,
    start: int,
    max_steps: int,
) -> tuple[float, int, int]:
    """Walk the field from ``start`` adding each step's cost. Returns ``(cost, end cell, code)``:
    code is the last direction byte (``GOAL``...), or ``-1`` when the walk left the known tiles
    or took ``max_steps``."""
    diag = math.hypot(cw, ch)
    x, y = start % width, start // width
    total = 0.0
    for _ in range(max_steps):
        slot = known_slot[(y // cs) * tiles_x + x // cs]
        if slot < 0:
            return total, y * width + x, -1
        k = dirs[slot, (y % cs) * cs + x % cs]
        if k >= 8:
            return total, y * width + x, int(k)
        x, y = x + DX[k], y + DY[k]
        total += _step_length(k, cw, ch, diag) * weights[y * width + x]
    return total, y * width + x, -1


@jit
def line_of_sight(
    walk: npt.NDArray[np.uint8],
    occ: npt.NDArray[np.int32],
    agents: bool,
    diagonal: int,
    width: int,
    height: int,
    ax: int,
    ay: int,
    bx: int,
    by: int,
) -> bool:
    """Whether the segment between the centres of two cells crosses only open cells, each step
    between the cells it touches being a move the diagonal rule allows (a corner crossed exactly
    is a diagonal move: ``never`` and ``only_if_no_obstacles`` want both side cells open,
    ``at_least_one_walkable`` one, ``always`` none)."""
    if not _open(walk, occ, agents, ay * width + ax) or not _open(walk, occ, agents, by * width + bx):
        return False
    dx, dy = abs(bx - ax), abs(by - ay)
    sx = 1 if bx > ax else -1
    sy = 1 if by > ay else -1
    x, y = ax, ay
    # supercover walk: compare the crossings of the next vertical and horizontal cell edges
    # (in units of 2 * dx * dy to stay in integers)
    err = dx - dy
    for _ in range(dx + dy):
        if err > 0:
            x += sx
            err -= 2 * dy
        elif err < 0:
            y += sy
            err += 2 * dx
        else:  # through a corner: a diagonal step between the two side cells
            side_a = _open(walk, occ, agents, y * width + x + sx)
            side_b = _open(walk, occ, agents, (y + sy) * width + x)
            if diagonal == DIAG_AT_LEAST_ONE_WALKABLE:
                if not (side_a or side_b):
                    return False
            elif diagonal != DIAG_ALWAYS and not (side_a and side_b):
                return False
            x += sx
            y += sy
            err += 2 * dx - 2 * dy
        if not _open(walk, occ, agents, y * width + x):
            return False
        if x == bx and y == by:
            return True
    return x == bx and y == by
