"""The navmesh's corridor search in compiled code: A* over the search graph's nodes, by portal.

Quick start::

    from python_core.navmesh import NavMesh
    mesh = NavMesh([[0, 0], [2, 0], [2, 1], [0, 1], [3, 0], [3, 1]], [[0, 1, 2, 3], [1, 4, 5, 2]])
    assert mesh.find_path((0.5, 0.5), (2.5, 0.5)).nodes.tolist() == [0, 1]  # via :func:`corridor_search`

The graph is :mod:`~python_core.navmesh.graph`'s, read from the
:data:`~python_core.navmesh.kernel.NavStatic` record; a search's working memory is a
:data:`NavScratch` (a pool per mesh, one in use per thread), reset after each query. The open list
is :mod:`python_core.heaps.ordered` (equal keys pop the smaller node first).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from python_core._types import F64, I64, SEARCH_BUDGET, SEARCH_FOUND, SEARCH_NO_PATH
from python_core.compiled import jit, record
from python_core.heaps.ordered import heap_pop, heap_push

__all__ = ["NavScratch", "corridor_search", "nav_scratch", "reset_scratch"]


NavScratch: Any = record("NavScratch", ("work", "parent", "opened", "group_key", "touched"), __name__)
"""One search's working memory, kept between queries (a pool per mesh, one in use per thread):
``work[v] = (g, x, y, z)`` puts a node's cost beside its position (one cache line for both, the
search's hottest reads); ``touched`` lists the nodes given a cost, which are all that is reset."""


@jit
def nav_scratch(st: Any) -> Any:
    """Fresh :data:`NavScratch` for the mesh of ``st`` (costs infinite, positions copied)."""
    n = st.indptr.shape[0] - 1
    work = np.zeros((n, 4))
    work[:, 0] = np.inf
    work[:, 1 : 1 + st.pos.shape[1]] = st.pos
    groups = st.portal_nodes // st.samples + n - st.portal_nodes
    return NavScratch(
        work, np.full(n, -1, np.int64), np.zeros(n, np.bool_), np.full(groups, np.inf), np.zeros(n, np.int64)
    )


@jit
def _group(node: int, portal_nodes: int, samples: int) -> int:
    """The group of a node: the ``samples`` points of one portal form one, each link end another."""
    return node // samples if node < portal_nodes else portal_nodes // samples + node - portal_nodes


@jit
def _h(work: F64, v: int, gx: float, gy: float, gz: float) -> float:
    return math.sqrt((work[v, 1] - gx) ** 2 + (work[v, 2] - gy) ** 2 + (work[v, 3] - gz) ** 2)


@jit
def reset_scratch(sc: Any, st: Any, count: int) -> None:
    """Undo one search's marks on the scratch: only the ``count`` touched nodes."""
    work, parent, opened, group_key, touched = sc.work, sc.parent, sc.opened, sc.group_key, sc.touched
    for k in range(count):
        v = touched[k]
        work[v, 0] = np.inf
        parent[v] = -1
        opened[v] = False
        group_key[_group(v, st.portal_nodes, st.samples)] = np.inf


@jit
def _seed(  # noqa: PLR0917
    st: Any,
    sc: Any,
    poly: int,
    sx: float,
    sy: float,
    sz: float,
    gx: float,
    gy: float,
    gz: float,
    mask: int,
    count: int,
    size: int,
    keys: F64,
    nodes: I64,
) -> tuple[int, int, F64, I64]:
    """Open the nodes leaving ``poly`` at their straight distance from the start."""
    work, opened, group_key, touched = sc.work, sc.opened, sc.group_key, sc.touched
    travel = st.poly_travel[poly]
    for k in range(st.out_ptr[poly], st.out_ptr[poly + 1]):
        v = st.out_nodes[k]
        if st.node_layers[v] & mask == 0:
            continue
        gv = _h(work, v, sx, sy, sz) * travel
        if gv < work[v, 0]:
            if work[v, 0] == np.inf:
                touched[count] = v
                count += 1
            work[v, 0] = gv
            opened[v] = True
            f = gv + st.scale * _h(work, v, gx, gy, gz)
            grp = _group(v, st.portal_nodes, st.samples)
            if f < group_key[grp]:
                group_key[grp] = f
                keys, nodes, size = heap_push(keys, nodes, size, f, grp)
    return count, size, keys, nodes


@jit
def corridor_search(  # noqa: PLR0917, PLR0912, PLR0915
    st: Any, sc: Any, ps: F64, pg: F64, starts: I64, goals: I64, mask: int, budget: int
) -> tuple[int, int, int, int]:
    """A* from ``ps`` (in each polygon of ``starts``) to ``pg`` (in each of ``goals``) over the
    search graph, by groups.

    The points of one portal are expanded together: the heap holds groups keyed by the least
    ``f`` of their open points, so one pop settles up to ``samples`` points and a group is pushed
    again only when its key drops (a third of the heap work of one entry per point). A point
    may be expanded before its own ``f`` is the least, so a point improved after its expansion
    opens again (label correcting); the search stops when the best goal cost is at most the least
    key, hence finds what plain A* over the points finds. Costs and parents are left in ``sc``.

    Returns:
        ``(status, end, expanded, touched)``: ``end`` is the node the goal was reached from (or,
        when not found, the expanded node nearest the goal, -1 if none); ``expanded`` counts
        point expansions; ``touched`` how many nodes of ``sc.touched`` to reset.
    """
    indptr, indices, costs = st.indptr, st.indices, st.costs
    node_layers, dst, enter, scale = st.node_layers, st.dst, st.enter, st.scale
    work, parent, opened, group_key, touched = sc.work, sc.parent, sc.opened, sc.group_key, sc.touched
    samples, portal_nodes = st.samples, st.portal_nodes
    gx, gy = pg[0], pg[1]
    gz = pg[2] if pg.shape[0] == 3 else 0.0
    sx, sy = ps[0], ps[1]
    sz = ps[2] if ps.shape[0] == 3 else 0.0
    every = st.layers_common[0] & mask != 0  # every node is on the query's layers: skip the test
    count = 0
    cap = 1024
    keys, nodes = np.empty(cap), np.empty(cap, np.int64)
    size = 0
    for i in range(starts.shape[0]):
        count, size, keys, nodes = _seed(
            st, sc, starts[i], sx, sy, sz, gx, gy, gz, mask, count, size, keys, nodes
        )
    goal_g = math.inf
    goal_from = -1
    expanded = 0
    best, best_h = -1, math.inf
    link_groups = portal_nodes // samples
    while size > 0:
        key, grp, size = heap_pop(keys, nodes, size)
        if key != group_key[grp]:
            continue  # stale: the group was pushed again with a smaller key, or expanded since
        if goal_g <= key:
            return SEARCH_FOUND, goal_from, expanded, count
        if 0 <= budget <= expanded:
            return SEARCH_BUDGET, best, expanded, count
        group_key[grp] = math.inf
        first = grp * samples if grp < link_groups else portal_nodes + grp - link_groups
        last = first + samples if grp < link_groups else first + 1
        for u in range(first, last):
            if not opened[u]:
                continue
            opened[u] = False
            expanded += 1
            h_u = _h(work, u, gx, gy, gz)
            if h_u < best_h:
                best, best_h = u, h_u
            g_u = work[u, 0]
            for i in range(goals.shape[0]):
                if dst[u] == goals[i]:
                    cand = g_u + enter[u] + h_u * st.poly_travel[goals[i]]
                    if cand < goal_g:
                        goal_g, goal_from = cand, u
            for j in range(indptr[u], indptr[u + 1]):
                v = indices[j]
                new_g = g_u + costs[j]
                if new_g >= work[v, 0] or (not every and node_layers[v] & mask == 0):
                    continue
                if work[v, 0] == np.inf:
                    touched[count] = v
                    count += 1
                work[v, 0] = new_g
                parent[v] = u
                opened[v] = True
                f = new_g + scale * _h(work, v, gx, gy, gz)
                gv = _group(v, portal_nodes, samples)
                if f < group_key[gv]:
                    group_key[gv] = f
                    keys, nodes, size = heap_push(keys, nodes, size, f, gv)
    if goal_from >= 0:
        return SEARCH_FOUND, goal_from, expanded, count
    return SEARCH_NO_PATH, best, expanded, count
