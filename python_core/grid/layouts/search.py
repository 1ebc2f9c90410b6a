"""The exact search on a tile lattice: validation, the padded copy, workspaces and the kernel call.

Quick start (:meth:`TileGrid.find_path <python_core.grid.layouts.TileGrid.find_path>` calls this)::

    from python_core.grid.layouts import TileGrid
    grid = TileGrid(np.ones((4, 4), bool), layout=TileLayout("hexagon"), cell_size=(32, 36))
    grid.find_path((0, 0), (3, 3))

The same endpoint rules, options and errors as :func:`python_core.grid.search.dispatch.find_path`
(a start on a wall raises, a goal on a wall or an agent is ``no_path``, agents block for
everyone but the querying one, partial paths, budgets). The padded copy of the walls and weights
is rebuilt when the grid's version changes; each running query takes a workspace from a pool and
blocks agents in its own copy of the walls, so threads may query one grid at once.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from python_core._types import DIAG_CODES, F64, I64, SEARCH_BUDGET, SEARCH_FOUND, U8, B, DiagonalMode
from python_core.errors import BlockedEndpointError, InvalidQueryError, UnknownPointError
from python_core.grid.cells import Cell, as_cell, check_options
from python_core.grid.layouts.geometry import TileLayout, cell_of_class, neighbour_table, unit_centres
from python_core.grid.layouts.kernel import layout_astar, unpad_path
from python_core.grid.search.prepared import Workspace
from python_core.result import PathResult, PathStatus, QueryOptions

__all__ = ["LatticeView", "find_path", "prepare"]

_NONE = np.zeros(0, dtype=np.int64)
_EUCLIDEAN = np.zeros((0, 2), dtype=np.float64)  # no facets: the kernel's euclidean distance


class LatticeView(Protocol):
    """What the search reads of a tile grid."""

    @property
    def width(self) -> int: ...
    @property
    def height(self) -> int: ...
    @property
    def diagonal(self) -> DiagonalMode: ...
    @property
    def cell_size(self) -> tuple[float, float]: ...
    @property
    def layout(self) -> TileLayout: ...
    @property
    def walkable(self) -> B: ...
    @property
    def weights(self) -> F64: ...
    @property
    def version(self) -> int: ...
    @property
    def agents(self) -> Mapping[int, Cell]: ...
    def cell_points(self, nodes: I64) -> F64: ...


@dataclass(slots=True, eq=False)
class _Moves:
    """The neighbour table of one layout on one padded grid, as the kernel takes it."""

    pad: int
    stride: int
    moves: I64
    steps: F64
    corner_sides: I64
    n_sides: int
    n_moves: int
    parity_axis: int
    parity_shift: int
    frame: F64
    facets: F64


def _facets(vectors: F64, costs: F64) -> F64:
    """Facet normals ``n`` of the polygon spanned by ``move / cost`` (both parity classes move by
    the same world vectors): ``max(n . d)`` is the least cost of covering ``d`` with the moves, a
    norm no move's cost is below, so the heuristic it gives is admissible and consistent."""
    units = vectors / costs[:, None]
    normals: list[F64] = []
    for i in range(len(units)):
        for j in range(i + 1, len(units)):
            pair = np.array([units[i], units[j]])
            if abs(np.linalg.det(pair)) < 1e-12:
                continue
            normal = np.linalg.solve(pair, np.ones(2))
            if np.all(units @ normal <= 1.0 + 1e-9) and not any(np.allclose(normal, n) for n in normals):
                normals.append(normal)
    return np.array(normals, dtype=np.float64).reshape(-1, 2)


@dataclass(slots=True, eq=False)
class _Prepared:
    version: int
    moves: _Moves
    passable: U8
    weights: F64
    uniform_weight: float
    min_weight: float
    spare: list[Workspace] = field(default_factory=list)

    def take(self) -> Workspace:
        try:
            return self.spare.pop()
        except IndexError:
            return Workspace.for_nodes(self.passable.shape[0])


_PREPARED: weakref.WeakKeyDictionary[LatticeView, _Prepared] = weakref.WeakKeyDictionary()
_PREPARING = threading.Lock()


def _moves(grid: LatticeView) -> _Moves:
    layout, (cw, ch) = grid.layout, grid.cell_size
    table = neighbour_table(layout)
    n_sides = table.sides.shape[1]
    offsets = np.concatenate([table.sides, table.corners], axis=1)  # (2, k, 2)
    pad = int(np.abs(offsets).max())
    stride = grid.width + 2 * pad
    moves = offsets[:, :, 0] + offsets[:, :, 1] * stride
    # world step lengths per class: centres of a class-p cell and its neighbours
    ox, oy = layout.map_origin
    axis = layout.parity_axis
    steps = np.zeros(moves.shape, dtype=np.float64)
    vectors = np.zeros((2, moves.shape[1], 2), dtype=np.float64)  # world displacement of each move
    for p in (0, 1):
        mx, my = cell_of_class(layout, p)
        cx, cy = unit_centres(layout, [mx], [my])
        nx, ny = unit_centres(layout, mx + offsets[p, :, 0], my + offsets[p, :, 1])
        vectors[p] = np.stack([(nx - cx[0]) * cw, (ny - cy[0]) * ch], axis=1)
        steps[p] = np.hypot(vectors[p, :, 0], vectors[p, :, 1])
    # padded node (col, row) is map cell (col - pad + ox, row - pad + oy)
    base = (ox - pad, oy - pad)
    ux, uy = unit_centres(layout, [base[0], base[0] + 2, base[0]], [base[1], base[1], base[1] + 2])
    ax, ay = (ux[1] - ux[0]) / 2 * cw, (uy[1] - uy[0]) / 2 * ch
    bx, by = (ux[2] - ux[0]) / 2 * cw, (uy[2] - uy[0]) / 2 * ch
    odd_x = odd_y = 0.0
    shift = 0
    if axis >= 0:
        first = base[1] if axis == 1 else base[0]
        shift = first if layout.layout == 0 else first + 1  # class 1 = the half-shifted rows
        step = (0, 1) if axis == 1 else (1, 0)
        sx, sy = unit_centres(layout, [base[0], base[0] + step[0]], [base[1], base[1] + step[1]])
        dx, dy = (sx[1] - sx[0]) * cw, (sy[1] - sy[0]) * ch
        lin_x, lin_y = (bx, by) if axis == 1 else (ax, ay)
        sign = 1.0 if (first + (0 if layout.layout == 0 else 1)) % 2 == 0 else -1.0
        odd_x, odd_y = (dx - lin_x) * sign, (dy - lin_y) * sign
    corners = table.corner_sides if table.corners.shape[1] else np.zeros((2, 1, 2), dtype=np.int64)
    n_moves = n_sides if grid.diagonal is DiagonalMode.NEVER else offsets.shape[1]
    return _Moves(
        facets=_facets(vectors[0, :n_moves], steps[0, :n_moves]),
        pad=pad, stride=stride, moves=np.ascontiguousarray(moves), steps=steps,
        corner_sides=np.ascontiguousarray(corners), n_sides=n_sides, n_moves=n_moves,
        parity_axis=axis, parity_shift=shift, frame=np.array([ax, bx, ay, by, odd_x, odd_y]),
    )  # fmt: skip


def _padded(grid: LatticeView) -> _Prepared:
    moves = _moves(grid)
    pad, walkable = moves.pad, grid.walkable
    passable = np.zeros((grid.height + 2 * pad, grid.width + 2 * pad), dtype=np.uint8)
    passable[pad:-pad, pad:-pad] = walkable
    open_weights = grid.weights[walkable]
    low = float(open_weights.min()) if open_weights.size else 1.0
    high = float(open_weights.max()) if open_weights.size else 1.0
    weights = np.zeros(1, dtype=np.float64)
    if low != high:
        weights = np.zeros(passable.shape, dtype=np.float64)
        weights[pad:-pad, pad:-pad] = grid.weights
    return _Prepared(
        version=grid.version, moves=moves, passable=passable.ravel(), weights=weights.ravel(),
        uniform_weight=low if low == high else -1.0, min_weight=low,
    )  # fmt: skip


def _prepared(grid: LatticeView) -> _Prepared:
    cached = _PREPARED.get(grid)
    if cached is not None and cached.version == grid.version:
        return cached
    with _PREPARING:
        cached = _PREPARED.get(grid)
        if cached is None or cached.version != grid.version:
            cached = _PREPARED[grid] = _padded(grid)
        return cached


def prepare(grid: LatticeView) -> None:
    """Build now what the first search would (a server calls this on the load's thread)."""
    p = _prepared(grid)
    p.spare.append(p.take())


def _walls(grid: LatticeView, p: _Prepared, work: Workspace, opts: QueryOptions) -> tuple[U8, I64]:
    """The shared walls, or a private copy with other agents' cells closed (and those nodes)."""
    if opts.ignore_agents or not grid.agents:
        return p.passable, _NONE
    pad, stride = p.moves.pad, p.moves.stride
    counts: dict[int, int] = {}
    for x, y in grid.agents.values():
        node = (y + pad) * stride + x + pad
        counts[node] = counts.get(node, 0) + 1
    own = grid.agents.get(opts.agent) if opts.agent is not None else None
    if own is not None:
        node = (own[1] + pad) * stride + own[0] + pad
        if counts[node] == 1:
            del counts[node]  # the querying agent never blocks itself
    if work.passable is None:
        work.passable = p.passable.copy()
    nodes = np.fromiter(counts, dtype=np.int64, count=len(counts))
    work.passable[nodes] = 0
    return work.passable, nodes


def find_path(
    grid: LatticeView, start: Sequence[int], goal: Sequence[int], options: QueryOptions | None = None
) -> PathResult:
    """Shortest path between two grid cells on a tile lattice.

    Raises:
        InvalidQueryError: malformed cells or options; a heuristic other than the default,
            ``"euclidean"`` or ``"zero"``.
        OutOfBoundsError: start or goal outside the grid.
        BlockedEndpointError: the start is a wall.
        UnknownPointError: ``options.agent`` is not placed.
    """
    opts = options if options is not None else QueryOptions()
    check_options(opts)
    if opts.heuristic not in (None, "euclidean", "zero"):
        raise InvalidQueryError(
            f"heuristic {opts.heuristic!r} does not fit a {grid.layout.kind.value} layout: "
            "use the default (euclidean world distance) or 'zero'"
        )
    if opts.agent is not None and opts.agent not in grid.agents:
        raise UnknownPointError(f"no agent with id {opts.agent}")
    sx, sy = as_cell(start, grid.width, grid.height, what="start")
    gx, gy = as_cell(goal, grid.width, grid.height, what="goal")
    p = _prepared(grid)
    m = p.moves
    s = (sy + m.pad) * m.stride + sx + m.pad
    t = (gy + m.pad) * m.stride + gx + m.pad
    if not p.passable[s]:
        raise BlockedEndpointError(f"start cell {(sx, sy)} is blocked")
    if s == t:
        return _package(grid, PathStatus.FOUND, np.array([sy * grid.width + sx]), 0.0, 0)
    work = p.take()
    try:
        walls, closed = _walls(grid, p, work, opts)
        try:
            if not walls[t] and not opts.allow_partial:
                return PathResult(PathStatus.NO_PATH)
            return _search(grid, p, work, walls, ends=(s, t), opts=opts)
        finally:
            if closed.size:
                walls[closed] = p.passable[closed]
    finally:
        p.spare.append(work)


def _search(
    grid: LatticeView, p: _Prepared, w: Workspace, walls: U8, *, ends: tuple[int, int], opts: QueryOptions
) -> PathResult:
    m = p.moves
    budget = -1 if opts.max_expansions is None else int(opts.max_expansions)
    h_scale = 0.0 if opts.heuristic == "zero" else p.min_weight
    facets = m.facets if opts.heuristic is None else _EUCLIDEAN
    outcome, end, expanded = layout_astar(
        walls, p.weights, p.uniform_weight, m.stride, ends[0], ends[1], m.moves, m.steps,
        m.corner_sides, m.n_sides, m.n_moves, DIAG_CODES[grid.diagonal], m.parity_axis,
        m.parity_shift, m.frame, facets, h_scale, budget, opts.allow_partial,
        w.g, w.parent, w.stamp, w.pos, w.heap_nodes, w.heap_keys, w.next_tag(),
    )  # fmt: skip
    if outcome == SEARCH_FOUND:
        status = PathStatus.FOUND
    elif outcome == SEARCH_BUDGET:
        status = PathStatus.BUDGET_EXHAUSTED
    else:
        status = PathStatus.PARTIAL if opts.allow_partial else PathStatus.NO_PATH
    if outcome != SEARCH_FOUND and not opts.allow_partial:
        return PathResult(status, expanded=int(expanded))
    nodes = unpad_path(w.parent, end, m.stride, m.pad)
    return _package(grid, status, nodes, float(w.g[end]), int(expanded))


def _package(grid: LatticeView, status: PathStatus, nodes: I64, cost: float, expanded: int) -> PathResult:
    return PathResult(status, points=grid.cell_points(nodes), nodes=nodes, cost=cost, expanded=expanded)
