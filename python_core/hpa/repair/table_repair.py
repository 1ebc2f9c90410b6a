"""Repair an all-pairs table after a local change of the abstract graph, instead of rebuilding it.

Quick start (``graph`` is an :class:`~python_core.hpa.graph.abstract_graph.AbstractGraph` keeping its
table; snapshot it before the change, since a change rewrites some of its arrays in place)::

    before, dist, pred = GraphArrays.of(graph), graph.pair_dist, graph.pair_pred  # of(): copies
    ...                                                # change cells, graph.apply_changes(cells)
    dist, pred, rows = repair_pairs(before, GraphArrays.of(graph, copy=False), dist, pred)

A few changed cells change the abstract graph locally: some clusters get new cost tables, some
get a different node set (node ids of later clusters shift), a few crossings change. Nodes are
matched by their cells and the old table is reindexed to the new ids; an added node's row is
computed afresh (:func:`~python_core.hpa.graph.distance_table.pair_rows`), every other row ``s`` is
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

from python_core._types import F32, I32, B
from python_core.hpa.graph.distance_table import pair_rows
from python_core.hpa.graph.graph_arrays import GraphArrays
from python_core.hpa.repair.table_changes import EDGE_RTOL, edge_changes, match_nodes
from python_core.hpa.repair.table_kernels import RTOL, reindex_rows, repair_rows
from python_core.huge_pages import huge_empty

__all__ = [
    "EDGE_RTOL",
    "FRESH_SHARE",
    "REPAIR_CHUNK",
    "RTOL",
    "Repaired",
    "refill_rows",
    "repair_pairs",
    "repair_within",
]


FRESH_SHARE = 0.5
"""Share of the nodes above which a row is computed afresh (one Dijkstra) instead of repaired: its X
(module docstring) is then most of the graph, and searching X with the repair's bookkeeping
costs more than the plain search."""


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
        :func:`~python_core.hpa.graph.distance_table.all_pairs` defines them (``pred`` may name another
        predecessor of equal cost), and the number of rows not kept as they were (added nodes'
        rows, computed afresh, plus rows repaired by a search; filling only the added nodes'
        columns does not count). When both graphs are equal the given arrays themselves come
        back with ``rows == 0``; otherwise new arrays (or the given ones with ``overwrite``).

    Example:
        >>> from python_core.hpa.graph.distance_table import all_pairs
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
        >>> from python_core.hpa.graph.distance_table import all_pairs
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
    new2old, old2new = match_nodes(old.node_cell, new.node_cell)
    broken = np.zeros(n, dtype=np.bool_)
    refresh = np.zeros(n, dtype=np.bool_)  # rows repair_rows leaves to a fresh Dijkstra
    moved = not (old.node_count == n and np.array_equal(old.node_cell, new.node_cell))
    if not moved:
        out_dist, out_pred = (dist, pred) if overwrite else (dist.copy(), pred.copy())
    else:  # rows are carried over to the new ids just before their repair: none for stale ones
        out_dist, out_pred = huge_empty((n, n), np.float32), huge_empty((n, n), np.int32)
    kept = new2old >= 0
    now_stale = np.ones(n, dtype=np.bool_)  # added nodes' rows: computed afresh below
    now_stale[kept] = was_stale[new2old[kept]]
    added = np.flatnonzero(~kept)
    todo = np.flatnonzero(~now_stale)
    searched, done = 0, 0
    # out of time already: not even the changed edges are worth listing (the loop repairs nothing)
    if todo.shape[0] and (seconds is None or time.perf_counter() - began < seconds):
        dearer_u, dearer_v, check_u, check_v, check_cost = edge_changes(old, new, new2old, old2new)
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
            reindex_rows(dist, pred, new2old, old2new, broken, chunk, out_dist, out_pred)
        searched += repair_rows(
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
        >>> from python_core.hpa.graph.distance_table import all_pairs
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
