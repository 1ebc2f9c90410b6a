"""Per unit size: the eroded grid's connected parts and, where they pay, ALT landmark distances.

Quick start (:mod:`.dispatch` calls this for every exact query of a size above 1)::

    from python_core.grid.search.size_index import index_for, settle
    index = index_for(grid, prepared, 3, use_jps=...)  # parts labelled with size 3's first query
    if index.apart(s, t): ...                 # no path, in O(1)
    if index.usable(prepared): ...            # search with astar_landmarks
    settle(prepared, index, no_path, expanded, jumps=False)  # after the search

Why: a big unit searches the grid eroded for its size (clearance >= k), and on a maze or a random
map that erosion falls apart into islands joined by one-anchor-wide corridors. Octile then guides
A* badly (2,300 expansions for a size-3 query whose size-1 twin needs 400 on random512-10-0), and
a query between two islands searched a whole island before saying ``no_path``. The parts answer
the second in O(1); a few landmarks' distances (ALT, :mod:`.landmark_kernels`) bound the remaining
distance well enough that size 3 expands about as many nodes as size 1.

What it costs: labels are 4 bytes a padded cell, made by a flood fill with the size's first query
(about 2 ms on 512 x 512). Landmarks are :data:`LANDMARKS` float64 distances a cell (64 bytes; a
grid over :data:`LANDMARK_BYTES` gets fewer, none from 2048 x 1024 up), one Dijkstra of the eroded
grid each, on uniform-weight grids only; they are built (by the next query, in :func:`index_for`:
a sidecar runs it on a search thread) once the size's queries have spent as many expansions as
the build costs (a jump point counts :data:`JUMP_COST`), so a size whose queries are
cheap (open maps) never pays for them and one whose queries are dear pays at most as much again;
then kept only where probes find them faster (:mod:`.landmark_choice`). The indexes of the
:data:`INDEXES_KEPT` sizes used last are kept.

Edits (:mod:`.repair`): cells that close only remove nodes, so the labels may join parts that are
now apart (marked stale: after a search finds nothing through such a part, the next query
relabels) and the landmark bounds stay admissible and consistent (distances only grew). Cells
that open may join parts and shorten distances, so the index is dropped: labels come back once
the size's queries have spent a labelling's cost, landmarks as above, so a game that opens cells
every frame searches without them instead of rebuilding them every frame.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import numpy as np

from python_core._types import DIAG_CODES, F64, I32
from python_core.grid.search.grid_view import GridView
from python_core.grid.search.landmark_choice import JUMP_COST, landmarks_pay
from python_core.grid.search.landmark_kernels import distances_from, farthest_per_part, label_parts
from python_core.grid.search.prepared import Prepared, SizeIndex

__all__ = [
    "INDEXES_KEPT",
    "LANDMARKS",
    "LANDMARK_BYTES",
    "MIN_LANDMARKS",
    "SizeIndex",
    "cells_changed",
    "index_for",
    "landmark_count",
    "prime",
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


def index_for(grid: GridView, p: Prepared, size: int, *, use_jps: Callable[[], bool]) -> SizeIndex:
    """The index of ``size`` on ``p``: its parts are labelled with the size's first query, and what
    earlier queries paid for (:func:`settle`) is built before this one searches (landmarks kept
    where they beat JPS, when ``use_jps()``, or A* on probes)."""
    index = p.size_indexes.get(size)
    if index is None:
        with _BUILDING:
            index = p.size_indexes.get(size)
            if index is None:
                labels, _ = _labels(grid, p, size)
                index = p.size_indexes[size] = SizeIndex(size, labels, int(np.count_nonzero(labels)))
                while len(p.size_indexes) > INDEXES_KEPT:
                    del p.size_indexes[next(iter(p.size_indexes))]
        return index
    if index.due:
        _pay(grid, p, index, use_jps)
    elif next(reversed(p.size_indexes)) != size:
        _touch(p, size, index)
    return index


def settle(p: Prepared, index: SizeIndex, no_path: bool, expanded: int, *, jumps: bool) -> None:
    """After a query of the index's size: count its expansions (``jumps``: jump points, a
    :data:`JUMP_COST` each) and mark the index ``due`` when they have paid for a build, which the
    next query's :func:`index_for` makes (never this one: it may have run on the event loop, and
    :func:`.prepared.is_ready` sends a query of a due size to a thread). Dropped labels are due
    once the debt reaches a labelling's cost (a node each); landmarks once it reaches their
    build's (:func:`landmark_count` Dijkstras of the open nodes); stale labels that let a search
    through to ``no_path`` at once (that search cost as much)."""
    if index.tried and not index.stale:  # the steady state: nothing left to pay for
        return
    if index.stale and no_path and index.labels is not None:
        index.due = True
        return
    index.debt += expanded * (JUMP_COST if jumps else 1)
    if index.labels is None:
        index.due = index.debt >= p.passable.shape[0]
    elif not index.tried:
        index.due = index.debt >= landmark_count(p.passable.shape[0]) * index.opened


def _pay(grid: GridView, p: Prepared, index: SizeIndex, use_jps: Callable[[], bool]) -> None:
    """Build what the index is due: labels (dropped, or stale and split), else its landmarks."""
    with _BUILDING:  # one thread pays; the others search with the index as it is
        if not index.due:
            return
        index.due = False
    if index.labels is None or index.stale:
        labels, _ = _labels(grid, p, index.size)
        with _BUILDING:
            if index.labels is None:
                index.debt = 0  # the landmarks are paid for from here
            index.labels, index.opened, index.stale = labels, int(np.count_nonzero(labels)), False
    elif not index.tried:
        prime(grid, p, index, use_jps=use_jps())


def prime(grid: GridView, p: Prepared, index: SizeIndex, *, use_jps: bool) -> None:
    """Build the index's landmarks now, and keep them if they beat the size's kernel without them
    (JPS when ``use_jps``, else A*) on probe queries (what :func:`settle` does once paid for; a
    benchmark calls it to time steady state)."""
    with _BUILDING:  # one thread builds them; queries meanwhile search without
        if index.tried:
            return
        index.tried = True
    labels = index.labels
    count = landmark_count(p.passable.shape[0]) if p.uniform_weight > 0.0 else 0
    if labels is None or not count or not index.opened:
        return
    parts = int(labels.max())
    table: F64 | None = _landmarks(grid, p, index.size, labels, parts, count)
    if table is None or not landmarks_pay(grid, p, labels, table, count, index.size, use_jps=use_jps):
        table, count = None, 0
    with _BUILDING:
        index.landmarks, index.count, index.weight = table, count, p.uniform_weight


def cells_changed(p: Prepared, *, opened: bool, closed: bool) -> None:
    """Keep ``p``'s indexes right after walls changed (:mod:`.repair`; no query is running)."""
    for index in p.size_indexes.values():
        if opened:
            index.drop()
        elif closed and index.labels is not None:
            index.stale = True


def _touch(p: Prepared, size: int, index: SizeIndex) -> None:
    """Make ``size`` the most recently used (a race only reorders: never loses an index)."""
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
