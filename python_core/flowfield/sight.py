"""Line-of-sight smoothing on a flow field: the farthest cell a unit can head for in a straight line.

Quick start::

    from python_core.flowfield.sight import farthest_visible
    target = farthest_visible(field, (12, 30), max_cells=32)   # a cell down the field, in sight

A unit on a field steps from cell to cell along the directions; heading instead straight for the
farthest cell of that chain it can see cuts the zig-zag of 8-way moves. "Sees" is the grid's own
rule (:func:`python_core.flowfield.walks.line_of_sight`): every cell the segment crosses is open
and every corner it passes exactly is a diagonal move the grid's diagonal mode allows. The scan
stops at the first chain cell out of sight. The straight segment is never longer than the chain
it replaces; on weighted cells it may cost more (weights are not looked at: it is steering).
"""

from __future__ import annotations

from collections.abc import Sequence

from python_core._types import DIAG_CODES
from python_core.errors import InvalidQueryError
from python_core.flowfield import moves, walks
from python_core.flowfield.field import FlowField
from python_core.grid.cells import Cell

__all__ = ["farthest_visible"]


def farthest_visible(field: FlowField, cell: Sequence[int], *, max_cells: int = 32) -> Cell:
    """The farthest cell down the field from ``cell`` (at most ``max_cells`` steps) in sight of it.

    Args:
        field: a flow field whose tiles cover ``cell``.
        cell: ``(x, y)``.
        max_cells: how many steps down the chain to look (``>= 1``).

    Returns:
        A cell of the chain (``cell`` itself on a goal, an unreachable cell, a wall, or outside
        the computed tiles).

    Raises:
        InvalidQueryError: a bad ``max_cells`` or malformed cell; OutOfBoundsError: outside the grid.

    Example:
        >>> from python_core.grid import GridGraph
        >>> g = GridGraph.from_strings(["......", "......", "......"])
        >>> f = FlowField(g, [(5, 0)], tile_size=3); _ = f.extend([(0, 2)])
        >>> farthest_visible(f, (0, 2))
        (5, 0)
        >>> farthest_visible(f, (0, 2), max_cells=0)
        Traceback (most recent call last):
        ...
        python_core.errors.InvalidQueryError: max_cells must be an integer >= 1, got 0
    """
    if isinstance(max_cells, bool) or not isinstance(max_cells, int) or max_cells < 1:
        raise InvalidQueryError(f"max_cells must be an integer >= 1, got {max_cells!r}")
    grid = field.grid
    start = tuple(int(v) for v in cell)
    best: Cell = (start[0], start[1])
    walk = field.surface.walk  # units of the field's size: anchors where the footprint fits
    occ = field.surface.occupancy(field.agents_block)
    here = best
    for _ in range(max_cells):
        code = field.direction_at(here)
        if code is None or code >= moves.GOAL:
            break
        here = (here[0] + int(moves.DX[code]), here[1] + int(moves.DY[code]))
        seen = walks.line_of_sight(
            walk, occ, field.agents_block, DIAG_CODES[grid.diagonal], grid.width, grid.height,
            start[0], start[1], here[0], here[1],
        )  # fmt: skip
        if not seen:
            break
        best = here
    return best
