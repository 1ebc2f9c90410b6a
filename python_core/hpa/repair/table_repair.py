"""Repair an all-pairs table after a local change of the abstract graph, instead of rebuilding it.

Quick start (``graph`` is an :class:`~python_core.hpa.build.abstract_graph.AbstractGraph` keeping its
table; snapshot it before the change, since a change rewrites some of its arrays in place)::

    before, dist, pred = GraphArrays.of(graph), graph.pair_dist, graph.pair_pred  # of(): copies
    ...                                                # change cells, graph.apply_changes(cells)
    dist, pred, rows = repair_pairs(before, GraphArrays.of(graph, copy=False), dist, pred)

A few changed cells change the abstract graph locally: some clusters get new cost tables, some
get a different node set (node ids of later clusters shift), a few crossings change. Nodes are
matched by their cells and the old table is reindexed to the new ids; an added node's row is
computed afresh (:func:`~python_core.hpa.build.distance_table.pair_rows`), every other row ``s`` is
repaired where the change touches it. Write ``d`` for its reindexed row and ``D`` for the new
graph's distances from ``s``:

1. Upper bounds. Let X be the added nodes plus every node whose old shortest-path tree path
   (``pred``) enters a node along an edge that got dearer or disappeared, or passes a removed
   node (a subtree per such edge). Outside X each tree path still exists and costs no more, so
   ``d >= D`` there and ``pred`` still gives a path of cost at most ``d``. Inside X, ``d`` is set to
   the best ``d[y] + c(y, x)`` over in-edges from outside X (``inf`` without one), again achievable.
2. Lower bounds. An edge ``u -> v`` that did not get cheaper, between nodes outside X, satisfies
   ``d[v] <= d[u] + c`` already (the old distances did, for a cost no smaller). A cheaper or new
   edge that improves its head (from outside X) seeds it into a Dijkstra that also starts from
   every node of X, relaxes the out-edges of each node it settles, and lowers any node it can.
   At the end every edge satisfies the inequality: edges from settled nodes were relaxed, and a
   node never settled is outside X with its old value, so its out-edges are covered above. A
   feasible potential with ``d[s] = 0`` sums along any path to ``d[t] <= D[t]``; with the upper
   bounds, ``d = D``.

A row with no dearer edge in its tree, no removed node on it, and no improving edge is kept as it
is (only its added columns are filled). The work per row is the changed edges plus the search over
X and whatever it improves (usually a few nodes, instead of one Dijkstra over all ``N``), and one
pass over the row to mark X when its tree did break. A row whose X is most of the graph (over
:data:`FRESH_SHARE` of the nodes: a blocked corridor that many paths used) is computed afresh
instead, which costs less than searching X with the repair's bookkeeping.

Tolerances: the table is float32 (relative rounding 6e-8), so a node keeping its old value is only
lowered when the new path beats it by more than :data:`RTOL` ``= 1e-6`` relative; a kept entry may
thus exceed the optimum by up to ``RTOL * d`` per changed edge that the true shortest path uses.
Values the search sets are float64 sums rounded once, like :func:`pair_rows`'. Edge costs compare
with :data:`EDGE_RTOL` ``= 1e-9``: recomputed cluster tables may add the same steps in another
order, which must not count as a dearer edge; a kept ``pred`` path may cost that much more than
``d``.
"""

from __future__ import annotations

import time
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from python_core.compiled import jit
from python_core.hpa.build.distance_table import pair_rows
from python_core.open_list import heap_decrease, heap_pop, heap_push

__all__ = [
    "EDGE_RTOL",
    "FRESH_SHARE",
    "REPAIR_CHUNK",
    "RTOL",
    "GraphArrays",
    "Repaired",
    "refill_rows",
    "repair_pairs",
    "repair_within",
]

F64 = npt.NDArray[np.float64]
F32 = npt.NDArray[np.float32]
I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]
B = npt.NDArray[np.bool_]

RTOL = 1e-6
"""Relative margin by which a new path must beat a node's old value to replace it."""

EDGE_RTOL = 1e-9
"""Relative slack under which a new edge cost does not count as dearer than the old one."""

FRESH_SHARE = 0.5
"""Share of the nodes above which a row is computed afresh (one Dijkstra) instead of repaired: its X
(module docstring) is then most of the graph, and searching X with the repair's bookkeeping
cost more than the plain search (brc202d, 100 random cells: 124 ms for the rows against 57 ms
to compute them all afresh, in one scratch profile)."""

_BROKEN = -2
"""``pred`` mark (while repairing) of a node whose old predecessor was removed."""


class GraphArrays(NamedTuple):
    """The flat arrays of one abstract graph (as :meth:`AbstractGraph.assemble` builds them).

    ``graph[1:]`` are the arguments of :func:`~python_core.hpa.build.distance_table.all_pairs`.

    Example:
        >>> g = GraphArrays(np.array([3]), np.array([0, 1]), np.array([0]), np.zeros(1), np.array([0]),
        ...                 np.array([0, 0]), np.zeros(0, np.int64), np.zeros(0))
        >>> g.node_count, len(g[1:])
        (1, 7)
    """

    node_cell: I64
    cl_first: I64
    cl_doff: I64
    dist_flat: F64
    node_cluster: I64
    inter_off: I64
    inter_dst: I64
    inter_cost: F64

    @classmethod
    def of(cls, source: object, *, copy: bool = True) -> GraphArrays:
        """Read the eight arrays from any object having them as attributes (an ``AbstractGraph``).

        Args:
            source: the object.
            copy: copy the arrays (a later change may rewrite the source's arrays in place), or
                keep references (when the source is no longer changed).

        Returns:
            The arrays, int64 / float64.
        """
        take = np.array if copy else np.asarray

        def ints(name: str) -> I64:
            return take(getattr(source, name), dtype=np.int64)

        def floats(name: str) -> F64:
            return take(getattr(source, name), dtype=np.float64)

        return cls(
            ints("node_cell"), ints("cl_first"), ints("cl_doff"), floats("dist_flat"),
            ints("node_cluster"), ints("inter_off"), ints("inter_dst"), floats("inter_cost"),
        )  # fmt: skip

    @property
    def node_count(self) -> int:
        """Number of nodes."""
        return int(self.node_cell.shape[0])

    def same_as(self, other: GraphArrays) -> bool:
        """Whether both graphs have equal arrays (the same nodes, tables and crossings)."""
        return all(np.array_equal(a, b) for a, b in zip(self, other, strict=True))


def repair_pairs(
    old: GraphArrays,
    new: GraphArrays,
    dist: F32,
    pred: I32,
    *,
    overwrite: bool = False,
    fresh_share: float = FRESH_SHARE,
) -> tuple[F32, I32, int]:
    """The all-pairs table of ``new`` from the table of ``old``, searching only where it must.

    Preconditions: both graphs cover the same clusters (same grid and cluster size), node cells
    are unique within each graph and a cell stays in its cluster, costs are positive, and
    ``dist`` / ``pred`` are the ``(N_old, N_old)`` arrays of ``all_pairs(*old[1:])`` (or of an
    earlier repair). The module docstring explains why the result is exact.

    Args:
        old: the graph ``dist`` and ``pred`` describe.
        new: the changed graph.
        dist: old float32 distances; read, never written unless ``overwrite``.
        pred: old int32 predecessors; read, never written unless ``overwrite``.
        overwrite: when the node ids did not change (same ``node_cell``), repair ``dist`` and
            ``pred`` in place and return them instead of copies.
        fresh_share: a row whose X holds more than this share of the nodes is computed afresh
            (:data:`FRESH_SHARE`; ``0`` computes every touched row afresh, ``> 1`` none).

    Returns:
        ``(dist, pred, rows)``: the new graph's arrays as
        :func:`~python_core.hpa.build.distance_table.all_pairs` defines them (``pred`` may name another
        predecessor of equal cost), and the number of rows not kept as they were (added nodes'
        rows, computed afresh, plus rows repaired by a search; filling only the added nodes'
        columns does not count). When both graphs are equal the given arrays themselves come
        back with ``rows == 0``; otherwise new arrays (or the given ones with ``overwrite``).

    Example:
        >>> from python_core.hpa.build.distance_table import all_pairs
        >>> # two one-node clusters joined both ways at cost 1; then 0 -> 1 costs 3
        >>> old = GraphArrays(np.array([0, 5]), np.array([0, 1, 2]), np.array([0, 1]), np.zeros(2),
        ...                   np.array([0, 1]), np.array([0, 1, 2]), np.array([1, 0]), np.ones(2))
        >>> dist, pred = all_pairs(*old[1:])
        >>> d, p, rows = repair_pairs(old, old._replace(inter_cost=np.array([3.0, 1.0])), dist, pred)
        >>> d.tolist(), p.tolist(), rows
        ([[0.0, 3.0], [1.0, 0.0]], [[-1, 0], [1, -1]], 1)
    """
    got = repair_within(old, new, dist, pred, overwrite=overwrite, fresh_share=fresh_share)
    return got.dist, got.pred, got.rows


class Repaired(NamedTuple):
    """What :func:`repair_within` gives back.

    Attributes:
        dist: the new graph's ``(N, N)`` distances (rows flagged in ``stale`` are not valid).
        pred: its predecessors (same rows not valid).
        rows: rows not kept as they were (repaired by a search or computed afresh).
        stale: ``(N,)`` bool, the rows left for :func:`refill_rows`.
    """

    dist: F32
    pred: I32
    rows: int
    stale: B


def repair_within(  # noqa: PLR0917 (the arrays of one repair)
    old: GraphArrays,
    new: GraphArrays,
    dist: F32,
    pred: I32,
    stale: B | None = None,
    seconds: float | None = None,
    *,
    overwrite: bool = False,
    fresh_share: float = FRESH_SHARE,
) -> Repaired:
    """:func:`repair_pairs` within a time budget: rows it does not reach are flagged stale.

    Every row is independent (a row's repair reads and writes that row only), so the repair can
    stop between rows: the rows done are the new graph's, the rest are flagged for
    :func:`refill_rows`, which computes them afresh (their old values mean nothing once the
    graph changed again). Rows that were stale before stay stale (nothing to repair from);
    added nodes' rows are computed afresh, within the budget too.

    Args:
        old: the graph ``dist`` and ``pred`` describe (their rows not flagged in ``stale``).
        new: the changed graph.
        dist: old distances (see :func:`repair_pairs`).
        pred: old predecessors.
        stale: ``(N_old,)`` rows of the old table that were not valid; None: all were.
        seconds: budget, checked between chunks of rows (one row, then as many as the time
            left holds at the pace so far, at most :data:`REPAIR_CHUNK`; a chunk started is
            finished); None: repair every row and refill every stale one.
        overwrite: as in :func:`repair_pairs`.
        fresh_share: as in :func:`repair_pairs`.

    Returns:
        A :class:`Repaired`; with ``seconds=None`` its ``stale`` is all False.

    Example:
        >>> from python_core.hpa.build.distance_table import all_pairs
        >>> old = GraphArrays(np.array([0, 5]), np.array([0, 1, 2]), np.array([0, 1]), np.zeros(2),
        ...                   np.array([0, 1]), np.array([0, 1, 2]), np.array([1, 0]), np.ones(2))
        >>> dist, pred = all_pairs(*old[1:])
        >>> new = old._replace(inter_cost=np.array([3.0, 1.0]))
        >>> repair_within(old, new, dist, pred, seconds=0.0).stale.tolist()  # no time: both left
        [True, True]
        >>> got = repair_within(old, new, dist, pred)
        >>> got.dist.tolist(), got.stale.tolist()
        ([[0.0, 3.0], [1.0, 0.0]], [False, False])
    """
    began = time.perf_counter()
    was_stale = np.zeros(old.node_count, dtype=np.bool_) if stale is None else stale
    if old.same_as(new):
        return Repaired(dist, pred, 0, was_stale.copy())
    n = new.node_count
    new2old, old2new = _match_nodes(old.node_cell, new.node_cell)
    broken = np.zeros(n, dtype=np.bool_)
    refresh = np.zeros(n, dtype=np.bool_)  # rows _repair_rows leaves to a fresh Dijkstra
    moved = not (old.node_count == n and np.array_equal(old.node_cell, new.node_cell))
    if not moved:
        out_dist, out_pred = (dist, pred) if overwrite else (dist.copy(), pred.copy())
    else:  # rows are carried over to the new ids just before their repair: none for stale ones
        out_dist, out_pred = np.empty((n, n), dtype=np.float32), np.empty((n, n), dtype=np.int32)
    kept = new2old >= 0
    now_stale = np.ones(n, dtype=np.bool_)  # added nodes' rows: computed afresh below
    now_stale[kept] = was_stale[new2old[kept]]
    added = np.flatnonzero(~kept)
    todo = np.flatnonzero(~now_stale)
    searched, done = 0, 0
    # out of time already: not even the changed edges are worth listing (the loop repairs nothing)
    if todo.shape[0] and (seconds is None or time.perf_counter() - began < seconds):
        dearer_u, dearer_v, check_u, check_v, check_cost = _edge_changes(old, new, new2old, old2new)
        order = np.argsort(new.inter_dst, kind="stable")
        in_src = np.repeat(np.arange(n, dtype=np.int64), np.diff(new.inter_off))[order]
        in_off = np.concatenate(([0], np.cumsum(np.bincount(new.inter_dst, minlength=n)))).astype(np.int64)
        in_cost = new.inter_cost[order]
    size, per_row = 1, 0.0  # a box's chunks: one row first, then as many as the time left holds
    while done < todo.shape[0] and (seconds is None or time.perf_counter() - began < seconds):
        if seconds is not None and per_row > 0:
            size = int(min(max((seconds - (time.perf_counter() - began)) / per_row, 1), REPAIR_CHUNK))
        chunk = todo[done : done + size] if seconds is not None else todo
        chunk_began = time.perf_counter()
        if moved:
            _reindex_rows(dist, pred, new2old, old2new, broken, chunk, out_dist, out_pred)
        searched += _repair_rows(
            *new[1:], in_off, in_src, in_cost, out_dist, out_pred, chunk, broken, added, dearer_u,
            dearer_v, check_u, check_v, check_cost, fresh_share, refresh,
        )  # fmt: skip
        again = chunk[refresh[chunk]]
        if again.shape[0]:
            pair_rows(*new[1:], again, out_dist, out_pred)
            searched += again.shape[0]
        done += chunk.shape[0]
        per_row = (time.perf_counter() - chunk_began) / chunk.shape[0]
    now_stale[todo[done:]] = True  # out of time: their old values say nothing about the new graph
    rest = None if seconds is None else max(seconds - (time.perf_counter() - began), 0.0)
    before = int(now_stale.sum())
    refill_rows(new, out_dist, out_pred, now_stale, rest)
    return Repaired(out_dist, out_pred, searched + before - int(now_stale.sum()), now_stale)


REPAIR_CHUNK = 8
"""Rows repaired or refilled between two looks at the clock (a few ms at most on 3000 nodes)."""


def refill_rows(graph: GraphArrays, dist: F32, pred: I32, stale: B, seconds: float | None = None) -> int:
    """Compute stale rows afresh (one Dijkstra each) until ``seconds`` run out; clear their flags.

    Args:
        graph: the graph the table describes.
        dist: ``(N, N)`` distances, rows written in place.
        pred: ``(N, N)`` predecessors, rows written in place.
        stale: ``(N,)`` bool, updated in place.
        seconds: budget, checked between chunks of :data:`REPAIR_CHUNK` rows (a positive one
            always gets the first chunk done); ``0``: none; None: every row.

    Returns:
        The rows still stale.

    Example:
        >>> from python_core.hpa.build.distance_table import all_pairs
        >>> g = GraphArrays(np.array([0, 5]), np.array([0, 1, 2]), np.array([0, 1]), np.zeros(2),
        ...                 np.array([0, 1]), np.array([0, 1, 2]), np.array([1, 0]), np.ones(2))
        >>> dist, pred = np.zeros((2, 2), np.float32), np.zeros((2, 2), np.int32)
        >>> stale = np.array([True, True])
        >>> refill_rows(g, dist, pred, stale), dist.tolist(), stale.tolist()
        (0, [[0.0, 1.0], [1.0, 0.0]], [False, False])
    """
    began = time.perf_counter()
    rows = np.flatnonzero(stale)
    done = 0
    while done < rows.shape[0] and (
        seconds is None or (done == 0 and seconds > 0) or time.perf_counter() - began < seconds
    ):  # a positive budget always gets one chunk done, however busy the machine is
        chunk = rows[done : done + REPAIR_CHUNK] if seconds is not None else rows
        pair_rows(*graph[1:], chunk, dist, pred)
        stale[chunk] = False
        done += chunk.shape[0]
    return int(rows.shape[0] - done)


def _match_nodes(old_cells: I64, new_cells: I64) -> tuple[I64, I64]:
    """``(new2old, old2new)``: the other graph's id of the node on the same cell, or ``-1``."""
    _, i_old, i_new = np.intersect1d(old_cells, new_cells, assume_unique=True, return_indices=True)
    new2old = np.full(new_cells.shape[0], -1, dtype=np.int64)
    old2new = np.full(old_cells.shape[0], -1, dtype=np.int64)
    new2old[i_new] = i_old
    old2new[i_old] = i_new
    return new2old, old2new


def _ranges(starts: I64, lengths: I64) -> I64:
    """``concatenate([arange(s, s + n) for s, n in zip(starts, lengths)])``, vectorised."""
    total = int(lengths.sum())
    ends = np.cumsum(lengths)
    return np.repeat(starts - (ends - lengths), lengths) + np.arange(total, dtype=np.int64)


_Changes = tuple[I64, I64, I64, I64, F64]


def _edge_changes(old: GraphArrays, new: GraphArrays, new2old: I64, old2new: I64) -> _Changes:
    """Changed edges between kept nodes, in new ids: ``(dearer_u, dearer_v)`` (dearer or gone)
    and ``(check_u, check_v, check_cost)`` (cheaper or new)."""
    intra = _intra_changes(old, new, new2old)
    cross = _crossing_changes(old, new, new2old, old2new)
    u, v, cu, cv = (np.concatenate((intra[i], cross[i])).astype(np.int64) for i in range(4))
    return u, v, cu, cv, np.concatenate((intra[4], cross[4])).astype(np.float64)


def _intra_changes(old: GraphArrays, new: GraphArrays, new2old: I64) -> _Changes:
    """Changed table entries between kept nodes (see :func:`_edge_changes`)."""
    k_old, k_new = np.diff(old.cl_first), np.diff(new.cl_first)
    changed = k_old != k_new
    # Clusters with as many nodes as before: did a cell or a table entry change?
    node_c = new.node_cluster
    on = ~changed[node_c]
    local = np.arange(new.node_count, dtype=np.int64) - new.cl_first[node_c]
    moved = new.node_cell[on] != old.node_cell[old.cl_first[node_c[on]] + local[on]]
    changed[node_c[on][moved]] = True
    sizes = k_new * k_new
    entry_c = np.repeat(np.arange(sizes.shape[0], dtype=np.int64), sizes)
    on = ~changed[entry_c]
    pos = np.arange(entry_c.shape[0], dtype=np.int64) - new.cl_doff[entry_c]
    differ = new.dist_flat[on] != old.dist_flat[old.cl_doff[entry_c[on]] + pos[on]]
    changed[entry_c[on][differ]] = True
    # The entries of the changed clusters between kept nodes, matched with their old entries.
    cc = np.flatnonzero(changed)
    e = _ranges(new.cl_doff[cc], sizes[cc])
    c = np.repeat(cc, sizes[cc])
    k = k_new[c]
    loc = e - new.cl_doff[c]
    gu, gv = new.cl_first[c] + loc // k, new.cl_first[c] + loc % k
    ou, ov = new2old[gu], new2old[gv]
    kept = (gu != gv) & (ou >= 0) & (ov >= 0)
    gu, gv, ou, ov, c, now = gu[kept], gv[kept], ou[kept], ov[kept], c[kept], new.dist_flat[e[kept]]
    base = old.cl_first[c]
    was = old.dist_flat[old.cl_doff[c] + (ou - base) * k_old[c] + ov - base]
    dearer, cheaper = now > was * (1.0 + EDGE_RTOL), now < was
    return gu[dearer], gv[dearer], gu[cheaper], gv[cheaper], now[cheaper]


def _crossing_keys(graph: GraphArrays, span: int) -> tuple[I64, F64, I64, I64]:
    """Crossings as unique ``cell_u * span + cell_v`` keys, with their cheapest cost and ends."""
    src = np.repeat(np.arange(graph.node_count, dtype=np.int64), np.diff(graph.inter_off))
    dst = graph.inter_dst
    key = graph.node_cell[src] * span + graph.node_cell[dst]
    order = np.lexsort((graph.inter_cost, key))
    key = key[order]
    first = np.flatnonzero(np.concatenate(([True], key[1:] != key[:-1])))
    pick = order[first]
    return key[first], graph.inter_cost[pick], src[pick], dst[pick]


def _crossing_changes(old: GraphArrays, new: GraphArrays, new2old: I64, old2new: I64) -> _Changes:
    """Changed crossings between kept nodes (see :func:`_edge_changes`)."""
    span = max(int(old.node_cell.max(initial=-1)), int(new.node_cell.max(initial=-1))) + 1
    key_o, cost_o, src_o, dst_o = _crossing_keys(old, span)
    key_n, cost_n, src_n, dst_n = _crossing_keys(new, span)
    _, io, in_ = np.intersect1d(key_o, key_n, assume_unique=True, return_indices=True)
    gone = np.ones(key_o.shape[0], dtype=np.bool_)
    gone[io] = False
    gone_u, gone_v = old2new[src_o[gone]], old2new[dst_o[gone]]
    kept = (gone_u >= 0) & (gone_v >= 0)
    dearer = cost_n[in_] > cost_o[io] * (1.0 + EDGE_RTOL)
    look = (new2old[src_n] >= 0) & (new2old[dst_n] >= 0)  # new crossings between kept nodes
    look[in_] = cost_n[in_] < cost_o[io]
    return (
        np.concatenate((gone_u[kept], src_n[in_][dearer])),
        np.concatenate((gone_v[kept], dst_n[in_][dearer])),
        src_n[look],
        dst_n[look],
        cost_n[look],
    )


@jit
def _reindex_rows(  # noqa: PLR0917 (compiled kernel: positional)
    dist: F32, pred: I32, new2old: I64, old2new: I64, broken: B, rows: I64, out_dist: F32, out_pred: I32
) -> None:
    """Rows of the old table in new ids (kept nodes' rows only; added nodes' columns ``inf`` /
    ``-1``); a predecessor that was removed becomes :data:`_BROKEN` and flags its row in
    ``broken``."""
    n = new2old.shape[0]
    for r in range(rows.shape[0]):
        s = rows[r]
        os = new2old[s]
        for t in range(n):
            ot = new2old[t]
            if ot < 0:
                out_dist[s, t], out_pred[s, t] = np.inf, -1
                continue
            out_dist[s, t] = dist[os, ot]
            p = pred[os, ot]
            q = -1 if p < 0 else old2new[p]
            if p >= 0 and q < 0:
                broken[s] = True
                q = _BROKEN
            out_pred[s, t] = q


@jit
def _repair_rows(  # noqa: PLR0917 (compiled kernel: positional)
    cl_first: I64,
    cl_doff: I64,
    dist_flat: F64,
    node_cluster: I64,
    inter_off: I64,
    inter_dst: I64,
    inter_cost: F64,
    in_off: I64,
    in_src: I64,
    in_cost: F64,
    dist: F32,
    pred: I32,
    rows: I64,
    broken: B,
    added: I64,
    dearer_u: I64,
    dearer_v: I64,
    check_u: I64,
    check_v: I64,
    check_cost: F64,
    fresh_share: float,
    refresh: B,
) -> int:
    """Repair the given rows of the reindexed table in place (module docstring, steps 1 and 2).

    ``in_off`` / ``in_src`` / ``in_cost``: the crossings as CSR by target node. A row whose X
    holds more than ``fresh_share`` of the nodes is left as it is and flagged in ``refresh``: a
    fresh Dijkstra costs less there. Returns the number of rows in which a node other than an
    added one was searched again (flagged rows not counted).
    """
    n = node_cluster.shape[0]
    g = np.empty(n)  # float64 values of the nodes the current row touched (tv == stamp)
    tv = np.zeros(n, dtype=np.int64)
    mark = np.zeros(n, dtype=np.int64)  # 2 * stamp + 1: in X, 2 * stamp: outside
    state = np.zeros(n, dtype=np.int64)  # 2 * stamp: open, 2 * stamp + 1: settled
    touched = np.empty(n, dtype=np.int64)  # X first, then the nodes the search lowered
    walk = np.empty(n, dtype=np.int64)
    heap_nodes = np.empty(n, dtype=np.int32)
    heap_keys = np.empty(n)
    heap_pos = np.empty(n, dtype=np.int32)
    searched = 0
    for r in range(rows.shape[0]):
        s, stamp = rows[r], r + 1
        nx, broke = _mark_region(pred, s, broken[s], added, dearer_u, dearer_v, mark, touched, walk, stamp)
        if nx > fresh_share * n:
            refresh[s] = True
            continue
        for i in range(nx):
            x = touched[i]
            tv[x], g[x], pred[s, x] = stamp, np.inf, -1
        size, nt = np.int64(0), nx  # (not a literal: one compiled _lower)
        for i in range(nx):  # step 1: X's values from in-edges leaving the rest of the graph
            x = touched[i]
            c = node_cluster[x]
            base = cl_first[c]
            k = cl_first[c + 1] - base
            col = cl_doff[c] + x - base
            for j in range(k + in_off[x + 1] - in_off[x]):
                if j < k:
                    y, cost = base + j, dist_flat[col + j * k]
                else:
                    y, cost = in_src[in_off[x] + j - k], in_cost[in_off[x] + j - k]
                if cost < np.inf and mark[y] != 2 * stamp + 1 and dist[s, y] < np.inf:
                    size, nt, _ = _lower(
                        dist, pred, s, x, y, dist[s, y] + cost, g, tv, state, touched, nt, stamp,
                        heap_nodes, heap_keys, heap_pos, size,
                    )  # fmt: skip
        fresh = False
        for e in range(check_u.shape[0]):  # step 2: seeds, then the search
            u, v = check_u[e], check_v[e]
            if mark[u] == 2 * stamp + 1 or mark[v] == 2 * stamp + 1:
                continue  # relaxed when u settles / among v's in-edges
            du = g[u] if tv[u] == stamp else np.float64(dist[s, u])
            size, nt, low = _lower(
                dist, pred, s, v, u, du + check_cost[e], g, tv, state, touched, nt, stamp,
                heap_nodes, heap_keys, heap_pos, size,
            )  # fmt: skip
            fresh |= low
        nt, low = _settle(
            cl_first, cl_doff, dist_flat, node_cluster, inter_off, inter_dst, inter_cost, dist, pred, s,
            g, tv, state, touched, nt, stamp, heap_nodes, heap_keys, heap_pos, size,
        )  # fmt: skip
        fresh |= low
        for i in range(nt):
            dist[s, touched[i]] = g[touched[i]]
        searched += broke or fresh
    return searched


@jit
def _mark_region(  # noqa: PLR0917 (compiled kernel: positional)
    pred: I32,
    s: int,
    broken: bool,
    added: I64,
    dearer_u: I64,
    dearer_v: I64,
    mark: I64,
    region: I64,
    walk: I64,
    stamp: int,
) -> tuple[int, bool]:
    """X of row ``s`` into ``region`` (``mark == 2 * stamp + 1``): the added nodes, the heads of
    dearer tree edges, the nodes whose predecessor was removed, and those nodes' subtrees.

    Returns:
        ``(size of X, whether the tree broke)``; without a break X is only the added nodes and
        the other marks stay unset.
    """
    inside, outside = 2 * stamp + 1, 2 * stamp
    nx = 0
    for i in range(added.shape[0]):
        mark[added[i]] = inside
        region[nx] = added[i]
        nx += 1
    roots = nx
    for e in range(dearer_u.shape[0]):
        v = dearer_v[e]
        if pred[s, v] == dearer_u[e] and mark[v] != inside:
            mark[v] = inside
            region[nx] = v
            nx += 1
    if broken:
        for t in range(pred.shape[1]):
            if pred[s, t] == _BROKEN:
                mark[t] = inside
                region[nx] = t
                nx += 1
    if nx == roots:
        return nx, False
    for t in range(pred.shape[1]):  # walk up each tree path to a node of known side
        depth, v = 0, t
        while mark[v] != inside and mark[v] != outside:
            p = pred[s, v]
            if p < 0:
                mark[v] = outside
                break
            walk[depth] = v
            depth += 1
            v = p
        side = mark[v]
        for i in range(depth):
            mark[walk[i]] = side
            if side == inside:
                region[nx] = walk[i]
                nx += 1
    return nx, True


@jit
def _settle(  # noqa: PLR0917 (compiled kernel: positional)
    cl_first: I64,
    cl_doff: I64,
    dist_flat: F64,
    node_cluster: I64,
    inter_off: I64,
    inter_dst: I64,
    inter_cost: F64,
    dist: F32,
    pred: I32,
    s: int,
    g: F64,
    tv: I64,
    state: I64,
    touched: I64,
    nt: int,
    stamp: int,
    heap_nodes: I32,
    heap_keys: F64,
    heap_pos: I32,
    size: int,
) -> tuple[int, bool]:
    """Dijkstra from the open nodes of row ``s``, lowering with :func:`_lower`.

    Returns:
        ``(touched count, whether an untouched node was lowered)``.
    """
    fresh = False
    while size > 0:
        top, size = heap_pop(heap_nodes, heap_keys, heap_pos, g, size)
        u = np.int64(top)
        state[u] = 2 * stamp + 1
        c = node_cluster[u]
        base = cl_first[c]
        k = cl_first[c + 1] - base
        row = cl_doff[c] + (u - base) * k
        for j in range(k + inter_off[u + 1] - inter_off[u]):
            if j < k:
                v, cost = base + j, dist_flat[row + j]
            else:
                v, cost = inter_dst[inter_off[u] + j - k], inter_cost[inter_off[u] + j - k]
            if cost < np.inf and state[v] != 2 * stamp + 1:
                size, nt, low = _lower(
                    dist, pred, s, v, u, g[u] + cost, g, tv, state, touched, nt, stamp,
                    heap_nodes, heap_keys, heap_pos, size,
                )  # fmt: skip
                fresh |= low
    return nt, fresh


@jit
def _lower(  # noqa: PLR0917 (compiled kernel: positional)
    dist: F32,
    pred: I32,
    s: int,
    v: int,
    u: int,
    value: float,
    g: F64,
    tv: I64,
    state: I64,
    touched: I64,
    nt: int,
    stamp: int,
    heap_nodes: I32,
    heap_keys: F64,
    heap_pos: I32,
    size: int,
) -> tuple[int, int, bool]:
    """Lower ``v`` to ``value`` through ``u`` when that beats its current value (its old table
    value by more than :data:`RTOL`), and open it.

    Returns:
        ``(heap size, touched count, whether v was an untouched node lowered)``.
    """
    fresh = tv[v] != stamp
    if fresh:
        if not value < np.float64(dist[s, v]) * (1.0 - RTOL):
            return size, nt, False
        tv[v] = stamp
        touched[nt] = v
        nt += 1
    elif not value < g[v]:
        return size, nt, False
    g[v], pred[s, v] = value, u
    if state[v] == 2 * stamp:
        heap_decrease(heap_nodes, heap_keys, heap_pos, g, v, value)
    else:
        state[v] = 2 * stamp
        size = heap_push(heap_nodes, heap_keys, heap_pos, g, size, v, value)
    return size, nt, fresh
