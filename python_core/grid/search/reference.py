"""The reference A* on grids: plain Python, written to be read, and the oracle the fast search is tested on.

Quick start::

    from python_core.grid import GridGraph
    from python_core.grid.search import reference
    grid = GridGraph.from_strings(["...", ".@.", "..."])
    assert reference.find_path(grid, (0, 0), (2, 2)).cost == grid.find_path((0, 0), (2, 2)).cost

:meth:`GridGraph.find_path <python_core.grid.GridGraph.find_path>` is the door to use: it runs the
compiled kernels of :mod:`python_core.grid.search.dispatch`, which never call back into this module.
This one states the contract (the same validation, errors, statuses and optimal costs) in the
plainest code: :func:`astar_grid` touches only numbers and flat buffers plus one ``heapq`` list of
homogeneous tuples. In pure Python we pass ``bytearray``/``list`` buffers: element access on them
is 3-5 times faster than on ndarrays, which return boxed numpy scalars. Cells are flat node ids
``y * width + x``.
"""

from __future__ import annotations

import heapq
import math
import weakref
from collections.abc import MutableSequence, Sequence
from typing import TYPE_CHECKING

import numpy as np

from python_core._types import (
    DIAG_ALWAYS,
    DIAG_CODES,
    DIAG_NEVER,
    DIAG_ONLY_IF_NO_OBSTACLES,
    SEARCH_BUDGET,
    SEARCH_FOUND,
    SEARCH_NO_PATH,
    DiagonalMode,
)
from python_core.errors import BlockedEndpointError, UnknownPointError
from python_core.grid.cells import as_cell, check_options, world_points
from python_core.grid.clearance import blocked_start, unit_size
from python_core.grid.search.heuristics import HEURISTIC_CODES, grid_estimate, resolve_heuristic
from python_core.result import PathResult, PathStatus, QueryOptions

if TYPE_CHECKING:
    from python_core.grid.graph import GridGraph

__all__ = ["astar_grid", "find_path", "run_grid_search", "walk_parents"]

_EUCLIDEAN = HEURISTIC_CODES["euclidean"]
_ZERO = HEURISTIC_CODES["zero"]
_INVERT = bytes([1]) + bytes(255)  # byte table: 0 -> 1 (blocked), anything else -> 0 (open)


def find_path(
    grid: GridGraph, start: Sequence[int], goal: Sequence[int], *, options: QueryOptions | None = None
) -> PathResult:
    """Shortest path between two cells by the reference A*, with the contract of
    :meth:`GridGraph.find_path <python_core.grid.GridGraph.find_path>` (the same arguments, errors,
    statuses and costs; ``expanded`` counts every expanded cell).

    Raises:
        InvalidQueryError: malformed cells, bad options or an unknown heuristic.
        OutOfBoundsError: start or goal outside the grid.
        BlockedEndpointError: the start is a wall (or has no room for the unit's footprint).
        UnknownPointError: ``options.agent`` is not placed.

    Example:
        >>> from python_core.grid import GridGraph
        >>> g = GridGraph.from_strings([".@.", "..."], diagonal="never")
        >>> r = find_path(g, (0, 0), (2, 0)); r.status.value, r.cost, r.nodes.tolist()
        ('found', 4.0, [0, 3, 4, 5, 2])
        >>> find_path(g, (0, 0), (1, 0)).status.value  # a wall as the goal is no path, not an error
        'no_path'
    """
    opts = options if options is not None else QueryOptions()
    check_options(opts)
    size = unit_size(opts, grid.cell_size)
    name = resolve_heuristic(opts.heuristic, eight_connected=grid.diagonal is not DiagonalMode.NEVER)
    if opts.agent is not None and opts.agent not in grid.agents:
        raise UnknownPointError(f"no agent with id {opts.agent}")
    sx, sy = as_cell(start, grid.width, grid.height, what="start")
    gx, gy = as_cell(goal, grid.width, grid.height, what="goal")
    s, g = sy * grid.width + sx, gy * grid.width + gx
    walls, weights, min_weight = _buffers(grid, size)
    if not walls[s]:
        raise BlockedEndpointError(blocked_start((sx, sy), size))
    passable = _with_agents(grid, walls, opts, size)
    if s != g and not passable[g] and not opts.allow_partial:
        return PathResult(PathStatus.NO_PATH)
    shift = (size - 1) / 2.0  # points at the footprints' centres
    (cw, ch), (ox, oy) = grid.cell_size, grid.origin
    origin = (ox + shift * cw, oy + shift * ch)
    return run_grid_search(
        passable, weights, width=grid.width, height=grid.height, start=s, goal=g,
        diagonal=DIAG_CODES[grid.diagonal], cell_size=grid.cell_size, origin=origin,
        heuristic=HEURISTIC_CODES[name], h_scale=min_weight,
        allow_partial=opts.allow_partial, max_expansions=opts.max_expansions,
    )  # fmt: skip


_BUFFERS: weakref.WeakKeyDictionary[GridGraph, dict[int, tuple[int, bytearray, list[float], float]]] = (
    weakref.WeakKeyDictionary()
)


def _buffers(grid: GridGraph, size: int) -> tuple[bytearray, list[float], float]:
    """Where a unit of ``size`` may stand as bytes, the weights it enters anchors with as floats
    and the smallest open weight, rebuilt when :attr:`GridGraph.version` changes (walls and
    weights, not agents). Size 1: the walls and weights. Size k: an anchor is open when all k x k
    cells of its footprint are walkable and inside the grid; its weight is their highest."""
    per_size = _BUFFERS.setdefault(grid, {})
    cached = per_size.get(size)
    if cached is None or cached[0] != grid.version:
        walkable = grid.walkable
        open_weights = grid.weights[walkable]
        min_weight = float(open_weights.min()) if open_weights.size else 1.0
        open_anchors, weights = walkable, grid.weights
        if size > 1:  # the plainest erosion: every k x k window, cells past the edge closed
            pad = ((0, size - 1), (0, size - 1))
            windows = np.lib.stride_tricks.sliding_window_view(np.pad(walkable, pad), (size, size))
            open_anchors = np.asarray(windows.all(axis=(2, 3)), dtype=np.bool_)
            weights = np.lib.stride_tricks.sliding_window_view(np.pad(weights, pad), (size, size)).max(
                axis=(2, 3)
            )
        walls = bytearray(np.ascontiguousarray(open_anchors, dtype=np.uint8).tobytes())
        cached = (grid.version, walls, weights.ravel().tolist(), min_weight)
        per_size[size] = cached
    return cached[1], cached[2], cached[3]


def _with_agents(grid: GridGraph, walls: bytearray, opts: QueryOptions, size: int) -> bytearray:
    """The walls plus every anchor where a unit of ``size`` would overlap another agent's
    footprint (the querying agent never blocks itself)."""
    agents = grid.agents
    if opts.ignore_agents or not agents:
        return walls
    passable = bytearray(walls)
    for agent, (ax, ay) in agents.items():
        if agent == opts.agent:
            continue
        a = grid.agent_sizes[agent]
        for y in range(max(0, ay - size + 1), min(grid.height, ay + a)):
            for x in range(max(0, ax - size + 1), min(grid.width, ax + a)):
                passable[y * grid.width + x] = 0
    return passable


def astar_grid(  # noqa: PLR0917 (positional only: numba.njit compiles it, keywords would not)
    passable: Sequence[int],
    weights: Sequence[float],
    width: int,
    height: int,
    start: int,
    goal: int,
    diagonal: int,
    cell_w: float,
    cell_h: float,
    heuristic: int,
    h_scale: float,
    max_expansions: int,
    closest_code: int,
    g_score: MutableSequence[float],
    parent: MutableSequence[int],
    closed: MutableSequence[int],
) -> tuple[int, int, int]:
    """A* from ``start`` to ``goal``: f = g + h, binary heap, closed set, parent pointers.

    Entering cell ``n`` costs ``step_length * weights[n]``; a cell can be entered iff
    ``passable[n]`` is nonzero (the start is never entered, so it need not be passable).
    ``g_score`` must come filled with ``inf``, ``parent`` with ``-1``, and ``closed`` with
    ``1 - passable`` (see :func:`run_grid_search`): then one lookup rejects both walls and
    expanded nodes; the kernel marks each expanded node.

    Args:
        passable: 1 per enterable cell, 0 per blocked one (walls and occupied cells).
        weights: per-cell weight, finite and ``>= 0``.
        width: columns.
        height: rows.
        start: start node.
        goal: goal node.
        diagonal: one of the ``DIAG_*`` constants.
        cell_w: cell width (world units); straight x steps cost ``cell_w``.
        cell_h: cell height; diagonal steps cost ``hypot(cell_w, cell_h)``.
        heuristic: a ``HEURISTIC_CODES`` value.
        h_scale: multiplier of the heuristic (the smallest weight, for admissibility).
        max_expansions: expansion budget, ``-1`` for none.
        closest_code: heuristic code that ranks closed nodes by closeness to the goal (for partial
            paths), ``-1`` not to track them.
        g_score: out: best known cost per node.
        parent: out: predecessor per node.
        closed: in: 1 per cell that cannot be entered; out: also 1 per expanded node.

    Returns:
        ``(outcome, end, expanded)``: a ``SEARCH_*`` outcome; the goal when found, else the closed
        node closest to the goal (ties: smaller g; the start when not tracked); expansions.

    Example:
        >>> g, p, c = [math.inf] * 3, [-1] * 3, bytearray(b"\\x00\\x01\\x00")
        >>> astar_grid(b"\\x01\\x00\\x01", [1.0] * 3, 3, 1, 0, 2, 1, 1.0, 1.0, 1, 1.0, -1, -1, g, p, c)
        (1, 0, 1)
    """
    diag_len = math.hypot(cell_w, cell_h)
    # (dx, dy, step length); the diagonals come last so DIAG_NEVER just stops after four.
    moves: tuple[tuple[int, int, float], ...] = (
        (1, 0, cell_w),
        (-1, 0, cell_w),
        (0, 1, cell_h),
        (0, -1, cell_h),
    )
    moves += ((1, 1, diag_len), (-1, 1, diag_len), (1, -1, diag_len), (-1, -1, diag_len))
    n_moves = 4 if diagonal == DIAG_NEVER else 8
    gx, gy = goal % width, goal // width
    sx, sy = start % width, start // width
    g_score[start] = 0.0
    closed[start] = 0  # the start may hold an agent; it is left, never entered
    f0 = grid_estimate(heuristic, abs(gx - sx), abs(gy - sy), cell_w, cell_h, h_scale)
    # Heap entries are (f, -g, counter, node): among equal f the larger g (deeper node) pops
    # first, then the earlier push; the counter makes the order total, hence deterministic.
    heap = [(f0, -0.0, 0, start)]
    counter = 1
    expanded = 0
    best, best_h, best_g = start, math.inf, math.inf
    while heap:
        entry = heapq.heappop(heap)
        node = entry[3]
        if closed[node]:
            continue  # stale entry: a cheaper copy was expanded already (lazy deletion)
        if expanded == max_expansions:
            return SEARCH_BUDGET, best, expanded
        closed[node] = 1
        expanded += 1
        x, y = node % width, node // width
        g = g_score[node]
        if closest_code >= 0:
            h_best = grid_estimate(closest_code, abs(gx - x), abs(gy - y), cell_w, cell_h, 1.0)
            if h_best < best_h or (h_best == best_h and g < best_g):
                best, best_h, best_g = node, h_best, g
        if node == goal:
            return SEARCH_FOUND, goal, expanded
        for k in range(n_moves):
            dx, dy, length = moves[k]
            nx, ny = x + dx, y + dy
            if nx < 0 or ny < 0 or nx >= width or ny >= height:
                continue
            nbr = ny * width + nx
            if closed[nbr]:
                continue  # a wall, an occupied cell or an expanded node
            if k >= 4 and diagonal != DIAG_ALWAYS:
                # The two orthogonal cells the diagonal squeezes between (Godot's rule).
                side_x, side_y = passable[y * width + nx], passable[ny * width + x]
                both = diagonal == DIAG_ONLY_IF_NO_OBSTACLES
                if not ((side_x and side_y) if both else (side_x or side_y)):
                    continue
            ng = g + length * weights[nbr]
            if ng < g_score[nbr]:
                g_score[nbr] = ng
                parent[nbr] = node
                h = grid_estimate(heuristic, abs(gx - nx), abs(gy - ny), cell_w, cell_h, h_scale)
                heapq.heappush(heap, (ng + h, -ng, counter, nbr))
                counter += 1
    return SEARCH_NO_PATH, best, expanded


def walk_parents(parent: Sequence[int], end: int) -> list[int]:
    """Follow parent pointers from ``end`` back to the root; return the nodes root first.

    Args:
        parent: predecessor per node, ``-1`` at the root.
        end: the last node of the path.

    Returns:
        The node ids from the root to ``end``.

    Example:
        >>> walk_parents([-1, 0, 1], 2), walk_parents([-1], 0)
        ([0, 1, 2], [0])
    """
    nodes = [end]
    while parent[nodes[-1]] >= 0:
        nodes.append(parent[nodes[-1]])
    nodes.reverse()
    return nodes


def run_grid_search(
    passable: Sequence[int],
    weights: Sequence[float],
    *,
    width: int,
    height: int,
    start: int,
    goal: int,
    diagonal: int,
    cell_size: tuple[float, float] = (1.0, 1.0),
    origin: tuple[float, float] = (0.0, 0.0),
    heuristic: int = HEURISTIC_CODES["octile"],
    h_scale: float = 1.0,
    allow_partial: bool = False,
    max_expansions: int | None = None,
) -> PathResult:
    """Run :func:`astar_grid` on already validated input and package a :class:`PathResult`.

    Args:
        passable: 1 per enterable cell (see :func:`astar_grid`).
        weights: per-cell weights.
        width: columns.
        height: rows.
        start: start node (``start == goal`` gives a one-point path of cost 0).
        goal: goal node.
        diagonal: a ``DIAG_*`` constant.
        cell_size: ``(w, h)`` of a cell in world units.
        origin: world position of cell (0, 0).
        heuristic: a ``HEURISTIC_CODES`` value.
        h_scale: heuristic multiplier (minimum weight).
        allow_partial: on failure return the path to the closed node closest to the goal (by the
            query heuristic, or Euclidean for ``zero``; ties: smaller g).
        max_expansions: expansion budget or None.

    Returns:
        The result; ``points`` are ``origin + (x, y) * cell_size``.

    Example:
        >>> r = run_grid_search(b"\\x01\\x00\\x01", [1.0] * 3, width=3, height=1, start=0, goal=2, diagonal=0)
        >>> r.status.value
        'no_path'
    """
    if start == goal:
        return _package(PathStatus.FOUND, [start], 0.0, 0, width=width, cell_size=cell_size, origin=origin)
    n = width * height
    g_score, parent = [math.inf] * n, [-1] * n
    closed = bytearray(passable).translate(_INVERT) if isinstance(passable, bytes | bytearray) else None
    if closed is None:
        closed = bytearray(0 if p else 1 for p in passable)
    closest = (_EUCLIDEAN if heuristic == _ZERO else heuristic) if allow_partial else -1
    budget = -1 if max_expansions is None else max_expansions
    outcome, end, expanded = astar_grid(
        passable, weights, width, height, start, goal, diagonal, cell_size[0], cell_size[1],
        heuristic, h_scale, budget, closest, g_score, parent, closed,
    )  # fmt: skip
    if outcome == SEARCH_FOUND:
        status = PathStatus.FOUND
    elif outcome == SEARCH_BUDGET:
        status = PathStatus.BUDGET_EXHAUSTED
    else:
        status = PathStatus.PARTIAL if allow_partial else PathStatus.NO_PATH
    if outcome != SEARCH_FOUND and not allow_partial:
        return PathResult(status, expanded=expanded)
    nodes = walk_parents(parent, end)
    return _package(status, nodes, g_score[end], expanded, width=width, cell_size=cell_size, origin=origin)


def _package(
    status: PathStatus,
    nodes: list[int],
    cost: float,
    expanded: int,
    *,
    width: int,
    cell_size: tuple[float, float],
    origin: tuple[float, float],
) -> PathResult:
    ids = np.asarray(nodes, dtype=np.int64)
    points = world_points(
        ids, width, float(origin[0]), float(origin[1]), float(cell_size[0]), float(cell_size[1])
    )
    return PathResult(status, points=points, nodes=ids, cost=float(cost), expanded=expanded)
