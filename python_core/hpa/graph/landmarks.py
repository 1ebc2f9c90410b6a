"""Landmarks of a big abstract graph: exact distances from a few far-apart transitions (ALT).

Quick start (``graph`` a built :class:`~python_core.hpa.graph.abstract_graph.AbstractGraph`)::

    from python_core.hpa.graph.landmarks import landmark_table
    table = landmark_table(graph.cl_first, graph.cl_doff, graph.dist_flat, graph.node_cluster,
                           graph.inter_off, graph.inter_dst, graph.inter_cost, graph.node_cell,
                           graph.width, LANDMARKS)   # float32, (nodes, landmarks)

By the triangle inequality, ``d(L, goal) - d(L, v)`` is a lower bound of ``d(v, goal)`` for any
landmark ``L`` (and ``d(v, L) - d(goal, L)`` too where the graph is symmetric, one weight on every
open cell): the abstract search's heuristic is the largest of these and the octile estimate
(:func:`~python_core.hpa.query.abstract_search.abstract_alt`). Where scattered walls forbid
diagonal steps, the octile estimate falls some 13% short of the true cost on diagonal queries, and
a search of a 4096 x 4096 map expanded 10-26 thousand transitions there; a landmark behind the
start or the goal makes the bound near-exact.

A graph of :data:`LANDMARK_NODES` transitions or more and no cluster trees (whose queries never
run the abstract search) gets its table in the background (:func:`refresh_landmarks`, called
whenever its flat arrays change): a thread waits until the cluster tables are priced and no
change came for :data:`SETTLE_SECONDS`, computes the table from them, and installs it unless the
graph changed meanwhile. Until then, and after each change until the next table stands, queries
use the octile estimate alone: the same paths as without landmarks, only slower on the largest
maps.

The landmarks are chosen farthest-first: the node nearest the grid's first corner, then each time
the node whose nearest landmark is farthest (by the tables already computed, so the choice costs
no extra search). Each is one Dijkstra over the abstract graph (a 4096 x 4096 map's 270k
transitions: about 0.1 s each); the table takes 4 bytes per node per landmark.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Callable
from typing import Protocol

import numpy as np

from python_core._types import F32, F64, I32, I64
from python_core.grid.search.heuristics import HEURISTIC_CODES
from python_core.hpa.query.abstract_search import abstract_alt

__all__ = [
    "LANDMARKS",
    "LANDMARK_NODES",
    "NO_LANDMARKS",
    "SETTLE_SECONDS",
    "Landmarked",
    "landmark_distances",
    "landmark_table",
    "refresh_landmarks",
]

LANDMARKS = 8
"""Landmarks a big graph gets: 8 x 4 bytes a node (some 0.5 byte a cell on a 4096 x 4096 map)."""
LANDMARK_NODES = 50_000
"""Graphs with fewer transitions get none: their abstract searches are short already."""
NO_LANDMARKS: F32 = np.zeros((0, 0), np.float32)
"""The table of a graph without landmarks (the abstract search then uses the octile estimate)."""
POLL_SECONDS = 0.05
"""How often a landmark thread looks whether the cluster tables are priced yet."""
SETTLE_SECONDS = 0.5
"""A landmark thread starts its searches only this long after its change (or build) with no other
change since: doors toggled in quick succession cost one table, not a second of CPU each."""

_INSTALL = threading.Lock()  # a change's epoch bump and a finished table's install, one at a time


class Landmarked(Protocol):
    """What the landmark thread reads and writes of an
    :class:`~python_core.hpa.graph.abstract_graph.AbstractGraph` (which imports this module)."""

    width: int
    has_trees: bool
    cl_first: I64
    cl_doff: I64
    dist_flat: F64
    node_cluster: I64
    node_cell: I64
    inter_off: I64
    inter_dst: I64
    inter_cost: F64
    landmarks: F32
    landmark_epoch: int
    landmark_thread: threading.Thread | None

    @property
    def node_count(self) -> int: ...

    @property
    def tables_ready(self) -> bool: ...


_ZERO = HEURISTIC_CODES["zero"]


def landmark_distances(  # noqa: PLR0917 (the kernel's arrays)
    cl_first: I64,
    cl_doff: I64,
    dist_flat: F64,
    node_cluster: I64,
    inter_off: I64,
    inter_dst: I64,
    inter_cost: F64,
    node_cell: I64,
    width: int,
    source: int,
    scratch: tuple[F64, I32, I32, I32, F64, I32],
) -> F64:
    """Every node's cost from transition ``source`` over the abstract graph (``inf`` where
    unreachable): Dijkstra, as the abstract search's kernel with the ``zero`` heuristic, from the
    source's cluster mates at their table costs towards a goal it never reaches (no kernel of its
    own to compile: a sidecar's first big map would compile one on this thread, GIL held).
    ``scratch``: ``g``, ``parent``, ``stamps`` (zeroed here), heap nodes, keys and slots, of
    ``nodes + 1`` entries.

    Example:
        >>> n, i32 = 3, np.int32
        >>> scratch = (np.zeros(n), np.zeros(n, i32), np.zeros(n, i32), np.zeros(n, i32), np.zeros(n),
        ...            np.zeros(n, i32))
        >>> landmark_distances(np.array([0, 2]), np.array([0]), np.array([0.0, 3.0, 3.0, 0.0]),
        ...                    np.zeros(2, np.int64), np.zeros(3, np.int64), np.zeros(0, np.int64),
        ...                    np.zeros(0), np.array([0, 5]), 4, 1, scratch).tolist()
        [3.0, 0.0]
    """
    g, parent, stamps, heap_nodes, heap_keys, heap_pos = scratch
    cluster = int(node_cluster[source])
    lo, hi = int(cl_first[cluster]), int(cl_first[cluster + 1])
    k = hi - lo
    row = int(cl_doff[cluster]) + (source - lo) * k
    seeds = dist_flat[row : row + k].copy()
    seeds[source - lo] = 0.0
    stamps[:] = 0
    abstract_alt(
        node_cell, node_cluster, cl_first, cl_doff, dist_flat, inter_off, inter_dst, inter_cost, width,
        1.0, 1.0, _ZERO, 1.0, np.arange(lo, hi, dtype=np.int64), seeds, cluster, np.full(k, np.inf),
        np.inf, int(node_cell[source]), -1, g, parent, stamps, 1, heap_nodes, heap_keys, heap_pos, 1.0,
        0.0, int(node_cell[source]), NO_LANDMARKS, 1.0, 0,
    )  # fmt: skip
    n = node_cell.shape[0]
    out: F64 = np.where(stamps[:n] == 3, g[:n], np.inf)  # 2 qid + 1: closed, so settled
    return out


def landmark_table(  # noqa: PLR0917 (mirrors the kernel's arrays)
    cl_first: I64,
    cl_doff: I64,
    dist_flat: F64,
    node_cluster: I64,
    inter_off: I64,
    inter_dst: I64,
    inter_cost: F64,
    node_cell: I64,
    width: int,
    count: int = LANDMARKS,
    going: Callable[[], bool] | None = None,
) -> F32 | None:
    """Distances from ``count`` farthest-first landmarks to every node: float32, ``(nodes, count)``
    (node-major: one node's distances share a cache line), ``inf`` where unreachable; None when
    ``going`` (asked before each landmark) says to stop.

    Example:
        >>> i64 = np.zeros(0, np.int64)
        >>> landmark_table(np.array([0, 2]), np.array([0]), np.array([0.0, 3.0, 3.0, 0.0]),
        ...                np.zeros(2, np.int64), np.zeros(3, np.int64), i64, np.zeros(0),
        ...                np.array([0, 5]), 4, 2).tolist()
        [[0.0, 3.0], [3.0, 0.0]]
    """
    n = node_cell.shape[0]
    count = min(count, n)
    table = np.empty((n, count), dtype=np.float32)
    if not count:
        return table
    i32 = np.int32
    scratch = (np.zeros(n + 1), np.zeros(n + 1, i32), np.zeros(n + 1, i32), np.zeros(n + 1, i32),
               np.zeros(n + 1), np.zeros(n + 1, i32))  # fmt: skip
    nearest = np.full(n, np.inf)  # each node's distance to its nearest landmark so far
    source = int(np.argmin(node_cell % width + node_cell // width))  # nearest the first corner
    for i in range(count):
        if going is not None and not going():
            return None
        dist = landmark_distances(
            cl_first, cl_doff, dist_flat, node_cluster, inter_off, inter_dst, inter_cost, node_cell, width,
            source, scratch,
        )  # fmt: skip
        table[:, i] = dist
        np.minimum(nearest, dist, out=nearest)
        far = np.where(np.isfinite(nearest), nearest, -1.0)
        source = int(np.argmax(far))
    return table


def refresh_landmarks(graph: Landmarked) -> None:
    """Drop ``graph``'s landmark table (its arrays changed) and, when it is big enough and has no
    trees, compute a new one on a background thread (:func:`_compute`)."""
    with _INSTALL:
        graph.landmark_epoch += 1
        graph.landmarks = NO_LANDMARKS
        epoch = graph.landmark_epoch
    if graph.has_trees or graph.node_count < LANDMARK_NODES:
        graph.landmark_thread = None
        return
    thread = threading.Thread(
        target=_compute, args=(weakref.ref(graph), epoch), name="hpa-landmarks", daemon=True
    )
    graph.landmark_thread = thread
    thread.start()


def _compute(ref: weakref.ReferenceType[Landmarked], epoch: int) -> None:
    """The landmark thread of one epoch: once the tables are priced, the table from the arrays of
    that moment, installed if no change came meanwhile (a change, or a dropped graph, ends it at
    the next landmark)."""
    settled = time.monotonic() + SETTLE_SECONDS
    while True:
        graph = ref()
        if graph is None or graph.landmark_epoch != epoch:
            return
        if graph.tables_ready and time.monotonic() >= settled:
            break
        del graph  # not held while waiting
        time.sleep(POLL_SECONDS)
    arrays = (
        graph.cl_first, graph.cl_doff, graph.dist_flat, graph.node_cluster, graph.inter_off,
        graph.inter_dst, graph.inter_cost, graph.node_cell,
    )  # fmt: skip
    width = graph.width
    del graph

    def going() -> bool:
        alive = ref()
        return alive is not None and alive.landmark_epoch == epoch

    table = landmark_table(*arrays, width, LANDMARKS, going)
    graph = ref()
    if table is None or graph is None:
        return
    with _INSTALL:
        if graph.landmark_epoch == epoch:
            graph.landmarks = table
