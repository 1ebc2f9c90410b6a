"""Agents on a grid: who stands where, and the per-cell counts the searches block with.

Quick start::

    from python_core.grid import GridGraph
    grid = GridGraph.from_strings(["..."])
    grid.place_agent(1, (1, 0))
    assert not grid.find_path((0, 0), (2, 0)).found and grid.agents_on([1])

An agent blocks its cell for every other agent's search (the querying agent never blocks itself,
``ignore_agents`` ignores them all) and never changes :attr:`GridGraph.version`: the walls and
weights derived data depends on stay as they are. :class:`GridAgents` is the part of
:class:`~python_core.grid.GridGraph` that keeps them; the grid itself supplies the storage.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType

import numpy as np
import numpy.typing as npt

from python_core._types import I32
from python_core.errors import InvalidQueryError, UnknownPointError
from python_core.grid.cells import Cell, as_cell, check_agent_id

__all__ = ["GridAgents"]


class GridAgents:
    """Agent methods of :class:`~python_core.grid.GridGraph`: a dict agent id -> cell plus an int32
    agent count per cell, changed together; inside ``atomic()`` each change notes how to go back."""

    _width: int
    _height: int
    _agents: dict[int, Cell]
    _occupancy: I32
    _undo: list[Callable[[], None]] | None

    @property
    def agents(self) -> Mapping[int, Cell]:
        """Read-only mapping agent id -> cell."""
        return MappingProxyType(self._agents)

    # -- agents -----------------------------------------------------------------------------------

    def place_agent(self, agent_id: int, cell: Sequence[int]) -> None:
        """Put a new agent on a cell; other agents' searches treat that cell as blocked.

        Raises:
            InvalidQueryError: ``agent_id`` is not an int or is already placed; malformed cell.
            OutOfBoundsError: the cell is outside the grid.

        Example:
            >>> from python_core.grid import GridGraph
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
            >>> from python_core.grid import GridGraph
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
            >>> from python_core.grid import GridGraph
            >>> g = GridGraph(np.ones((1, 1), dtype=bool)); g.place_agent(3, (0, 0)); g.remove_agent(3)
            >>> len(g.agents)
            0
        """
        x, y = self._agent_cell(agent_id)
        self._remember_agent(agent_id)
        self._occupancy[y * self._width + x] -= 1
        del self._agents[agent_id]

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
            >>> from python_core.grid import GridGraph
            >>> g = GridGraph(np.ones((1, 4), dtype=bool)); g.place_agent(1, (2, 0))
            >>> g.agents_on([1, 2, 3]), g.agents_on([1, 2, 3], besides=1), g.agents_on([0])
            (True, False, False)
        """
        if not self._agents:  # first: every hierarchical query asks, most grids have none
            return False
        cells = np.asarray(nodes, dtype=np.int64)
        if not cells.size:
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
