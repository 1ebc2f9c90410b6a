"""The padded copy of a tile grid the lattice kernels read: moves, clearance, weights; its repair.

Quick start (:mod:`.search` and the lattice flow fields use this)::

    from python_core.grid.layouts.prepared import prepared
    p = prepared(grid)              # built on first use; repaired in place by the grid's setters
    p.passable                      # padded clearance, flat uint8 (0: wall or border)

The copy holds each cell's clearance (:mod:`.clearance`) inside a blocked border ``pad`` cells
wide (every move of a grid cell lands in the array), so a unit of size k reads it with the
threshold k and size 1 reads it as the walls. Weights are padded once (or not at all when every
open cell weighs the same); a size k > 1 on a grid whose weights differ gets the footprint-max
weights of that size, cached for the :data:`SIZED_WEIGHTS_KEPT` sizes used last.

:meth:`TileGrid.set_walkable <python_core.grid.layouts.TileGrid.set_walkable>` repairs the copy
in place (:func:`patch_walls`: the clearance near the changed cells, :mod:`.clearance`'s local
repair); weights are written at the changed cells (:func:`patch_weights`). Any other change of the
grid's version (an ``atomic()`` undo, obstacles) is caught up at the next query: the cells whose
walls differ from the copy's are found by one comparison and repaired the same way.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from python_core._types import F64, I64, U8, B, DiagonalMode
from python_core.grid.layouts.clearance import fill_clearance, repair_clearance
from python_core.grid.layouts.footprint import dilate_max
from python_core.grid.layouts.geometry import TileLayout, cell_of_class, neighbour_table, unit_centres
from python_core.grid.search.prepared import Workspace

__all__ = [
    "SIZED_WEIGHTS_KEPT",
    "Moves",
    "Prepared",
    "lattice_moves",
    "patch_walls",
    "patch_weights",
    "prepared",
]

SIZED_WEIGHTS_KEPT = 4
"""Sizes whose footprint-max weights a weighted grid's copy keeps (the least recently used goes)."""
_SIZED_LOCK = threading.Lock()


class LatticeSource(Protocol):
    """What the copy reads of a tile grid."""

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


@dataclass(slots=True, eq=False)
class Moves:
    """The neighbour table of one layout on one padded grid, as the kernels take it."""

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


def lattice_moves(grid: LatticeSource) -> Moves:
    """The kernels' move tables, step lengths, parity and centre frame for ``grid``."""
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
    return Moves(
        facets=_facets(vectors[0, :n_moves], steps[0, :n_moves]),
        pad=pad, stride=stride, moves=np.ascontiguousarray(moves), steps=steps,
        corner_sides=np.ascontiguousarray(corners), n_sides=n_sides, n_moves=n_moves,
        parity_axis=axis, parity_shift=shift, frame=np.array([ax, bx, ay, by, odd_x, odd_y]),
    )  # fmt: skip


@dataclass(slots=True, eq=False)
class Prepared:
    """A padded copy of one tile grid's clearance and weights, and the pool of search workspaces."""

    version: int
    moves: Moves
    passable: U8  # padded clearance, flat; border 0
    weights: F64  # padded, or one unused slot when the weight is uniform
    uniform_weight: float  # the common weight of open cells, or -1.0 when weights differ
    min_weight: float
    sized_weights: dict[int, F64] = field(default_factory=dict)  # least recently used first
    spare: list[Workspace] = field(default_factory=list)

    def take(self) -> Workspace:
        """An idle workspace, or a new one when every one is in use (list.pop is atomic)."""
        try:
            return self.spare.pop()
        except IndexError:
            return Workspace.for_nodes(self.passable.shape[0])

    def clearance(self, height: int, width: int) -> U8:
        """The ``(height, width)`` view of the clearance inside the border."""
        pad, stride = self.moves.pad, self.moves.stride
        return self.passable.reshape(-1, stride)[pad : pad + height, pad : pad + width]

    def weights_for(self, grid: LatticeSource, size: int) -> F64:
        """The padded weights a size-``size`` search enters cells with: the highest weight under
        the footprint (uniform grids need none; cached for the sizes used last)."""
        if size == 1 or self.uniform_weight >= 0.0:
            return self.weights
        with _SIZED_LOCK:
            cached = self.sized_weights.pop(size, None)
            if cached is not None:
                self.sized_weights[size] = cached  # now the most recently used
                return cached
        m = self.moves
        current, spare = self.weights.copy(), self.weights.copy()
        for _ in range(size - 1):  # a footprint is k - 1 rings: k - 1 dilations
            dilate_max(
                current, spare, m.stride, m.moves, m.n_sides, m.parity_axis, m.parity_shift,
                m.pad, grid.width, grid.height,
            )  # fmt: skip
            current, spare = spare, current
        heavy: F64 = current
        with _SIZED_LOCK:
            self.sized_weights[size] = heavy
            while len(self.sized_weights) > SIZED_WEIGHTS_KEPT:
                del self.sized_weights[next(iter(self.sized_weights))]
        return heavy


_PREPARED: weakref.WeakKeyDictionary[LatticeSource, Prepared] = weakref.WeakKeyDictionary()
_PREPARING = threading.Lock()


def _weights(grid: LatticeSource, moves: Moves) -> tuple[F64, float, float]:
    """The padded weights (or one slot when uniform), the uniform weight (-1 when they differ)
    and the least open weight."""
    open_weights = grid.weights[grid.walkable]
    low = float(open_weights.min()) if open_weights.size else 1.0
    high = float(open_weights.max()) if open_weights.size else 1.0
    if low == high:
        return np.zeros(1, dtype=np.float64), low, low
    pad = moves.pad
    padded = np.zeros((grid.height + 2 * pad, grid.width + 2 * pad), dtype=np.float64)
    padded[pad:-pad, pad:-pad] = grid.weights
    return padded.ravel(), -1.0, low


def _build(grid: LatticeSource) -> Prepared:
    moves = lattice_moves(grid)
    pad = moves.pad
    clear = np.zeros((grid.height + 2 * pad, grid.width + 2 * pad), dtype=np.uint8)
    clear[pad:-pad, pad:-pad] = grid.walkable
    passable = clear.ravel()
    fill_clearance(
        passable, moves.stride, moves.moves, moves.n_sides, moves.parity_axis, moves.parity_shift,
        pad, grid.width, grid.height,
    )  # fmt: skip
    weights, uniform, low = _weights(grid, moves)
    return Prepared(
        version=grid.version, moves=moves, passable=passable, weights=weights,
        uniform_weight=uniform, min_weight=low,
    )  # fmt: skip


def prepared(grid: LatticeSource) -> Prepared:
    """The cached :class:`Prepared` of ``grid``: built when missing; brought up to date in place
    when the grid changed by a way that did not patch it (:func:`_catch_up`)."""
    cached = _PREPARED.get(grid)
    if cached is not None and cached.version == grid.version:
        return cached
    with _PREPARING:
        cached = _PREPARED.get(grid)
        if cached is None:
            cached = _PREPARED[grid] = _build(grid)
        elif cached.version != grid.version:
            _catch_up(grid, cached)
        return cached


def _catch_up(grid: LatticeSource, p: Prepared) -> None:
    """Repair the copy after changes it was not told of (an ``atomic()`` undo, obstacles): the
    cells whose walls differ from the copy's are repaired locally (one vectorised comparison of
    the grid, far cheaper than the BFS of a rebuild), the weights recounted."""
    m = p.moves
    was = p.clearance(grid.height, grid.width) != 0
    now = grid.walkable
    ys, xs = np.nonzero(was != now)
    padded = (ys + m.pad) * m.stride + xs + m.pad
    opened = now[ys, xs]
    repair_clearance(
        p.passable, m.moves, m.n_sides, (m.stride, m.parity_axis, m.parity_shift),
        np.ascontiguousarray(padded[opened]), np.ascontiguousarray(padded[~opened]),
    )  # fmt: skip
    for work in p.spare:
        work.passable = None
    weights, uniform, low = _weights(grid, m)
    if uniform < 0.0 or p.uniform_weight < 0.0:  # weights the copy holds may have changed
        p.weights, p.sized_weights = weights, {}
    p.uniform_weight, p.min_weight = uniform, low
    p.version = grid.version


def _current(grid: LatticeSource, before: int) -> Prepared | None:
    p = _PREPARED.get(grid)
    return p if p is not None and p.version == before else None


def patch_walls(grid: LatticeSource, before: int, nodes: I64) -> None:
    """Bring the copy from version ``before`` to the grid's after the walls of ``nodes`` (flat
    cell ids) were written: the clearance repaired locally, idle workspaces' private copies
    dropped (the next query that blocks agents copies the walls again). A copy that was not at
    ``before`` is left alone (the next query catches it up)."""
    p = _current(grid, before)
    if p is None:
        return
    if nodes.size:
        m = p.moves
        cells = np.unique(nodes)
        ys, xs = np.divmod(cells, grid.width)
        padded = (ys + m.pad) * m.stride + xs + m.pad
        now = grid.walkable.ravel()[cells]
        was = p.passable[padded] != 0
        repair_clearance(
            p.passable, m.moves, m.n_sides, (m.stride, m.parity_axis, m.parity_shift),
            np.ascontiguousarray(padded[now & ~was]), np.ascontiguousarray(padded[~now & was]),
        )  # fmt: skip
        for work in p.spare:
            work.passable = None
        opened = grid.weights.ravel()[cells[now & ~was]]
        if p.uniform_weight < 0.0 or not bool(np.all(opened == p.uniform_weight)):
            _refresh_weights(grid, p)  # the open cells' weights may differ now, or agree
    p.version = grid.version


def _refresh_weights(grid: LatticeSource, p: Prepared) -> None:
    """Recount the open cells' weights; the padded weights and sized caches change only when
    the grid turns uniform or stops being so (the weights themselves did not change)."""
    weights, uniform, low = _weights(grid, p.moves)
    if (uniform >= 0.0) != (p.uniform_weight >= 0.0):
        p.weights, p.sized_weights = weights, {}
    p.uniform_weight, p.min_weight = uniform, low


def patch_weights(grid: LatticeSource, before: int, nodes: I64) -> None:
    """As :func:`patch_walls`, after the weights of ``nodes`` were written."""
    p = _current(grid, before)
    if p is None:
        return
    if nodes.size:
        p.weights, p.uniform_weight, p.min_weight = _weights(grid, p.moves)
        p.sized_weights = {}
    p.version = grid.version
