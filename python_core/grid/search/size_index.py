"""Per unit size: the eroded grid's connected parts and, where they pay, ALT landmark distances.

Quick start (:mod:`.dispatch` calls this for every exact query of a size above 1)::

    from python_core.grid.search.size_index import index_for
    index = index_for(grid, prepared, 3)       # built with size 3's first query
    if index.apart(s, t): ...                  # no path, in O(1)
    if index.landmarks is not None: ...        # search with astar_landmarks

Why: a big unit searches the grid eroded for its size (clearance >= k), and on a maze or a random
map that erosion falls apart into islands joined by one-anchor-wide corridors. Octile then guides
A* badly (2,300 expansions for a size-3 query whose size-1 twin needs 400 on random512-10-0), and
a query between two islands searched a whole island before saying ``no_path``. The parts answer
the second in O(1); a few landmarks' distances (ALT, :mod:`.landmark_kernels`) bound the remaining
distance well enough that size 3 expands about as many nodes as size 1.

What it costs: labels are 4 bytes a padded cell (a flood fill, about a millisecond on 512 x 512);
landmarks :data:`LANDMARKS` float64 distances a cell, built only on uniform-weight grids and only
within :data:`LANDMARK_BYTES` (64 bytes a cell: 16.8 MB on 512 x 512; bigger grids get fewer
landmarks, none past 2048 x 1024), each a Dijkstra of the eroded grid. The first query of a size
pays the build (tens of ms on 512 x 512); the indexes of the :data:`INDEXES_KEPT` sizes used last
are kept.

Edits (:mod:`.repair`): cells that close only remove nodes, so the labels may join parts that are
now apart (a query between them searches, finds nothing, and relabels) and the landmark bounds
stay admissible and consistent (distances only grew). Cells that open may join parts and shorten
distances, so the index is dropped; it is built again once the size's queries have spent as many
expansions as the build costs (:attr:`SizeIndex.debt`), so a game that opens cells every frame
searches without it instead of rebuilding it every frame.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from python_core._types import DIAG_CODES, F64, I32
from python_core.grid.search.grid_view import GridView
from python_core.grid.search.landmark_choice import landmarks_pay
from python_core.grid.search.landmark_kernels import distances_from, farthest_per_part, label_parts
from python_core.grid.search.prepared import Prepared

__all__ = [
    "INDEXES_KEPT",
    "LANDMARKS",
    "LANDMARK_BYTES",
    "MIN_LANDMARKS",
    "SizeIndex",
    "cells_changed",
    "index_for",
    "landmark_count",
    "settle",
]

LANDMARKS = 8
"""Landmarks per part (eight float64 distances fill one 64-byte cache line per node)."""
MIN_LANDMARKS = 4
"""Fewer than this fit in :data:`LANDMARK_BYTES`: the size searches without landmarks."""
LANDMARK_BYTES = 64 * 2**20
"""The most one size's landmark distances may take."""
INDEXES_KEPT = 4
"""Sizes whose index a grid's copy keeps (the least recently used goes)."""
_BUILDING = threading.Lock()  # one thread builds (or drops) a copy's indexes at a time


@dataclass(slots=True, eq=False)
class SizeIndex:
    """One unit size's parts and landmarks on one prepared copy (read-only to queries)."""

    size: int
    labels: I32 | None  # part of each padded node (0: closed); None once dropped
    landmarks: F64 | None  # ``count`` distances per padded node, node by node; None: not used
    count: int
    weight: float  # the uniform weight the distances were summed with
    build_cost: int  # nodes the build visited: what the debt must reach before a rebuild
    stale: bool = False  # cells closed since the labels were made: they may join parts now apart
    debt: int = 0  # expansions the size spent since it was dropped

    def apart(self, s: int, t: int) -> bool:
        """Whether padded nodes ``s`` and ``t`` lie in different parts (never a false yes)."""
        return self.labels is not None and bool(self.labels[s] != self.labels[t])

    def usable(self, p: Prepared) -> bool:
        """Whether its landmarks exist and bound ``p``'s costs (summed with its uniform weight)."""
        return self.landmarks is not None and self.weight == p.uniform_weight

    def drop(self) -> None:
        """Forget parts and landmarks (cells opened: both may be wrong now); rebuilt once paid."""
        self.labels, self.landmarks, self.count, self.stale, self.debt = None, None, 0, False, 0

    def nbytes(self) -> int:
        """Bytes of its arrays."""
        return sum(int(a.nbytes) for a in (self.labels, self.landmarks) if a is not None)


def index_for(grid: GridView, p: Prepared, size: int, *, use_jps: Callable[[], bool]) -> SizeIndex:
    """The index of ``size`` on ``p`` (built now when missing, or dropped and paid for), with
    landmarks when the weights are uniform, they fit, and they beat the kernel the size runs
    without them (JPS when ``use_jps()``, else A*) on probe queries."""
    index = p.size_indexes.get(size)
    if index is not None and (index.labels is not None or index.debt < index.build_cost):
        _touch(p, size, index)
        return index
    with _BUILDING:
        index = p.size_indexes.get(size)
        if index is None or (index.labels is None and index.debt >= index.build_cost):
            index = _build(grid, p, size, use_jps=use_jps)
            p.size_indexes[size] = index
            while len(p.size_indexes) > INDEXES_KEPT:
                del p.size_indexes[next(iter(p.size_indexes))]
        return index


def settle(grid: GridView, p: Prepared, index: SizeIndex, no_path: bool, expanded: int) -> None:
    """After a query of the index's size: a dropped index counts the query's expansions toward its
    rebuild; stale labels that let a search through to ``no_path`` are made again (the search has
    just spent as much; the landmarks stay: still bounds)."""
    if index.labels is None:
        index.debt += expanded
    elif index.stale and no_path:
        labels = _labels(grid, p, index.size)[0]
        with _BUILDING:
            index.labels, index.stale = labels, False


def cells_changed(p: Prepared, *, opened: bool, closed: bool) -> None:
    """Keep ``p``'s indexes right after walls changed (:mod:`.repair`; no query is running)."""
    for index in p.size_indexes.values():
        if opened:
            index.drop()
        elif closed and index.labels is not None:
            index.stale = True


def _touch(p: Prepared, size: int, index: SizeIndex) -> None:
    """Make ``size`` the most recently used (a race only reorders: never loses an index)."""
    if next(reversed(p.size_indexes), None) != size:
        with _BUILDING:
            if p.size_indexes.pop(size, None) is not None:
                p.size_indexes[size] = index


def landmark_count(nodes: int) -> int:
    """Landmarks a grid of ``nodes`` padded nodes gets within :data:`LANDMARK_BYTES` (0: none)."""
    fit = min(LANDMARKS, LANDMARK_BYTES // (8 * max(1, nodes)))
    return fit if fit >= MIN_LANDMARKS else 0


def _labels(grid: GridView, p: Prepared, size: int) -> tuple[I32, int]:
    n = p.passable.shape[0]
    labels = np.zeros(n, dtype=np.int32)
    parts = label_parts(p.passable, size, p.stride, DIAG_CODES[grid.diagonal], labels, np.empty(n, np.int32))
    return labels, int(parts)


def _build(grid: GridView, p: Prepared, size: int, *, use_jps: Callable[[], bool]) -> SizeIndex:
    labels, parts = _labels(grid, p, size)
    n = labels.shape[0]
    count = landmark_count(n) if p.uniform_weight > 0.0 and parts else 0
    table = _landmarks(grid, p, size, labels, parts, count) if count else None
    opened = int(np.count_nonzero(labels))
    cost = n + (count + 1) * opened
    if table is not None and not landmarks_pay(grid, p, labels, table, count, size, use_jps=use_jps()):
        table, count = None, 0
    return SizeIndex(size, labels, table, count, p.uniform_weight, cost)


def _landmarks(grid: GridView, p: Prepared, size: int, labels: I32, parts: int, count: int) -> F64:  # noqa: PLR0917
    """``count`` landmarks per part, farthest first: the first is the part's first node in scan
    order (on its rim), each next one the node farthest from those chosen (Goldberg & Werneck's
    "farthest" selection, which puts them on the part's rim, behind the nodes they bound)."""
    n = labels.shape[0]
    table = np.empty(n * count, dtype=np.float64)
    (cw, ch), diagonal, weight = grid.cell_size, DIAG_CODES[grid.diagonal], p.uniform_weight
    scratch = (np.empty(n, np.uint8), np.empty(n, np.int32), np.empty(n, np.float64), np.empty(n, np.int32))
    for slot in range(count):
        seeds = farthest_per_part(labels, parts, table, slot, count)[1:]
        distances_from(
            p.passable, size, p.stride, diagonal, cw, ch, weight, seeds, table, slot, count, *scratch
        )
    return table
