"""Landmark (ALT) lower bounds for the flow-field check: exact distances to and from a few cells,
kept only on the tiles' border cells, where the check's exits lie.

Quick start::

    from python_core.flowfield.landmarks import Landmarks
    marks = Landmarks.build(grid, tile_size=64, count=6)      # one Dijkstra per landmark (and way)
    field = FlowField(grid, goals, hierarchy=hpa, landmarks=marks)

For a landmark ``L`` and any cells ``o`` and ``g`` the triangle inequality gives
``d(o, g) >= d(o, L) - d(g, L)`` and ``d(o, g) >= d(L, g) - d(L, o)``; for a goal set, the first
with the largest ``d(g, L)`` over the goals and the second with the smallest ``d(L, g)``. The
distances are those of the grid without agents (agents only make costs dearer, so the bounds stay
lower bounds of a field with ``agents_block``). A goal's own distances come from a Dijkstra inside
its tile seeded with the stored border values: every path into (or out of) the tile crosses a border
cell, so that is exact. The set belongs to one grid version; a field ignores a stale set (its check
falls back to the octile bound), and :meth:`Landmarks.build` makes a new one.

Stored: ``count`` (twice with non-uniform weights) float64 values per border cell, about
``4 / cs`` of a full distance map (6 % at 64-cell tiles). Built with ``every_cell=True``, the set
also keeps every cell's distances as float32 (4 bytes a cell per landmark and way): the goal
search's heuristic (:mod:`.guide`), which keeps a long field's search near its corridor.
"""

# Compiled kernels take their arguments positionally: numba.njit does not compile keywords.
# ruff: noqa: PLR0917, PLR0912

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from python_core._types import DIAG_CODES, F32, F64, I64
from python_core.compiled import jit
from python_core.errors import InvalidQueryError
from python_core.flowfield.bounds import border_index
from python_core.flowfield.moves import DX, DY, MOVES, _moves_from, _step_length
from python_core.grid import GridGraph
from python_core.grid.cells import as_cells
from python_core.heaps.lazy import heap_pop, heap_push

__all__ = ["DEFAULT_COUNT", "Landmarks", "border_index"]

DEFAULT_COUNT = 6
"""Landmarks built by default: each is one full-map Dijkstra (two with non-uniform weights)."""


@jit
def allowed_moves(
    walk: npt.NDArray[np.uint8], occ: npt.NDArray[np.int32], diagonal: int, width: int, height: int
) -> npt.NDArray[np.uint8]:
    """The move bits of every cell (no agents), found once for all the landmarks' Dijkstras."""
    out = np.zeros(width * height, dtype=np.uint8)
    for node in range(width * height):
        if walk[node] != 0:
            x, y = node % width, node // width
            out[node] = _moves_from(walk, occ, False, MOVES, diagonal, x, y, width, height)
    return out


@jit
def grid_dijkstra(
    walk: npt.NDArray[np.uint8],
    allowed_at: npt.NDArray[np.uint8],
    weights: npt.NDArray[np.float64],
    width: int,
    height: int,
    cw: float,
    ch: float,
    source: int,
    forward: bool,
) -> npt.NDArray[np.float64]:
    """Distances over the whole grid (no agents; ``allowed_at`` from :func:`allowed_moves`): from
    ``source`` to every cell (``forward``) or from every cell to ``source``; entering a cell costs
    the step's length times its weight."""
    n = width * height
    diag = math.hypot(cw, ch)
    dist = np.full(n, np.inf)
    keys = np.empty(1024, dtype=np.float64)
    items = np.empty(1024, dtype=np.int64)
    size = 0
    dist[source] = 0.0
    keys, items, size = heap_push(keys, items, size, 0.0, source)
    while size > 0:
        d, node, size = heap_pop(keys, items, size)
        if d > dist[node]:
            continue
        x, y = node % width, node // width
        if forward:
            allowed = allowed_at[node]
            for k in range(8):
                if allowed >> k & 1:
                    nn = (y + DY[k]) * width + x + DX[k]
                    cand = d + _step_length(k, cw, ch, diag) * weights[nn]
                    if cand < dist[nn]:
                        dist[nn] = cand
                        keys, items, size = heap_push(keys, items, size, cand, nn)
        else:
            step_w = weights[node]
            for k in range(8):
                ux, uy = x - DX[k], y - DY[k]
                if not (0 <= ux < width and 0 <= uy < height):
                    continue
                nn = uy * width + ux
                if not allowed_at[nn] >> k & 1:
                    continue
                cand = d + _step_length(k, cw, ch, diag) * step_w
                if cand < dist[nn]:
                    dist[nn] = cand
                    keys, items, size = heap_push(keys, items, size, cand, nn)
    return dist


@jit
def border_values(
    dist: npt.NDArray[np.float64], width: int, height: int, cs: int, tiles_x: int, tiles_y: int
) -> npt.NDArray[np.float64]:
    """Per tile, the ``4 * cs`` border values of a full distance map (``inf`` past the grid)."""
    out = np.full((tiles_x * tiles_y, 4 * cs), np.inf)
    for t in range(tiles_x * tiles_y):
        x0, y0 = (t % tiles_x) * cs, (t // tiles_x) * cs
        for side in range(4):
            for i in range(cs):
                if side < 2:
                    lx, ly = i, side * (cs - 1)
                else:
                    lx, ly = (side - 2) * (cs - 1), i
                x, y = x0 + lx, y0 + ly
                if x < width and y < height:
                    out[t, side * cs + i] = dist[y * width + x]
    return out


@jit
def tile_distances(
    walk: npt.NDArray[np.uint8],
    occ: npt.NDArray[np.int32],
    weights: npt.NDArray[np.float64],
    width: int,
    height: int,
    diagonal: int,
    cw: float,
    ch: float,
    cs: int,
    tiles_x: int,
    tile: int,
    border: npt.NDArray[np.float64],
    source: int,
    forward: bool,
) -> npt.NDArray[np.float64]:
    """Exact landmark distances of every cell of one tile (``cs * cs``, row-major) from its border
    cells' exact values (``border``, a ``4 * cs`` row) and the landmark ``source`` when it is in the
    tile: a Dijkstra that stays in the tile (a path's part after its last entry, or before its
    first exit, does)."""
    block = cs * cs
    diag = math.hypot(cw, ch)
    x0, y0 = (tile % tiles_x) * cs, (tile // tiles_x) * cs
    dist = np.full(block, np.inf)
    keys = np.empty(8 * cs, dtype=np.float64)
    items = np.empty(8 * cs, dtype=np.int64)
    size = 0
    for local in range(block):
        lx, ly = local % cs, local // cs
        x, y = x0 + lx, y0 + ly
        if x >= width or y >= height or walk[y * width + x] == 0:
            continue
        value = 0.0 if y * width + x == source else np.inf
        b = border_index(lx, ly, cs)
        if b >= 0:
            value = min(value, border[b])
        if value < np.inf:
            dist[local] = value
            keys, items, size = heap_push(keys, items, size, value, local)
    while size > 0:
        d, local, size = heap_pop(keys, items, size)
        if d > dist[local]:
            continue
        x, y = x0 + local % cs, y0 + local // cs
        for k in range(8):
            if forward:
                if not _moves_from(walk, occ, False, MOVES, diagonal, x, y, width, height) >> k & 1:
                    continue
                nx, ny = x + DX[k], y + DY[k]
                step = _step_length(k, cw, ch, diag) * weights[ny * width + nx]
            else:
                nx, ny = x - DX[k], y - DY[k]
                if not (0 <= nx < width and 0 <= ny < height) or walk[ny * width + nx] == 0:
                    continue
                if not _moves_from(walk, occ, False, MOVES, diagonal, nx, ny, width, height) >> k & 1:
                    continue
                step = _step_length(k, cw, ch, diag) * weights[y * width + x]
            if not (x0 <= nx < x0 + cs and y0 <= ny < y0 + cs):
                continue
            nl = (ny - y0) * cs + nx - x0
            cand = d + step
            if cand < dist[nl]:
                dist[nl] = cand
                keys, items, size = heap_push(keys, items, size, cand, nl)
    return dist


class Landmarks:
    """Exact distances to (and, with non-uniform weights, from) a few landmark cells, on the tiles'
    border cells, for one grid version.

    Build with :meth:`build`. ``to_border[k, t, i]`` is ``d(cell, L_k)`` of border cell ``i`` of
    tile ``t`` (see :func:`border_index`), ``from_border`` is ``d(L_k, cell)`` (the same array when
    the grid's walkable weights are all equal: the costs are then symmetric).
    """

    def __init__(
        self,
        grid: GridGraph,
        cs: int,
        cells: I64,
        to_border: F64,
        from_border: F64,
        tables: F32 | None = None,
    ) -> None:
        self.grid, self.cs, self.version = grid, cs, grid.version
        self.cells, self.to_border, self.from_border = cells, to_border, from_border
        self.tables = tables
        """Every cell's distances (built with ``every_cell``), float32, one row per landmark
        ``d(cell, L_k)`` then, when the costs are not symmetric, one per landmark ``d(L_k, cell)``."""
        self.table_max = np.zeros(0)
        """Per row of ``tables``, its largest finite value (its float32 rounding error is below
        ``2**-24`` of it)."""
        if tables is not None:
            self.table_max = np.array(
                [float(row[np.isfinite(row)].max(initial=0.0)) for row in tables], dtype=np.float64
            )

    @property
    def symmetric_tables(self) -> bool:
        """Whether ``tables`` holds one row per landmark (``d(cell, L) = d(L, cell)``)."""
        return self.tables is not None and self.tables.shape[0] == self.count

    @classmethod
    def build(
        cls,
        grid: GridGraph,
        *,
        tile_size: int,
        count: int = DEFAULT_COUNT,
        at: npt.ArrayLike = (),
        every_cell: bool = False,
    ) -> Landmarks:
        """Pick ``count`` landmarks and store their distances on the border cells of ``tile_size``
        tiles: first the open cells of ``at`` (the game's usual goals: a landmark at or just behind
        a goal makes the bound tight around it), then the open cell nearest the top-left corner
        when ``at`` has none, then each the border cell farthest from those picked. With
        ``every_cell``, also every cell's distances as float32 (``4 * count`` bytes a cell, twice
        with uneven weights), the goal search's heuristic: a field's search then settles little
        more than its corridor on open and random maps (landmarks behind the starts, as seen from
        the goals, bound best: spread them over the map's corners and edges).

        Raises:
            InvalidQueryError: a count below 1 or below the cells of ``at``, a tile size below 2,
                ``every_cell`` not a bool, a grid with no open cell, malformed cells;
                OutOfBoundsError: a cell off the grid.
        """
        _check_build(count, tile_size, every_cell)
        chosen = as_cells(at, grid.width, grid.height)
        chosen = chosen[grid.walkable.ravel()[chosen]]
        if chosen.size > count:
            raise InvalidQueryError(f"{chosen.size} landmark cells given, more than count={count}")
        ys, xs = np.nonzero(grid.walkable)
        if xs.size == 0:
            raise InvalidQueryError("landmarks need a grid with an open cell")
        w, h, cs = grid.width, grid.height, tile_size
        tiles_x, tiles_y = -(-w // cs), -(-h // cs)
        walk = grid.walkable.view(np.uint8).ravel()
        occ = np.zeros(w * h, dtype=np.int32)
        weights = grid.weights.ravel()
        open_weights = grid.weights[grid.walkable]
        symmetric = bool(open_weights.min() == open_weights.max())
        code, (cw, ch) = DIAG_CODES[grid.diagonal], grid.cell_size
        allowed_at = allowed_moves(walk, occ, code, w, h)
        first = int(np.argmin(xs + ys))
        source = int(ys[first] * w + xs[first])
        cells: list[int] = []
        to_rows, from_rows = [], []
        ways = 1 if symmetric else 2  # every cell's tables, written in place (no stacked copy)
        tables = np.empty((ways * count if every_cell else 0, w * h), dtype=np.float32)
        nearest = np.full((tiles_x * tiles_y, 4 * cs), np.inf)
        for n in range(count):
            if n < chosen.size:
                source = int(chosen[n])
            cells.append(source)
            dist = grid_dijkstra(walk, allowed_at, weights, w, h, cw, ch, source, False)
            to_rows.append(border_values(dist, w, h, cs, tiles_x, tiles_y))
            if every_cell:
                tables[n] = dist
            if not symmetric:
                dist = grid_dijkstra(walk, allowed_at, weights, w, h, cw, ch, source, True)
                from_rows.append(border_values(dist, w, h, cs, tiles_x, tiles_y))
                if every_cell:
                    tables[count + n] = dist
            del dist
            nearest = np.minimum(nearest, to_rows[-1])
            source = _farthest(nearest, cs, tiles_x, w)
            if source < 0 and n + 1 >= chosen.size:
                break  # nothing left to pick in the component
        del allowed_at
        to_border = np.stack(to_rows)
        from_border = to_border if symmetric else np.stack(from_rows)
        if len(cells) < count:  # stopped early: keep the rows written
            tables = tables[np.r_[0 : len(cells), count : count + len(cells)][: ways * len(cells)]]
        return cls(
            grid, cs, np.array(cells, dtype=np.int64), to_border, from_border, tables if every_cell else None
        )

    @property
    def count(self) -> int:
        """How many landmarks."""
        return int(self.cells.size)

    @property
    def nbytes(self) -> int:
        """Bytes held (the border values and the cells' tables; shared when symmetric)."""
        same = self.from_border is self.to_border
        held = self.to_border.nbytes + (0 if same else self.from_border.nbytes)
        return int(held + (0 if self.tables is None else self.tables.nbytes))

    def usable(self, grid: GridGraph, cs: int) -> bool:
        """Whether the set describes this grid as it is now, with these tiles."""
        return grid is self.grid and grid.version == self.version and cs == self.cs

    def goal_terms(self, goals: I64) -> tuple[F64, F64]:
        """Per landmark: the largest ``d(g, L)`` and the smallest ``d(L, g)`` over the open goal
        cells (exact, from a Dijkstra inside each goal tile seeded with its border values)."""
        grid, cs = self.grid, self.cs
        w, h = grid.width, grid.height
        tiles_x = -(-w // cs)
        walk = grid.walkable.view(np.uint8).ravel()
        occ = np.zeros(w * h, dtype=np.int32)
        weights = grid.weights.ravel()
        code, (cw, ch) = DIAG_CODES[grid.diagonal], grid.cell_size
        goals = goals[walk[goals] != 0]
        to_max = np.full(self.count, -np.inf)
        from_min = np.full(self.count, np.inf)
        if goals.size == 0:
            return np.full(self.count, np.inf), from_min
        tile_of = ((goals // w) // cs) * tiles_x + (goals % w) // cs
        for tile in np.unique(tile_of).tolist():
            x0, y0 = (tile % tiles_x) * cs, (tile // tiles_x) * cs
            inside = goals[tile_of == tile]
            local = ((inside // w) - y0) * cs + (inside % w) - x0
            for k in range(self.count):
                src = int(self.cells[k])
                to = tile_distances(
                    walk, occ, weights, w, h, code, cw, ch, cs, tiles_x, tile,
                    self.to_border[k, tile], src, False,
                )  # fmt: skip
                to_max[k] = max(to_max[k], float(to[local].max()))
                if self.from_border is self.to_border:
                    from_min[k] = min(from_min[k], float(to[local].min()))
                    continue
                frm = tile_distances(
                    walk, occ, weights, w, h, code, cw, ch, cs, tiles_x, tile,
                    self.from_border[k, tile], src, True,
                )  # fmt: skip
                from_min[k] = min(from_min[k], float(frm[local].min()))
        return to_max, from_min


def _check_build(count: int, tile_size: int, every_cell: bool) -> None:
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise InvalidQueryError(f"count must be an integer >= 1, got {count!r}")
    if isinstance(tile_size, bool) or not isinstance(tile_size, int) or tile_size < 2:
        raise InvalidQueryError(f"tile_size must be an integer >= 2, got {tile_size!r}")
    if not isinstance(every_cell, bool):
        raise InvalidQueryError(f"every_cell must be True or False, got {every_cell!r}")


def _farthest(nearest: F64, cs: int, tiles_x: int, width: int) -> int:
    """The border cell farthest from the landmarks picked (``nearest``: per tile, each border cell's
    distance to the nearest of them), -1 when none is past 0 (nothing left in the component)."""
    far = np.where(np.isfinite(nearest), nearest, -1.0)
    best = int(np.argmax(far))
    if far.flat[best] <= 0.0:
        return -1
    tile, i = divmod(best, 4 * cs)
    side, j = divmod(i, cs)
    lx, ly = (j, side * (cs - 1)) if side < 2 else ((side - 2) * (cs - 1), j)
    return ((tile // tiles_x) * cs + ly) * width + (tile % tiles_x) * cs + lx


def no_landmarks(cs: int) -> tuple[F64, F64, F64, F64]:
    """Empty arrays of the check's landmark arguments (no landmark: the octile bound alone)."""
    empty = np.zeros((0, 1, 4 * cs))
    return empty, empty, np.zeros(0), np.zeros(0)


_ = I64  # typing helper re-exported for callers
