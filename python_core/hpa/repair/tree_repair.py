"""Keep a cluster's cached trees through a local change: repair them instead of rerunning them.

Quick start (``dirs`` and ``table`` come from :func:`~python_core.hpa.graph.cluster_search.cluster_table`)::

    stale = np.zeros(k, np.uint8)
    repair_trees(walk, weights, width, x0, y0, lw, lh, diag, cw, ch, trans, dirs, table, changed, 0, stale)
    cluster_rows(walk, weights, width, x0, y0, lw, lh, diag, cw, ch, trans, np.flatnonzero(stale),
                 table, dirs)          # rerun only the trees the repair gave up on

Why looking near the changed cells is enough: a move's legality and cost depend only on its two
cells and, for a diagonal, its two corners, so every move a change affects joins two cells of the
3 x 3 block around a changed cell. Per tree (costs are read by walking up the tree,
:mod:`~python_core.hpa.repair.tree_costs`):

1. Cells of those blocks whose move is now illegal (it entered from, or squeezed past, a new wall)
   look for another legal move of the same cost, cheapest first, from a neighbour that is settled.
   One that has none is *raised* (its cost grows), and its children must look in turn: the
   decremental step of dynamic shortest paths (Ramalingam and Reps). In open areas this ends at
   once or after a cell or two (the "shadow" of a new wall under the no-corner-cutting rule).
2. Raised cells get their new costs by a Dijkstra seeded from their settled neighbours.
3. Block cells that a legal move from a block cell now reaches more cheaply (opened cells, cells
   behind an opened wall or a newly legal diagonal), and raised cells that step 2 priced below
   their old cost (through a move the change made legal), are *lowered*, and a Dijkstra from
   them lowers every cell the shortcuts serve: the incremental step of dynamic shortest paths.
   Why that ends exact: every cost is then achievable (a legal path prices it), and every move
   between cells not lowered already satisfies the triangle inequality except the block moves the
   seeds checked (moves outside the blocks are unchanged, a cell not lowered costs no less than
   before, and step 2 priced raised cells from all their neighbours); the Dijkstra relaxes every
   move out of a lowered cell, so at its end no move can shorten any cost. A cell never looked
   at is priced by walking its old tree path, the cost it keeps unless its path runs through a
   lowered cell, and then it is lowered in turn (the relaxation along that path lowers each child
   by as much as its parent). Those walks memoise every cell they pass
   (:func:`~python_core.hpa.repair.tree_costs.old_tree_cost`), since
   the cells a repair prices lie side by side and share nearly all their paths.

A tree whose raised or lowered cells exceed ``cells // RAISE_CAP`` is *stale* (rerun it), as is
one that reaches a cell whose weight changed. A kept tree is fixed in place, and its table row
gets the new costs of raised and lowered transitions.
"""

from __future__ import annotations

import math

import numpy as np

from python_core._types import F64, I32, I64, U8
from python_core.compiled import jit
from python_core.heaps.indexed import heap_decrease, heap_pop, heap_push
from python_core.hpa.graph.cluster_search import NO_PARENT, cluster_rect, cluster_rows
from python_core.hpa.repair.tree_costs import OldCosts, best_entry, cell_cost, move_of, touches_change
from python_core.hpa.steps import (
    MOVE_DX,
    MOVE_DY,
    legal_from,
    legal_into,
    move_count,
    step_allowed,
    step_length,
    step_source,
    step_target,
)

__all__ = ["repair_clusters", "repair_trees"]


_REL = 1e-9
"""Relative slack of cost comparisons (tree walks and Dijkstra add the same steps in other orders)."""

RAISE_CAP = 4
"""A tree whose raised (or lowered) cells exceed ``cells // RAISE_CAP`` is rerun instead (a wall
that cuts off a region raises all of it, a gap that joins two lowers one; a Dijkstra over the
whole cluster is then no dearer)."""

# cell states during one tree's repair
_SETTLED, _PENDING, _RAISED, _FINAL, _OPEN, _LOWERED = 0, 1, 2, 3, 4, 5


@jit
def _open_lowered(  # noqa: PLR0917
    state: U8, d: F64, heap_nodes: I32, heap_keys: F64, heap_pos: I32, n_open: int, v: int
) -> tuple[int, int]:
    """Put ``v`` on step 3's heap at its just-lowered ``d[v]``: its key decreases when it is open
    already, else it opens. Returns ``(heap size, 1 when it opened else 0)``."""
    if state[v] == _OPEN:
        heap_decrease(heap_nodes, heap_keys, heap_pos, d, v, d[v])
        return n_open, 0
    state[v] = _OPEN
    return heap_push(heap_nodes, heap_keys, heap_pos, d, n_open, v, d[v]), 1


@jit
def _repair_one(  # noqa: PLR0912, PLR0915, PLR0917 (one tree, one pass; compiled)
    walk: U8, weights: F64, width: int, x0: int, y0: int, lw: int, lh: int, diag: int, cw: float,
    ch: float, tree: U8, root: int, block: I64, nb: int, mark: U8, weights_changed: int, d: F64,
    stamp: I32, now: int, code: U8, listed: U8, state: U8, touched: I64, heap_nodes: I32,
    heap_keys: F64, heap_pos: I32, raised: I64, before: F64, old: OldCosts,
) -> tuple[int, bool]:  # fmt: skip
    """Repair one tree in the scratch (see the module docstring).

    Scratch (local cells): ``d[c]`` the cost of c, valid when ``stamp[c] == now``; ``code[c]`` its
    move, valid when ``listed[c]``; ``state[c]`` one of ``_SETTLED`` (all zero on entry),
    ``_PENDING``, ``_RAISED``, ``_FINAL``, ``_OPEN``, ``_LOWERED``; ``touched[:n]`` the listed cells;
    ``before[raised[r]]`` the old cost of a raised cell; ``old`` the memo of
    :func:`~python_core.hpa.repair.tree_costs.old_tree_cost`.

    Returns:
        ``(n, kept)``: the number of touched cells (every one listed, to write back and reset;
        raised ones end ``_FINAL`` and lowered ones ``_LOWERED``, with their new costs in ``d``),
        and False when the tree is stale.
    """
    size = lw * lh
    dl = math.hypot(cw, ch)
    n_moves = move_count(diag)
    nt, n_open, n_raised = 0, 0, 0
    for b in range(nb):  # 1. costs of the block cells, and the cells whose move broke
        v = block[b]
        vx, vy = v % lw, v // lw
        gv = (vy + y0) * width + vx + x0
        listed[v] = 1
        touched[nt] = v
        nt += 1
        code[v] = NO_PARENT if walk[gv] == 0 else tree[v]
        dv = cell_cost(walk, weights, width, x0, y0, lw, cw, ch, tree, root, d, stamp, now, v, old)
        if walk[gv] == 0 or v == root or tree[v] == NO_PARENT:
            continue
        if weights_changed and mark[v] == 2:
            return nt, False
        dx, dy = int(tree[v]) % 3 - 1, int(tree[v]) // 3 - 1
        ux, uy = vx - dx, vy - dy
        if touches_change(mark, lw, ux, uy, dx, dy) and (
            walk[gv - dy * width - dx] == 0 or not step_allowed(walk, width, ux + x0, uy + y0, dx, dy, diag)
        ):
            state[v] = _PENDING
            n_open = heap_push(heap_nodes, heap_keys, heap_pos, d, n_open, v, dv)
    while n_open > 0:  # 1. re-enter at the same cost, cheapest first, or raise and queue children
        v, n_open = heap_pop(heap_nodes, heap_keys, heap_pos, d, n_open)
        vx, vy = v % lw, v // lw
        gv = (vy + y0) * width + vx + x0
        state[v] = _RAISED
        for k in range(n_moves):
            u = step_source(vx, vy, k, lw, lh)
            step = step_length(k, cw, ch, dl) * weights[gv]
            if u < 0 or state[u] != _SETTLED or step <= 0.0:
                continue
            if not legal_into(walk, width, vx + x0, vy + y0, k, diag):
                continue
            du = cell_cost(walk, weights, width, x0, y0, lw, cw, ch, tree, root, d, stamp, now, u, old)
            if abs(du + step - d[v]) <= _REL * (1.0 + d[v]):
                code[v] = (MOVE_DY[k] + 1) * 3 + MOVE_DX[k] + 1
                state[v] = _SETTLED
                break
        if state[v] == _SETTLED:
            continue
        raised[n_raised] = v
        n_raised += 1
        if n_raised > size // RAISE_CAP:
            return nt, False
        for k in range(n_moves):  # the children of a raised cell must look again
            wx, wy = vx + MOVE_DX[k], vy + MOVE_DY[k]
            if wx < 0 or wy < 0 or wx >= lw or wy >= lh:
                continue
            w = wy * lw + wx
            if (
                state[w] != _SETTLED
                or move_of(tree, code, listed, w) != (MOVE_DY[k] + 1) * 3 + MOVE_DX[k] + 1
            ):
                continue
            if walk[(wy + y0) * width + wx + x0] == 0:
                continue
            dw = cell_cost(walk, weights, width, x0, y0, lw, cw, ch, tree, root, d, stamp, now, w, old)
            if not listed[w]:
                listed[w] = 1
                code[w] = tree[w]
                touched[nt] = w
                nt += 1
            state[w] = _PENDING
            n_open = heap_push(heap_nodes, heap_keys, heap_pos, d, n_open, w, dw)
    for r in range(n_raised):  # 2. new costs of the raised cells: seeds from settled neighbours
        v = raised[r]
        vx, vy = v % lw, v // lw
        gv = (vy + y0) * width + vx + x0
        before[v] = d[v]
        d[v] = np.inf
        code[v] = NO_PARENT
        for k in range(n_moves):
            u = step_source(vx, vy, k, lw, lh)
            if u < 0 or state[u] != _SETTLED or not legal_into(walk, width, vx + x0, vy + y0, k, diag):
                continue
            du = cell_cost(walk, weights, width, x0, y0, lw, cw, ch, tree, root, d, stamp, now, u, old)
            ng = du + step_length(k, cw, ch, dl) * weights[gv]
            if ng < d[v]:
                d[v], code[v] = ng, (MOVE_DY[k] + 1) * 3 + MOVE_DX[k] + 1
        if d[v] < np.inf:
            n_open = heap_push(heap_nodes, heap_keys, heap_pos, d, n_open, v, d[v])
    while n_open > 0:  # 2. ... then a Dijkstra among them
        u, n_open = heap_pop(heap_nodes, heap_keys, heap_pos, d, n_open)
        state[u] = _FINAL
        ux, uy = u % lw, u // lw
        for k in range(n_moves):
            v = step_target(ux, uy, k, lw, lh)
            if v < 0 or state[v] != _RAISED or not legal_from(walk, width, ux + x0, uy + y0, k, diag):
                continue
            dx, dy = MOVE_DX[k], MOVE_DY[k]
            gv = (uy + dy + y0) * width + ux + dx + x0
            ng = d[u] + step_length(k, cw, ch, dl) * weights[gv]
            if ng < d[v]:
                fresh = d[v] == np.inf
                d[v], code[v] = ng, (dy + 1) * 3 + dx + 1
                if fresh:
                    n_open = heap_push(heap_nodes, heap_keys, heap_pos, d, n_open, v, ng)
                else:
                    heap_decrease(heap_nodes, heap_keys, heap_pos, d, v, ng)
    for r in range(n_raised):  # cut off now: unreachable inside the cluster
        state[raised[r]] = _FINAL
    n_open, n_lowered = 0, 0
    for r in range(n_raised):  # 3. seeds: raised cells priced below their old cost (by a move the
        v = raised[r]  # change made legal): their moves to settled cells were never relaxed
        if d[v] + _REL * (1.0 + d[v]) < before[v]:
            n_open, opened = _open_lowered(state, d, heap_nodes, heap_keys, heap_pos, n_open, v)
            n_lowered += opened
    for b in range(nb):  # 3. ... and block cells a legal block move now reaches more cheaply
        v = block[b]
        if walk[(v // lw + y0) * width + v % lw + x0] == 0 or v == root:
            continue
        ng, move = best_entry(walk, weights, width, x0, y0, lw, lh, diag, cw, ch, mark, d, v)
        if not ng + _REL * (1.0 + ng) < d[v]:
            continue
        d[v], code[v] = ng, move  # block cells are listed (step 1)
        n_open, opened = _open_lowered(state, d, heap_nodes, heap_keys, heap_pos, n_open, v)
        n_lowered += opened
    if n_lowered > size // RAISE_CAP:
        return nt, False
    while n_open > 0:  # 3. ... then a Dijkstra from them lowers the cells the shortcuts serve
        u, n_open = heap_pop(heap_nodes, heap_keys, heap_pos, d, n_open)
        state[u] = _LOWERED
        ux, uy = u % lw, u // lw
        for k in range(n_moves):
            w = step_target(ux, uy, k, lw, lh)
            if w < 0 or state[w] == _LOWERED or w == root:
                continue
            if not legal_from(walk, width, ux + x0, uy + y0, k, diag):
                continue
            dx, dy = MOVE_DX[k], MOVE_DY[k]
            gw = (uy + dy + y0) * width + ux + dx + x0
            ng = d[u] + step_length(k, cw, ch, dl) * weights[gw]
            # an open cell's cost is its heap value (memoised); an unlisted cell's is its old
            # tree's: right, as a cell whose old path runs through a lowered cell is lowered in
            # turn by this same relaxation along that path
            dw = cell_cost(walk, weights, width, x0, y0, lw, cw, ch, tree, root, d, stamp, now, w, old)
            if not ng + _REL * (1.0 + ng) < dw:
                continue
            d[w], code[w] = ng, (dy + 1) * 3 + dx + 1
            n_open, opened = _open_lowered(state, d, heap_nodes, heap_keys, heap_pos, n_open, w)
            if not opened:
                continue
            if not listed[w]:
                listed[w] = 1
                touched[nt] = w
                nt += 1
            n_lowered += 1
            if n_lowered > size // RAISE_CAP:
                return nt, False
    return nt, True


@jit
def repair_trees(  # noqa: PLR0917 (compiled kernel: positional)
    walk: U8,
    weights: F64,
    width: int,
    x0: int,
    y0: int,
    lw: int,
    lh: int,
    diag: int,
    cw: float,
    ch: float,
    trans: I64,
    dirs: U8,
    table: F64,
    changed: I64,
    weights_changed: int,
    stale: U8,
) -> int:
    """Repair the trees of one cluster after some of its cells changed; mark those it cannot.

    Args:
        walk: global walkable flags, already changed.
        weights: global weights, already changed.
        width: grid columns.
        x0: cluster left column.
        y0: cluster top row.
        lw: cluster width.
        lh: cluster height.
        diag: diagonal rule code.
        cw: cell width.
        ch: cell height.
        trans: the cluster's transition cells (the roots; unchanged by the change).
        dirs: ``(k, lw * lh)`` trees built before the change; repaired ones are fixed in place.
        table: ``(k, k)`` cost table; the rows of repaired trees are updated in place.
        changed: global cells of this cluster whose walls or weights changed.
        weights_changed: 1 when weights may have changed (then a tree that reaches a changed
            walkable cell is stale), 0 for wall toggles only. One call must not change both the
            walls and the weights of the same cells (old paths through a cell closed in the same
            call would be priced at its new weight); the hierarchy's set_walkable and
            set_weights update apart.
        stale: out, ``(k,)``: 1 for each tree (and table row) left to rerun, else 0.

    Returns:
        The number of stale trees.

    Example:
        >>> import numpy as np
        >>> from python_core.hpa.graph.cluster_search import cluster_table
        >>> walk, w, trans = np.ones(8, np.uint8), np.ones(8), np.array([0, 7])
        >>> dirs = np.zeros((2, 8), np.uint8)
        >>> table = cluster_table(walk, w, 8, 0, 0, 8, 1, 0, 1.0, 1.0, trans, dirs)
        >>> walk[6] = 0      # cuts the corridor: cell 7 is raised (to inf) in the tree of cell 0,
        >>> stale = np.zeros(2, np.uint8)      # cells 0-5 in that of cell 7: too many, rerun it
        >>> repair_trees(walk, w, 8, 0, 0, 8, 1, 0, 1.0, 1.0, trans, dirs, table, np.array([6]), 0, stale)
        1
        >>> stale.tolist(), table[0].tolist(), dirs[0].tolist()
        ([0, 1], [0.0, inf], [4, 5, 5, 5, 5, 5, 4, 4])
    """
    size = lw * lh
    mark = np.zeros(size, dtype=np.uint8)  # 1 block cell, 2 changed cell
    block = np.empty(9 * changed.shape[0], dtype=np.int64)
    nb = 0
    for i in range(changed.shape[0]):
        cx, cy = changed[i] % width - x0, changed[i] // width - y0
        for ny in range(max(cy - 1, 0), min(cy + 2, lh)):
            for nx in range(max(cx - 1, 0), min(cx + 2, lw)):
                if mark[ny * lw + nx] == 0:
                    mark[ny * lw + nx] = 1
                    block[nb] = ny * lw + nx
                    nb += 1
    for i in range(changed.shape[0]):
        mark[(changed[i] // width - y0) * lw + changed[i] % width - x0] = 2
    d = np.empty(size)
    stamp = np.zeros(size, dtype=np.int32)
    code = np.empty(size, dtype=np.uint8)
    listed = np.zeros(size, dtype=np.uint8)
    state = np.zeros(size, dtype=np.uint8)
    touched = np.empty(size, dtype=np.int64)
    raised = np.empty(size, dtype=np.int64)
    before = np.empty(size)
    heap_nodes = np.empty(size, dtype=np.int32)
    heap_keys = np.empty(size)
    heap_pos = np.empty(size, dtype=np.int32)
    old = (np.empty(size), np.zeros(size, dtype=np.int32), np.empty(size, dtype=np.int64))
    local = (trans // width - y0) * lw + trans % width - x0
    n_stale = 0
    for t in range(trans.shape[0]):
        tree = dirs[t]
        nt, kept = _repair_one(
            walk, weights, width, x0, y0, lw, lh, diag, cw, ch, tree, local[t], block, nb, mark,
            weights_changed, d, stamp, t + 1, code, listed, state, touched, heap_nodes, heap_keys,
            heap_pos, raised, before, old,
        )  # fmt: skip
        stale[t] = 0 if kept else 1
        n_stale += 0 if kept else 1
        for j in range(trans.shape[0] if kept else 0):
            if state[local[j]] == _FINAL or state[local[j]] == _LOWERED:  # new costs
                table[t, j] = d[local[j]]
        for i in range(nt):
            c = touched[i]
            if kept:
                tree[c] = code[c]
            listed[c], state[c] = 0, _SETTLED
    return n_stale


@jit
def repair_clusters(  # noqa: PLR0917 (compiled kernel: positional)
    walk: U8,
    weights: F64,
    width: int,
    height: int,
    csize: int,
    diag: int,
    cw: float,
    ch: float,
    clusters: I64,
    cells: I64,
    cell_off: I64,
    trans: I64,
    trans_off: I64,
    dirs: U8,
    dirs_off: I64,
    tables: F64,
    table_off: I64,
    weights_changed: int,
) -> int:
    """:func:`repair_trees` for several clusters whose transitions stay, in one call, each followed
    by a rerun of the trees it gives up on: a local update repairs dozens of clusters in place,
    and a call per cluster cost more in Python and dispatch than many of the repairs themselves.

    Args:
        clusters: the clusters, ``cy * ncx + cx`` for clusters of side ``csize``.
        cells: their changed global cells, cluster by cluster: ``cells[cell_off[i]:cell_off[i + 1]]``
            are those of ``clusters[i]``.
        trans, trans_off: every cluster's transitions, back to back (cluster ``c``'s from
            ``trans_off[c]`` to ``trans_off[c + 1]``).
        dirs, dirs_off: every cluster's ``(k, lw * lh)`` trees, flat, the same way; repaired in place.
        tables, table_off: every cluster's ``(k, k)`` cost table, flat; rows updated in place.
        weights_changed: as for :func:`repair_trees`.

    Returns:
        The number of trees rerun.
    """
    ncx = (width + csize - 1) // csize
    reruns = 0
    for i in range(clusters.shape[0]):
        c = clusters[i]
        x0, y0, lw, lh = cluster_rect(c, ncx, csize, width, height)
        roots = trans[trans_off[c] : trans_off[c + 1]]
        k = roots.shape[0]
        trees = dirs[dirs_off[c] : dirs_off[c + 1]].reshape((k, lw * lh))
        table = tables[table_off[c] : table_off[c + 1]].reshape((k, k))
        stale = np.zeros(k, dtype=np.uint8)
        own = cells[cell_off[i] : cell_off[i + 1]]
        if repair_trees(walk, weights, width, x0, y0, lw, lh, diag, cw, ch, roots, trees, table, own,
                        weights_changed, stale):  # fmt: skip
            rows = np.flatnonzero(stale)
            cluster_rows(walk, weights, width, x0, y0, lw, lh, diag, cw, ch, roots, rows, table, trees)
            reruns += rows.shape[0]
    return reruns
