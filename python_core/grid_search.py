"""A* over a grid held in flat arrays: the kernel behind :meth:`GridGraph.find_path`.

Quick start (most callers use ``GridGraph.find_path`` instead)::

    from python_core.grid_search import DIAG_ALWAYS, run_grid_search
    r = run_grid_search(b"\\x01" * 9, [1.0] * 9, width=3, height=3, start=0, goal=8, diagonal=DIAG_ALWAYS)
    assert r.found and r.nodes.tolist() == [0, 4, 8]

Cells are flat node ids ``y * width + x``. The kernel :func:`astar_grid` touches only numbers and
flat buffers plus one ``heapq`` list of homogeneous tuples, so ``numba.njit`` can compile it unchanged
(then pass numpy arrays). In pure Python we pass ``bytearray``/``list`` buffers: element access on
them is 3-5 times faster than on ndarrays, which return boxed numpy scalars.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import MutableSequence, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from python_core.compiled import jit
from python_core.errors import InvalidGraphError, InvalidQueryError, OutOfBoundsError
from python_core.heuristics import HEURISTIC_CODES, grid_estimate
from python_core.result import PathResult, PathStatus, QueryOptions

__all__ = [
    "DIAG_ALWAYS",
    "DIAG_AT_LEAST_ONE_WALKABLE",
    "DIAG_NEVER",
    "DIAG_ONLY_IF_NO_OBSTACLES",
    "SEARCH_BUDGET",
    "SEARCH_FOUND",
    "SEARCH_NO_PATH",
    "Cell",
    "as_cell",
    "as_cells",
    "astar_grid",
    "check_agent_id",
    "check_options",
    "parse_pair",
    "run_grid_search",
    "step_offset",
    "walk_parents",
    "world_points",
]

Cell = tuple[int, int]
"""A grid cell ``(x, y)``: x is the column, y the row."""

# Diagonal rules, as integers for the kernel (GridGraph's DiagonalMode maps onto them).
DIAG_NEVER = 0
DIAG_ALWAYS = 1
DIAG_AT_LEAST_ONE_WALKABLE = 2
DIAG_ONLY_IF_NO_OBSTACLES = 3

# Kernel outcomes.
SEARCH_FOUND = 0
SEARCH_NO_PATH = 1
SEARCH_BUDGET = 2

_EUCLIDEAN = HEURISTIC_CODES["euclidean"]
_ZERO = HEURISTIC_CODES["zero"]
_INVERT = bytes([1]) + bytes(255)  # byte table: 0 -> 1 (blocked), anything else -> 0 (open)


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


NOT_A_STEP = 2
"""What :func:`step_offset` returns when two cells are not neighbours (a real offset is -1..1)."""


@jit
def step_offset(d: int, x: int, width: int) -> tuple[int, int]:
    """``(sx, sy)`` of the step between two cells ``d = b - a`` apart, ``a`` in column ``x``, or
    ``(NOT_A_STEP, NOT_A_STEP)`` when ``b`` is not one of ``a``'s eight neighbours: a path's cells
    decoded without a division. Unique when ``width >= 3``; narrower grids read ``NOT_A_STEP``.

    Example:
        >>> step_offset(5, 1, 4), step_offset(-1, 0, 4), step_offset(9, 1, 4)
        ((1, 1), (2, 2), (2, 2))
    """
    if width < 3:
        return NOT_A_STEP, NOT_A_STEP
    sy = 1 if d > 1 else (-1 if d < -1 else 0)
    sx = d - sy * width
    if -1 <= sx <= 1 and 0 <= x + sx < width:
        return sx, sy
    return NOT_A_STEP, NOT_A_STEP


@jit
def world_points(  # noqa: PLR0917 (compiled kernel: positional)
    nodes: npt.NDArray[np.int64], width: int, ox: float, oy: float, cw: float, ch: float
) -> npt.NDArray[np.float64]:
    """World points of flat cells ``origin + (x, y) * cell_size`` (one compiled pass:
    numpy's half dozen small ops cost more).

    A cell one step from the one before (a path) is placed by its offset, without dividing by
    ``width`` (a 474-cell brc202d path: 2.1 -> 1.5 us in a compiled loop, scratch).

    Example:
        >>> world_points(np.array([0, 5]), 4, 10.0, 0.0, 2.0, 1.0).tolist()
        [[10.0, 0.0], [12.0, 1.0]]
    """
    out = np.empty((nodes.shape[0], 2))
    x = y = 0
    for i in range(nodes.shape[0]):
        sx, sy = step_offset(nodes[i] - nodes[i - 1], x, width) if i > 0 else (NOT_A_STEP, NOT_A_STEP)
        if sx == NOT_A_STEP:
            x, y = nodes[i] % width, nodes[i] // width
        else:
            x, y = x + sx, y + sy
        out[i, 0] = ox + x * cw
        out[i, 1] = oy + y * ch
    return out


# -- input validation shared by GridGraph's methods ----------------------------------------------


def _integral(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise InvalidQueryError(f"{what} must be an integer, got {value!r}")
    if not math.isfinite(value) or value != math.floor(value):
        raise InvalidQueryError(f"{what} must be a finite integer, got {value!r}")
    return int(value)


def as_cell(cell: Any, width: int, height: int, *, what: str = "cell") -> Cell:
    """Validate one ``(x, y)`` cell: two integral numbers (``3.0`` is accepted) inside the grid.

    Args:
        cell: the candidate.
        width: columns.
        height: rows.
        what: its name in error messages (``"start"``, ``"goal"``...).

    Returns:
        ``(x, y)`` as Python ints.

    Raises:
        InvalidQueryError: not a pair, or a coordinate that is not a finite integer.
        OutOfBoundsError: outside ``[0, width) x [0, height)``.

    Example:
        >>> as_cell((2.0, 1), 3, 3)
        (2, 1)
        >>> as_cell((3, 0), 3, 3, what="goal")
        Traceback (most recent call last):
        ...
        python_core.errors.OutOfBoundsError: goal (3, 0) is outside the 3 x 3 grid
    """
    if type(cell) is tuple and len(cell) == 2:  # the common case, checked in a fraction of the time
        x, y = cell
        if type(x) is int and type(y) is int and 0 <= x < width and 0 <= y < height:
            return x, y
    if isinstance(cell, str | bytes) or not isinstance(cell, Sequence | np.ndarray) or len(cell) != 2:
        raise InvalidQueryError(f"{what} must be an (x, y) pair, got {cell!r}")
    x, y = _integral(cell[0], what), _integral(cell[1], what)
    if not (0 <= x < width and 0 <= y < height):
        raise OutOfBoundsError(f"{what} {(x, y)} is outside the {width} x {height} grid")
    return x, y


def as_cells(cells: npt.ArrayLike, width: int, height: int) -> npt.NDArray[np.int64]:
    """Validate one cell or an ``(n, 2)`` array of cells; return their flat node ids.

    Raises:
        InvalidQueryError: wrong shape, or non-integral / non-finite coordinates.
        OutOfBoundsError: a cell outside the grid (names the first one).

    Example:
        >>> as_cells([(0, 0), (1, 2)], 2, 3).tolist(), as_cells((1, 0), 2, 3).tolist()
        ([0, 5], [1])
    """
    try:
        array = np.asarray(cells)
    except (TypeError, ValueError) as exc:
        raise InvalidQueryError(f"cells must be (x, y) pairs: {exc}") from exc
    if array.size == 0:
        return np.zeros(0, dtype=np.int64)
    array = array.reshape(1, 2) if array.shape == (2,) else array
    numeric = np.issubdtype(array.dtype, np.integer) or np.issubdtype(array.dtype, np.floating)
    if array.ndim != 2 or array.shape[1] != 2 or not numeric:
        raise InvalidQueryError(f"cells must be (x, y) pairs, got shape {array.shape} of {array.dtype}")
    if not (np.isfinite(array).all() and (array == np.floor(array)).all()):
        raise InvalidQueryError(f"cells must be finite integers, got {array.tolist()!r:.80}")
    xs, ys = array[:, 0].astype(np.int64), array[:, 1].astype(np.int64)
    outside = (xs < 0) | (xs >= width) | (ys < 0) | (ys >= height)
    if outside.any():
        i = int(np.argmax(outside))
        raise OutOfBoundsError(f"cell {(int(xs[i]), int(ys[i]))} is outside the {width} x {height} grid")
    return ys * width + xs


def parse_pair(
    what: str, value: Any, *, positive: bool, error: type[Exception] = InvalidGraphError
) -> tuple[float, float]:
    """Validate two finite floats (``positive``: also ``> 0``), such as a cell size or an origin.

    Example:
        >>> parse_pair("origin", [1, 2], positive=False)
        (1.0, 2.0)
    """
    try:
        x, y = (float(v) for v in value)
    except (TypeError, ValueError):
        raise error(f"{what} must be two numbers, got {value!r}") from None
    if not (math.isfinite(x) and math.isfinite(y)) or (positive and (x <= 0 or y <= 0)):
        raise error(f"{what} must be finite{' and positive' if positive else ''}, got {(x, y)}")
    return x, y


def check_agent_id(agent_id: Any) -> None:
    """Raise :class:`InvalidQueryError` unless ``agent_id`` is an int (bools are not ids)."""
    if isinstance(agent_id, bool) or not isinstance(agent_id, int | np.integer):
        raise InvalidQueryError(f"agent id must be an integer, got {agent_id!r}")


def check_options(options: Any) -> None:
    """Raise :class:`InvalidQueryError` for malformed :class:`QueryOptions` fields.

    Example:
        >>> check_options(QueryOptions(max_expansions=-1))
        Traceback (most recent call last):
        ...
        python_core.errors.InvalidQueryError: max_expansions must be an integer >= 0 or None, got -1
    """
    if not isinstance(options, QueryOptions):
        raise InvalidQueryError(f"options must be QueryOptions, got {type(options).__name__}")
    budget = options.max_expansions
    if budget is not None and (isinstance(budget, bool) or not isinstance(budget, int) or budget < 0):
        raise InvalidQueryError(f"max_expansions must be an integer >= 0 or None, got {budget!r}")
    if options.agent is not None:
        check_agent_id(options.agent)
