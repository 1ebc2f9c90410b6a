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
the second in O(1); landmarks' distances (ALT, :mod:`.landmark_kernels`) bound the remaining
distance so well that size 3 expands fewer nodes than size 1 (251 against 396 there).

What it costs: labels are 4 bytes a padded cell, made by a flood fill with the size's first query
(about 2 ms on 512 x 512). Landmarks are up to :data:`LANDMARKS` float64 distances a node, for the
nodes of parts of at least :data:`MIN_PART_NODES` only (a row number, 4 bytes a padded cell, finds
them), within :data:`LANDMARK_BYTES` (fewer landmarks for more nodes, none past about a million),
one Dijkstra of those parts each, on uniform-weight grids only; a query reads the
:data:`.landmark_kernels.ACTIVE` best for it. They are built (by the next query, in :func:`index_for`:
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
    "MIN_PART_NODES",
    "SizeIndex",
    "cells_changed",
    "index_for",
    "landmark_count",
    "prime",
    "settle",
]

LANDMARKS = 64
"""Landmarks per part at most: so many that one lies behind most goals (a query reads only the
:data:`.landmark_kernels.ACTIVE` few best for it, so more cost memory and build time, not search
time). On random512-10-0 at size 3, 8 landmarks left 548 expansions a query, 64 leave 251."""
MIN_LANDMARKS = 4
"""Fewer than this fit in :data:`LANDMARK_BYTES`: the size searches without landmarks."""
MIN_PART_NODES = 256
"""Parts with fewer nodes get no landmarks (a search there expands at most that many nodes)."""
LANDMARK_BYTES = 32 * 2**20
"""The most one size's landmark distances may take (64 landmarks for 65,536 nodes in big parts)."""
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
                opened = _big_part_nodes(labels)
                # no part big enough for landmarks: nothing to build, nothing to pay for
                index = p.size_indexes[size] = SizeIndex(size, labels, opened, tried=not opened)
                while len(p.size_indexes) > INDEXES_KEPT:
                    del p.size_indexes[next(iter(p.size_indexes))]
        return index
    if index.due:
        _pay(grid, p, index, use_jps)
    elif len(p.size_indexes) > 1 and next(reversed(p.size_indexes)) != size:
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
        index.due = index.debt >= landmark_count(index.opened) * index.opened


def _pay(grid: GridView, p: Prepared, index: SizeIndex, use_jps: Callable[[], bool]) -> None:
    """Build what the index is due: labels (dropped, or stale and split), else its landmarks."""
    with _BUILDING:  # one thread pays; the others search with the index as it is
        if not index.due:
            return
        index.due = False
    if index.labels is None or index.stale:
        labels, _ = _labels(grid, p, index.size)
        with _BUILDING:
            opened = _big_part_nodes(labels)
            if index.labels is None:
                index.debt = 0  # the landmarks are paid for from here
                index.tried = not opened
            index.labels, index.opened, index.stale = labels, opened, False
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
    count = landmark_count(index.opened) if p.uniform_weight > 0.0 else 0
    if labels is None or not count or not index.opened:
        return
    rows = _rows(labels)
    table = _landmarks(grid, p, index.size, labels, rows, count)
    if not landmarks_pay(grid, p, labels, rows, table, count, index.size, use_jps=use_jps):
        return  # refused: the size searches without (tried stays set)
    with _BUILDING:
        index.rows, index.landmarks, index.count, index.weight = rows, table, count, p.uniform_weight


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
    """Landmarks a size gets within :data:`LANDMARK_BYTES` for ``nodes`` nodes in parts of at
    least :data:`MIN_PART_NODES` (0: none)."""
    fit = min(LANDMARKS, LANDMARK_BYTES // (8 * max(1, nodes)))
    return fit if fit >= MIN_LANDMARKS else 0


def _labels(grid: GridView, p: Prepared, size: int) -> tuple[I32, int]:
    n = p.passable.shape[0]
    labels = np.zeros(n, dtype=np.int32)
    parts = label_parts(p.passable, size, p.stride, DIAG_CODES[grid.diagonal], labels, np.empty(n, np.int32))
    return labels, int(parts)


def _big_part_nodes(labels: I32) -> int:
    """Nodes in parts of at least :data:`MIN_PART_NODES` (those a landmark's Dijkstra visits)."""
    counts = np.bincount(labels)
    counts[0] = 0
    return int(counts[counts >= MIN_PART_NODES].sum())


def _rows(labels: I32) -> I32:
    """Each node's row in the landmark table: numbered in scan order over the parts of at least
    :data:`MIN_PART_NODES` nodes, -1 elsewhere."""
    counts = np.bincount(labels)
    big = counts >= MIN_PART_NODES
    big[0] = False
    has_row = big[labels]
    rows = np.full(labels.shape[0], -1, dtype=np.int32)
    rows[has_row] = np.arange(int(np.count_nonzero(has_row)), dtype=np.int32)
    return rows


def _landmarks(grid: GridView, p: Prepared, size: int, labels: I32, rows: I32, count: int) -> F64:  # noqa: PLR0917
    """``count`` landmarks per part with rows, farthest first: the first is the part's first node
    in scan order (on its rim), each next one the node farthest from those chosen (Goldberg &
    Werneck's "farthest" selection, which puts them on the part's rim, behind the nodes they
    bound); ``count`` distances per row."""
    n, parts = labels.shape[0], int(labels.max())
    nodes = int(rows.max()) + 1
    table = np.empty(nodes * count, dtype=np.float64)
    nearest = np.full(nodes, np.inf)  # each row's distance to its nearest landmark so far
    (cw, ch), diagonal, weight = grid.cell_size, DIAG_CODES[grid.diagonal], p.uniform_weight
    scratch = (np.empty(n, np.uint8), np.empty(n, np.int32), np.empty(n, np.float64), np.empty(n, np.int32))
    for slot in range(count):
        seeds = farthest_per_part(labels, rows, parts, nearest)[1:]
        distances_from(
            p.passable, size, p.stride, diagonal, cw, ch, weight, seeds[seeds >= 0], rows, table, slot,
            count, *scratch,
        )  # fmt: skip
        np.minimum(nearest, table[slot::count], out=nearest)
    return table
