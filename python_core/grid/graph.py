"""Grid graphs with Godot ``AStarGrid2D`` semantics: walls, weights, diagonal modes and agents.

Quick start::

    from python_core.grid import DiagonalMode, GridGraph
    grid = GridGraph.from_strings(["...", ".@.", "..."], diagonal=DiagonalMode.ONLY_IF_NO_OBSTACLES)
    grid.place_agent(7, (1, 0))
    assert grid.find_path((0, 0), (2, 0)).cost == 4.0  # around the agent, the wall forbids diagonals

Cells are ``(x, y)`` (x = column, y = row); node ids are ``y * width + x``; path points are
``origin + (x, y) * cell_size``. Entering a cell costs the Euclidean length of the step in world
units times the weight of the cell entered, as ``AStarGrid2D`` multiplies by ``weight_scale``.

Endpoint rules (Godot's, where it has one): a start out of bounds raises ``OutOfBoundsError``, a start
on a wall raises ``BlockedEndpointError``; a goal on a wall, or occupied by another agent, is not an
error: the result is ``no_path`` (or ``partial`` with ``allow_partial``), as ``AStarGrid2D`` returns
an empty path for a solid goal. Agents never block the start cell, which is never entered.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from os import PathLike
from typing import Any

import numpy as np
import numpy.typing as npt

from python_core._types import F64, U8, B, DiagonalMode
from python_core.compiled import register_warm_up
from python_core.errors import GraphFileError, InvalidGraphError, InvalidQueryError
from python_core.formats.movingai import BLOCKED, PASSABLE, mask_from_rows, read_map
from python_core.grid.agents import GridAgents
from python_core.grid.cells import Cell, as_cell, parse_mask, parse_pair, parse_weights
from python_core.grid.clearance import check_size, size_for_radius
from python_core.grid.obstacles import GridObstacles, ObstacleLayer
from python_core.grid.search import dispatch
from python_core.grid.search.prepared import prepared_for
from python_core.result import PathResult, QueryOptions

__all__ = ["GridGraph"]


class GridGraph(GridObstacles, GridAgents):
    """A rectangular grid of cells: walkable or not, each with a weight, plus dynamic agents and
    obstacles (:mod:`python_core.grid.obstacles`).

    Storage is flat: ``walkable`` uint8 and ``weights`` float64 arrays of ``width * height``, an
    int32 agent count per cell and a dict agent id -> cell. No object per node.

    Args:
        walkable: 2D array ``(height, width)``: bool (True = walkable) or numbers (0 = blocked,
            positive = walkable).
        diagonal: a :class:`DiagonalMode` or its value string; Godot's default is ``always``.
        weights: 2D array of per-cell weights (finite, ``>= 0``), default all 1.
        cell_size: ``(w, h)`` or one number, positive and finite.
        origin: world position of cell (0, 0).

    Raises:
        InvalidGraphError: bad shape, non-finite or negative values, bad cell size or mode.

    Example:
        >>> g = GridGraph(np.array([[1, 1], [0, 1]]), diagonal="never", cell_size=2.0)
        >>> g.find_path((0, 0), (1, 1)).cost
        4.0
        >>> GridGraph(np.zeros((0, 3)))
        Traceback (most recent call last):
        ...
        python_core.errors.InvalidGraphError: walkable must be a non-empty 2D array, got shape (0, 3)
    """

    def __init__(
        self,
        walkable: npt.ArrayLike,
        *,
        diagonal: DiagonalMode | str = DiagonalMode.ALWAYS,
        weights: npt.ArrayLike | None = None,
        cell_size: float | Sequence[float] = (1.0, 1.0),
        origin: Sequence[float] = (0.0, 0.0),
    ) -> None:
        mask = parse_mask(walkable)
        self._height, self._width = int(mask.shape[0]), int(mask.shape[1])
        try:
            self._diagonal = DiagonalMode(diagonal)
        except ValueError:
            modes = [m.value for m in DiagonalMode]
            raise InvalidGraphError(f"unknown diagonal mode {diagonal!r}; expected one of {modes}") from None
        size = (cell_size, cell_size) if isinstance(cell_size, int | float) else cell_size
        self._cell_size = parse_pair("cell_size", size, positive=True)
        self._origin = parse_pair("origin", origin, positive=False)
        self._walkable = mask.astype(np.uint8).ravel()
        self._weights = parse_weights(weights, mask.shape)
        self._occupancy = np.zeros(self._width * self._height, dtype=np.int32)
        self._agents: dict[int, Cell] = {}
        self._sizes: dict[int, int] = {}
        self._version = 0
        self._undo: list[Callable[[], None]] | None = None  # inside atomic(): how to go back
        self._obstacles: ObstacleLayer | None = None  # made by the first update_obstacles

    @classmethod
    def from_strings(
        cls,
        rows: Sequence[str] | str,
        *,
        passable: str = PASSABLE,
        blocked: str = BLOCKED,
        **kwargs: Any,
    ) -> GridGraph:
        """Build a grid from text rows, one character per cell (Moving AI letters by default).

        Args:
            rows: equal-length strings, top row first, or one string of lines.
            passable: characters of walkable cells.
            blocked: characters of blocked cells.
            **kwargs: passed to :class:`GridGraph` (``diagonal``, ``weights``, ``cell_size``...).

        Returns:
            The grid.

        Raises:
            InvalidGraphError: ragged rows, no rows, or a character in neither set.

        Example:
            >>> int(GridGraph.from_strings(["..@", "..."]).walkable.sum())
            5
            >>> GridGraph.from_strings(["..", "x."])
            Traceback (most recent call last):
            ...
            python_core.errors.InvalidGraphError: unknown cell character 'x' at (0, 1)
        """
        lines = rows.splitlines() if isinstance(rows, str) else list(rows)
        try:
            mask = mask_from_rows(lines, passable=passable, blocked=blocked)
        except GraphFileError as exc:
            raise InvalidGraphError(str(exc)) from None
        return cls(mask, **kwargs)

    @classmethod
    def from_movingai(
        cls,
        path: str | PathLike[str],
        *,
        diagonal: DiagonalMode | str = DiagonalMode.ONLY_IF_NO_OBSTACLES,
        **kwargs: Any,
    ) -> GridGraph:
        """Load a Moving AI ``.map`` file ('.', 'G', 'S' passable; '@', 'O', 'T', 'W' blocked).

        Args:
            path: the file.
            diagonal: defaults to the benchmark rule, no corner cutting.
            **kwargs: passed to :class:`GridGraph`.

        Returns:
            The grid.

        Raises:
            GraphFileError: the file is not a valid octile map.
            OSError: the file cannot be read.

        Example:
            >>> GridGraph.from_movingai("tests/data/movingai/arena.map").width
            49
        """
        return cls(read_map(path), diagonal=diagonal, **kwargs)

    # -- properties -------------------------------------------------------------------------------

    @property
    def width(self) -> int:
        """Number of columns."""
        return self._width

    @property
    def height(self) -> int:
        """Number of rows."""
        return self._height

    @property
    def node_count(self) -> int:
        """Number of cells, ``width * height``."""
        return self._width * self._height

    @property
    def diagonal(self) -> DiagonalMode:
        """The diagonal rule."""
        return self._diagonal

    @property
    def cell_size(self) -> tuple[float, float]:
        """``(w, h)`` of one cell in world units."""
        return self._cell_size

    @property
    def origin(self) -> tuple[float, float]:
        """World position of cell (0, 0)."""
        return self._origin

    @property
    def walkable(self) -> B:
        """Read-only ``(height, width)`` bool view of the walls (True = walkable) with the cells under
        obstacles blocked (:attr:`base_walkable`: without them); agents not included."""
        view = self._walkable.view(np.bool_).reshape(self._height, self._width)
        view.flags.writeable = False
        return view

    @property
    def weights(self) -> F64:
        """Read-only ``(height, width)`` view of the per-cell weights."""
        view = self._weights.reshape(self._height, self._width)
        view.flags.writeable = False
        return view

    @property
    def clearance(self) -> U8:
        """Read-only ``(height, width)`` uint8 view: the largest unit size whose footprint (the
        k x k cells from a cell rightwards and downwards) fits on walkable cells inside the grid
        there, 0 on walls; see :mod:`python_core.grid.clearance`. Agents not included.

        Example:
            >>> GridGraph.from_strings(["...", "..@"]).clearance.tolist()
            [[2, 1, 1], [1, 1, 0]]
        """
        view = prepared_for(self).clearance  # the searches' padded copy: one byte per cell in all
        view.flags.writeable = False
        return view

    def size_for_radius(self, radius: float) -> int:
        """The unit size in cells for a unit of ``radius`` world units on this grid:
        ``max(1, ceil(2 * radius / min(cell_size)))``.

        Raises:
            InvalidQueryError: radius not finite and > 0, or wider than 255 cells.

        Example:
            >>> GridGraph(np.ones((4, 4)), cell_size=2.0).size_for_radius(1.5)
            2
        """
        return size_for_radius(radius, self._cell_size)

    @property
    def version(self) -> int:
        """Counts changes to walls and weights (not agents), so derived data knows when to rebuild."""
        return self._version

    # -- coordinates ------------------------------------------------------------------------------

    def cell_to_world(self, cell: Sequence[float], *, size: int = 1) -> tuple[float, float]:
        """World position of a cell's point, ``origin + (x, y) * cell_size``; for a unit of
        ``size`` cells anchored there, its footprint's centre, ``(size - 1) / 2`` cells further.

        Raises:
            InvalidQueryError: non-integral or non-finite coordinates, or a bad size.
            OutOfBoundsError: the cell is outside the grid.

        Example:
            >>> g = GridGraph(np.ones((2, 2)), cell_size=(2.0, 3.0), origin=(1.0, 0.0))
            >>> g.cell_to_world((1, 1)), g.cell_to_world((0, 0), size=2)
            ((3.0, 3.0), (2.0, 1.5))
        """
        x, y = as_cell(cell, self._width, self._height)
        shift = (check_size(size) - 1) / 2.0
        return (
            self._origin[0] + (x + shift) * self._cell_size[0],
            self._origin[1] + (y + shift) * self._cell_size[1],
        )

    def world_to_cell(self, position: Sequence[float], *, size: int = 1) -> Cell:
        """The cell whose point (see :meth:`cell_to_world`) lies nearest to ``position``; for a
        unit of ``size`` cells, the anchor whose footprint (inside the grid) has its centre nearest.

        With ``origin = cell_size / 2`` (points at tile centres) this is the tile containing it.

        Raises:
            InvalidQueryError: non-finite coordinates, or a bad size.
            OutOfBoundsError: the nearest cell lies outside the grid.

        Example:
            >>> g = GridGraph(np.ones((3, 3)), cell_size=2.0)
            >>> g.world_to_cell((2.9, 0.2)), g.world_to_cell((2.9, 0.2), size=2)
            ((1, 0), (1, 0))
            >>> g.world_to_cell((4.0, 4.0), size=2)  # (2, 2)'s footprint would leave the grid
            (1, 1)
        """
        px, py = parse_pair("position", position, positive=False, error=InvalidQueryError)
        k = check_size(size)
        fx, fy = (px - self._origin[0]) / self._cell_size[0], (py - self._origin[1]) / self._cell_size[1]
        x, y = as_cell((math.floor(fx + 0.5), math.floor(fy + 0.5)), self._width, self._height)
        if k == 1:
            return x, y
        shift = (k - 1) / 2.0  # nearest footprint centre, among anchors whose footprint fits
        x = min(max(math.floor(fx - shift + 0.5), 0), max(self._width - k, 0))
        y = min(max(math.floor(fy - shift + 0.5), 0), max(self._height - k, 0))
        return x, y

    # -- queries ----------------------------------------------------------------------------------

    def find_path(
        self,
        start: Sequence[int],
        goal: Sequence[int],
        *,
        options: QueryOptions | None = None,
        method: dispatch.Method = "auto",
    ) -> PathResult:
        """Shortest path between two cells, by the compiled A* or Jump Point Search.

        ``method="auto"`` picks JPS where it is exact (uniform weights, ``only_if_no_obstacles``,
        octile, no partial path), else the compiled A*; see :mod:`python_core.grid.search.dispatch`.
        The costs equal those of the readable reference,
        :func:`python_core.grid.search.reference.find_path`.

        Args:
            start: ``(x, y)`` start cell; must be walkable (agents on it do not matter).
            goal: ``(x, y)`` goal cell; a wall or another agent there gives ``no_path``/``partial``.
            options: heuristic (default octile, manhattan for ``never``), ``allow_partial``,
                ``max_expansions``, ``agent`` (never blocks itself), ``ignore_agents``, the unit's
                ``size`` in cells or ``radius`` (its k x k footprint from each cell rightwards and
                downwards must fit; points are the footprints' centres).
            method: ``"auto"``, ``"astar"`` or ``"jps"`` (an error where JPS is not exact).

        Returns:
            A :class:`PathResult`; ``nodes`` are ``y * width + x``.

        Raises:
            InvalidQueryError: malformed cells, bad options or an unknown heuristic.
            OutOfBoundsError: start or goal outside the grid.
            BlockedEndpointError: the start is a wall (or has no room for the unit's footprint).
            UnknownPointError: ``options.agent`` is not placed.

        Example:
            >>> g = GridGraph.from_strings([".@.", "..."], diagonal="never")
            >>> r = g.find_path((0, 0), (2, 0)); r.status.value, r.cost, r.nodes.tolist()
            ('found', 4.0, [0, 3, 4, 5, 2])
            >>> g.find_path((0, 0), (1, 0)).status.value  # a wall as the goal is no path, not an error
            'no_path'
        """
        return dispatch.find_path(self, start, goal, options=options, method=method)

    def __repr__(self) -> str:
        return (
            f"GridGraph(width={self._width}, height={self._height}, diagonal={self._diagonal.value!r}, "
            f"cell_size={self._cell_size}, origin={self._origin}, agents={len(self._agents)})"
        )


@register_warm_up
def _warm_up() -> None:
    """Compile every grid kernel with the dtypes real queries use (tiny grids, all branches)."""
    rows = ["....", ".@..", "...."]
    grid = GridGraph.from_strings(rows, diagonal=DiagonalMode.ONLY_IF_NO_OBSTACLES)
    grid.find_path((0, 0), (3, 2), method="jps")
    grid.find_path((0, 0), (3, 2), method="astar")
    weighted = GridGraph.from_strings(rows, weights=np.full((3, 4), 2.0) + np.eye(3, 4))
    partial = QueryOptions(allow_partial=True, max_expansions=3)
    weighted.find_path((0, 0), (3, 2), options=partial)
    dispatch.find_record(grid, (0, 0), (3, 2))  # a server's answers: the packed kernels
    dispatch.find_record(weighted, (0, 0), (3, 2), partial)
    grid.set_walkable([(1, 1)], True)  # the local repair, on the arrays' real layouts
    grid.find_path((0, 0), (2, 1), options=QueryOptions(size=2))
