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
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from enum import Enum
from os import PathLike
from types import MappingProxyType
from typing import Any

import numpy as np
import numpy.typing as npt

from python_core.errors import (
    BlockedEndpointError,
    GraphFileError,
    InvalidGraphError,
    InvalidQueryError,
    UnknownPointError,
)
from python_core.grid_search import (
    DIAG_ALWAYS,
    DIAG_AT_LEAST_ONE_WALKABLE,
    DIAG_NEVER,
    DIAG_ONLY_IF_NO_OBSTACLES,
    Cell,
    as_cell,
    as_cells,
    check_agent_id,
    check_options,
    parse_pair,
    run_grid_search,
)
from python_core.heuristics import HEURISTIC_CODES, resolve_heuristic
from python_core.movingai import BLOCKED, PASSABLE, mask_from_rows, read_map
from python_core.result import PathResult, PathStatus, QueryOptions

__all__ = ["Cell", "DiagonalMode", "GridGraph"]


class DiagonalMode(str, Enum):
    """When a diagonal step from (x, y) to (x+dx, y+dy) is allowed, as Godot's ``DIAGONAL_MODE_*``.

    The rule looks at the two orthogonal cells (x+dx, y) and (x, y+dy) the step squeezes between.
    """

    ALWAYS = "always"
    """Ignore them (corner cutting allowed). Godot's default."""
    NEVER = "never"
    """No diagonal steps: 4-connected."""
    AT_LEAST_ONE_WALKABLE = "at_least_one_walkable"
    """At least one of them must be walkable."""
    ONLY_IF_NO_OBSTACLES = "only_if_no_obstacles"
    """Both must be walkable (no corner cutting); the Moving AI benchmark rule."""


_DIAG_CODES = {
    DiagonalMode.ALWAYS: DIAG_ALWAYS,
    DiagonalMode.NEVER: DIAG_NEVER,
    DiagonalMode.AT_LEAST_ONE_WALKABLE: DIAG_AT_LEAST_ONE_WALKABLE,
    DiagonalMode.ONLY_IF_NO_OBSTACLES: DIAG_ONLY_IF_NO_OBSTACLES,
}


class GridGraph:
    """A rectangular grid of cells: walkable or not, each with a weight, plus dynamic agents.

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
        mask = _parse_mask(walkable)
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
        self._weights = _parse_weights(weights, mask.shape)
        self._occupancy = np.zeros(self._width * self._height, dtype=np.int32)
        self._agents: dict[int, Cell] = {}
        self._cache: tuple[bytearray, list[float], float] | None = None
        self._version = 0
        self._undo: list[Callable[[], None]] | None = None  # inside atomic(): how to go back

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
    def walkable(self) -> npt.NDArray[np.bool_]:
        """Read-only ``(height, width)`` bool view of the walls (True = walkable); agents not included."""
        view = self._walkable.view(np.bool_).reshape(self._height, self._width)
        view.flags.writeable = False
        return view

    @property
    def weights(self) -> npt.NDArray[np.float64]:
        """Read-only ``(height, width)`` view of the per-cell weights."""
        view = self._weights.reshape(self._height, self._width)
        view.flags.writeable = False
        return view

    @property
    def version(self) -> int:
        """Counts changes to walls and weights (not agents), so derived data knows when to rebuild."""
        return self._version

    @property
    def agents(self) -> Mapping[int, Cell]:
        """Read-only mapping agent id -> cell."""
        return MappingProxyType(self._agents)

    # -- coordinates ------------------------------------------------------------------------------

    def cell_to_world(self, cell: Sequence[float]) -> tuple[float, float]:
        """World position of a cell's point, ``origin + (x, y) * cell_size``.

        Raises:
            InvalidQueryError: non-integral or non-finite coordinates.
            OutOfBoundsError: the cell is outside the grid.

        Example:
            >>> GridGraph(np.ones((2, 2)), cell_size=(2.0, 3.0), origin=(1.0, 0.0)).cell_to_world((1, 1))
            (3.0, 3.0)
        """
        x, y = as_cell(cell, self._width, self._height)
        return (self._origin[0] + x * self._cell_size[0], self._origin[1] + y * self._cell_size[1])

    def world_to_cell(self, position: Sequence[float]) -> Cell:
        """The cell whose point (see :meth:`cell_to_world`) lies nearest to ``position``.

        With ``origin = cell_size / 2`` (points at tile centres) this is the tile containing it.

        Raises:
            InvalidQueryError: non-finite coordinates.
            OutOfBoundsError: the nearest cell lies outside the grid.

        Example:
            >>> GridGraph(np.ones((2, 2)), cell_size=2.0).world_to_cell((2.9, 0.2))
            (1, 0)
        """
        px, py = parse_pair("position", position, positive=False, error=InvalidQueryError)
        x = math.floor((px - self._origin[0]) / self._cell_size[0] + 0.5)
        y = math.floor((py - self._origin[1]) / self._cell_size[1] + 0.5)
        return as_cell((x, y), self._width, self._height)

    # -- mutations (validated in full before anything is written) --------------------------------

    def set_walkable(self, cells: npt.ArrayLike, walkable: bool | npt.ArrayLike = True) -> None:
        """Open or close cells.

        Args:
            cells: one ``(x, y)`` or an ``(n, 2)`` array / sequence of cells.
            walkable: one bool for all, or one per cell.

        Raises:
            InvalidQueryError: malformed cells or a ``walkable`` of the wrong length.
            OutOfBoundsError: a cell outside the grid (nothing is changed).

        Example:
            >>> g = GridGraph(np.ones((1, 3), dtype=bool))
            >>> g.set_walkable([(1, 0)], False); g.find_path((0, 0), (2, 0)).status.value
            'no_path'
        """
        nodes = as_cells(cells, self._width, self._height)
        values = np.asarray(walkable)
        if values.dtype != np.bool_ or values.ndim > 1 or values.size not in (1, nodes.size):
            raise InvalidQueryError(f"walkable must be one bool or one per cell, got {walkable!r:.80}")
        self._remember(self._walkable, nodes)
        self._walkable[nodes] = values
        self._cache = None
        self._version += 1

    def set_weight(self, cell: Sequence[int], weight: float) -> None:
        """Set one cell's weight; see :meth:`set_weights`.

        Example:
            >>> g = GridGraph(np.ones((1, 2))); g.set_weight((1, 0), 3.0); g.find_path((0, 0), (1, 0)).cost
            3.0
        """
        self.set_weights([cell], [weight])

    def set_weights(self, cells: npt.ArrayLike, weights: float | npt.ArrayLike) -> None:
        """Set the weight of cells (the factor on the cost of entering them).

        Args:
            cells: one ``(x, y)`` or an ``(n, 2)`` array of cells.
            weights: one number for all, or one per cell; finite and ``>= 0``.

        Raises:
            InvalidQueryError: malformed cells or weights of the wrong length.
            InvalidGraphError: a negative or non-finite weight (nothing is changed).
            OutOfBoundsError: a cell outside the grid.

        Example:
            >>> GridGraph(np.ones((1, 2))).set_weights([(0, 0)], -1.0)
            Traceback (most recent call last):
            ...
            python_core.errors.InvalidGraphError: weight must be finite and >= 0, got -1.0 at cell (0, 0)
        """
        nodes = as_cells(cells, self._width, self._height)
        try:
            values = np.broadcast_to(np.asarray(weights, dtype=np.float64), nodes.shape)
        except (TypeError, ValueError) as exc:
            raise InvalidQueryError(f"weights must be one number or one per cell: {weights!r:.80}") from exc
        _reject_bad("weight", values, self._width, nodes)
        self._remember(self._weights, nodes)
        self._weights[nodes] = values
        self._cache = None
        self._version += 1

    # -- agents -----------------------------------------------------------------------------------

    def place_agent(self, agent_id: int, cell: Sequence[int]) -> None:
        """Put a new agent on a cell; other agents' searches treat that cell as blocked.

        Raises:
            InvalidQueryError: ``agent_id`` is not an int or is already placed; malformed cell.
            OutOfBoundsError: the cell is outside the grid.

        Example:
            >>> g = GridGraph(np.ones((1, 3), dtype=bool)); g.place_agent(1, (1, 0))
            >>> g.find_path((0, 0), (2, 0)).status.value, dict(g.agents)
            ('no_path', {1: (1, 0)})
        """
        check_agent_id(agent_id)
        if agent_id in self._agents:
            raise InvalidQueryError(f"agent {agent_id} is already placed at {self._agents[agent_id]}")
        x, y = as_cell(cell, self._width, self._height)
        self._remember_agent(agent_id)
        self._agents[agent_id] = (x, y)
        self._occupancy[y * self._width + x] += 1

    def move_agent(self, agent_id: int, cell: Sequence[int]) -> None:
        """Move a placed agent to another cell.

        Raises:
            UnknownPointError: no such agent.
            OutOfBoundsError: the cell is outside the grid (the agent stays).

        Example:
            >>> g = GridGraph(np.ones((1, 3), dtype=bool)); g.place_agent(1, (1, 0)); g.move_agent(1, (2, 0))
            >>> g.find_path((0, 0), (1, 0)).found
            True
        """
        old = self._agent_cell(agent_id)
        x, y = as_cell(cell, self._width, self._height)
        self._remember_agent(agent_id)
        self._occupancy[old[1] * self._width + old[0]] -= 1
        self._occupancy[y * self._width + x] += 1
        self._agents[agent_id] = (x, y)

    def remove_agent(self, agent_id: int) -> None:
        """Take an agent off the grid.

        Raises:
            UnknownPointError: no such agent.

        Example:
            >>> g = GridGraph(np.ones((1, 1), dtype=bool)); g.place_agent(3, (0, 0)); g.remove_agent(3)
            >>> len(g.agents)
            0
        """
        x, y = self._agent_cell(agent_id)
        self._remember_agent(agent_id)
        self._occupancy[y * self._width + x] -= 1
        del self._agents[agent_id]

    # -- all or nothing ---------------------------------------------------------------------------

    @contextmanager
    def atomic(self) -> Iterator[None]:
        """Make the changes inside the block (walls, weights, agents) all or nothing: when the
        block raises, each change made in it is undone, newest first, and the error goes on. What
        it keeps is only the old values of the cells changed, where a copy of the grid to fall back
        on costs its whole size on every change. An inner block joins the outer one.

        Example:
            >>> g = GridGraph(np.ones((1, 3), dtype=bool))
            >>> try:
            ...     with g.atomic():
            ...         g.set_walkable([(1, 0)], False)
            ...         g.move_agent(9, (2, 0))  # no agent 9: the wall goes again
            ... except UnknownPointError as exc:
            ...     print(exc)
            no agent with id 9
            >>> g.find_path((0, 0), (2, 0)).found
            True
        """
        if self._undo is not None:
            yield
            return
        undo: list[Callable[[], None]] = []
        self._undo = undo
        try:
            yield
        except BaseException:
            for step in reversed(undo):
                step()
            raise
        finally:
            self._undo = None

    def _remember(self, array: npt.NDArray[Any], nodes: npt.NDArray[np.int64]) -> None:
        """Inside :meth:`atomic`: note how to put back ``array``'s values at ``nodes`` (read before
        any write, so a cell listed twice gets its one old value back)."""
        if self._undo is None:
            return
        old = array[nodes].copy()

        def put_back() -> None:
            array[nodes] = old
            self._cache = None
            self._version += 1

        self._undo.append(put_back)

    def _remember_agent(self, agent_id: int) -> None:
        """Inside :meth:`atomic`: note where ``agent_id`` stands now (or that it is not placed)."""
        if self._undo is None:
            return
        before = self._agents.get(agent_id)

        def put_back() -> None:
            now = self._agents.pop(agent_id, None)
            if now is not None:
                self._occupancy[now[1] * self._width + now[0]] -= 1
            if before is not None:
                self._agents[agent_id] = before
                self._occupancy[before[1] * self._width + before[0]] += 1

        self._undo.append(put_back)

    def agents_on(self, nodes: npt.ArrayLike, *, besides: int | None = None) -> bool:
        """Whether an agent other than ``besides`` stands on one of ``nodes`` (flat cell ids
        ``y * width + x``), from the per-cell counts: a few microseconds for a long path.

        Example:
            >>> g = GridGraph(np.ones((1, 4), dtype=bool)); g.place_agent(1, (2, 0))
            >>> g.agents_on([1, 2, 3]), g.agents_on([1, 2, 3], besides=1), g.agents_on([0])
            (True, False, False)
        """
        cells = np.asarray(nodes, dtype=np.int64)
        if not self._agents or not cells.size:
            return False
        counts = self._occupancy[cells]
        own = self._agents.get(besides) if besides is not None else None
        if own is not None:  # its own cell counts one agent fewer
            counts = counts - (cells == own[1] * self._width + own[0])
        return bool(counts.any())

    def _agent_cell(self, agent_id: int) -> Cell:
        check_agent_id(agent_id)
        if agent_id not in self._agents:
            raise UnknownPointError(f"no agent with id {agent_id}")
        return self._agents[agent_id]

    # -- queries ----------------------------------------------------------------------------------

    def find_path(
        self, start: Sequence[int], goal: Sequence[int], *, options: QueryOptions | None = None
    ) -> PathResult:
        """Shortest path between two cells by A*.

        Args:
            start: ``(x, y)`` start cell; must be walkable (agents on it do not matter).
            goal: ``(x, y)`` goal cell; a wall or another agent there gives ``no_path``/``partial``.
            options: heuristic (default octile, manhattan for ``never``), ``allow_partial``,
                ``max_expansions``, ``agent`` (never blocks itself), ``ignore_agents``.

        Returns:
            A :class:`PathResult`; ``nodes`` are ``y * width + x``.

        Raises:
            InvalidQueryError: malformed cells, bad options or an unknown heuristic.
            OutOfBoundsError: start or goal outside the grid.
            BlockedEndpointError: the start is a wall.
            UnknownPointError: ``options.agent`` is not placed.

        Example:
            >>> g = GridGraph.from_strings([".@.", "..."], diagonal="never")
            >>> r = g.find_path((0, 0), (2, 0)); r.status.value, r.cost, r.nodes.tolist()
            ('found', 4.0, [0, 3, 4, 5, 2])
        """
        opts = options if options is not None else QueryOptions()
        check_options(opts)
        name = resolve_heuristic(opts.heuristic, eight_connected=self._diagonal is not DiagonalMode.NEVER)
        if opts.agent is not None:
            self._agent_cell(opts.agent)
        sx, sy = as_cell(start, self._width, self._height, what="start")
        gx, gy = as_cell(goal, self._width, self._height, what="goal")
        s, g = sy * self._width + sx, gy * self._width + gx
        if not self._walkable[s]:
            raise BlockedEndpointError(f"start cell {(sx, sy)} is blocked")
        passable, weights, min_weight = self._kernel_input(opts)
        if s != g and not passable[g] and not opts.allow_partial:
            return PathResult(PathStatus.NO_PATH)
        return run_grid_search(
            passable, weights, width=self._width, height=self._height, start=s, goal=g,
            diagonal=_DIAG_CODES[self._diagonal], cell_size=self._cell_size, origin=self._origin,
            heuristic=HEURISTIC_CODES[name], h_scale=min_weight,
            allow_partial=opts.allow_partial, max_expansions=opts.max_expansions,
        )  # fmt: skip

    def _kernel_input(self, opts: QueryOptions) -> tuple[bytearray, list[float], float]:
        """Buffers for the kernel: walls (+ other agents) as bytes, weights as floats, min weight."""
        if self._cache is None:
            open_weights = self._weights[self._walkable == 1]
            min_weight = float(open_weights.min()) if open_weights.size else 1.0
            self._cache = (bytearray(self._walkable.tobytes()), self._weights.tolist(), min_weight)
        walls, weights, min_weight = self._cache
        if opts.ignore_agents or not self._agents:
            return walls, weights, min_weight
        passable = bytearray(walls)
        own = self._agents.get(opts.agent) if opts.agent is not None else None
        for x, y in self._agents.values():
            passable[y * self._width + x] = 0
        if own is not None:
            node = own[1] * self._width + own[0]
            if self._occupancy[node] == 1:
                passable[node] = self._walkable[node]
        return passable, weights, min_weight

    def __repr__(self) -> str:
        return (
            f"GridGraph(width={self._width}, height={self._height}, diagonal={self._diagonal.value!r}, "
            f"cell_size={self._cell_size}, origin={self._origin}, agents={len(self._agents)})"
        )


def _parse_mask(walkable: npt.ArrayLike) -> npt.NDArray[np.bool_]:
    """A validated ``(height, width)`` bool copy of a walkable array (numbers: 0 blocked, > 0 open)."""
    try:
        array = np.asarray(walkable)
    except (TypeError, ValueError) as exc:
        raise InvalidGraphError(f"walkable is not an array: {exc}") from exc
    if array.ndim != 2 or 0 in array.shape:
        raise InvalidGraphError(f"walkable must be a non-empty 2D array, got shape {array.shape}")
    if array.dtype == np.bool_:
        return np.array(array, dtype=np.bool_)
    if not (np.issubdtype(array.dtype, np.integer) or np.issubdtype(array.dtype, np.floating)):
        raise InvalidGraphError(f"walkable must be bool or numeric, got dtype {array.dtype}")
    _reject_bad("walkable values", array.ravel(), array.shape[1])
    return np.asarray(array != 0, dtype=np.bool_)


def _parse_weights(weights: npt.ArrayLike | None, shape: tuple[int, int]) -> npt.NDArray[np.float64]:
    """Validated flat float64 weights (all 1 when None); each finite and ``>= 0``."""
    if weights is None:
        return np.ones(shape[0] * shape[1], dtype=np.float64)
    try:
        array = np.array(weights, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidGraphError(f"weights are not numbers: {exc}") from exc
    if array.shape != shape:
        raise InvalidGraphError(f"weights must have the walkable shape {shape}, got {array.shape}")
    _reject_bad("weight", array.ravel(), shape[1])
    return array.ravel()


def _reject_bad(
    what: str, values: npt.NDArray[Any], width: int, nodes: npt.NDArray[np.int64] | None = None
) -> None:
    """Raise InvalidGraphError naming the first value (and its cell) that is negative or not finite."""
    bad = ~(np.isfinite(values) & (values >= 0))
    if bad.any():
        i = int(np.argmax(bad))
        node = i if nodes is None else int(nodes[i])
        cell = (node % width, node // width)
        raise InvalidGraphError(f"{what} must be finite and >= 0, got {values[i].item()!r} at cell {cell}")
