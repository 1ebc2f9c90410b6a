"""A flow field on a hexagonal, isometric or half-offset grid (a :class:`TileGrid`).

Quick start::

    from python_core.flowfield import LatticeField
    from python_core.grid.layouts import TileGrid
    hexes = TileGrid(walkable, layout="hexagon", cell_size=(32, 28))
    field = LatticeField(hexes, [(10, 4)])
    field.extend([(0, 0)])                  # the whole map, once (every tile id)
    k = field.direction_at((0, 0))          # move k of field.moves_of((0, 0))

The same tiles, bytes and reading as :class:`~python_core.flowfield.FlowField`
(:class:`~python_core.flowfield.tiles.FieldTiles`), but a direction byte ``k < 8`` is move ``k``
of the layout's own move table (:func:`~python_core.grid.layouts.geometry.neighbour_table`: the
sides, then the corners the diagonal rule allows), per parity class: a stacked layout's odd and
even rows move by different offsets. :meth:`LatticeField.move_table` says which.

Costs are exact: one compiled Dijkstra from the goals over the whole map (step = world distance
between centres times the entered cell's weight, as :meth:`TileGrid.find_path`; AStarGrid2D's
isometric shapes in id space, as their paths). The first :meth:`extend` computes every tile (a
512 x 512 hex map is one pass of a few hundred ms); :meth:`repair` computes the map again and
reports the tiles whose bytes or costs changed. No hierarchy or landmarks.

Units of any size: a field per (goals, size). A unit of size k stands on a centre cell and covers
the cells within k - 1 side steps of it (:mod:`python_core.grid.layouts.clearance`): the field's
cells are centre cells, open where the clearance is at least k, and a step costs its length times
the highest weight under the entered cell's footprint, as :meth:`TileGrid.find_path` with that
size; agents that block close every cell where the footprints would meet.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from python_core._types import DIAG_CODES, F64, I64
from python_core.errors import InvalidQueryError, OutOfBoundsError
from python_core.flowfield.field import DEFAULT_TILE, RepairReport
from python_core.flowfield.landmarks import Landmarks
from python_core.flowfield.lattice_kernel import lattice_dijkstra, lattice_follow
from python_core.flowfield.moves import WALL
from python_core.flowfield.tiles import FieldTiles
from python_core.grid.cells import Cell, as_cell, as_cells
from python_core.grid.clearance import check_size
from python_core.grid.layouts import TileGrid
from python_core.grid.layouts.geometry import neighbour_table
from python_core.grid.layouts.prepared import prepared
from python_core.grid.layouts.search import blocked_by_agents
from python_core.hpa import HierarchicalGrid

__all__ = ["LatticeField"]


class LatticeField(FieldTiles):
    """Exact cost-to-goal and a direction byte per cell of a tile grid (see the module notes).

    Args:
        grid: the :class:`TileGrid` (read at every computation: walls, weights, agents).
        goals: ``(x, y)`` goal cells (non-empty; walls among them are never reached).
        tile_size: side of the tiles the field is stored and served in (``>= 2``).
        agents_block: cells with agents are not entered (an agent's own cell still gets the way out).
        hierarchy, landmarks: must be None (no hierarchy over a tile grid's fields).
        size: the unit's size in cells, 1..255 (see the module notes; 1 on AStarGrid2D's shapes).

    Raises:
        InvalidQueryError: not a tile grid, no goals, malformed goals, a bad tile size, a
            hierarchy, landmarks or a size not in 1..255.
        OutOfBoundsError: a goal outside the grid.

    Example:
        >>> g = TileGrid(np.ones((3, 4), bool), layout="hexagon", cell_size=(2.0, 2.0))
        >>> f = LatticeField(g, [(3, 2)], tile_size=2); f.extend([(0, 0)])
        [0, 1, 2, 3]
        >>> f.cost_at((3, 2)), f.follow((0, 0))[0] == f.cost_at((0, 0))
        (0.0, True)
    """

    def __init__(
        self,
        grid: TileGrid,
        goals: npt.ArrayLike,
        *,
        hierarchy: HierarchicalGrid | None = None,
        tile_size: int = DEFAULT_TILE,
        agents_block: bool = False,
        landmarks: Landmarks | None = None,
        size: int = 1,
    ) -> None:
        if not isinstance(grid, TileGrid):
            raise InvalidQueryError(f"a lattice field needs a TileGrid, got {type(grid).__name__}")
        kind = grid.layout.kind.value
        if hierarchy is not None or landmarks is not None:
            raise InvalidQueryError(f"flow fields on a {kind} layout take no hierarchy or landmarks")
        size = check_size(size)
        if size > 1 and not grid.layout.lattice:  # their paths use the square k x k footprint
            raise InvalidQueryError(f"flow fields on a {kind} grid take unit size 1 only, got {size}")
        nodes = np.unique(as_cells(goals, grid.width, grid.height))
        if nodes.size == 0:
            raise InvalidQueryError("a flow field needs at least one goal cell")
        if isinstance(tile_size, bool) or not isinstance(tile_size, int) or tile_size < 2:
            raise InvalidQueryError(f"tile_size must be an integer >= 2, got {tile_size!r}")
        super().__init__(grid, nodes, tile_size, agents_block=agents_block, size=1)
        self.size = size  # the base's surface is the plain grid: the clearance is read here
        self.tile_grid = grid
        self.hierarchy: HierarchicalGrid | None = None
        self.landmarks: Landmarks | None = None
        table = neighbour_table(grid.layout)
        self._offsets: I64 = np.ascontiguousarray(np.concatenate([table.sides, table.corners], axis=1))

    # -- the moves ----------------------------------------------------------------------------------

    def move_table(self) -> dict[str, object]:
        """What a direction byte means, as the wire sends it: ``moves[q][k]`` is move ``k``'s
        ``[dx, dy]`` in grid cells for a cell of class ``q``, and a cell ``(x, y)``'s class is
        ``((y if parity_axis == 1 else x) + parity_shift) % 2`` (always 0 when ``parity_axis`` is -1).

        Example:
            >>> g = TileGrid(np.ones((2, 2), bool), layout="hexagon")
            >>> t = LatticeField(g, [(0, 0)]).move_table()
            >>> t["parity_axis"], t["parity_shift"], t["moves"][1][:2]
            (1, 0, [[1, 1], [0, 1]])
        """
        axis, shift = self._parity()
        return {"moves": self._offsets.tolist(), "parity_axis": axis, "parity_shift": shift}

    def moves_of(self, cell: npt.ArrayLike) -> list[tuple[int, int]]:
        """The ``(dx, dy)`` of each move from ``cell`` (a direction byte ``k`` indexes this list).

        Raises:
            InvalidQueryError, OutOfBoundsError: a malformed cell, or one outside the grid.
        """
        x, y = as_cell(cell, self.grid.width, self.grid.height)
        axis, shift = self._parity()
        q = 0 if axis < 0 else ((y if axis == 1 else x) + shift) & 1
        return [(int(dx), int(dy)) for dx, dy in self._offsets[q]]

    def _parity(self) -> tuple[int, int]:
        m = prepared(self.tile_grid).moves
        return m.parity_axis, (m.parity_shift + m.pad) % 2 if m.parity_axis >= 0 else 0

    def _steps(self) -> F64:
        """Each move's cost per unit of weight: world lengths (id space for AStarGrid2D shapes)."""
        if not self.tile_grid.layout.lattice:
            return np.hypot(self._offsets[:, :, 0], self._offsets[:, :, 1]).astype(np.float64)
        return prepared(self.tile_grid).moves.steps

    # -- computing ------------------------------------------------------------------------------------

    def extend(self, starts: npt.ArrayLike) -> list[int]:
        """Compute the field if it is not yet (every tile at once); the starts are only checked.

        Returns:
            The tile ids computed by this call (all of them the first time, else none).

        Raises:
            InvalidQueryError: malformed starts; OutOfBoundsError: a start outside the grid.
        """
        as_cells(starts, self.grid.width, self.grid.height)
        self._check_version()
        if (self.known_slot >= 0).all():
            return []
        return self._compute_all()

    def _compute_all(self) -> list[int]:
        grid, cs = self.tile_grid, self.cs
        p = prepared(grid)
        m = p.moves
        h, w, pad = grid.height, grid.width, m.pad
        passable = p.passable
        if self.agents_block and grid.agents:
            passable = passable.copy()
            passable[blocked_by_agents(grid, p, size=self.size, own=None)] = 0
        gx, gy = self.goal_nodes % w, self.goal_nodes // w
        goals = np.ascontiguousarray((gy + pad) * m.stride + gx + pad, dtype=np.int64)
        diagonal = DIAG_CODES[grid.diagonal]
        cost, dirs = lattice_dijkstra(
            p.passable, passable, p.weights_for(grid, self.size), p.uniform_weight, m.stride, m.moves,
            np.ascontiguousarray(self._steps()), m.corner_sides, m.n_sides, m.n_moves, diagonal,
            m.parity_axis, m.parity_shift, goals, self.size,
        )  # fmt: skip
        inner = (slice(pad, pad + h), slice(pad, pad + w))
        full_cost = np.full((self.tiles_y * cs, self.tiles_x * cs), np.inf)
        full_dirs = np.full(full_cost.shape, WALL, dtype=np.uint8)
        full_cost[:h, :w] = cost.reshape(-1, m.stride)[inner]
        full_dirs[:h, :w] = dirs.reshape(-1, m.stride)[inner]
        shape = (self.tiles_y, cs, self.tiles_x, cs)
        tiles = np.arange(self.tiles_x * self.tiles_y, dtype=np.int64)
        self._store(
            tiles,
            full_cost.reshape(shape).transpose(0, 2, 1, 3).reshape(tiles.size, cs * cs),
            full_dirs.reshape(shape).transpose(0, 2, 1, 3).reshape(tiles.size, cs * cs),
        )
        self._searched = grid.node_count
        return [int(t) for t in tiles]

    def repair(self, *, dearer: npt.ArrayLike = (), cheaper: npt.ArrayLike = ()) -> RepairReport:
        """Bring the field up to date after cells changed: the map is computed again (when it was
        computed), and the report names the tiles whose bytes or costs differ from before.

        Raises:
            InvalidQueryError, OutOfBoundsError: malformed cells (nothing is changed).
        """
        w, h = self.grid.width, self.grid.height
        dear, cheap = as_cells(dearer, w, h), as_cells(cheaper, w, h)
        self.version = self.grid.version
        known = np.flatnonzero(self.known_slot >= 0)
        if known.size == 0 or dear.size + cheap.size == 0:
            return RepairReport((), ())
        before = (self._cost.copy(), self._dirs.copy(), self.known_slot.copy())
        self._reset()
        done = self._compute_all()
        changed = []
        for t in done:
            old = int(before[2][t])
            new = int(self.known_slot[t])
            if old < 0 or not (
                np.array_equal(before[1][old], self._dirs[new])
                and np.array_equal(before[0][old], self._cost[new])
            ):
                changed.append(t)
        return RepairReport(tuple(done), tuple(changed))

    def _entered_weights(self) -> F64:
        """Per grid cell, the weight a step into it costs: the highest under the footprint."""
        grid = self.tile_grid
        p = prepared(grid)
        if self.size == 1 or p.uniform_weight >= 0.0:
            return np.ascontiguousarray(grid.weights, dtype=np.float64).ravel()
        m = p.moves
        padded = p.weights_for(grid, self.size).reshape(-1, m.stride)
        return np.ascontiguousarray(padded[m.pad : m.pad + grid.height, m.pad : m.pad + grid.width]).ravel()

    # -- following ------------------------------------------------------------------------------------

    def follow(self, cell: npt.ArrayLike, *, max_steps: int | None = None) -> tuple[float, Cell, int]:
        """Walk the directions from ``cell`` along the layout's moves: ``(cost, end cell, last byte)``;
        the last byte is ``GOAL`` on arrival, ``-1`` when the walk left the computed tiles or ran
        out of steps.

        Raises:
            InvalidQueryError, OutOfBoundsError: a malformed cell, or one outside the grid.
        """
        w = self.grid.width
        x, y = as_cell(cell, w, self.grid.height)
        axis, shift = self._parity()
        steps = self.grid.node_count if max_steps is None else max_steps
        total, end, code = lattice_follow(
            self._dirs, self.known_slot, self._entered_weights(),
            w, self.grid.height, self.cs, self.tiles_x, self._offsets, np.ascontiguousarray(self._steps()),
            axis, shift, y * w + x, steps,
        )  # fmt: skip
        if end < 0:
            raise OutOfBoundsError(f"the field led out of the grid from {(x, y)}")  # a broken field
        return float(total), (end % w, end // w), int(code)
