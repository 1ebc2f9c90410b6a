"""Pricing the clusters of a level-1 graph: on every core at build time, or in the background.

Quick start (``graph`` an :class:`~python_core.hpa.graph.abstract_graph.AbstractGraph` whose
transitions are set and whose tables are shaped, unpriced)::

    fill = TableFill(graph)
    fill.start()          # threads price the clusters; queries meanwhile answer exactly
    fill.pause()          # a change: the threads stop at the end of their chunk
    fill.start()          # and go on with the clusters still unpriced
    fill.wait()           # True once every cluster is priced

The cluster tables are over 90% of a big map's build (4096 x 4096, 20% walls: 16k clusters, 270k
transitions). :func:`price_clusters` prices a chunk of clusters in one compiled call that holds
no GIL, straight into the flat table array (and the trees into theirs, when kept), so threads
never wait for each other between two clusters (one Python call per cluster cost a GIL hand-over
each, which on a loaded machine left the cores idle most of the build: a 1024 x 1024 map's trees
took 9 s on two cores that way). Deferred, the tables no query reads until all are priced are
filled behind the load: the hierarchy answers from the first moment (by the exact search), and
by HPA* once :attr:`TableFill.done`.
"""

from __future__ import annotations

import os
import threading
import time
import weakref
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol

import numpy as np

from python_core._types import F64, I64, U8
from python_core.compiled import jit
from python_core.hpa.graph.cluster_search import cluster_table, uniform_flags
from python_core.hpa.graph.pieces import Pieces

__all__ = [
    "CHUNK",
    "Clock",
    "TableFill",
    "build_threads",
    "lay_out",
    "on_threads",
    "price_all",
    "price_clusters",
]

CHUNK = 32
"""Clusters per compiled call: a pause waits for at most one chunk per thread (a few ms)."""


class AbstractGraph(Protocol):
    """What pricing reads and writes of a level-1 graph: an
    :class:`~python_core.hpa.graph.abstract_graph.AbstractGraph` (which imports this module, so
    this one names only the members it uses)."""

    walk: U8
    weights: F64
    width: int
    height: int
    csize: int
    diag: int
    cw: float
    ch: float
    trans: Pieces[np.int64]
    tables: Pieces[np.float64]
    dirs: Pieces[np.uint8]
    priced: U8
    uniform: U8
    has_trees: bool
    table_budget: int

    @property
    def cluster_count(self) -> int: ...


def build_threads() -> int:
    """Threads a build prices clusters on: the CPUs this process may use (``ASTAR_BUILD_THREADS``
    overrides, e.g. ``1`` for a sidecar that must leave the other cores to the game)."""
    told = os.environ.get("ASTAR_BUILD_THREADS", "")
    if told.isdigit() and int(told) > 0:
        return int(told)
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)


class Clock:
    """Seconds per named phase of a build (what :attr:`AbstractGraph.phases` reports)."""

    def __init__(self) -> None:
        self.laps: dict[str, float] = {}
        self._last = time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.laps[name] = self.laps.get(name, 0.0) + now - self._last
        self._last = now


@jit
def price_clusters(  # noqa: PLR0917 (positional only: compiled kernel)
    walk: U8,
    weights: F64,
    width: int,
    height: int,
    csize: int,
    diag: int,
    cw: float,
    ch: float,
    clusters: I64,
    trans_flat: I64,
    trans_off: I64,
    table_flat: F64,
    table_off: I64,
    priced: U8,
    trees: bool,
    dirs_flat: U8,
    dirs_off: I64,
) -> None:
    """The cost tables of ``clusters`` written into their shaped pieces of ``table_flat`` (``k * k``
    values from ``table_off[c]``), and with ``trees`` their trees into those of ``dirs_flat``
    (``k`` rows of the cluster's cells from ``dirs_off[c]``), each cluster flagged in ``priced``.
    Without trees a one-weight cluster's table is symmetric: half of it is mirrored.

    Example:
        >>> walk, w = np.ones(8, np.uint8), np.ones(8)
        >>> flat, priced, none = np.zeros(8), np.zeros(2, np.uint8), np.zeros(3, np.int64)
        >>> price_clusters(walk, w, 8, 1, 4, 0, 1.0, 1.0, np.array([1]), np.array([0, 3, 4, 7]),
        ...                np.array([0, 2, 4]), flat, np.array([0, 4, 8]), priced, False,
        ...                np.zeros(0, np.uint8), none)
        >>> flat.tolist(), priced.tolist()
        ([0.0, 0.0, 0.0, 0.0, 0.0, 3.0, 3.0, 0.0], [0, 1])
        >>> dirs = np.zeros(8, np.uint8)
        >>> price_clusters(walk, w, 8, 1, 4, 0, 1.0, 1.0, np.array([1]), np.array([0, 3, 4, 7]),
        ...                np.array([0, 2, 4]), flat, np.array([0, 4, 8]), priced, True,
        ...                dirs, np.array([0, 0, 8]))
        >>> dirs.tolist()
        [4, 5, 5, 5, 3, 3, 3, 4]
    """
    ncx = (width + csize - 1) // csize
    no_trees = np.zeros((0, 0), dtype=np.uint8)
    for i in range(clusters.shape[0]):
        c = clusters[i]
        x0, y0 = (c % ncx) * csize, (c // ncx) * csize
        lw, lh = min(csize, width - x0), min(csize, height - y0)
        trans = trans_flat[trans_off[c] : trans_off[c + 1]]
        k = trans.shape[0]
        if k * k != table_off[c + 1] - table_off[c]:  # not shaped for these transitions: left alone
            continue
        if trees and k * lw * lh != dirs_off[c + 1] - dirs_off[c]:
            continue
        dirs = no_trees
        if trees and k > 0:  # the cluster's trees, written in place by the searches
            dirs = dirs_flat[dirs_off[c] : dirs_off[c + 1]].reshape((k, lw * lh))
        symmetric = (
            not trees and uniform_flags(walk, weights, width, height, csize, clusters[i : i + 1])[0] == 1
        )
        table = cluster_table(walk, weights, width, x0, y0, lw, lh, diag, cw, ch, trans, dirs, symmetric)
        start = table_off[c]
        for r in range(k):
            for j in range(k):
                table_flat[start + r * k + j] = table[r, j]
        priced[c] = 1


def _price_chunk(graph: AbstractGraph, clusters: I64) -> None:
    """One compiled call over a chunk, on the graph's current flat arrays."""
    price_clusters(
        graph.walk, graph.weights, graph.width, graph.height, graph.csize, graph.diag, graph.cw, graph.ch,
        clusters, graph.trans.flat, graph.trans.off, graph.tables.flat, graph.tables.off, graph.priced,
        graph.has_trees, graph.dirs.flat, graph.dirs.off,
    )  # fmt: skip


def on_threads(work: Callable[[I64], I64], total: int) -> I64:
    """``work`` over ``0 .. total - 1`` in one contiguous part per :func:`build_threads` thread
    (for a nogil kernel over clusters), the parts' results concatenated in order."""
    workers = max(1, min(build_threads(), total // 64))
    parts = np.array_split(np.arange(total, dtype=np.int64), workers)
    if workers == 1:
        return work(parts[0])
    with ThreadPoolExecutor(workers, thread_name_prefix="hpa-build") as pool:
        return np.concatenate(list(pool.map(work, parts)))


def lay_out(
    graph: AbstractGraph, defer: bool, progress: Callable[[int, int], None] | None
) -> TableFill | None:
    """Lay out the graph's cost tables (and its trees, when it keeps them) for its current
    transitions, zero and unpriced, then price them: now (:func:`price_all`), or with ``defer``
    in the background (the :class:`TableFill` returned, started once the graph is assembled),
    unless an all-pairs table is kept (it is derived from the priced tables at once)."""
    graph.trans.splice()
    k = graph.trans.rows
    graph.tables = Pieces.shaped(k, k, np.float64)
    graph.priced = np.zeros(graph.cluster_count, dtype=np.uint8)
    graph.dirs = Pieces(graph.cluster_count, 2, np.uint8)  # a rebuild without trees keeps none
    if graph.has_trees:
        ncx, csize, at = -(-graph.width // graph.csize), graph.csize, np.arange(graph.cluster_count)
        lw = np.minimum(csize, graph.width - at % ncx * csize)
        lh = np.minimum(csize, graph.height - at // ncx * csize)
        graph.dirs = Pieces.shaped(k, (lw * lh).astype(np.int64), np.uint8)
        # whether a start's costs read off a cluster's trees are exact: one weight
        graph.uniform[:] = uniform_flags(graph.walk, graph.weights, graph.width, graph.height, csize, at)
    if defer and not (graph.has_trees and 0 < 8 * int(k.sum()) ** 2 <= graph.table_budget):
        return TableFill(graph)
    price_all(graph, progress)
    return None


def price_all(graph: AbstractGraph, progress: Callable[[int, int], None] | None) -> None:
    """Price every unpriced cluster of a laid-out graph (:func:`lay_out`) now, on
    :func:`build_threads` threads, in chunks handed out in order, ``progress(done, total)``
    reported from this thread."""
    todo = np.flatnonzero(graph.priced == 0).astype(np.int64)
    total, workers = graph.cluster_count, build_threads()
    chunk = max(1, min(CHUNK, todo.shape[0] // (workers * 8) or 1))
    chunks = [todo[i : i + chunk] for i in range(0, todo.shape[0], chunk)]
    done, batch, reported = total - todo.shape[0], max(1, total // 100), 0

    def price(part: I64) -> int:
        _price_chunk(graph, part)
        return int(part.shape[0])

    with ThreadPoolExecutor(max(1, min(workers, len(chunks))), thread_name_prefix="hpa-build") as pool:
        for part in pool.map(price, chunks):
            done += part  # in order: done only grows
            if progress is not None and (done - reported >= batch or done == total):
                reported = done
                progress(done, total)
    if progress is not None and reported != total:
        progress(total, total)


class TableFill:
    """Background threads pricing a shaped graph's unpriced clusters (see the module).

    The threads hold the graph weakly: a graph dropped meanwhile ends them at their next chunk.
    :meth:`pause` must come before anything else changes the graph's transitions or tables (a
    change, a rebuild); :meth:`start` then goes on with what is still unpriced.
    """

    def __init__(self, graph: AbstractGraph) -> None:
        self._graph = weakref.ref(graph)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._todo: list[int] = []

    @property
    def done(self) -> bool:
        """Whether every cluster is priced (as of the last chunk a thread finished)."""
        graph = self._graph()
        return graph is None or not (graph.priced == 0).any()

    @property
    def running(self) -> bool:
        """Whether some thread is still pricing."""
        return any(t.is_alive() for t in self._threads)

    def start(self) -> None:
        """Start (or resume) the threads over the clusters still unpriced."""
        self.pause()
        graph = self._graph()
        if graph is None:
            return
        todo = np.flatnonzero(graph.priced == 0)
        self._todo = list(range(0, todo.shape[0], CHUNK))[::-1]  # chunk starts, popped in ascending order
        self._stop.clear()
        self._threads = [
            threading.Thread(target=self._run, args=(todo,), name="hpa-tables", daemon=True)
            for _ in range(min(build_threads(), len(self._todo)))
        ]
        for thread in self._threads:
            thread.start()

    def pause(self) -> None:
        """Stop the threads after their current chunk and wait for them."""
        self._stop.set()
        for thread in self._threads:
            thread.join()
        self._threads = []

    def wait(self, timeout: float | None = None) -> bool:
        """Wait up to ``timeout`` seconds (None: no limit) for the threads; True when all is priced."""
        deadline = None if timeout is None else time.monotonic() + timeout
        for thread in self._threads:
            thread.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
        return self.done

    def _run(self, todo: I64) -> None:
        while not self._stop.is_set():
            with self._lock:
                if not self._todo:
                    return
                first = self._todo.pop()
            graph = self._graph()
            if graph is None:
                return
            _price_chunk(graph, todo[first : first + CHUNK])
            del graph  # held only while pricing
