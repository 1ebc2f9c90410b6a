"""A flow field's tiles: their layout over the grid, their storage, and reading them.

Quick start (:class:`~python_core.flowfield.FlowField` is the class to use; it computes tiles)::

    tiles = FieldTiles(grid, np.array([0]), 16, agents_block=False)   # nothing stored yet
    tiles.tile_of((20, 3)), tiles.cost_at((20, 3))                     # (1, None)

A tile ``t = ty * tiles_x + tx`` holds ``cs * cs`` cells, row-major (cells past the grid's edge
read ``WALL`` / ``inf``); computed tiles live in slots of two growing arrays, ``known_slot[t]``
naming a tile's slot (``-1``: not computed). The searches (:mod:`.goal_search`, :mod:`.field`)
read and fill a field through this class, so they need not know :class:`FlowField`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from python_core._types import DIAG_CODES, F64, I64, U8
from python_core.errors import InvalidQueryError
from python_core.flowfield import walks
from python_core.flowfield.surface import FieldSurface
from python_core.grid import GridGraph
from python_core.grid.cells import Cell, as_cell

__all__ = ["FieldGround", "FieldTiles"]


class FieldGround(NamedTuple):
    """The grid and the tiling as the flow field kernels read them, in one argument (numba passes
    a namedtuple of arrays and numbers as a struct) instead of the same twelve positional ones in
    every kernel: walls (``walk``, flat uint8), agents' cell counts (``occ``) and whether they block
    (``agents``), flat ``weights``, the grid's ``width`` x ``height``, its diagonal rule code, the
    cell size ``cw`` x ``ch``, and tiles of ``cs`` cells a side, ``tiles_x`` x ``tiles_y`` of them.
    Built fresh per computation (:meth:`FieldTiles.ground`): the arrays are the grid's live views."""

    walk: npt.NDArray[np.uint8]
    occ: npt.NDArray[np.int32]
    agents: bool
    weights: F64
    width: int
    height: int
    diagonal: int
    cw: float
    ch: float
    cs: int
    tiles_x: int
    tiles_y: int


class FieldTiles:
    """The tiles of one field over ``grid`` toward the goal cells ``goal_nodes`` (flat ids),
    ``tile_size`` cells a side; arguments are validated by :class:`~python_core.flowfield.FlowField`."""

    def __init__(
        self, grid: GridGraph, goal_nodes: I64, tile_size: int, *, agents_block: bool, size: int = 1
    ) -> None:
        self.grid, self.agents_block = grid, bool(agents_block)
        self.surface = FieldSurface(grid, size)
        self.size = self.surface.size
        """Unit size in cells: cells are anchors (a footprint's top-left cell), see :mod:`.surface`."""
        self.cs = tile_size
        self.tiles_x = -(-grid.width // tile_size)
        self.tiles_y = -(-grid.height // tile_size)
        self.goal_nodes: I64 = goal_nodes
        self.version = grid.version
        self._reset()

    def ground(self) -> FieldGround:
        """The grid and tiling as the kernels take them (the grid's current walls and weights, as
        units of the field's size see them: :class:`~python_core.flowfield.surface.FieldSurface`)."""
        grid, surface = self.grid, self.surface
        return FieldGround(
            surface.walk, surface.occupancy(self.agents_block), self.agents_block,
            surface.weights.ravel(), grid.width, grid.height, DIAG_CODES[grid.diagonal],
            grid.cell_size[0], grid.cell_size[1], self.cs, self.tiles_x, self.tiles_y,
        )  # fmt: skip

    def _reset(self) -> None:
        self._searched = 0  # cells settled by the searches from the goals (see extend)
        self.known_slot = np.full(self.tiles_x * self.tiles_y, -1, dtype=np.int32)
        self.closed = np.zeros(self.tiles_x * self.tiles_y, dtype=np.bool_)
        """Per tile: computed, and the chain of directions from each of its cells ends on a goal
        (or an unreachable cell) through computed tiles: a start there needs nothing more."""
        self._cost: F64 = np.empty((0, self.cs * self.cs))
        self._dirs: U8 = np.empty((0, self.cs * self.cs), dtype=np.uint8)
        self._free: list[int] = []
        self._wmin: tuple[int, float] = (-1, 0.0)

    # -- what is known ----------------------------------------------------------------------------

    @property
    def tiles(self) -> list[int]:
        """Computed tile ids (``ty * tiles_x + tx``), ascending."""
        return [int(t) for t in np.flatnonzero(self.known_slot >= 0)]

    @property
    def nbytes(self) -> int:
        """Bytes held: the per-tile costs and directions (all slots) and the tile index."""
        return int(self._cost.nbytes + self._dirs.nbytes + self.known_slot.nbytes)

    def tile_of(self, cell: Sequence[int]) -> int:
        """The tile id holding ``cell`` (raises ``OutOfBoundsError`` outside the grid)."""
        x, y = as_cell(cell, self.grid.width, self.grid.height)
        return (y // self.cs) * self.tiles_x + x // self.cs

    def tile_arrays(self, tile: int) -> tuple[U8, F64]:
        """``(directions, costs)`` of a computed tile, each ``(cs, cs)`` row-major (cells past the
        grid's edge read ``WALL`` / ``inf``).

        Raises:
            InvalidQueryError: not a tile id, or a tile not computed.
        """
        if (
            isinstance(tile, bool)
            or not isinstance(tile, int | np.integer)
            or not 0 <= tile < self.known_slot.size
        ):
            raise InvalidQueryError(f"tile must be an integer in [0, {self.known_slot.size}), got {tile!r}")
        slot = int(self.known_slot[tile])
        if slot < 0:
            raise InvalidQueryError(f"tile {tile} is not computed; extend the field to it first")
        return self._dirs[slot].reshape(self.cs, self.cs), self._cost[slot].reshape(self.cs, self.cs)

    def _lookup(self, cell: Sequence[int]) -> tuple[int, int] | None:
        x, y = as_cell(cell, self.grid.width, self.grid.height)
        slot = int(self.known_slot[(y // self.cs) * self.tiles_x + x // self.cs])
        return None if slot < 0 else (slot, (y % self.cs) * self.cs + x % self.cs)

    def cost_at(self, cell: Sequence[int]) -> float | None:
        """The exact cost to the nearest goal (``inf`` unreachable), or None outside computed tiles."""
        at = self._lookup(cell)
        return None if at is None else float(self._cost[at])

    def direction_at(self, cell: Sequence[int]) -> int | None:
        """The direction byte (``0..7``, ``GOAL``, ``UNREACHABLE``, ``WALL``), or None outside
        computed tiles."""
        at = self._lookup(cell)
        return None if at is None else int(self._dirs[at])

    def _tile_corners(self, tiles: I64) -> I64:
        """The top-left cell of each tile."""
        return (tiles // self.tiles_x) * self.cs * self.grid.width + (tiles % self.tiles_x) * self.cs

    def _tiles_of_nodes(self, nodes: I64) -> I64:
        w = self.grid.width
        return ((nodes // w) // self.cs) * self.tiles_x + (nodes % w) // self.cs

    def _tile_of_node(self, node: int) -> int:
        w = self.grid.width
        return ((node // w) // self.cs) * self.tiles_x + (node % w) // self.cs

    def _min_weight(self) -> float:
        """The smallest weight of a walkable cell (the lower bounds' factor), cached per version."""
        if self._wmin[0] != self.grid.version:
            walkable = self.surface.walkable  # a reduction in place: no copy of the open weights
            low = float(np.min(self.surface.weights, where=walkable, initial=np.inf))
            self._wmin = (self.grid.version, low if walkable.any() else 0.0)
        return self._wmin[1]

    def _store(self, region: I64, cost: F64, dirs: U8) -> None:
        fresh = int((self.known_slot[region] < 0).sum())
        if fresh > len(self._free):  # one growth for the batch, sized to it (not doubled past it)
            self._grow(max(fresh - len(self._free), self._cost.shape[0] // 4))
        for i, tile in enumerate(region.tolist()):
            slot = int(self.known_slot[tile])
            if slot < 0:
                slot = self._new_slot()
                self.known_slot[tile] = slot
            self._cost[slot] = cost[i]
            self._dirs[slot] = dirs[i]

    def _new_slot(self) -> int:
        if not self._free:
            self._grow(max(8, self._cost.shape[0]))
        return self._free.pop()

    def _grow(self, more: int) -> None:
        used = self._cost.shape[0]
        grown = used + max(8, more)
        cost = np.empty((grown, self.cs * self.cs))
        dirs = np.empty((grown, self.cs * self.cs), dtype=np.uint8)
        cost[:used], dirs[:used] = self._cost, self._dirs
        self._cost, self._dirs = cost, dirs
        self._free = list(range(grown - 1, used - 1, -1)) + self._free

    def _check_version(self) -> None:
        """A grid changed behind the field's back (no :meth:`repair`): forget every tile."""
        if self.version != self.grid.version:
            self._reset()
            self.version = self.grid.version

    # -- following the field ----------------------------------------------------------------------

    def follow(self, cell: Sequence[int], *, max_steps: int | None = None) -> tuple[float, Cell, int]:
        """Walk the directions from ``cell``: ``(cost, end cell, last byte)``; the last byte is
        ``GOAL`` on arrival, ``-1`` when the walk left the computed tiles or ran out of steps."""
        x, y = as_cell(cell, self.grid.width, self.grid.height)
        steps = self.grid.node_count if max_steps is None else max_steps
        cw, ch = self.grid.cell_size
        total, end, code = walks.follow_cost(
            self._dirs, self.known_slot, self.surface.weights.ravel(), self.grid.width,
            self.cs, self.tiles_x, cw, ch, y * self.grid.width + x, steps,
        )  # fmt: skip
        return float(total), (end % self.grid.width, end // self.grid.width), int(code)
