"""Footprints of agents on a tile lattice: the cells an agent of size k covers, and who is on a path.

Quick start (:class:`~python_core.grid.layouts.TileGrid` calls these)::

    cells = footprint_cells(grid, (4, 3), 2)        # flat ids: the cell and its ring
    on_path = agents_on_path(grid, occupancy, nodes, besides=None, size=2)

An agent of size k at cell c covers c and every cell within k - 1 side steps of it, as a unit of
that size does (:mod:`.clearance`), as far as the grid reaches: an agent at the map's edge is
placed (a game puts its units where they are; one refused agent would fail a whole batch of
moves) and blocks the part of its footprint inside the grid. Walls do not matter either.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import numpy.typing as npt

from python_core._types import I32, I64
from python_core.grid.cells import Cell
from python_core.grid.layouts.footprint import ball
from python_core.grid.layouts.prepared import LatticeSource, Prepared, prepared

__all__ = ["agents_on_path", "footprint_cells"]


def _balls(grid: LatticeSource, p: Prepared, nodes: I64, radius: int) -> tuple[I64, bool]:
    """Flat ids of the cells within ``radius`` of any of ``nodes`` (flat ids), and whether one of
    those balls reaches outside the grid."""
    m, w = p.moves, grid.width
    ys, xs = np.divmod(np.asarray(nodes, dtype=np.int64), w)
    padded = (ys + m.pad) * m.stride + xs + m.pad
    if radius == 0:
        return np.asarray(nodes, dtype=np.int64), False
    box = np.array([m.pad, m.pad, m.pad + w - 1, m.pad + grid.height - 1], dtype=np.int64)
    mark = np.zeros(p.passable.shape[0], dtype=np.uint8)
    parts, leaves = [], False
    for node in padded.tolist():
        cells, out = ball(
            m.stride, m.moves, m.n_sides, m.parity_axis, m.parity_shift, box, node, radius, mark
        )
        parts.append(cells)
        leaves = leaves or bool(out)
    every = np.unique(np.concatenate(parts))
    rows, cols = np.divmod(every, m.stride)
    return (rows - m.pad) * w + cols - m.pad, leaves


def footprint_cells(grid: LatticeSource, cell: Cell, size: int) -> I64:
    """Flat ids of the grid's cells an agent of ``size`` at ``cell`` covers (``cell`` is in the
    grid; the part of the footprint past the grid's edge covers nothing)."""
    x, y = cell
    cells, _ = _balls(grid, prepared(grid), np.array([y * grid.width + x]), size - 1)
    return cells


def agents_on_path(
    grid: LatticeSource,
    occupancy: I32,
    nodes: npt.ArrayLike,
    *,
    agents: Mapping[int, Cell],
    sizes: Mapping[int, int],
    besides: int | None,
    size: int,
) -> bool:
    """Whether an agent other than ``besides`` covers a cell of the footprint of one of ``nodes``."""
    if not agents:
        return False
    flat = np.asarray(nodes, dtype=np.int64).ravel()
    if not flat.size:
        return False
    cells, _ = _balls(grid, prepared(grid), flat, size - 1)
    counts = occupancy[cells].astype(np.int64)
    own = agents.get(besides) if besides is not None else None
    if own is not None and besides is not None:  # its own footprint counts one agent fewer
        counts -= np.isin(cells, footprint_cells(grid, own, sizes[besides]))
    return bool(counts.any())
