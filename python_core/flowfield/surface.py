"""What a flow field for units of one size reads of its grid: walls, weights and agents, per anchor.

Quick start (:class:`~python_core.flowfield.FlowField` keeps one)::

    surface = FieldSurface(grid, 2)        # size-2 units: the grid eroded for them
    surface.walkable, surface.weights      # (h, w): where the footprint fits, its highest weight
    surface.occupancy(True)                # flat int32: > 0 where another agent's footprint overlaps
    surface.anchors_of(nodes)              # anchors whose footprint holds one of those cells

A field for size ``k`` is the size-1 field of the grid eroded for that size
(:func:`~python_core.grid.sized_view.sized_view`): anchor ``n`` is open when the ``k x k`` footprint
from it fits (``clearance >= k``), entering it costs the step times the footprint's highest weight,
and the grid's diagonal rule on that eroded grid is the swept-footprint rule. So every kernel of the
field runs unchanged on these arrays, and its direction bytes lead a unit's anchor (its footprint's
top-left cell). Size 1 reads the grid's own live arrays: today's fields, at no cost.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from python_core._types import F64, I32, I64, U8, B
from python_core.grid import GridGraph
from python_core.grid.clearance import check_size
from python_core.grid.sized_view import SizedView, footprint_max, sized_view

__all__ = ["FieldSurface"]


class FieldSurface:
    """The grid as units of ``size`` cells see it, taken again whenever the grid's version moves.

    Args:
        grid: the grid.
        size: unit size in cells, 1..255.

    Raises:
        InvalidQueryError: a bad size.

    Example:
        >>> g = GridGraph.from_strings(["...", "..@"])
        >>> FieldSurface(g, 2).walkable.tolist()
        [[True, False, False], [False, False, False]]
        >>> FieldSurface(g, 2).anchors_of(np.array([4])).tolist()  # cell (1, 1): anchors (0, 0) .. (1, 1)
        [0, 1, 3, 4]
    """

    def __init__(self, grid: GridGraph, size: int) -> None:
        self.grid = grid
        self.size = check_size(size)
        self._view: SizedView | None = None
        self._occ: tuple[tuple[tuple[int, int, int, int], ...], I32] | None = None

    def _eroded(self) -> SizedView:
        view = self._view
        if view is None or view.version != self.grid.version:
            view = self._view = sized_view(self.grid, self.size)
        return view

    @property
    def walkable(self) -> B:
        """``(height, width)`` bool, read-only: where a unit's footprint fits."""
        if self.size == 1:
            return self.grid.walkable
        return self._eroded().walkable

    @property
    def walk(self) -> U8:
        """:attr:`walkable` flat, as uint8 (what the kernels read)."""
        return self.walkable.view(np.uint8).ravel()

    @property
    def weights(self) -> F64:
        """``(height, width)``, read-only: what entering each anchor costs per unit of step."""
        if self.size == 1:
            return self.grid.weights
        return self._eroded().weights

    def occupancy(self, agents_block: bool) -> I32:
        """Flat int32, ``> 0`` at anchors another agent's footprint overlaps (agents of every size).
        Size 1 (or agents not blocking) gives the grid's own live counts."""
        if self.size == 1 or not agents_block:
            return self.grid._occupancy
        sizes: Mapping[int, int] = self.grid.agent_sizes
        placed = tuple(sorted((a, x, y, sizes.get(a, 1)) for a, (x, y) in self.grid.agents.items()))
        if self._occ is not None and self._occ[0] == placed:
            return self._occ[1]
        w, h, k = self.grid.width, self.grid.height, self.size
        occ = np.zeros((h, w), dtype=np.int32)
        for _, x, y, a in placed:  # anchors whose footprint meets the agent's: [x-k+1, x+a) x [y-k+1, y+a)
            occ[max(0, y - k + 1) : min(h, y + a), max(0, x - k + 1) : min(w, x + a)] += 1
        flat = occ.ravel()
        self._occ = (placed, flat)
        return flat

    def anchors_of(self, nodes: I64) -> I64:
        """The anchors (flat ids, sorted, unique) whose footprint holds one of the cells ``nodes``:
        the anchors a change of those cells may open, close or reweigh."""
        if self.size == 1 or nodes.size == 0:
            return np.unique(nodes)
        w, k = self.grid.width, self.size
        xs, ys = nodes % w, nodes // w
        # the changed cells' bounding box, widened up and left by k - 1: a footprint maximum there
        x0, y0 = max(0, int(xs.min()) - k + 1), max(0, int(ys.min()) - k + 1)
        x1, y1 = int(xs.max()) + 1, int(ys.max()) + 1
        mask = np.zeros((y1 - y0, x1 - x0))
        mask[ys - y0, xs - x0] = 1.0
        ay, ax = np.nonzero(footprint_max(mask, k))
        return np.asarray((ay + y0) * w + ax + x0, dtype=np.int64)
