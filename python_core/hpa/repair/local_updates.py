"""A local change to the level-1 abstract graph: only the clusters and borders it touches redone.

Quick start (``graph`` a built :class:`~python_core.hpa.graph.abstract_graph.AbstractGraph`, its
grid's cells already changed)::

    dirty = apply_changes(graph, cells, weights_changed=False, table_seconds=None)

Per touched cluster the cheapest sufficient work: nothing when only a crossing changed, a trees'
repair in place when its transitions stay (:mod:`~python_core.hpa.repair.tree_repair`), else new
pieces; labels patched where they can be (:mod:`~python_core.hpa.repair.label_patches`), and the
all-pairs table repaired (:mod:`~python_core.hpa.repair.table_repair`) when the flat arrays are
assembled again.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import numpy.typing as npt

from python_core._types import I64
from python_core.hpa.graph.cluster_search import cluster_rows, uniform_flags
from python_core.hpa.graph.cluster_trees import tree_rows
from python_core.hpa.graph.entrances import Border, borders_of
from python_core.hpa.graph.graph_arrays import GraphArrays
from python_core.hpa.repair.label_patches import patch_labels, seal_labels, sealed_cells
from python_core.hpa.repair.repaired_graph import RepairedGraph
from python_core.hpa.repair.tree_repair import repair_clusters, repair_trees

__all__ = ["Outcome", "apply_changes", "relabel_changes", "repair_in_place", "update_cluster"]


Outcome = Literal["kept", "repair", "replaced"]
"""What :func:`update_cluster` did with a cluster."""


def apply_changes(
    graph: RepairedGraph,
    nodes: I64,
    weights_changed: bool = False,
    table_seconds: float | None = None,
    one_weight: bool = False,
    *,
    filling: bool = False,
) -> set[int]:
    """Rebuild what changed cells touch: their clusters' labels and tables, nearby borders.

    A move that a changed cell enters, leaves or squeezes past lies inside the cell's 3 x 3
    block, so only borders between clusters of that block can change; a cluster is updated
    when one of its cells changed or one of its borders' transition pairs did
    (:func:`update_cluster`: often only a few of its trees, or nothing).

    A *sealed* cell (its eight neighbours are walls or off the grid) is skipped but for its
    cluster's labels: no move enters, leaves or squeezes past it, whether it is open or not,
    so no border, tree or table depends on it (random toggles on a cave map are mostly such
    cells of solid rock).

    Args:
        nodes: flat ids of the cells whose walls or weights changed.
        weights_changed: whether weights (not only walls) may have changed.
        table_seconds: time the all-pairs table's repair may take; rows it does not reach
            are flagged in ``pair_stale`` (:meth:`AbstractGraph.refill`). None: every row, now.
        one_weight: the caller knows that every open cell of the grid has the same weight
            after the change: every weight flag is then 1, with no scan of the clusters.
        filling: a deferred build's background pricing (paused) is not done: each touched
            cluster is laid out for its new transitions and left to it, unpriced (what it priced
            may have read cells as they changed, and the trees of what it did not are not there
            to repair).

    Returns:
        The clusters whose transitions, tables or crossings may have changed.
    """
    cells = np.unique(nodes)
    sealed = sealed_cells(graph.walk, graph.width, graph.height, cells)
    own: set[int] = set()
    keys: set[Border] = set()
    inner = range(1, graph.csize - 1)
    for node in cells[~sealed].tolist():
        x, y = node % graph.width, node // graph.width
        own.add(graph.cluster_of(node))
        if x % graph.csize in inner and y % graph.csize in inner:
            continue  # its 3 x 3 block lies inside its cluster: no border to look at
        near = {
            graph.cluster_of(ny * graph.width + nx)
            for nx in (x - 1, x, x + 1)
            for ny in (y - 1, y, y + 1)
            if 0 <= nx < graph.width and 0 <= ny < graph.height
        }
        for c in near:
            keys.update(
                k for k, _ in borders_of(c % graph.ncx, c // graph.ncx) if set(graph.sides(k)) <= near
            )
    owner = (cells // graph.width // graph.csize) * graph.ncx + cells % graph.width // graph.csize
    same_components = relabel_changes(graph, cells, owner, sealed)
    if graph.merge_span > 0 and not same_components:  # merged entrances follow the components
        for c in own:
            keys.update(k for k, _ in borders_of(c % graph.ncx, c // graph.ncx))
    before = GraphArrays.of(graph) if graph.pair_dist.size else None  # copies: tables change in place
    crossings = graph.rebuild_borders(sorted(keys))
    dirty = own | crossings
    if graph.has_trees and owner.shape[0]:  # the changed clusters' weight flags, in one pass
        changed = np.unique(owner)
        graph.uniform[changed] = (
            1
            if one_weight
            else uniform_flags(graph.walk, graph.weights, graph.width, graph.height, graph.csize, changed)
        )
    cells, owner = cells[~sealed], owner[~sealed]
    order = np.argsort(owner, kind="stable")  # each cluster's cells one run, still ascending
    cells, owner = cells[order], owner[order]
    clusters = np.array(sorted(dirty), dtype=np.int64)
    starts = np.searchsorted(owner, clusters)
    ends = np.searchsorted(owner, clusters, side="right")
    outcomes = [
        _unprice(graph, c, c in crossings)
        if filling
        else update_cluster(graph, c, cells[lo:hi], weights_changed, c in crossings)
        for c, lo, hi in zip(clusters.tolist(), starts.tolist(), ends.tolist(), strict=True)
    ]
    repair = clusters[[o == "repair" for o in outcomes]]
    if repair.shape[0]:
        repair_in_place(graph, repair, cells, owner, weights_changed)
    graph.nodes_kept = "replaced" not in outcomes and not crossings
    if "replaced" in outcomes:  # some cluster has other transitions: node ids move, concatenate afresh
        graph.assemble(before, table_seconds)
    else:  # tables and trees changed in place (views into the flat arrays)
        if crossings:
            graph.assemble_crossings()
        # same nodes, crossings and local components: the global ids stand (a door on a
        # 4096 x 4096 map would otherwise redo a union-find over its 274k nodes)
        graph.derive(before, table_seconds, components=bool(crossings) or not same_components)
    return dirty


def _unprice(graph: RepairedGraph, cluster: int, borders_changed: bool) -> Outcome:
    """A touched cluster while the background pricing is not done: its pieces laid out for its
    transitions, zero, and flagged unpriced (the pricing, resumed, computes them afresh)."""
    graph.priced[cluster] = 0
    trans = graph.transitions_of(cluster) if borders_changed else graph.trans[cluster]
    if not borders_changed or np.array_equal(trans, graph.trans[cluster]):
        return "kept"  # its pieces keep their shapes
    _, _, lw, lh = graph.rect(cluster)
    k = trans.shape[0]
    graph.trans[cluster], graph.tables[cluster] = trans, np.zeros((k, k))
    if graph.has_trees:
        graph.dirs[cluster] = np.zeros((k, lw * lh), dtype=np.uint8)
    return "replaced"


def update_cluster(
    graph: RepairedGraph, cluster: int, cells: I64, weights_changed: bool, borders_changed: bool = True
) -> Outcome:
    """Bring one touched cluster up to date after its own ``cells`` (maybe none) changed.

    Its table and trees depend only on its own cells and its transitions. Unchanged
    transitions and no changed cell: nothing to do (only a crossing changed). Without trees:
    price the whole cluster again. With trees: keep the trees of the transitions that stay,
    repair them (:mod:`~python_core.hpa.repair.tree_repair`), and rerun only the trees the repair
    gives up on and those of new transitions. ``borders_changed=False`` says none of its
    borders' transition pairs changed, so its transitions did not either. Its weight flag
    is the caller's (:func:`apply_changes` sets those of all changed clusters at once).

    Returns:
        ``"replaced"`` when the cluster's pieces were replaced (other transitions, or priced
        afresh); ``"repair"`` when it keeps its transitions and trees, which the caller
        repairs in place with those of the other such clusters (:func:`repair_in_place`);
        ``"kept"`` when nothing changed or the flat arrays were updated in place.
    """
    trans = graph.transitions_of(cluster) if borders_changed else graph.trans[cluster]
    same = not borders_changed or np.array_equal(trans, graph.trans[cluster])
    if same and not cells.shape[0]:
        return "kept"
    if not graph.has_trees:
        in_place = graph.tables[cluster]
        graph.trans[cluster] = trans
        graph.price_cluster(cluster)
        if same:  # same transitions: the new table goes into the flat array's piece
            in_place[...] = graph.tables.discard(cluster)
            graph.trans.discard(cluster)
        return "kept" if same else "replaced"
    if same:
        return "repair"
    x0, y0, lw, lh = graph.rect(cluster)
    geometry = (graph.walk, graph.weights, graph.width, x0, y0, lw, lh, graph.diag, graph.cw, graph.ch)
    old = graph.trans[cluster]
    at = np.minimum(np.searchsorted(old, trans), max(old.shape[0] - 1, 0))
    kept = np.flatnonzero(old[at] == trans) if old.shape[0] else at[:0]
    trees = np.zeros((trans.shape[0], lw * lh), dtype=np.uint8)
    sub = graph.dirs[cluster][at[kept]]  # a copy: the kept trees, repaired apart
    stale = np.zeros(kept.shape[0], dtype=np.uint8)
    scratch = np.zeros((kept.shape[0], kept.shape[0]))  # their rows are walked below
    repair_trees(*geometry, trans[kept], sub, scratch, cells, int(weights_changed), stale)
    trees[kept] = sub
    table = np.zeros((trans.shape[0], trans.shape[0]))
    rerun = np.ones(trans.shape[0], dtype=bool)
    rerun[kept[stale == 0]] = False
    tree_rows(trees, trans, np.flatnonzero(~rerun), x0, y0, lw, graph.width, graph.weights, graph.cw,
              graph.ch, table)  # fmt: skip
    cluster_rows(*geometry, trans, np.flatnonzero(rerun), table, trees)
    graph.trans[cluster], graph.tables[cluster], graph.dirs[cluster] = trans, table, trees
    return "replaced"


def repair_in_place(
    graph: RepairedGraph, clusters: I64, cells: I64, owner: I64, weights_changed: bool
) -> None:
    """Repair the trees and tables of clusters that keep their transitions, in one compiled
    call (:func:`~python_core.hpa.repair.tree_repair.repair_clusters`), in the flat arrays.

    Args:
        clusters: the clusters, ascending; each owns at least one of ``cells``.
        cells: changed cells, ``owner`` their clusters, both ordered by ``owner``.
        weights_changed: whether weights (not only walls) may have changed.
    """
    mine = np.isin(owner, clusters)
    cells, owner = cells[mine], owner[mine]
    cell_off = np.append(np.searchsorted(owner, clusters), owner.shape[0])
    repair_clusters(
        graph.walk, graph.weights, graph.width, graph.height, graph.csize, graph.diag, graph.cw, graph.ch,
        clusters, cells, cell_off, graph.trans.flat, graph.trans.off, graph.dirs.flat, graph.dirs.off,
        graph.tables.flat, graph.tables.off, int(weights_changed),
    )  # fmt: skip


def relabel_changes(graph: RepairedGraph, cells: I64, owner: I64, sealed: npt.NDArray[np.bool_]) -> bool:
    """New labels after ``cells`` changed: patched where a cluster has one changed cell
    that neither splits nor merges a component
    (:func:`~python_core.hpa.graph.connectivity.patch_labels`), sealed cells numbered apart
    (:func:`~python_core.hpa.graph.connectivity.seal_labels`), every other touched cluster labelled
    afresh.

    Returns:
        True when every cluster kept its local components: patches only, and no count
        changed (so every cell but the changed ones keeps its label).
    """
    comp_count = graph.comp_count.copy()
    active, at = cells[~sealed], owner[~sealed]
    clusters, counts = np.unique(at, return_counts=True)
    single = np.isin(at, clusters[counts == 1])
    patched = patch_labels(
        graph.walk, graph.width, graph.height, graph.csize, graph.diag, graph.labels, graph.comp_count,
        active[single],
    )  # fmt: skip
    fresh = np.setdiff1d(clusters, at[single][patched != 0])
    graph.relabel(fresh)
    alone = sealed & ~np.isin(owner, fresh)
    if alone.any():  # a sealed cell's cluster gets a label for it (or loses it)
        grown = seal_labels(graph.walk, graph.labels, graph.comp_count, cells[alone], owner[alone])
        if grown.shape[0]:  # label counts that would outgrow the int16 labels
            graph.relabel(np.unique(grown))
    return not fresh.shape[0] and np.array_equal(comp_count, graph.comp_count)
