"""Agents on a grid: who stands where, and the per-cell counts the searches block with.

Quick start::

    from python_core.grid import GridGraph
    grid = GridGraph.from_strings(["..."])
    grid.place_agent(1, (1, 0))
    assert not grid.find_path((0, 0), (2, 0)).found and grid.agents_on([1])

An agent blocks its footprint for every other agent's search (the querying agent never blocks
itself, ``ignore_agents`` ignores them all) and never changes :attr:`GridGraph.version`: the walls
and weights derived data depends on stay as they are. An agent of size a at ``(x, y)`` covers the
a x a cells from there rightwards and downwards (its anchor is the footprint's top-left cell); a
size-k search may not stand where its own footprint would overlap another's. :class:`GridAgents`
is the part of :class:`~python_core.grid.GridGraph` that keeps them; the grid itself supplies the storage.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType

import numpy as np
import numpy.typing as npt

from python_core._types import I32
from python_core.errors import InvalidQueryError, OutOfBoundsError, UnknownPointError
from python_core.grid.cells import Cell, as_cell, check_agent_id
from python_core.grid.clearance import check_size

__all__ = ["GridAgents"]


class GridAgents:
    """Agent methods of :class:`~python_core.grid.GridGraph`: a dict agent id -> cell plus an int32
    agent count per cell, changed together; inside ``atomic()`` each change notes how to go back."""

    _width: int
    _height: int
    _agents: dict[int, Cell]
    _sizes: dict[int, int]  # every placed agent's size, kept with _agents
    _occupancy: I32  # per cell, how many agents' footprints cover it
    _undo: list[Callable[[], None]] | None

    @property
    def agents(self) -> Mapping[int, Cell]:
        """Read-only mapping agent id -> cell (its footprint's anchor)."""
        return MappingProxyType(self._agents)

    @property
    def agent_sizes(self) -> Mapping[int, int]:
        """Read-only mapping agent id -> size in cells (1 unless placed with another size)."""
        return MappingProxyType(self._sizes)

    # -- agents -----------------------------------------------------------------------------------

    def place_agent(self, agent_id: int, cell: Sequence[int], size: int = 1) -> None:
        """Put a new agent on a cell; other agents' searches treat its footprint, the ``size x size``
        cells from ``cell`` rightwards and downwards, as blocked.

        Raises:
            InvalidQueryError: ``agent_id`` is not an int or is already placed; malformed cell;
                size not an int in 1..255.
            OutOfBoundsError: the footprint does not lie inside the grid.

        Example:
            >>> from python_core.grid import GridGraph
            >>> g = GridGraph(np.ones((1, 3), dtype=bool)); g.place_agent(1, (1, 0))
            >>> g.find_path((0, 0), (2, 0)).status.value, dict(g.agents)
            ('no_path', {1: (1, 0)})
            >>> g.place_agent(2, (2, 0), size=2)
            Traceback (most recent call last):
            ...
            python_core.errors.OutOfBoundsError: agent 2 of size 2 at (2, 0) does not fit inside the 3x1 grid
        """
        check_agent_id(agent_id)
        if agent_id in self._agents:
            raise InvalidQueryError(f"agent {agent_id} is already placed at {self._agents[agent_id]}")
        k = check_size(size)
        x, y = self._footprint_at(agent_id, cell, k)
        self._remember_agent(agent_id)
        self._cover(x, y, k, 1)
        self._agents[agent_id] = (x, y)
        self._sizes[agent_id] = k

    def move_agent(self, agent_id: int, cell: Sequence[int]) -> None:
        """Move a placed agent (and its footprint, same size) to another cell.

        Raises:
            UnknownPointError: no such agent.
            OutOfBoundsError: the footprint would leave the grid (the agent stays).

        Example:
            >>> from python_core.grid import GridGraph
            >>> g = GridGraph(np.ones((1, 3), dtype=bool)); g.place_agent(1, (1, 0)); g.move_agent(1, (2, 0))
            >>> g.find_path((0, 0), (1, 0)).found
            True
        """
        old = self._agent_cell(agent_id)
        k = self._sizes[agent_id]
        x, y = self._footprint_at(agent_id, cell, k)
        self._remember_agent(agent_id)
        self._cover(old[0], old[1], k, -1)
        self._cover(x, y, k, 1)
        self._agents[agent_id] = (x, y)

    def remove_agent(self, agent_id: int) -> None:
        """Take an agent off the grid.

        Raises:
            UnknownPointError: no such agent.

        Example:
            >>> from python_core.grid import GridGraph
            >>> g = GridGraph(np.ones((1, 1), dtype=bool)); g.place_agent(3, (0, 0)); g.remove_agent(3)
            >>> len(g.agents)
            0
        """
        x, y = self._agent_cell(agent_id)
        self._remember_agent(agent_id)
        self._cover(x, y, self._sizes.pop(agent_id), -1)
        del self._agents[agent_id]

    def _footprint_at(self, agent_id: int, cell: Sequence[int], size: int) -> Cell:
        x, y = as_cell(cell, self._width, self._height)
        if x + size > self._width or y + size > self._height:
            raise OutOfBoundsError(
                f"agent {agent_id} of size {size} at {(x, y)} does not fit inside the "
                f"{self._width}x{self._height} grid"
            )
        return x, y

    def _cover(self, x: int, y: int, size: int, count: int) -> None:
        """Add ``count`` to the occupancy of the footprint at ``(x, y)``."""
        if size == 1:
            self._occupancy[y * self._width + x] += count
        else:
            self._occupancy.reshape(self._height, self._width)[y : y + size, x : x + size] += count

    def _remember_agent(self, agent_id: int) -> None:
        """Inside :meth:`atomic`: note where ``agent_id`` stands now, and its size (or that it is
        not placed)."""
        if self._undo is None:
            return
        before = self._agents.get(agent_id)
        size = self._sizes.get(agent_id, 1)

        def put_back() -> None:
            now = self._agents.pop(agent_id, None)
            if now is not None:
                self._cover(now[0], now[1], self._sizes.pop(agent_id), -1)
            if before is not None:
                self._agents[agent_id] = before
                self._sizes[agent_id] = size
                self._cover(before[0], before[1], size, 1)

        self._undo.append(put_back)

    def agents_on(self, nodes: npt.ArrayLike, *, besides: int | None = None, size: int = 1) -> bool:
        """Whether an agent other than ``besides`` has its footprint on one of ``nodes`` (flat cell
        ids ``y * width + x``), or, for a unit of ``size``, on the footprint of one of them: from
        the per-cell counts, a few microseconds for a long path.

        Example:
            >>> from python_core.grid import GridGraph
            >>> g = GridGraph(np.ones((3, 4), dtype=bool)); g.place_agent(1, (2, 0))
            >>> g.agents_on([1, 2, 3]), g.agents_on([1, 2, 3], besides=1), g.agents_on([0])
            (True, False, False)
            >>> g.agents_on([4], size=2), g.agents_on([4])  # (0, 1): its 2x2 misses (2, 0)
            (False, False)
            >>> g.agents_on([1], size=2)
            True
        """
        if not self._agents:  # first: every hierarchical query asks, most grids have none
            return False
        cells = np.asarray(nodes, dtype=np.int64).ravel()
        if not cells.size:
            return False
        w = self._width
        if size > 1:  # every cell under the footprints of the anchors
            xs, ys = cells % w, cells // w
            steps = np.arange(size)
            fx = np.minimum(xs[:, None, None] + steps[None, None, :], w - 1)
            fy = np.minimum(ys[:, None, None] + steps[None, :, None], self._height - 1)
            cells = np.unique((fy * w + fx).ravel())
        counts = self._occupancy[cells]
        own = self._agents.get(besides) if besides is not None else None
        if own is not None:  # its own footprint counts one agent fewer
            a = self._sizes[besides]  # type: ignore[index]
            xs, ys = cells % w, cells // w
            counts = counts - ((xs >= own[0]) & (xs < own[0] + a) & (ys >= own[1]) & (ys < own[1] + a))
        return bool(counts.any())

    def _agent_cell(self, agent_id: int) -> Cell:
        check_agent_id(agent_id)
        if agent_id not in self._agents:
            raise UnknownPointError(f"no agent with id {agent_id}")
        return self._agents[agent_id]
