"""Local repair of a grid's prepared copy after cells change: no rebuild of the whole copy.

Quick start (:class:`~python_core.grid.changes.GridChanges` calls this after each change)::

    from python_core.grid.search.repair import finish_patch, start_patch
    patch = start_patch(grid, nodes)     # before writing the cells
    ...write the walls, move the version...
    finish_patch(grid, patch, walls=True)

A change of walls recomputes clearance only up-left of the changed cells, as far as values change
(:func:`python_core.grid.clearance.repair_clearance`), in the shared padded copy and in each idle
workspace's private copy. A change of weights writes the changed cells into the padded weights and
each cached size's footprint maxima near them. The smallest and largest open weight (the
heuristic's scale and whether weights are uniform) are kept exact: updated from the changed cells,
and recounted over the grid only when a cell holding the old extreme changed. A copy that was not
current before the change is left alone: the next query rebuilds it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from python_core._types import F64, I64, B
from python_core.grid.clearance import MAX_UNIT_SIZE, repair_clearance
from python_core.grid.search.grid_view import GridView
from python_core.grid.search.prepared import Prepared, current_copy, open_extremes, pad
from python_core.grid.search.size_index import cells_changed
from python_core.grid.sized_view import footprint_max

__all__ = ["Patch", "finish_patch", "start_patch"]

_ONE_BY_ONE = 16
"""Up to this many changed cells are repaired one by one (scattered cells make a wide box)."""


@dataclass(frozen=True, slots=True)
class Patch:
    """What a change needs to know of the cells before it wrote them."""

    prepared: Prepared
    before: int  # the grid's version before the change
    nodes: I64  # the changed cells, each once
    was_open: B
    old_weights: F64


def start_patch(grid: GridView, nodes: I64) -> Patch | None:
    """Note the cells about to change; None when there is no current prepared copy to patch.
    Call it just before writing, with no query running (changes wait for queries)."""
    p = current_copy(grid, grid.version)
    if p is None or not nodes.size:
        return None
    cells = np.unique(nodes)
    was_open = grid.walkable.ravel()[cells]
    return Patch(p, grid.version, cells, was_open, grid.weights.ravel()[cells])


def finish_patch(grid: GridView, patch: Patch | None, *, walls: bool) -> None:
    """Bring the prepared copy from ``patch.before`` to the grid's version now that walls
    (``walls``) or weights were written; a copy rebuilt or replaced meanwhile is left alone."""
    if patch is None or current_copy(grid, patch.before) is not patch.prepared:
        return
    p = patch.prepared
    weight = p.uniform_weight
    if walls:
        _walls(grid, p, patch.nodes)
        is_open = grid.walkable.ravel()[patch.nodes]
        opened, closed = bool((is_open & ~patch.was_open).any()), bool((patch.was_open & ~is_open).any())
        cells_changed(p, opened=opened, closed=closed)
    elif p.uniform_weight < 0.0:
        _weights(grid, p, patch.nodes)
    _extremes(grid, patch)
    if p.uniform_weight != weight:  # the landmarks' distances were summed with the old weight
        cells_changed(p, opened=True, closed=False)
    p.version = grid.version


def _walls(grid: GridView, p: Prepared, nodes: I64) -> None:
    walkable = grid.walkable.view(np.uint8)
    clear = p.clearance
    xs, ys = nodes % p.width, nodes // p.width
    boxes = (
        [(int(x), int(y), int(x), int(y)) for x, y in zip(xs, ys, strict=True)]
        if nodes.size <= _ONE_BY_ONE
        else [(int(xs.min()), int(ys.min()), int(xs.max()), int(ys.max()))]
    )
    for box in boxes:
        repair_clearance(walkable, clear, box)
    _copy_to_workspaces(p, boxes)


def _copy_to_workspaces(p: Prepared, boxes: list[tuple[int, int, int, int]]) -> None:
    """Idle workspaces' private copies must equal the shared one: copy the region a repair may
    have changed (up to 255 cells up-left of each box)."""
    copies = [w.passable for w in p.spare if w.passable is not None]
    if not copies:
        return
    shared = p.passable.reshape(p.height + 2, p.stride)
    for x0, y0, x1, y1 in boxes:
        rows = slice(max(0, y0 - MAX_UNIT_SIZE) + 1, y1 + 2)
        cols = slice(max(0, x0 - MAX_UNIT_SIZE) + 1, x1 + 2)
        for copy in copies:
            copy.reshape(p.height + 2, p.stride)[rows, cols] = shared[rows, cols]


def _weights(grid: GridView, p: Prepared, nodes: I64) -> None:
    """Write the changed cells into the padded weights, then each cached size's maxima."""
    weights = grid.weights
    xs, ys = nodes % p.width, nodes // p.width
    p.weights[(ys + 1) * p.stride + xs + 1] = weights.ravel()[nodes]
    box = (int(xs.min()), int(ys.min()), int(xs.max()), int(ys.max()))
    for size, sized in p.sized_weights.items():
        _footprint_box(weights, sized, p, size, box)


def _footprint_box(weights: F64, sized: F64, p: Prepared, size: int, box: tuple[int, int, int, int]) -> None:
    """Recompute the footprint maxima of the anchors whose footprint meets ``box``."""
    x0, y0, x1, y1 = box
    ax, ay = max(0, x0 - size + 1), max(0, y0 - size + 1)  # anchors ax..x1, ay..y1
    block = footprint_max(weights[ay : y1 + size, ax : x1 + size], size)  # cells under them
    plane = sized.reshape(p.height + 2, p.stride)
    plane[ay + 1 : y1 + 2, ax + 1 : x1 + 2] = block[: y1 - ay + 1, : x1 - ax + 1]


def _extremes(grid: GridView, patch: Patch) -> None:
    """Keep the smallest and largest open weight, and how many open cells hold each, exact;
    switch between the uniform form (no padded weights) and the padded one when that changes."""
    p, cells = patch.prepared, patch.nodes
    is_open = grid.walkable.ravel()[cells]
    weights = grid.weights.ravel()[cells]
    kept = patch.was_open & is_open & (weights == patch.old_weights)
    removed = patch.old_weights[patch.was_open & ~kept]
    added = weights[is_open & ~kept]
    low, high = p.min_weight, p.max_weight
    n_low = p.low_count - int((removed == low).sum())
    n_high = p.high_count - int((removed == high).sum())
    p.open_count += int(is_open.sum()) - int(patch.was_open.sum())
    if p.open_count == 0 or n_low <= 0 or n_high <= 0:  # an extreme is gone: count again
        low, high, n_low, n_high = open_extremes(grid)
    elif added.size:
        a_low, a_high = float(added.min()), float(added.max())
        if a_low <= low:
            n_low = int((added == a_low).sum()) + (n_low if a_low == low else 0)
            low = a_low
        if a_high >= high:
            n_high = int((added == a_high).sum()) + (n_high if a_high == high else 0)
            high = a_high
    uniform = low == high
    if uniform and p.uniform_weight < 0.0:
        p.weights, p.sized_weights = np.zeros(1, dtype=np.float64), {}
    elif not uniform and p.uniform_weight >= 0.0:
        p.weights, p.sized_weights = pad(grid.weights, np.float64), {}
    p.min_weight, p.max_weight, p.low_count, p.high_count = low, high, n_low, n_high
    p.uniform_weight = low if uniform else -1.0
