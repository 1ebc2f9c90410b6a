"""The change half of :class:`~python_core.hpa.HierarchicalGrid`: walls and weights set locally.

Quick start (through the facade)::

    hpa = HierarchicalGrid(grid, cluster_size=16, repair_seconds=0.001).build()
    hpa.set_walkable([(10, 10)], False)     # the grid, then the touched clusters and borders
    hpa.refill_table()                      # rows a time-boxed repair left stale, when time allows

A change goes to the grid first (which validates it), then to the level-1 graph
(:func:`~python_core.hpa.repair.local_updates.apply_changes`) and level 2; the heuristic's lower
bound only ever drops (a cheaper open cell lowers it, nothing raises it until a build).
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Mapping
from types import MappingProxyType

import numpy as np
import numpy.typing as npt

from python_core._types import I64
from python_core.errors import InvalidGraphError, InvalidQueryError
from python_core.grid import GridGraph
from python_core.grid.cells import as_cells
from python_core.hpa.graph.abstract_graph import AbstractGraph
from python_core.hpa.graph.upper_level import Packed, UpperLevel
from python_core.hpa.sizes import SizeLayer, SizeLayers
from python_core.obstacles import ObstacleShape

__all__ = ["HierarchyChanges", "time_budget"]


def time_budget(value: object, name: str, error: type[Exception]) -> float | None:
    """A time budget in seconds: None, or a finite number >= 0 (else ``error``)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < math.inf:
        raise error(f"{name} must be None or a finite number >= 0, got {value!r}")
    return float(value)


class HierarchyChanges:
    """The change methods of :class:`~python_core.hpa.HierarchicalGrid`, over the state it keeps.

    The facade owns every attribute below; :meth:`_scratch` is its (what queries derive from
    the graph, set again after a change). A change must not run while a query does.
    """

    _grid: GridGraph
    _graph: AbstractGraph
    _upper: UpperLevel | None
    _walk: npt.NDArray[np.uint8]
    _weights: npt.NDArray[np.float64]
    _built: bool
    _version: int
    _min_weight: float
    _one_weight: float
    _repair_seconds: float | None
    _packed: Packed
    _sizes: SizeLayers[SizeLayer]

    def _scratch(self) -> None:
        raise NotImplementedError  # the facade's

    def set_walkable(self, cells: npt.ArrayLike, walkable: bool | npt.ArrayLike = True) -> float:
        """Open or close cells in the grid and rebuild only the clusters and borders they touch.

        Args:
            cells: one ``(x, y)`` or an ``(n, 2)`` array of cells.
            walkable: one bool for all, or one per cell.

        Returns:
            Seconds the local update took.

        Raises:
            InvalidQueryError: malformed cells or values (nothing changes).
            OutOfBoundsError: a cell outside the grid (nothing changes).

        Example:
            >>> import numpy as np
            >>> from python_core.grid import GridGraph
            >>> from python_core.hpa import HierarchicalGrid
            >>> hpa = HierarchicalGrid(GridGraph(np.ones((1, 8), bool)), cluster_size=4).build()
            >>> _ = hpa.set_walkable([(4, 0)], False); hpa.is_reachable((0, 0), (7, 0))
            False
        """
        nodes = as_cells(cells, self._grid.width, self._grid.height)
        self._grid.set_walkable(cells, walkable)
        return self._update(nodes)

    def set_weights(self, cells: npt.ArrayLike, weights: float | npt.ArrayLike) -> float:
        """Change cell weights in the grid and update the touched clusters (see :meth:`set_walkable`).

        Raises:
            InvalidGraphError: a negative or non-finite weight (nothing changes).

        Example:
            >>> import numpy as np
            >>> from python_core.grid import GridGraph
            >>> from python_core.hpa import HierarchicalGrid
            >>> hpa = HierarchicalGrid(GridGraph(np.ones((1, 8))), cluster_size=4).build()
            >>> _ = hpa.set_weights([(5, 0)], 3.0); hpa.find_path((0, 0), (7, 0)).cost
            9.0
        """
        nodes = as_cells(cells, self._grid.width, self._grid.height)
        self._grid.set_weights(cells, weights)
        return self._update(nodes, weights_changed=True)

    def update_obstacles(
        self,
        set_: Mapping[int, ObstacleShape] = MappingProxyType({}),
        remove: Iterable[int] = (),
        clear: bool = False,
    ) -> float:
        """Place, move or remove the grid's obstacles (:meth:`GridGraph.update_obstacles`) and
        rebuild only the clusters and borders whose cells they opened or closed.

        Returns:
            Seconds the local update took.

        Raises:
            InvalidGraphError: an unknown id in ``remove``, a bad id or shape (nothing changes).
        """
        return self.walls_changed(self._grid.update_obstacles(set_, remove, clear))

    def walls_changed(self, nodes: I64) -> float:
        """Bring the hierarchy up to date after the grid's walkable cells ``nodes`` (flat ids)
        changed by another door than this hierarchy's (the grid's obstacles, an undone change).

        Returns:
            Seconds the local update took.
        """
        return self._update(np.asarray(nodes, dtype=np.int64)) if len(nodes) else 0.0

    def _update(self, nodes: I64, *, weights_changed: bool = False) -> float:
        if not self._built:
            return 0.0
        began = time.perf_counter()
        # a lower bound is all the heuristic needs: cheaper open cells lower it, nothing raises it
        changed = nodes[self._walk[nodes] != 0]
        if changed.shape[0]:
            self._min_weight = min(self._min_weight, float(self._weights[changed].min()))
            if (self._weights[changed] != self._one_weight).any():  # until the next build()
                self._one_weight = 0.0
        # a deferred build's background pricing stops first; clusters it priced from cells that
        # changed meanwhile hold the changed cells, so the change prices them again
        self._graph.pause_fill()
        dirty = self._graph.apply_changes(nodes, weights_changed, self._repair_seconds, self._one_weight != 0)
        self._graph.resume_fill()
        if self._upper is not None:
            self._upper.update(self._graph, dirty)
            self._packed = self._upper.packed
        self._scratch()
        self._version = self._grid.version
        self._sizes.changed(nodes, weights=weights_changed)  # each built size layer, locally
        return time.perf_counter() - began

    @property
    def repair_seconds(self) -> float | None:
        """The time a change may spend repairing the all-pairs table (see the class); settable,
        e.g. to None before a batch of changes that should leave the table whole.

        Raises:
            InvalidGraphError: (on setting) not None or a finite number >= 0; the old value stays.
        """
        return self._repair_seconds

    @repair_seconds.setter
    def repair_seconds(self, value: float | None) -> None:
        self._repair_seconds = time_budget(value, "repair_seconds", InvalidGraphError)
        for layer in self._sizes.hierarchies():
            layer.repair_seconds = self._repair_seconds

    @property
    def pending_rows(self) -> int:
        """Rows of level 1's all-pairs tables that a time-boxed repair left stale (``repair_seconds``),
        this hierarchy's and its size layers'."""
        return int(self._graph.pair_stale.sum()) + sum(
            layer.pending_rows for layer in self._sizes.hierarchies()
        )

    def refill_table(self, seconds: float | None = None) -> int:
        """Compute the stale rows of the all-pairs table, for up to ``seconds`` (None: all of them).

        A game (or the sidecar, between requests) calls this when it has time to spare; each
        chunk of rows takes a few milliseconds at most, and any positive budget gets one done.

        Returns:
            The rows still stale.

        Raises:
            InvalidQueryError: ``seconds`` is not None or a finite number >= 0.

        Example:
            >>> import numpy as np
            >>> from python_core.grid import GridGraph
            >>> from python_core.hpa import HierarchicalGrid
            >>> hpa = HierarchicalGrid(GridGraph(np.ones((16, 16), bool)), cluster_size=4,
            ...                        repair_seconds=0.0).build()
            >>> _ = hpa.set_walkable([(5, 4)], False); hpa.pending_rows > 0
            True
            >>> hpa.refill_table(), hpa.pending_rows
            (0, 0)
        """
        budget = time_budget(seconds, "seconds", InvalidQueryError)
        began = time.perf_counter()
        left = 0
        if self._graph.pair_stale.any():
            left = self._graph.refill(budget)
            if not left:  # whole again: the next query may trust it as the optimum (exact graphs)
                self._scratch()
        for layer in self._sizes.hierarchies():  # then the size layers', in the time left
            spent = time.perf_counter() - began
            if budget is not None and spent >= budget:
                left += layer.pending_rows
            else:
                left += layer.refill_table(None if budget is None else budget - spent)
        return left
