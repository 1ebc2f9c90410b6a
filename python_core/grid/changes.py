"""Changing a grid's walls and weights: validated in full first, all or nothing in ``atomic()``.

Quick start::

    from python_core.grid import GridGraph
    grid = GridGraph.from_strings(["...", "..."])
    with grid.atomic():                       # all of these, or none when one raises
        grid.set_walkable([(1, 0)], False)
        grid.set_weights([(0, 1), (2, 1)], 3.0)

:class:`GridChanges` is the part of :class:`~python_core.grid.GridGraph` that changes cells; each
change moves :attr:`GridGraph.version`, so data derived from the walls and weights knows to update.
The searches' padded copy is repaired in place (:mod:`python_core.grid.search.repair`): clearance
up-left of the changed cells only, weights at them; no rebuild of the whole copy.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from python_core._types import F64, I64, B
from python_core.errors import InvalidQueryError
from python_core.grid.cells import as_cells, reject_bad
from python_core.grid.search.grid_view import GridView
from python_core.grid.search.repair import finish_patch, start_patch

__all__ = ["GridChanges"]


class GridChanges:
    """Wall and weight setters of :class:`~python_core.grid.GridGraph` and its ``atomic()`` block;
    the grid itself supplies the storage."""

    _width: int
    _height: int
    _walkable: npt.NDArray[np.uint8]
    _weights: F64
    _version: int
    _undo: list[Callable[[], None]] | None

    @property
    def _view(self) -> GridView:
        """The grid as the searches see it (the whole GridGraph is one)."""
        return cast("GridView", self)

    def set_walkable(self, cells: npt.ArrayLike, walkable: bool | npt.ArrayLike = True) -> None:
        """Open or close cells.

        Args:
            cells: one ``(x, y)`` or an ``(n, 2)`` array / sequence of cells.
            walkable: one bool for all, or one per cell.

        Raises:
            InvalidQueryError: malformed cells or a ``walkable`` of the wrong length.
            OutOfBoundsError: a cell outside the grid (nothing is changed).

        Example:
            >>> from python_core.grid import GridGraph
            >>> g = GridGraph(np.ones((1, 3), dtype=bool))
            >>> g.set_walkable([(1, 0)], False); g.find_path((0, 0), (2, 0)).status.value
            'no_path'
        """
        nodes = as_cells(cells, self._width, self._height)
        values = np.asarray(walkable)
        if values.dtype != np.bool_ or values.ndim > 1 or values.size not in (1, nodes.size):
            raise InvalidQueryError(f"walkable must be one bool or one per cell, got {walkable!r:.80}")
        self._remember(self._walkable, nodes)
        patch = start_patch(self._view, nodes)
        self._walkable[nodes] = self._walls_set(nodes, values)
        self._version += 1
        finish_patch(self._view, patch, walls=True)

    def set_weight(self, cell: Sequence[int], weight: float) -> None:
        """Set one cell's weight; see :meth:`set_weights`.

        Example:
            >>> from python_core.grid import GridGraph
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
            >>> from python_core.grid import GridGraph
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
        reject_bad("weight", values, self._width, nodes)
        self._remember(self._weights, nodes)
        patch = start_patch(self._view, nodes)
        self._weights[nodes] = values
        self._version += 1
        finish_patch(self._view, patch, walls=False)

    def _walls_set(self, nodes: I64, values: B) -> B:
        """What :meth:`set_walkable` writes into the walkable array at ``nodes`` for the walls
        ``values``: the walls themselves, unless obstacles stand there (see GridObstacles)."""
        return values

    # -- all or nothing ---------------------------------------------------------------------------

    @contextmanager
    def atomic(self) -> Iterator[None]:
        """Make the changes inside the block (walls, weights, agents) all or nothing: when the
        block raises, each change made in it is undone, newest first, and the error goes on. What
        it keeps is only the old values of the cells changed, where a copy of the grid to fall back
        on costs its whole size on every change. An inner block joins the outer one.

        Example:
            >>> from python_core.grid import GridGraph
            >>> from python_core.errors import UnknownPointError
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

    def _remember(self, array: npt.NDArray[Any], nodes: I64) -> None:
        """Inside :meth:`atomic`: note how to put back ``array``'s values at ``nodes`` (read before
        any write, so a cell listed twice gets its one old value back)."""
        if self._undo is None:
            return
        old = array[nodes].copy()

        def put_back() -> None:
            patch = start_patch(self._view, nodes)
            array[nodes] = old
            self._version += 1
            finish_patch(self._view, patch, walls=array is self._walkable)

        self._undo.append(put_back)
