"""The exact search on a tile lattice: validation, the padded copy, workspaces and the kernel call.

Quick start (:meth:`TileGrid.find_path <python_core.grid.layouts.TileGrid.find_path>` calls this)::

    from python_core.grid.layouts import TileGrid
    grid = TileGrid(np.ones((4, 4), bool), layout=TileLayout("hexagon"), cell_size=(32, 36))
    grid.find_path((0, 0), (3, 3))

The same endpoint rules, options and errors as :func:`python_core.grid.search.dispatch.find_path`
(a start on a wall raises, a goal on a wall or an agent is ``no_path``, agents block for
everyone but the querying one, partial paths, budgets) and units of any size (``options.size``
or ``options.radius``). The padded copy (:mod:`.prepared`: clearance and weights) is repaired by
the grid's setters; each running query takes a workspace from a pool and blocks agents in its own
copy of the clearance, so threads may query one grid at once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

import numpy as np

from python_core._types import DIAG_CODES, F64, I64, SEARCH_BUDGET, SEARCH_FOUND, U8
from python_core.errors import BlockedEndpointError, InvalidQueryError, UnknownPointError
from python_core.grid.cells import Cell, as_cell, check_options
from python_core.grid.layouts.footprint import ball
from python_core.grid.layouts.kernel import layout_astar, unpad_path
from python_core.grid.layouts.prepared import LatticeSource, Prepared, lattice_moves, prepared
from python_core.grid.search.prepared import Workspace
from python_core.result import PathResult, PathStatus, QueryOptions

__all__ = ["LatticeView", "blocked_by_agents", "blocked_start", "find_path", "prepare", "unit_size"]

_NONE = np.zeros(0, dtype=np.int64)
_EUCLIDEAN = np.zeros((0, 2), dtype=np.float64)  # no facets: the kernel's euclidean distance


class LatticeView(LatticeSource, Protocol):
    """What the search reads of a tile grid: what its copy reads, and the agents."""

    @property
    def agents(self) -> Mapping[int, Cell]: ...
    @property
    def agent_sizes(self) -> Mapping[int, int]: ...
    def cell_points(self, nodes: I64) -> F64: ...
    def size_for_radius(self, radius: float) -> int: ...


_moves = lattice_moves  # the names other packages import (python_core.hpa.lattice)
_prepared = prepared


def prepare(grid: LatticeView) -> None:
    """Build now what the first search would (a server calls this on the load's thread)."""
    p = prepared(grid)
    p.spare.append(p.take())


def _walls(grid: LatticeView, p: Prepared, work: Workspace, opts: QueryOptions, size: int) -> tuple[U8, I64]:
    """The shared clearance, or the workspace's private copy with every cell closed where the
    unit's footprint would meet another agent's (and those nodes, to open again)."""
    if opts.ignore_agents or not grid.agents:
        return p.passable, _NONE
    nodes = blocked_by_agents(grid, p, size=size, own=opts.agent)
    if work.passable is None:
        work.passable = p.passable.copy()
    work.passable[nodes] = 0
    return work.passable, nodes


def blocked_by_agents(grid: LatticeView, p: Prepared, *, size: int, own: int | None) -> I64:
    """Padded nodes where a unit of ``size`` would overlap an agent other than ``own``: within
    ``a - 1 + size - 1`` side steps of an agent of size ``a`` (:mod:`.footprint`)."""
    m = p.moves
    sizes = grid.agent_sizes
    single: list[int] = []  # one-cell agents for a one-cell unit: their own node
    parts = [np.zeros(0, dtype=np.int64)]
    box = np.array([m.pad, m.pad, m.pad + grid.width - 1, m.pad + grid.height - 1], dtype=np.int64)
    mark: U8 | None = None
    for agent, (x, y) in grid.agents.items():
        if agent == own:
            continue
        node = (y + m.pad) * m.stride + x + m.pad
        reach = sizes.get(agent, 1) - 1 + size - 1
        if reach == 0:
            single.append(node)
            continue
        if mark is None:
            mark = np.zeros(p.passable.shape[0], dtype=np.uint8)
        cells, _ = ball(m.stride, m.moves, m.n_sides, m.parity_axis, m.parity_shift, box, node, reach, mark)
        parts.append(cells)
    return np.concatenate([np.array(single, dtype=np.int64), *parts])


def unit_size(grid: LatticeView, opts: QueryOptions) -> int:
    """The query's unit size: ``options.size``, or the footprint that holds ``options.radius``."""
    return opts.size if opts.radius is None else grid.size_for_radius(opts.radius)


def blocked_start(cell: Cell, size: int) -> str:
    """The message for a start where the unit does not fit.

    Example:
        >>> blocked_start((1, 2), 3).endswith("(the cell and 2 rings of neighbours) does not fit")
        True
    """
    if size == 1:
        return f"start cell {cell} is blocked"
    rings = "1 ring" if size == 2 else f"{size - 1} rings"
    return (
        f"start cell {cell} is blocked for a unit of size {size}: its footprint "
        f"(the cell and {rings} of neighbours) does not fit"
    )


def find_path(
    grid: LatticeView, start: Sequence[int], goal: Sequence[int], options: QueryOptions | None = None
) -> PathResult:
    """Shortest path between two grid cells on a tile lattice, for a unit of any size.

    A unit of size k stands on a centre cell and covers the cells within k - 1 side steps of it
    (:mod:`.clearance`); it moves where the footprints of both cells fit (the diagonal rule of
    isometric corners read on the eroded grid), and entering a cell costs the step times the
    highest weight under its footprint. ``nodes`` and ``points`` are the centre cells.

    Raises:
        InvalidQueryError: malformed cells or options; a heuristic other than the default,
            ``"euclidean"`` or ``"zero"``.
        OutOfBoundsError: start or goal outside the grid.
        BlockedEndpointError: the start is a wall (or has no room for the unit's footprint).
        UnknownPointError: ``options.agent`` is not placed.
    """
    opts = options if options is not None else QueryOptions()
    check_options(opts)
    if opts.heuristic not in (None, "euclidean", "zero"):
        raise InvalidQueryError(
            f"heuristic {opts.heuristic!r} does not fit a {grid.layout.kind.value} layout: "
            "use the default (euclidean world distance) or 'zero'"
        )
    size = unit_size(grid, opts)
    if opts.agent is not None and opts.agent not in grid.agents:
        raise UnknownPointError(f"no agent with id {opts.agent}")
    sx, sy = as_cell(start, grid.width, grid.height, what="start")
    gx, gy = as_cell(goal, grid.width, grid.height, what="goal")
    p = prepared(grid)
    m = p.moves
    s = (sy + m.pad) * m.stride + sx + m.pad
    t = (gy + m.pad) * m.stride + gx + m.pad
    if p.passable[s] < size:
        raise BlockedEndpointError(blocked_start((sx, sy), size))
    if s == t:
        return _package(grid, PathStatus.FOUND, np.array([sy * grid.width + sx]), 0.0, 0)
    work = p.take()
    try:
        walls, closed = _walls(grid, p, work, opts, size)
        try:
            if walls[t] < size and not opts.allow_partial:
                return PathResult(PathStatus.NO_PATH)
            return _search(grid, p, work, walls, ends=(s, t), opts=opts, size=size)
        finally:
            if closed.size:
                walls[closed] = p.passable[closed]
    finally:
        p.spare.append(work)


def _search(
    grid: LatticeView,
    p: Prepared,
    w: Workspace,
    walls: U8,
    *,
    ends: tuple[int, int],
    opts: QueryOptions,
    size: int,
) -> PathResult:
    m = p.moves
    budget = -1 if opts.max_expansions is None else int(opts.max_expansions)
    h_scale = 0.0 if opts.heuristic == "zero" else p.min_weight
    facets = m.facets if opts.heuristic is None else _EUCLIDEAN
    outcome, end, expanded = layout_astar(
        walls, p.weights_for(grid, size), p.uniform_weight, m.stride, ends[0], ends[1], m.moves,
        m.steps, m.corner_sides, m.n_sides, m.n_moves, DIAG_CODES[grid.diagonal], m.parity_axis,
        m.parity_shift, m.frame, facets, h_scale, budget, opts.allow_partial, size,
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
