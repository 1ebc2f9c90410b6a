"""A search, its path and its world points in one compiled call (the planned query's kernels).

Quick start (:mod:`.planned` calls these; the arguments are those of the search kernels)::

    from python_core.grid.search.routes import jps_route
    outcome, expanded, cost, nodes, points = jps_route(
        passable, 1, stride, s, t, cw, ch, weight, -1, *workspace, tag, width, ox, oy)

Why: the search, :func:`.astar.path_from_parents` and :func:`python_core.grid.cells.world_points`
called one by one from Python cost a numba dispatch each (a few microseconds together), a third of
a one-step query's work. Here they are one call, with the same arrays and values: ``nodes`` and
``points`` are what the separate calls return, empty (and ``cost`` infinite) when the search
leaves no path.

The ``*_wire`` variants return the path as one int64 array instead of two arrays, for a caller that
sends it as bytes (:func:`.planned.find_planned_record`): its first half is the points as float32 pairs,
its second half the nodes (a compiled call returning one array instead of two costs half a
microsecond less, and the float32 copy is made here, not by numpy afterwards).
"""

# Compiled kernels take their arguments positionally: numba.njit does not compile keywords.
# ruff: noqa: PLR0917

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from python_core._types import SEARCH_FOUND
from python_core.compiled import jit
from python_core.grid.cells import world_points
from python_core.grid.search.astar import astar_padded, path_from_parents
from python_core.grid.search.jps import jps_padded

__all__ = [
    "Route",
    "WireRoute",
    "astar_route",
    "astar_wire",
    "jps_route",
    "jps_wire",
    "path_and_points",
    "path_and_wire",
]

Route = tuple[int, int, float, npt.NDArray[np.int64], npt.NDArray[np.float64]]
"""``(outcome, expanded, cost, nodes, points)``."""
WireRoute = tuple[int, int, float, npt.NDArray[np.int64]]
"""``(outcome, expanded, cost, path)``: ``path`` as :func:`path_and_wire` packs it (empty: none)."""


@jit
def path_and_points(
    parent: npt.NDArray[np.int32],
    g: npt.NDArray[np.float64],
    end: int,
    stride: int,
    ox: float,
    oy: float,
    cell_w: float,
    cell_h: float,
) -> tuple[float, npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """``(cost, nodes, points)`` of the path the search left to padded node ``end``."""
    nodes = path_from_parents(parent, end, stride)
    return g[end], nodes, world_points(nodes, stride - 2, ox, oy, cell_w, cell_h)


@jit
def jps_route(
    passable: npt.NDArray[np.uint8],
    min_clear: int,
    stride: int,
    start: int,
    goal: int,
    cell_w: float,
    cell_h: float,
    weight: float,
    max_expansions: int,
    g: npt.NDArray[np.float64],
    parent: npt.NDArray[np.int32],
    stamp: npt.NDArray[np.int32],
    pos: npt.NDArray[np.int32],
    heap_nodes: npt.NDArray[np.int32],
    heap_keys: npt.NDArray[np.float64],
    tag: int,
    ox: float,
    oy: float,
) -> Route:
    """:func:`.jps.jps_padded` (same arguments), then the path to ``goal`` when found; ``ox, oy``:
    the world position of cell ``(0, 0)``'s point."""
    outcome, expanded = jps_padded(
        passable, min_clear, stride, start, goal, cell_w, cell_h, weight, max_expansions,
        g, parent, stamp, pos, heap_nodes, heap_keys, tag,
    )  # fmt: skip
    if outcome != SEARCH_FOUND:
        return outcome, expanded, np.inf, np.empty(0, dtype=np.int64), np.empty((0, 2))
    cost, nodes, points = path_and_points(parent, g, goal, stride, ox, oy, cell_w, cell_h)
    return outcome, expanded, cost, nodes, points


@jit
def astar_route(
    passable: npt.NDArray[np.uint8],
    min_clear: int,
    weights: npt.NDArray[np.float64],
    uniform_weight: float,
    stride: int,
    start: int,
    goal: int,
    diagonal: int,
    cell_w: float,
    cell_h: float,
    heuristic: int,
    h_scale: float,
    max_expansions: int,
    closest_code: int,
    g: npt.NDArray[np.float64],
    parent: npt.NDArray[np.int32],
    stamp: npt.NDArray[np.int32],
    pos: npt.NDArray[np.int32],
    heap_nodes: npt.NDArray[np.int32],
    heap_keys: npt.NDArray[np.float64],
    tag: int,
    ox: float,
    oy: float,
) -> Route:
    """:func:`.astar.astar_padded` (same arguments), then the path to the node it ended on when
    found, or whatever the outcome with a partial path asked for (``closest_code >= 0``)."""
    outcome, end, expanded = astar_padded(
        passable, min_clear, weights, uniform_weight, stride, start, goal, diagonal, cell_w, cell_h,
        heuristic, h_scale, max_expansions, closest_code,
        g, parent, stamp, pos, heap_nodes, heap_keys, tag,
    )  # fmt: skip
    if outcome != SEARCH_FOUND and closest_code < 0:
        return outcome, expanded, np.inf, np.empty(0, dtype=np.int64), np.empty((0, 2))
    cost, nodes, points = path_and_points(parent, g, end, stride, ox, oy, cell_w, cell_h)
    return outcome, expanded, cost, nodes, points


@jit
def path_and_wire(
    parent: npt.NDArray[np.int32],
    g: npt.NDArray[np.float64],
    end: int,
    stride: int,
    ox: float,
    oy: float,
    cell_w: float,
    cell_h: float,
) -> tuple[float, npt.NDArray[np.int64]]:
    """``(cost, path)``: :func:`path_and_points` with the path packed in one int64 array of ``2n``
    entries, the ``n`` points as float32 ``x, y`` pairs in the first ``n`` (their bytes), then the
    ``n`` nodes."""
    nodes = path_from_parents(parent, end, stride)
    n = nodes.shape[0]
    points = world_points(nodes, stride - 2, ox, oy, cell_w, cell_h)
    packed = np.empty(2 * n, dtype=np.int64)
    packed[n:] = nodes
    pairs = packed[:n].view(np.float32)
    for i in range(n):
        pairs[2 * i] = points[i, 0]
        pairs[2 * i + 1] = points[i, 1]
    return g[end], packed


@jit
def jps_wire(
    passable: npt.NDArray[np.uint8],
    min_clear: int,
    stride: int,
    start: int,
    goal: int,
    cell_w: float,
    cell_h: float,
    weight: float,
    max_expansions: int,
    g: npt.NDArray[np.float64],
    parent: npt.NDArray[np.int32],
    stamp: npt.NDArray[np.int32],
    pos: npt.NDArray[np.int32],
    heap_nodes: npt.NDArray[np.int32],
    heap_keys: npt.NDArray[np.float64],
    tag: int,
    ox: float,
    oy: float,
) -> WireRoute:
    """:func:`jps_route` with the path packed (:func:`path_and_wire`)."""
    outcome, expanded = jps_padded(
        passable, min_clear, stride, start, goal, cell_w, cell_h, weight, max_expansions,
        g, parent, stamp, pos, heap_nodes, heap_keys, tag,
    )  # fmt: skip
    if outcome != SEARCH_FOUND:
        return outcome, expanded, np.inf, np.empty(0, dtype=np.int64)
    cost, packed = path_and_wire(parent, g, goal, stride, ox, oy, cell_w, cell_h)
    return outcome, expanded, cost, packed


@jit
def astar_wire(
    passable: npt.NDArray[np.uint8],
    min_clear: int,
    weights: npt.NDArray[np.float64],
    uniform_weight: float,
    stride: int,
    start: int,
    goal: int,
    diagonal: int,
    cell_w: float,
    cell_h: float,
    heuristic: int,
    h_scale: float,
    max_expansions: int,
    closest_code: int,
    g: npt.NDArray[np.float64],
    parent: npt.NDArray[np.int32],
    stamp: npt.NDArray[np.int32],
    pos: npt.NDArray[np.int32],
    heap_nodes: npt.NDArray[np.int32],
    heap_keys: npt.NDArray[np.float64],
    tag: int,
    ox: float,
    oy: float,
) -> WireRoute:
    """:func:`astar_route` with the path packed (:func:`path_and_wire`)."""
    outcome, end, expanded = astar_padded(
        passable, min_clear, weights, uniform_weight, stride, start, goal, diagonal, cell_w, cell_h,
        heuristic, h_scale, max_expansions, closest_code,
        g, parent, stamp, pos, heap_nodes, heap_keys, tag,
    )  # fmt: skip
    if outcome != SEARCH_FOUND and closest_code < 0:
        return outcome, expanded, np.inf, np.empty(0, dtype=np.int64)
    cost, packed = path_and_wire(parent, g, end, stride, ox, oy, cell_w, cell_h)
    return outcome, expanded, cost, packed
