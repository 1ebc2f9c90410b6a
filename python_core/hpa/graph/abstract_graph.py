"""The level-1 abstract graph of HPA*: transition nodes, exact intra-cluster costs, crossings.

Quick start::

    import numpy as np
    from python_core.hpa.graph.abstract_graph import AbstractGraph
    graph = AbstractGraph(np.ones(64 * 64, np.uint8), np.ones(64 * 64), 64, 64, csize=16, diag=3)
    graph.build()
    assert graph.node_count > 0 and graph.cluster_count == 16

Storage is per cluster (its sorted transition cells and a ``(k, k)`` cost table from exact
Dijkstra inside the cluster) and per border (its transition pairs), so a change rebuilds only the
pieces it touches; :meth:`AbstractGraph.assemble` then concatenates them into the flat arrays the
compiled search reads: nodes grouped by cluster (``cl_first``), the tables back to back
(``cl_doff``), and the crossings as CSR (``inter_off``, ``inter_dst``, ``inter_cost``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from threading import Thread
from typing import cast, overload

import numpy as np

from python_core._types import F32, F64, I32, I64, U8, B
from python_core.hpa.graph.cluster_search import cluster_table, uniform_flags
from python_core.hpa.graph.components import component_ids, component_of, label_clusters
from python_core.hpa.graph.distance_table import all_pairs
from python_core.hpa.graph.entrance_merging import MERGE_LEAST, merge_crossings
from python_core.hpa.graph.entrances import (
    ANTI_CORNER,
    CORNER,
    HORIZONTAL,
    VERTICAL,
    Border,
    border_crossings,
    border_exact,
    borders_of,
    side_geometry,
)
from python_core.hpa.graph.graph_arrays import GraphArrays
from python_core.hpa.graph.landmarks import NO_LANDMARKS, refresh_landmarks
from python_core.hpa.graph.pieces import Pieces
from python_core.hpa.graph.table_fill import Clock, TableFill, build_threads, lay_out, on_threads
from python_core.hpa.repair.local_updates import apply_changes
from python_core.hpa.repair.table_repair import refill_rows, repair_within

__all__ = ["AbstractGraph", "Progress", "build_threads"]

Progress = Callable[[int, int], None]
"""``progress(done, total)``: called with increasing ``done``, last with ``done == total``."""

_EMPTY_I = np.zeros(0, dtype=np.int64)


class AbstractGraph:
    """Transitions and exact costs over a grid cut into square clusters.

    Args:
        walk: flat walkable flags (uint8; read live, never written).
        weights: flat weights (read live).
        width: grid columns.
        height: grid rows.
        csize: cluster side in cells (``>= 2``).
        diag: diagonal rule code (0 never, 1 always, 2 at least one, 3 no obstacles).
        cell: ``(w, h)`` cell size.
        long_len: entrances longer than this get two transitions instead of one.
        tree_budget: bytes the cached cluster trees (:mod:`~python_core.hpa.graph.cluster_trees`, one
            byte per cell per transition) may take; :meth:`build` keeps them only when they fit
            (``0``: never, so queries search inside the end clusters instead).
        table_budget: bytes an all-pairs table over the transitions may take (8 per node pair;
            :mod:`~python_core.hpa.graph.distance_table`); kept only with the trees and when it fits.
        merge_span: piece length (border cells) of merged entrances
            (:mod:`~python_core.hpa.graph.entrance_merging`); ``0``: every entrance keeps its own.
        defer: price the cluster tables and trees in the background unless an all-pairs table
            is kept (:mod:`~python_core.hpa.graph.table_fill`): :meth:`build` returns once the
            cheap parts stand, and :attr:`tables_ready` says when queries may read the tables.

    Example:
        >>> g = AbstractGraph(np.ones(16, np.uint8), np.ones(16), 4, 4, csize=2, diag=0)
        >>> g.build(); g.node_count, g.cluster_of(15)
        (7, 3)
    """

    def __init__(
        self,
        walk: U8,
        weights: F64,
        width: int,
        height: int,
        *,
        csize: int,
        diag: int,
        cell: tuple[float, float] = (1.0, 1.0),
        long_len: int = 6,
        tree_budget: int = 0,
        table_budget: int = 0,
        merge_span: int = 0,
        defer: bool = False,
    ) -> None:
        self.walk, self.weights = walk, weights
        self.defer = defer
        self._fill: TableFill | None = None  # the background pricing of a deferred build
        self.merge_span = merge_span
        self.width, self.height, self.csize, self.diag = width, height, csize, diag
        self.cw, self.ch = cell
        self.long_len = long_len
        self.ncx, self.ncy = -(-width // csize), -(-height // csize)
        self.tree_budget, self.table_budget = tree_budget, table_budget
        self.has_trees = False
        # per-cluster pieces of the flat arrays (transitions, cost tables, trees; pieces.py)
        self.dirs: Pieces[np.uint8] = Pieces(self.cluster_count, 2, np.uint8)
        self.uniform = np.zeros(self.cluster_count, dtype=np.uint8)
        self.borders: dict[Border, tuple[I64, F64]] = {}
        self.inexact: set[Border] = set()  # borders some move crosses beside the transitions
        self.trans: Pieces[np.int64] = Pieces(self.cluster_count, 1, np.int64)
        self.tables: Pieces[np.float64] = Pieces(self.cluster_count, 2, np.float64)
        self.priced = np.zeros(self.cluster_count, dtype=np.uint8)  # whose table is computed
        self.labels = np.full(width * height, -1, dtype=np.int16)
        self.comp_count = np.zeros(self.cluster_count, dtype=np.int64)
        self.pair_dist: F32 = np.zeros((0, 0), np.float32)
        self.pair_pred: I32 = np.zeros((0, 0), np.int32)
        # rows of the table not valid yet (a time-boxed repair left them; see refill())
        self.pair_stale: B = np.zeros(0, dtype=np.bool_)
        self.landmarks: F32 = NO_LANDMARKS  # landmarks.py: computed in the background, per change
        self.landmark_epoch, self.landmark_thread = 0, cast("Thread | None", None)
        # whether the last apply_changes kept every node and crossing (costs and labels may differ)
        self.nodes_kept = False
        self.phases: dict[str, float] = {}  # seconds per phase of the last build()
        self.assemble()

    @property
    def cluster_count(self) -> int:
        """Number of clusters."""
        return self.ncx * self.ncy

    @property
    def node_count(self) -> int:
        """Number of transition nodes."""
        return int(self.node_cell.shape[0])

    @property
    def exact(self) -> bool:
        """Whether every move between clusters is a transition pair (every entrance one pair
        long, no diagonal crossing beside them; :func:`~python_core.hpa.graph.entrances.border_exact`).
        Then the abstract graph holds every path: its optimum is the grid's, and refining the
        abstract optimum gives an optimal path that no smoothing can shorten."""
        return not self.inexact and self.diag in (0, 3)

    @overload
    def cluster_of(self, cell: int) -> int: ...
    @overload
    def cluster_of(self, cell: I64) -> I64: ...
    def cluster_of(self, cell: int | I64) -> int | I64:
        """Cluster id ``cy * ncx + cx`` of a flat cell id (or of each of an array of them)."""
        return (cell // self.width // self.csize) * self.ncx + (cell % self.width) // self.csize

    def rect(self, cluster: int) -> tuple[int, int, int, int]:
        """``(x0, y0, lw, lh)`` of a cluster."""
        x0, y0 = (cluster % self.ncx) * self.csize, (cluster // self.ncx) * self.csize
        return x0, y0, min(self.csize, self.width - x0), min(self.csize, self.height - y0)

    # -- building ---------------------------------------------------------------------------------

    def build(self, progress: Progress | None = None) -> None:
        """Compute every border, cluster table and label, then :meth:`assemble`.

        Args:
            progress: called as ``progress(done, total)`` over the clusters (and once at the end).
        """
        self.pause_fill()
        self._fill = None
        clock = Clock()
        total = self.cluster_count
        # labels first (each cluster its own cells, on every core): entrance merging reads them
        self.comp_count = on_threads(
            lambda part: label_clusters(
                self.walk, self.width, self.height, self.csize, self.diag, self.labels, part
            ),
            total,
        )
        clock.lap("labels")
        keys = [(k, cx, cy) for cy in range(self.ncy) for cx in range(self.ncx) for k in range(4)]
        self.rebuild_borders(keys)
        self._all_transitions()
        self.has_trees = 0 < self.tree_bytes_needed() <= self.tree_budget
        clock.lap("entrances")
        self._fill = lay_out(self, self.defer, progress)  # tables and trees: priced now, or in the background
        clock.lap("cluster tables")
        self.assemble()
        clock.lap("assemble")
        self.phases = clock.laps
        if self._fill is not None:
            self._fill.start()
            if progress is not None:  # the rest is the background's
                progress(total, total)

    @property
    def tables_ready(self) -> bool:
        """Whether every cluster table is priced (False while a deferred build's fill runs)."""
        fill = self._fill
        if fill is None:
            return True
        if fill.done:
            self._fill = None  # idempotent: any reader may drop the finished fill
            return True
        return False

    def wait_tables(self, timeout: float | None = None) -> bool:
        """Wait up to ``timeout`` seconds (None: no limit) for a deferred build's tables; True when
        they are all priced."""
        fill = self._fill
        return fill is None or fill.wait(timeout)

    def wait_landmarks(self, timeout: float | None = None) -> bool:
        """Wait up to ``timeout`` s (None: no limit) for the landmark thread; True once it has a table."""
        thread = self.landmark_thread
        if thread is not None:
            thread.join(timeout)
        return self.landmarks.size > 0

    def __getstate__(self) -> dict[str, object]:
        """A copy (pickle, deepcopy) is of the whole graph: a deferred build's tables are priced
        first, and the threads stay with the original."""
        self.wait_tables()
        state = dict(self.__dict__)
        state["_fill"], state["landmark_thread"] = None, None
        return state

    def pause_fill(self) -> None:
        """Stop a deferred build's background pricing after its current chunks (before a change)."""
        if self._fill is not None:
            self._fill.pause()

    def resume_fill(self) -> None:
        """Go on with the background pricing of what is still unpriced (after a change)."""
        if self._fill is not None and not self.tables_ready:
            self._fill.start()

    def rebuild_borders(self, keys: Iterable[Border]) -> set[int]:
        """Recompute the given borders; return the clusters whose transition pairs changed."""
        changed: set[int] = set()
        for key in keys:
            kind, cx, cy = key
            if not (0 <= cx < self.ncx and 0 <= cy < self.ncy):
                continue
            cells, costs = border_crossings(
                self.walk, self.weights, self.width, self.height, self.csize, self.diag,
                self.cw, self.ch, kind, cx, cy, self.long_len,
            )  # fmt: skip
            merged = False
            if self.merge_span > 0 and kind < CORNER and cells.shape[0] >= MERGE_LEAST:
                base0, _, step, across = side_geometry(
                    self.width, self.height, self.csize, kind == VERTICAL, cx, cy
                )
                cells, costs, merged = merge_crossings(
                    cells, costs, self.labels, self.weights, base0, step, across, self.merge_span, MERGE_LEAST
                )
            old = self.borders.pop(key, None)
            if cells.shape[0]:
                self.borders[key] = (cells, costs)
            if self.diag in (0, 3):  # other rules are never exact (see the property): nothing to track
                exact = not merged and border_exact(
                    self.walk, self.width, self.height, self.csize, self.diag, kind, cx, cy
                )
                (self.inexact.discard if exact else self.inexact.add)(key)
            if old is None and not cells.shape[0]:
                continue
            if old is None or not (np.array_equal(old[0], cells) and np.array_equal(old[1], costs)):
                changed.update(self.sides(key))
        return changed

    def sides(self, key: Border) -> tuple[int, int]:
        """The two clusters a border separates (first, second)."""
        kind, cx, cy = key
        first = (cx + 1 if kind == ANTI_CORNER else cx, cy)
        second = {VERTICAL: (cx + 1, cy), HORIZONTAL: (cx, cy + 1), CORNER: (cx + 1, cy + 1)}.get(
            kind, (cx, cy + 1)
        )
        return first[1] * self.ncx + first[0], second[1] * self.ncx + second[0]

    def transitions_of(self, cluster: int) -> I64:
        """The sorted transition cells of a cluster, collected from its borders."""
        cx, cy = cluster % self.ncx, cluster // self.ncx
        parts = [self.borders[key][0][:, side] for key, side in borders_of(cx, cy) if key in self.borders]
        return np.unique(np.concatenate(parts)) if parts else _EMPTY_I

    def _all_transitions(self) -> None:
        """:meth:`transitions_of` every cluster at once: each border cell belongs to the cluster on
        its side, so the sorted unique cells of all borders, grouped by cluster, are theirs."""
        parts = [cells.reshape(-1) for cells, _ in self.borders.values()]
        cells = np.unique(np.concatenate(parts)) if parts else _EMPTY_I
        owner = self.cluster_of(cells)
        order = np.argsort(owner, kind="stable")  # ascending cells within each cluster
        cells, owner = cells[order], owner[order]
        bounds = np.searchsorted(owner, np.arange(self.cluster_count + 1)).tolist()
        for c in range(self.cluster_count):
            self.trans[c] = cells[bounds[c] : bounds[c + 1]]

    def tree_bytes_needed(self) -> int:
        """Bytes the cluster trees of the current transitions take (one byte per cell per transition)."""
        total = 0
        for c in range(self.cluster_count):
            _, _, lw, lh = self.rect(c)
            total += self.trans[c].shape[0] * lw * lh
        return total

    def price_cluster(self, cluster: int) -> None:
        """The cost table of a cluster's current transitions, and its trees when they are kept."""
        trans = self.trans[cluster]
        x0, y0, lw, lh = self.rect(cluster)
        dirs = np.zeros((trans.shape[0], lw * lh) if self.has_trees else (0, 0), dtype=np.uint8)
        # one weight: a cost table is symmetric, and without trees half of it can be mirrored
        symmetric = not self.has_trees and bool(
            uniform_flags(self.walk, self.weights, self.width, self.height, self.csize, np.array([cluster]))[
                0
            ]
        )
        self.tables[cluster] = cluster_table(
            self.walk, self.weights, self.width, x0, y0, lw, lh, self.diag, self.cw, self.ch, trans, dirs,
            symmetric,
        )  # fmt: skip
        if self.has_trees:
            self.dirs[cluster] = dirs
        self.priced[cluster] = 1

    def relabel(self, clusters: I64) -> None:
        """Recompute the local component labels of some clusters (after their cells changed)."""
        counts = label_clusters(
            self.walk, self.width, self.height, self.csize, self.diag, self.labels, clusters
        )
        self.comp_count[clusters] = counts

    def apply_changes(
        self,
        nodes: I64,
        weights_changed: bool = False,
        table_seconds: float | None = None,
        one_weight: bool = False,
    ) -> set[int]:
        """Rebuild what changed cells touch (:func:`~python_core.hpa.repair.local_updates.apply_changes`).

        Returns:
            The clusters whose transitions, tables or crossings may have changed.
        """
        filling = self._fill is not None  # a deferred build's pricing, paused, not seen done
        return apply_changes(self, nodes, weights_changed, table_seconds, one_weight, filling=filling)

    def refill(self, seconds: float | None = None) -> int:
        """Compute stale rows of the all-pairs table afresh, for up to ``seconds`` (None: all).

        Returns:
            The rows still stale (``0``: the table is whole, or there is none).
        """
        if not self.pair_stale.any():
            return 0
        graph = GraphArrays.of(self, copy=False)
        return refill_rows(graph, self.pair_dist, self.pair_pred, self.pair_stale, seconds)

    # -- flat arrays for the compiled search ------------------------------------------------------

    def assemble(self, before: GraphArrays | None = None, table_seconds: float | None = None) -> None:
        """Concatenate the per-cluster pieces into the flat arrays, and redo the components.

        Args:
            before: a copy of the flat arrays from before a local change; the all-pairs table
                (when kept) is then repaired (:mod:`~python_core.hpa.repair.table_repair`), not rebuilt.
            table_seconds: the repair's time budget (see :meth:`apply_changes`).
        """
        for pieces in (self.trans, self.tables, self.dirs):  # replaced pieces into the flat arrays
            pieces.splice()
        self.node_cell, self.cl_first = self.trans.flat, self.trans.off
        self.node_cluster = np.repeat(np.arange(self.cluster_count, dtype=np.int64), self.trans.rows)
        self.dist_flat, self.cl_doff = self.tables.flat, self.tables.off[:-1]
        self._assemble_trees()
        self.assemble_crossings()
        self.derive(before, table_seconds)

    def derive(
        self, before: GraphArrays | None, table_seconds: float | None = None, *, components: bool = True
    ) -> None:
        """What follows from the flat arrays: the components (unless ``components`` is False:
        the caller knows they stand), the all-pairs table when kept (repaired from
        ``before`` when given, within ``table_seconds``), and the landmarks (in the background)."""
        refresh_landmarks(self)
        if components:
            self.comp_off = np.concatenate(([0], np.cumsum(self.comp_count)))
            self.comp_id = component_ids(
                self.comp_off, self.node_cell, self.node_cluster, self.labels, self.inter_off, self.inter_dst
            )
        old_dist, old_pred, old_stale = self.pair_dist, self.pair_pred, self.pair_stale
        self.pair_dist, self.pair_pred = np.zeros((0, 0), np.float32), np.zeros((0, 0), np.int32)
        self.pair_stale = np.zeros(0, dtype=np.bool_)
        if not (self.has_trees and 0 < 8 * self.node_count**2 <= self.table_budget):
            return
        if before is not None and old_dist.shape[0] == before.node_count:  # repair the old table
            now = GraphArrays.of(self, copy=False)
            # in place: nothing else keeps the old table, and copying it cost more than the repair
            # of a one-cell change (two copies of a table tens of megabytes large)
            got = repair_within(before, now, old_dist, old_pred, old_stale, table_seconds, overwrite=True)
            self.pair_dist, self.pair_pred, self.pair_stale = got.dist, got.pred, got.stale
            return
        self.pair_stale = np.zeros(self.node_count, dtype=np.bool_)
        self.pair_dist, self.pair_pred = all_pairs(
            self.cl_first, self.cl_doff, self.dist_flat, self.node_cluster, self.inter_off,
            self.inter_dst, self.inter_cost,
        )  # fmt: skip

    def _assemble_trees(self) -> None:
        """One pool of tree bytes; cluster c's trees start at ``tree_off[c]``, one per transition."""
        self.tree_pool, self.tree_off = self.dirs.flat, self.dirs.off

    def assemble_crossings(self) -> None:
        pieces = list(self.borders.values())
        n = self.node_count
        if not pieces or not n:
            self.inter_off = np.zeros(n + 1, dtype=np.int64)
            self.inter_dst, self.inter_cost = _EMPTY_I.copy(), np.zeros(0)
            return
        cells = np.concatenate([p[0] for p in pieces])
        costs = np.concatenate([p[1] for p in pieces])
        order = np.argsort(self.node_cell)
        lookup = order[np.searchsorted(self.node_cell[order], cells)]
        src = np.concatenate((lookup[:, 0], lookup[:, 1]))
        dst = np.concatenate((lookup[:, 1], lookup[:, 0]))
        cost = np.concatenate((costs[:, 0], costs[:, 1]))
        by_src = np.argsort(src, kind="stable")
        self.inter_dst, self.inter_cost = dst[by_src], cost[by_src]
        self.inter_off = np.concatenate(([0], np.cumsum(np.bincount(src, minlength=n))))

    def component_of(self, cell: int) -> int:
        """Global component id of a walkable cell (``-1`` for a wall); equal ids mean connected."""
        return int(
            component_of(self.labels, self.comp_off, self.comp_id, self.width, self.csize, self.ncx, cell)
        )

    def nbytes(self) -> int:
        """Bytes held by the hierarchy's arrays (tables, nodes, crossings, labels, borders; the
        buffers behind the transitions, cluster tables and trees with their room to spare)."""
        flat = (
            self.cl_first, self.node_cluster, self.cl_doff, self.inter_off, self.inter_dst,
            self.inter_cost, self.labels, self.comp_off, self.comp_id, self.tree_off, self.uniform,
            self.pair_dist, self.pair_pred, self.pair_stale, self.priced, self.landmarks,
        )  # fmt: skip
        pieces = self.trans.nbytes + self.tables.nbytes + self.dirs.nbytes  # node_cell, dist_flat, tree_pool
        return (
            sum(a.nbytes for a in flat) + pieces + sum(c.nbytes + k.nbytes for c, k in self.borders.values())
        )
