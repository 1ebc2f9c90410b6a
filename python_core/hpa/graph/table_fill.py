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
no GIL, straight into the flat table array, so threads never wait for each other between two
clusters (one Python call per cluster cost a GIL hand-over each, which on a loaded machine left
the cores idle most of the build). Deferred, the tables no query reads until all are priced are
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

__all__ = ["CHUNK", "Clock", "TableFill", "build_threads", "on_threads", "price_all", "price_clusters"]

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
    priced: U8
    has_trees: bool

    @property
    def cluster_count(self) -> int: ...

    def price_cluster(self, cluster: int) -> None: ...


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
) -> None:
    """The cost tables of ``clusters`` (no trees) written into their shaped pieces of
    ``table_flat`` (``k * k`` values from ``table_off[c]``), each cluster flagged in ``priced``.
    A one-weight cluster's table is symmetric: half of it is mirrored.

    Example:
        >>> walk, w = np.ones(8, np.uint8), np.ones(8)
        >>> flat, priced = np.zeros(8), np.zeros(2, np.uint8)
        >>> price_clusters(walk, w, 8, 1, 4, 0, 1.0, 1.0, np.array([1]), np.array([0, 3, 4, 7]),
        ...                np.array([0, 2, 4]), flat, np.array([0, 4, 8]), priced)
        >>> flat.tolist(), priced.tolist()
        ([0.0, 0.0, 0.0, 0.0, 0.0, 3.0, 3.0, 0.0], [0, 1])
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
        symmetric = uniform_flags(walk, weights, width, height, csize, clusters[i : i + 1])[0] == 1
        table = cluster_table(walk, weights, width, x0, y0, lw, lh, diag, cw, ch, trans, no_trees, symmetric)
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


def price_all(graph: AbstractGraph, progress: Callable[[int, int], None] | None) -> None:
    """Price every unpriced cluster now, on :func:`build_threads` threads, in chunks handed out in
    order, ``progress(done, total)`` reported from this thread. Without trees the tables must be
    shaped (:meth:`~python_core.hpa.graph.pieces.Pieces.shaped`); with them, each cluster's
    pieces are replaced (:meth:`AbstractGraph.price_cluster`)."""
    todo = np.flatnonzero(graph.priced == 0).astype(np.int64)
    total, workers = graph.cluster_count, build_threads()
    chunk = max(1, min(CHUNK, todo.shape[0] // (workers * 8) or 1))
    chunks = [todo[i : i + chunk] for i in range(0, todo.shape[0], chunk)]
    done, batch, reported = total - todo.shape[0], max(1, total // 100), 0

    def price(part: I64) -> int:
        if not graph.has_trees:
            _price_chunk(graph, part)
        for c in part.tolist() if graph.has_trees else ():
            graph.price_cluster(c)
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
