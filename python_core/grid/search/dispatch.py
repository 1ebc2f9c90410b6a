"""The fast exact grid search: compiled A* or Jump Point Search, chosen per grid and query.

Quick start (:meth:`GridGraph.find_path <python_core.grid.GridGraph.find_path>` calls this)::

    from python_core.grid import GridGraph
    from python_core.grid.search import dispatch
    grid = GridGraph.from_movingai("tests/data/movingai/arena.map")
    result = dispatch.find_path(grid, (1, 3), (40, 40))   # the same as grid.find_path((1, 3), (40, 40))
    results = dispatch.find_many(grid, [(1, 3), (2, 3)], [(40, 40), (5, 5)])

Same inputs, same validation, same errors and the same optimal cost as the plain reference
:func:`python_core.grid.search.reference.find_path`, which this module never calls. ``method="auto"``
picks Jump Point Search when it is exact and applies: every walkable cell has the same positive
weight, the diagonal mode is ``only_if_no_obstacles`` (the Moving AI rule), the heuristic is octile
(the default), no partial path is asked for and, on grids of 128 x 128 cells or more, probe
searches found it faster than A* on this map (:mod:`.method_choice`: on random-like maps JPS
prunes too little to pay for its scans); otherwise the compiled A* (weights, every diagonal
mode, every heuristic, partial paths and budgets, exactly as the reference). With JPS, ``expanded``
counts jump points. The padded copy of the grid is built on the first query and rebuilt when
:attr:`GridGraph.version` changes; agents are applied per query in O(agents).

Threads: any number may query one grid at once (changes to it wait for them: the caller's
readers-writer lock). The padded copy is shared and never written by a query; each running query
takes a search workspace from the grid's pool and gives it back, so there are as many workspaces as
queries ever ran at the same time, and a query with agents to block closes their cells in its
workspace's private copy of the walls, never in the shared one.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np
import numpy.typing as npt

from python_core._types import DIAG_CODES, F64, I32, I64, SEARCH_BUDGET, SEARCH_FOUND, U8, DiagonalMode
from python_core.errors import BlockedEndpointError, InvalidQueryError, UnknownPointError
from python_core.grid.cells import as_cell, check_options, world_points
from python_core.grid.search.astar import astar_padded, pad_cells, path_from_parents
from python_core.grid.search.grid_view import GridView
from python_core.grid.search.heuristics import HEURISTIC_CODES, resolve_heuristic
from python_core.grid.search.jps import jps_padded
from python_core.grid.search.method_choice import prefers_jps
from python_core.result import PathResult, PathStatus, QueryOptions

__all__ = ["METHODS", "Method", "choose_method", "find_many", "find_path", "prepare", "workspace_bytes"]

Method = Literal["auto", "astar", "jps"]
METHODS: tuple[Method, ...] = ("auto", "astar", "jps")
"""``auto`` (the dispatch), ``astar`` (compiled A*), ``jps``; the reference A* is
:func:`python_core.grid.search.reference.find_path`, called by name."""

_EUCLIDEAN, _ZERO = HEURISTIC_CODES["euclidean"], HEURISTIC_CODES["zero"]
_TAG_LIMIT = 2**31 - 4
_NONE = np.zeros(0, dtype=np.int64)


@dataclass(slots=True, eq=False)
class _Workspace:
    """What one running query writes: the search arrays, one slot per padded node, and (made on
    the first query that blocks agents) a private copy of the walls to block them in."""

    g: F64
    parent: I32
    stamp: I32
    pos: I32
    heap_nodes: I32
    heap_keys: F64
    passable: U8 | None = None  # equal to the shared walls between queries (agents put back)
    tag: int = 0

    def next_tag(self) -> int:
        """A fresh even stamp for one query (clears the stamps once every ~10^9 queries)."""
        self.tag += 2
        if self.tag >= _TAG_LIMIT:
            self.stamp.fill(0)
            self.tag = 2
        return self.tag

    def nbytes(self) -> int:
        """Bytes of its arrays (for :func:`workspace_bytes`)."""
        own = 0 if self.passable is None else int(self.passable.nbytes)
        arrays = (self.g, self.parent, self.stamp, self.pos, self.heap_nodes, self.heap_keys)
        return own + sum(int(a.nbytes) for a in arrays)


@dataclass(slots=True, eq=False)
class _Prepared:
    """A padded copy of one grid's walls and weights (read-only once built) plus the pool of
    search workspaces that queries take and give back."""

    version: int
    stride: int
    passable: U8
    weights: F64  # padded, or one unused slot when the weight is uniform
    uniform_weight: float  # the common weight, or -1.0 when weights differ
    min_weight: float
    spare: list[_Workspace] = field(default_factory=list)

    def take(self) -> _Workspace:
        """An idle workspace, or a new one when every one is in use (list.pop is atomic)."""
        try:
            return self.spare.pop()
        except IndexError:
            n = self.passable.shape[0]
            # np.empty / np.zeros pages are only made resident when a search touches them.
            return _Workspace(
                g=np.empty(n, dtype=np.float64), parent=np.empty(n, dtype=np.int32),
                stamp=np.zeros(n, dtype=np.int32), pos=np.empty(n, dtype=np.int32),
                heap_nodes=np.empty(n, dtype=np.int32), heap_keys=np.empty(n, dtype=np.float64),
            )  # fmt: skip

    def give(self, work: _Workspace) -> None:
        """Return a workspace after its query."""
        self.spare.append(work)


_PREPARED: weakref.WeakKeyDictionary[GridView, _Prepared] = weakref.WeakKeyDictionary()
_PREPARING = threading.Lock()  # one thread builds a grid's padded copy; the others wait for it


def _prepare(grid: GridView) -> _Prepared:
    """The cached :class:`_Prepared` of ``grid``, rebuilt when its walls or weights changed."""
    cached = _PREPARED.get(grid)
    if cached is not None and cached.version == grid.version:
        return cached
    with _PREPARING:
        cached = _PREPARED.get(grid)
        if cached is None or cached.version != grid.version:
            cached = _PREPARED[grid] = _padded(grid)
        return cached


def _padded(grid: GridView) -> _Prepared:
    walkable = grid.walkable
    open_weights = grid.weights[walkable]
    low = float(open_weights.min()) if open_weights.size else 1.0
    high = float(open_weights.max()) if open_weights.size else 1.0
    uniform = low == high
    if uniform:
        weights = np.zeros(1, dtype=np.float64)
    else:
        weights = np.zeros((grid.height + 2, grid.width + 2), dtype=np.float64)
        weights[1:-1, 1:-1] = grid.weights
        weights = weights.ravel()
    return _Prepared(
        version=grid.version, stride=grid.width + 2, passable=pad_cells(walkable.view(np.uint8)),
        weights=weights, uniform_weight=low if uniform else -1.0, min_weight=low,
    )  # fmt: skip


def prepare(grid: GridView) -> None:
    """Build now what ``grid``'s first search would: the padded copy of its walls and weights and
    one workspace (a server calls this on the load's thread, not in a query's turn)."""
    p = _prepare(grid)
    p.give(p.take())


def workspace_bytes(grid: GridView) -> int:
    """Bytes of the padded copy and the idle workspaces kept for ``grid`` (one at least: one per
    query that ran while others did; virtual size, pages fill on use)."""
    prepare(grid)
    p = _prepare(grid)
    return int(p.passable.nbytes + p.weights.nbytes) + sum(work.nbytes() for work in list(p.spare))


def choose_method(grid: GridView, options: QueryOptions | None = None) -> Method:
    """The kernel ``method="auto"`` runs for this grid and these options: ``"jps"`` or ``"astar"``.

    Example:
        >>> from python_core.grid import GridGraph
        >>> g = GridGraph(np.ones((3, 3), bool), diagonal="only_if_no_obstacles")
        >>> choose_method(g), choose_method(g, QueryOptions(allow_partial=True))
        ('jps', 'astar')
    """
    opts = options if options is not None else QueryOptions()
    p = _prepare(grid)
    if not _jps_exact(grid, p, opts):
        return "astar"
    return "jps" if prefers_jps(grid, p.uniform_weight) else "astar"


def _jps_exact(grid: GridView, prepared: _Prepared, opts: QueryOptions) -> bool:
    """Whether JPS gives the exact answer for these options on this grid."""
    return (
        grid.diagonal is DiagonalMode.ONLY_IF_NO_OBSTACLES
        and prepared.uniform_weight > 0.0
        and opts.heuristic in (None, "octile")
        and not opts.allow_partial
    )


def _walls(grid: GridView, prepared: _Prepared, work: _Workspace, opts: QueryOptions) -> tuple[U8, I64]:
    """The walls the query searches: the shared copy, or with other agents' cells closed in the
    workspace's own copy; and the nodes closed there, to open again (``restore``)."""
    if opts.ignore_agents or not grid.agents:
        return prepared.passable, _NONE
    stride = prepared.stride
    counts: dict[int, int] = {}
    for x, y in grid.agents.values():
        node = (y + 1) * stride + x + 1
        counts[node] = counts.get(node, 0) + 1
    own = grid.agents.get(opts.agent) if opts.agent is not None else None
    if own is not None:
        node = (own[1] + 1) * stride + own[0] + 1
        if counts[node] == 1:
            del counts[node]  # the querying agent never blocks itself
    if work.passable is None:
        work.passable = prepared.passable.copy()
    nodes = np.fromiter(counts, dtype=np.int64, count=len(counts))
    work.passable[nodes] = 0
    return work.passable, nodes


def find_path(
    grid: GridView,
    start: Sequence[int],
    goal: Sequence[int],
    *,
    options: QueryOptions | None = None,
    method: Method = "auto",
) -> PathResult:
    """Shortest path between two cells: what :meth:`GridGraph.find_path` runs.

    Args:
        grid: the grid.
        start: ``(x, y)`` start cell (walkable; agents on it do not matter).
        goal: ``(x, y)`` goal cell; a wall or another agent there gives ``no_path``/``partial``.
        options: heuristic (default octile, manhattan for ``never``), ``allow_partial``,
            ``max_expansions``, ``agent`` (never blocks itself), ``ignore_agents``.
        method: ``"auto"`` (see the module notes), ``"astar"`` or ``"jps"``.

    Returns:
        A :class:`PathResult` with every cell of the path (jump points are filled in).

    Raises:
        InvalidQueryError: malformed cells or options, or ``method="jps"`` where JPS is not exact
            (weights, another diagonal mode or heuristic, or ``allow_partial``).
        OutOfBoundsError: start or goal outside the grid.
        BlockedEndpointError: the start is a wall.
        UnknownPointError: ``options.agent`` is not placed.

    Example:
        >>> from python_core.grid import GridGraph
        >>> g = GridGraph.from_strings(["...", ".@.", "..."], diagonal="only_if_no_obstacles")
        >>> find_path(g, (0, 0), (2, 2)).cost, find_path(g, (0, 0), (1, 1)).status.value
        (4.0, 'no_path')
    """
    opts = options if options is not None else QueryOptions()
    check_options(opts)
    name = resolve_heuristic(opts.heuristic, eight_connected=grid.diagonal is not DiagonalMode.NEVER)
    if opts.agent is not None and opts.agent not in grid.agents:
        raise UnknownPointError(f"no agent with id {opts.agent}")
    sx, sy = as_cell(start, grid.width, grid.height, what="start")
    gx, gy = as_cell(goal, grid.width, grid.height, what="goal")
    prepared = _prepare(grid)
    s = (sy + 1) * prepared.stride + sx + 1
    t = (gy + 1) * prepared.stride + gx + 1
    if not prepared.passable[s]:
        raise BlockedEndpointError(f"start cell {(sx, sy)} is blocked")
    chosen = choose_method(grid, opts) if method == "auto" else method
    # ``auto`` picks JPS only where it is exact; an explicit ``jps`` is checked here
    if method == "jps" and not _jps_exact(grid, prepared, replace(opts, heuristic=name)):
        raise InvalidQueryError(
            "method 'jps' needs uniform weights, only_if_no_obstacles diagonals, the octile "
            f"heuristic and no partial paths (heuristic {name!r}, allow_partial {opts.allow_partial})"
        )
    if chosen not in ("astar", "jps"):
        raise InvalidQueryError(f"unknown method {method!r}; expected one of {list(METHODS)}")
    if s == t:
        return _package(grid, PathStatus.FOUND, np.array([sy * grid.width + sx]), 0.0, 0)
    work = prepared.take()
    try:
        walls, closed = _walls(grid, prepared, work, opts)
        try:
            if not walls[t] and not opts.allow_partial:
                return PathResult(PathStatus.NO_PATH)
            code = HEURISTIC_CODES[name]
            return _search(grid, prepared, work, walls, (s, t), use_jps=chosen == "jps", code=code, opts=opts)
        finally:
            if closed.size:
                walls[closed] = prepared.passable[closed]
    finally:
        prepared.give(work)


def _search(
    grid: GridView,
    p: _Prepared,
    w: _Workspace,
    walls: U8,
    ends: tuple[int, int],
    *,
    use_jps: bool,
    code: int,
    opts: QueryOptions,
) -> PathResult:
    """Run one kernel on validated padded endpoints in workspace ``w`` and package the result."""
    budget = -1 if opts.max_expansions is None else int(opts.max_expansions)
    work = (w.g, w.parent, w.stamp, w.pos, w.heap_nodes, w.heap_keys, w.next_tag())
    (cw, ch), (s, t) = grid.cell_size, ends
    if use_jps:
        outcome, expanded = jps_padded(walls, p.stride, s, t, cw, ch, p.uniform_weight, budget, *work)
        end = t
    else:
        closest = (_EUCLIDEAN if code == _ZERO else code) if opts.allow_partial else -1
        outcome, end, expanded = astar_padded(
            walls, p.weights, p.uniform_weight, p.stride, s, t, DIAG_CODES[grid.diagonal],
            cw, ch, code, p.min_weight, budget, closest, *work,
        )  # fmt: skip
    if outcome == SEARCH_FOUND:
        status = PathStatus.FOUND
    elif outcome == SEARCH_BUDGET:
        status = PathStatus.BUDGET_EXHAUSTED
    else:
        status = PathStatus.PARTIAL if opts.allow_partial else PathStatus.NO_PATH
    if outcome != SEARCH_FOUND and not opts.allow_partial:
        return PathResult(status, expanded=int(expanded))
    nodes = path_from_parents(w.parent, end, p.stride)
    return _package(grid, status, nodes, float(w.g[end]), int(expanded))


def _package(grid: GridView, status: PathStatus, nodes: I64, cost: float, expanded: int) -> PathResult:
    (ox, oy), (cw, ch) = grid.origin, grid.cell_size
    points = world_points(nodes, grid.width, float(ox), float(oy), float(cw), float(ch))
    return PathResult(status, points=points, nodes=nodes, cost=cost, expanded=expanded)


def find_many(
    grid: GridView,
    starts: Sequence[Sequence[int]] | npt.ArrayLike,
    goals: Sequence[Sequence[int]] | npt.ArrayLike,
    *,
    options: QueryOptions | None = None,
    method: Method = "auto",
) -> list[PathResult]:
    """Run a batch of queries on one grid, in order, each as :func:`find_path` runs it.

    Several threads may run batches (and single queries) on the same grid at once: the kernels
    release the GIL. Errors raise as in :func:`find_path` (the first bad query stops the batch).

    Args:
        grid: the grid.
        starts: ``n`` start cells.
        goals: ``n`` goal cells.
        options: applied to every query.
        method: as for :func:`find_path`.

    Returns:
        One :class:`PathResult` per query.

    Raises:
        InvalidQueryError: ``starts`` and ``goals`` differ in length (and as :func:`find_path`).

    Example:
        >>> from python_core.grid import GridGraph
        >>> g = GridGraph(np.ones((2, 3), bool))
        >>> [r.cost for r in find_many(g, [(0, 0), (2, 1)], [(2, 0), (2, 1)])]
        [2.0, 0.0]
    """
    a, b = np.asarray(starts).reshape(-1, 2), np.asarray(goals).reshape(-1, 2)
    if a.shape != b.shape:
        raise InvalidQueryError(f"{len(a)} starts but {len(b)} goals")
    pairs = zip(a.tolist(), b.tolist(), strict=True)
    return [find_path(grid, s, t, options=options, method=method) for s, t in pairs]
