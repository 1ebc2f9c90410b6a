"""Level 2 of HPA*: regions of ``group x group`` level-1 clusters, over the level-1 abstract graph.

Quick start (``graph`` is a built :class:`~python_core.hpa.graph.abstract_graph.AbstractGraph`)::

    upper = UpperLevel(graph, group=16, table_budget=64 << 20).build()
    upper.update(graph, dirty_clusters)        # after graph.apply_changes(...)
    packed = upper.packed                      # the tuple the query kernel reads

The level-2 graph is built from the level-1 graph exactly as level 1 is built from the grid: its
nodes are the level-1 transitions with a crossing that leaves their region, its edges inside a
region are exact costs over the level-1 graph restricted to that region (one Dijkstra per node,
which also records the level-1 path to every node of the region), and its crossings are level-1
crossings between regions. A query whose ends lie in different regions inserts them by one
Dijkstra each over its region of the level-1 graph, searches level 2 (or reads its all-pairs table
when that fits ``table_budget``), and expands the result back into a chain of level-1 nodes, which
level 1 refines into cells as before. Why it pays on large maps: a path across a 4096 x 4096 map
crosses a few dozen regions instead of hundreds of clusters, and with a table no search runs at
all. Costs stay exact over the level-1 graph, so the path is the level-1 optimum between the ends'
insertions (the same bound as level 1 with a table).
"""

from __future__ import annotations

import numpy as np

from python_core._types import F32, F64, I32, I64
from python_core.compiled import jit
from python_core.heaps.indexed import heap_decrease, heap_pop, heap_push
from python_core.hpa.graph.abstract_graph import AbstractGraph, Progress
from python_core.hpa.graph.distance_table import all_pairs
from python_core.hpa.graph.graph_arrays import GraphArrays
from python_core.hpa.repair.table_repair import repair_pairs

__all__ = [
    "NO_SCRATCH",
    "NO_UPPER",
    "Packed",
    "Scratch",
    "UpperLevel",
    "crossing_cost",
    "region_search",
    "region_tables",
]

_EMPTY_I = np.zeros(0, dtype=np.int64)
Packed = tuple[I64, I64, I64, I64, I64, I64, I64, I64, I64, F64, I64, I64, F64, I64, I32, F32, I32]
""":attr:`UpperLevel.packed`: region and level-2 arrays, as
:func:`~python_core.hpa.query.upper_search.upper_chain` reads them."""
Scratch = tuple[F64, I32, I32, I32, F64, I32, F64, I32, F64, I32]
""":meth:`UpperLevel.new_scratch`: the level-2 A* scratch and the two region searches'."""


NO_UPPER: Packed = (
    *(_EMPTY_I,) * 9, np.zeros(0), _EMPTY_I, _EMPTY_I, np.zeros(0), _EMPTY_I, np.zeros(0, np.int32),
    np.zeros((0, 0), np.float32), np.zeros((0, 0), np.int32),
)  # fmt: skip
"""The ``packed`` of a hierarchy without level 2 (empty arrays of the right types)."""
NO_SCRATCH: Scratch = (
    np.zeros(0), *(np.zeros(0, np.int32),) * 3, np.zeros(0), np.zeros(0, np.int32), np.zeros(0),
    np.zeros(0, np.int32), np.zeros(0), np.zeros(0, np.int32),
)  # fmt: skip
"""Its scratch."""


@jit
def crossing_cost(inter_off: I64, inter_dst: I64, inter_cost: F64, u: int, v: int) -> float:
    """Cost of the crossing ``u -> v`` (``inf`` when there is none)."""
    for e in range(inter_off[u], inter_off[u + 1]):
        if inter_dst[e] == v:
            return float(inter_cost[e])
    return np.inf


@jit
def region_search(  # noqa: PLR0917, PLR0912 (compiled kernel: positional, one hot loop)
    cl_first: I64,
    cl_doff: I64,
    dist_flat: F64,
    node_cluster: I64,
    inter_off: I64,
    inter_dst: I64,
    inter_cost: F64,
    region_of: I64,
    loc_off: I64,
    loc_nodes: I64,
    loc_idx: I64,
    region: int,
    seeds: I64,
    seed_costs: F64,
    reverse: int,
    dist: F64,
    pred: I32,
    heap_nodes: I32,
    heap_keys: F64,
    heap_pos: I32,
) -> None:
    """Dijkstra over the level-1 graph restricted to one region, from several seeded nodes.

    Args:
        cl_first: level-1 arrays (see :func:`~python_core.hpa.query.abstract_search.abstract_astar`).
        cl_doff: level-1 table offsets.
        dist_flat: level-1 tables.
        node_cluster: level-1 cluster per node.
        inter_off: level-1 crossings (CSR).
        inter_dst: their targets.
        inter_cost: their costs.
        region_of: region per level-1 cluster.
        loc_off: first local slot of each region in ``loc_nodes``.
        loc_nodes: level-1 nodes grouped by region.
        loc_idx: local index of every level-1 node within its region.
        region: the region searched.
        seeds: level-1 nodes of the region to start from.
        seed_costs: their starting costs (``inf``: not a seed).
        reverse: 1 to search costs *to* the seeds (moves walked backwards).
        dist: local out (at least the region's node count): cost per local node.
        pred: local out: the local node before (``reverse``: after) each one, ``-1`` at seeds and
            at unreached nodes.
        heap_nodes: scratch (int32, region size).
        heap_keys: scratch.
        heap_pos: scratch (int32).

    Example:
        >>> # two clusters of one node, one region, a crossing of cost 2 each way
        >>> two, one = np.array([0, 1, 2]), np.array([0, 0])
        >>> d, p = np.zeros(2), np.zeros(2, np.int32)
        >>> h = (np.zeros(2, np.int32), np.zeros(2), np.zeros(2, np.int32))
        >>> region_search(two, np.array([0, 1]), np.zeros(2), np.array([0, 1]), np.array([0, 1, 2]),
        ...               np.array([1, 0]), np.array([2.0, 2.0]), one, np.array([0, 2]), np.array([0, 1]),
        ...               np.array([0, 1]), 0, np.array([0]), np.array([0.5]), 0, d, p, *h)
        >>> d.tolist(), p.tolist()
        ([0.5, 2.5], [-1, 0])
    """
    off = loc_off[region]
    n = loc_off[region + 1] - off
    dist[:n] = np.inf
    pred[:n] = -1
    size = 0
    for i in range(seeds.shape[0]):
        s = loc_idx[seeds[i]]
        if seed_costs[i] < dist[s]:
            fresh = dist[s] == np.inf
            dist[s] = seed_costs[i]
            if fresh:
                size = heap_push(heap_nodes, heap_keys, heap_pos, dist, size, s, dist[s])
            else:
                heap_decrease(heap_nodes, heap_keys, heap_pos, dist, s, dist[s])
    while size > 0:
        u, size = heap_pop(heap_nodes, heap_keys, heap_pos, dist, size)
        u1 = loc_nodes[off + u]
        c = node_cluster[u1]
        base = cl_first[c]
        k = cl_first[c + 1] - base
        n_inter = inter_off[u1 + 1] - inter_off[u1]
        # reached from a cluster mate, which offered the others paths no dearer (the tables are
        # shortest paths): only seeds and nodes entered by a crossing spread through their cluster
        p = pred[u]
        first = k if p >= 0 and node_cluster[loc_nodes[off + p]] == c else 0
        for j in range(first, k + n_inter):
            if j < k:
                v1 = base + j
                if reverse:
                    cost = dist_flat[cl_doff[c] + j * k + (u1 - base)]
                else:
                    cost = dist_flat[cl_doff[c] + (u1 - base) * k + j]
            else:
                v1 = inter_dst[inter_off[u1] + j - k]
                if region_of[node_cluster[v1]] != region:
                    continue
                if reverse:
                    cost = crossing_cost(inter_off, inter_dst, inter_cost, v1, u1)
                else:
                    cost = inter_cost[inter_off[u1] + j - k]
            if v1 == u1 or cost == np.inf:
                continue
            v = loc_idx[v1]
            ng = dist[u] + cost
            if ng < dist[v]:
                fresh = dist[v] == np.inf
                dist[v], pred[v] = ng, u
                if fresh:
                    size = heap_push(heap_nodes, heap_keys, heap_pos, dist, size, v, ng)
                else:
                    heap_decrease(heap_nodes, heap_keys, heap_pos, dist, v, ng)


@jit
def region_tables(  # noqa: PLR0917 (compiled kernel: positional)
    cl_first: I64,
    cl_doff: I64,
    dist_flat: F64,
    node_cluster: I64,
    inter_off: I64,
    inter_dst: I64,
    inter_cost: F64,
    region_of: I64,
    loc_off: I64,
    loc_nodes: I64,
    loc_idx: I64,
    region: int,
    tops: I64,
) -> tuple[F64, I32]:
    """The level-2 cost table of one region and the level-1 paths behind it.

    Args:
        cl_first: level-1 arrays, as for :func:`region_search`.
        cl_doff: level-1 table offsets.
        dist_flat: level-1 tables.
        node_cluster: level-1 cluster per node.
        inter_off: level-1 crossings (CSR).
        inter_dst: their targets.
        inter_cost: their costs.
        region_of: region per level-1 cluster.
        loc_off: first local slot of each region.
        loc_nodes: level-1 nodes grouped by region.
        loc_idx: local index of every level-1 node.
        region: the region.
        tops: its level-2 nodes (level-1 ids), in level-2 order.

    Returns:
        ``(table, pred)``: ``table[i, j]`` the cost from top i to top j inside the region, and
        ``pred[i]`` the predecessors (local indices) of top i's Dijkstra over the region.
    """
    n = loc_off[region + 1] - loc_off[region]
    k = tops.shape[0]
    table = np.full((k, k), np.inf)
    pred = np.empty((k, n), dtype=np.int32)
    dist = np.empty(n)
    heap_nodes = np.empty(n, dtype=np.int32)
    heap_keys = np.empty(n)
    heap_pos = np.empty(n, dtype=np.int32)
    zero = np.zeros(1)
    for i in range(k):
        region_search(
            cl_first, cl_doff, dist_flat, node_cluster, inter_off, inter_dst, inter_cost, region_of,
            loc_off, loc_nodes, loc_idx, region, tops[i : i + 1], zero, 0, dist, pred[i], heap_nodes,
            heap_keys, heap_pos,
        )  # fmt: skip
        for j in range(k):
            table[i, j] = dist[loc_idx[tops[j]]]
    return table, pred


class UpperLevel:
    """Level 2 over a level-1 :class:`~python_core.hpa.graph.abstract_graph.AbstractGraph`.

    Args:
        graph: the level-1 graph (its cluster grid sets the regions).
        group: level-1 clusters per region side (``>= 2``).
        table_budget: bytes an all-pairs table over the level-2 nodes may take (8 per pair).

    Example:
        >>> g = AbstractGraph(np.ones(64 * 64, np.uint8), np.ones(64 * 64), 64, 64, csize=8, diag=3)
        >>> g.build()
        >>> up = UpperLevel(g, group=4).build(g)
        >>> up.region_count, up.node_count > 0
        (4, True)
    """

    def __init__(self, graph: AbstractGraph, *, group: int, table_budget: int = 0) -> None:
        self.group = group
        self.nrx, self.nry = -(-graph.ncx // group), -(-graph.ncy // group)
        cx, cy = np.arange(graph.cluster_count) % graph.ncx, np.arange(graph.cluster_count) // graph.ncx
        self.region_of = ((cy // group) * self.nrx + cx // group).astype(np.int64)
        self.table_budget = table_budget
        self.tables: list[F64] = [np.zeros((0, 0))] * self.region_count
        self.preds: list[I32] = [np.zeros((0, 0), np.int32)] * self.region_count
        self.tops: list[I64] = [_EMPTY_I] * self.region_count
        self.pair_dist, self.pair_pred = np.zeros((0, 0), np.float32), np.zeros((0, 0), np.int32)

    @property
    def region_count(self) -> int:
        """Number of regions."""
        return self.nrx * self.nry

    @property
    def node_count(self) -> int:
        """Number of level-2 nodes."""
        return int(self.up_l1.shape[0])

    def build(self, graph: AbstractGraph, progress: Progress | None = None) -> UpperLevel:
        """Compute every region's table from the level-1 graph; return ``self``.

        Args:
            graph: the level-1 graph, built.
            progress: called as ``progress(clusters + done, clusters + regions)`` per region (it
                continues the level-1 build's count).
        """
        self._index(graph)
        total = graph.cluster_count + self.region_count
        for r in range(self.region_count):
            self._price(graph, r)
            if progress is not None:
                progress(graph.cluster_count + r + 1, total)
        self._assemble(graph, None)
        return self

    def update(self, graph: AbstractGraph, clusters: set[int]) -> None:
        """Redo the regions holding the given level-1 clusters, after the level-1 graph's own
        update (:meth:`AbstractGraph.apply_changes` returns them); the other regions keep their
        tables, which are in local indices, unchanged when their level-1 nodes are. When level 1
        kept every node and crossing (``graph.nodes_kept``), so do the level-2 nodes, crossings
        and table shapes: the new tables are written over the old ones in the flat arrays."""
        regions = sorted({int(self.region_of[c]) for c in clusters})
        if graph.nodes_kept and self._reprice_in_place(graph, regions):
            return
        before = self._arrays() if self.pair_dist.size else None
        self._index(graph)
        for r in regions:
            self._price(graph, r)
        self._assemble(graph, before)

    def _reprice_in_place(self, graph: AbstractGraph, regions: list[int]) -> bool:
        """Price ``regions`` again into :attr:`dist2` / :attr:`pred_pool` in place, and repair
        the level-2 table; False (nothing changed) when a table's shape would differ."""
        tables = [(r, *self._priced(graph, r)) for r in regions]
        if any(t.shape != self.tables[r].shape or p.shape != self.preds[r].shape for r, t, p in tables):
            return False
        before = self._arrays()._replace(dist_flat=self.dist2.copy()) if self.pair_dist.size else None
        for r, table, pred in tables:
            self.tables[r], self.preds[r] = table, pred
            self.dist2[self.doff2[r] : self.doff2[r] + table.size] = table.ravel()
            self.pred_pool[self.poff[r] : self.poff[r] + pred.size] = pred.ravel()
        if before is not None:
            self.pair_dist, self.pair_pred, _ = repair_pairs(
                before, self._arrays(), self.pair_dist, self.pair_pred
            )
        return True

    def _index(self, graph: AbstractGraph) -> None:
        """Group the level-1 nodes by region; the level-2 nodes are those with a crossing out."""
        region = self.region_of[graph.node_cluster]
        order = np.argsort(region, kind="stable")
        self.loc_nodes = order.astype(np.int64)
        self.loc_off = np.concatenate(([0], np.cumsum(np.bincount(region, minlength=self.region_count))))
        self.loc_idx = np.empty(region.shape[0], dtype=np.int64)
        self.loc_idx[order] = np.arange(region.shape[0]) - self.loc_off[region[order]]
        src = np.repeat(np.arange(region.shape[0]), np.diff(graph.inter_off))
        leaving = np.zeros(region.shape[0], dtype=bool)
        leaving[src[region[src] != region[graph.inter_dst]]] = True
        for r in range(self.region_count):
            nodes = self.loc_nodes[self.loc_off[r] : self.loc_off[r + 1]]
            self.tops[r] = nodes[leaving[nodes]]

    def _price(self, graph: AbstractGraph, region: int) -> None:
        self.tables[region], self.preds[region] = self._priced(graph, region)

    def _priced(self, graph: AbstractGraph, region: int) -> tuple[F64, I32]:
        """A region's table and predecessors (:func:`region_tables`) from the level-1 graph."""
        return region_tables(
            graph.cl_first, graph.cl_doff, graph.dist_flat, graph.node_cluster, graph.inter_off,
            graph.inter_dst, graph.inter_cost, self.region_of, self.loc_off, self.loc_nodes, self.loc_idx,
            region, self.tops[region],
        )  # fmt: skip

    def _assemble(self, graph: AbstractGraph, before: GraphArrays | None) -> None:
        """The flat level-2 arrays (laid out like level 1's), its crossings, and its table."""
        ks = np.array([t.shape[0] for t in self.tops], dtype=np.int64)
        self.up_first = np.concatenate(([0], np.cumsum(ks)))
        self.up_l1 = np.concatenate(self.tops) if ks.sum() else _EMPTY_I.copy()
        self.cell2 = graph.node_cell[self.up_l1]
        self.cluster2 = np.repeat(np.arange(self.region_count, dtype=np.int64), ks)
        self.doff2 = np.concatenate(([0], np.cumsum(ks * ks)))[:-1]
        self.dist2 = np.concatenate([t.ravel() for t in self.tables]) if ks.sum() else np.zeros(0)
        sizes = np.array([p.size for p in self.preds], dtype=np.int64)
        self.poff = np.concatenate(([0], np.cumsum(sizes)))[:-1]
        self.pred_pool = np.concatenate([p.ravel() for p in self.preds]).astype(np.int32)
        up_of = np.full(graph.node_count, -1, dtype=np.int64)
        up_of[self.up_l1] = np.arange(self.up_l1.shape[0])
        src = np.repeat(np.arange(graph.node_count), np.diff(graph.inter_off))
        region = self.region_of[graph.node_cluster]
        out = region[src] != region[graph.inter_dst]
        a, b, cost = up_of[src[out]], up_of[graph.inter_dst[out]], graph.inter_cost[out]
        by_src = np.argsort(a, kind="stable")
        self.idst2, self.icost2 = b[by_src], cost[by_src]
        self.ioff2 = np.concatenate(([0], np.cumsum(np.bincount(a, minlength=self.node_count))))
        old_dist, old_pred = self.pair_dist, self.pair_pred
        self.pair_dist, self.pair_pred = np.zeros((0, 0), np.float32), np.zeros((0, 0), np.int32)
        if not 0 < 8 * self.node_count**2 <= self.table_budget:
            return
        now = self._arrays()
        if before is not None and old_dist.shape[0] == before.node_count:
            self.pair_dist, self.pair_pred, _ = repair_pairs(before, now, old_dist, old_pred)
        else:
            self.pair_dist, self.pair_pred = all_pairs(*now[1:])

    def _arrays(self) -> GraphArrays:
        """The level-2 graph in the layout the all-pairs table and its repair read."""
        return GraphArrays(
            self.cell2, self.up_first, self.doff2, self.dist2, self.cluster2, self.ioff2, self.idst2,
            self.icost2,
        )  # fmt: skip

    @property
    def packed(self) -> Packed:
        """The arrays :func:`~python_core.hpa.query.upper_search.upper_chain` reads, in its order."""
        return (
            self.region_of, self.loc_off, self.loc_nodes, self.loc_idx, self.up_first, self.up_l1,
            self.cell2, self.cluster2, self.doff2, self.dist2, self.ioff2, self.idst2, self.icost2,
            self.poff, self.pred_pool, self.pair_dist, self.pair_pred,
        )  # fmt: skip

    def new_scratch(self) -> Scratch:
        """Fresh scratch for :func:`~python_core.hpa.query.upper_search.upper_chain`, sized for the
        current node and region sizes."""
        n2 = self.node_count + 1
        local = max(int(np.diff(self.loc_off).max()) if self.region_count else 1, n2)
        return (
            np.full(n2, np.inf), np.full(n2, -1, dtype=np.int32), np.zeros(n2, dtype=np.int32),
            np.zeros(local, dtype=np.int32), np.zeros(local),
            np.zeros(local, dtype=np.int32), np.empty(local), np.empty(local, dtype=np.int32),
            np.empty(local), np.empty(local, dtype=np.int32),
        )  # fmt: skip

    def nbytes(self) -> int:
        """Bytes held by the level-2 arrays."""
        return sum(a.nbytes for a in self.packed)
