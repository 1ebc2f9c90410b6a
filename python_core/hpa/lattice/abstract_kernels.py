"""Compiled query steps of the lattice hierarchy: the abstract A*, its refinement, components.

Quick start (:class:`~python_core.hpa.lattice.LatticeHierarchy` calls these)::

    from python_core.hpa.lattice.abstract_kernels import abstract_astar, refine, components

The abstract graph is a CSR over transition cells (``indptr``, ``targets``, ``costs``: directed
costs, a step weighs the cell it enters). A query adds its start (``sources`` with their costs
from the start cell, found in the start's cluster) and its goal as a virtual node ``n`` reached
from ``tails`` (costs to the goal cell inside the goal's cluster), so one A* answers. The
heuristic is the lattice's own norm (:func:`python_core.grid.layouts.kernel._distance`) times the
least weight: no cell path is cheaper, so it stays admissible and consistent on abstract edges.
"""

# Compiled kernels take their arguments positionally: numba.njit does not compile keywords.
# ruff: noqa: PLR0917

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from python_core.compiled import jit
from python_core.grid.layouts.kernel import _distance
from python_core.heaps.packed import heap_decrease, heap_pop, heap_push, pack_key
from python_core.hpa.lattice.cluster_kernels import Lattice, cluster_of, cluster_search, move_step

__all__ = ["abstract_astar", "components", "refine"]


@jit
def abstract_astar(
    indptr: npt.NDArray[np.int64],
    targets: npt.NDArray[np.int32],
    costs: npt.NDArray[np.float64],
    node_xy: npt.NDArray[np.float64],
    facets: npt.NDArray[np.float64],
    h_scale: float,
    goal_xy: npt.NDArray[np.float64],
    sources: npt.NDArray[np.int64],
    source_g: npt.NDArray[np.float64],
    tail_nodes: npt.NDArray[np.int64],
    tail_costs: npt.NDArray[np.float64],
    tails: npt.NDArray[np.float64],
    direct: float,
    max_expansions: int,
    g: npt.NDArray[np.float64],
    parent: npt.NDArray[np.int32],
    stamp: npt.NDArray[np.int32],
    pos: npt.NDArray[np.int32],
    heap_nodes: npt.NDArray[np.int32],
    heap_keys: npt.NDArray[np.float64],
    tag: int,
) -> tuple[int, int]:
    """A* from the start's transitions to the virtual goal ``n = len(indptr) - 1``.

    ``tails`` (length ``n``, all ``inf``) is borrowed: the tail costs are written in and taken
    out again. ``direct``: the start's in-cluster cost to the goal (``inf`` when none).

    Returns:
        ``(outcome, expanded)``: 1 found (follow ``parent`` from ``n``; the start's transitions
        have parent -1, the virtual goal -1 when the direct path won), 0 no path, 2 budget.
    """
    n = indptr.shape[0] - 1
    keys = heap_keys.view(np.int64)
    closed = tag + 1
    for i in range(tail_nodes.shape[0]):
        tails[tail_nodes[i]] = tail_costs[i]
    size = 0
    if direct < math.inf:
        size = _relax(n, -1, direct, 0.0, g, parent, stamp, pos, heap_nodes, keys, size, tag)
    for i in range(sources.shape[0]):
        v = sources[i]
        h = h_scale * _distance(goal_xy[0] - node_xy[v, 0], goal_xy[1] - node_xy[v, 1], facets)
        size = _relax(v, -1, source_g[i], h, g, parent, stamp, pos, heap_nodes, keys, size, tag)
    expanded = 0
    outcome = 0
    while size > 0:
        if expanded == max_expansions:
            outcome = 2
            break
        node, size = heap_pop(heap_nodes, keys, pos, size)
        stamp[node] = closed
        if node == n:
            outcome = 1
            break
        expanded += 1
        g_node = g[node]
        if tails[node] < math.inf:  # the virtual goal's edge (the goal is open until it pops)
            size = _relax(
                n, node, g_node + tails[node], 0.0, g, parent, stamp, pos, heap_nodes, keys, size, tag
            )
        for e in range(indptr[node], indptr[node + 1]):
            nbr = targets[e]
            if stamp[nbr] == closed:
                continue
            h = h_scale * _distance(goal_xy[0] - node_xy[nbr, 0], goal_xy[1] - node_xy[nbr, 1], facets)
            size = _relax(nbr, node, g_node + costs[e], h, g, parent, stamp, pos, heap_nodes, keys, size, tag)
    for i in range(tail_nodes.shape[0]):
        tails[tail_nodes[i]] = math.inf
    return outcome, expanded


@jit
def _relax(
    node: int,
    via: int,
    new_g: float,
    h: float,
    g: npt.NDArray[np.float64],
    parent: npt.NDArray[np.int32],
    stamp: npt.NDArray[np.int32],
    pos: npt.NDArray[np.int32],
    heap_nodes: npt.NDArray[np.int32],
    keys: npt.NDArray[np.int64],
    size: int,
    tag: int,
) -> int:
    """Open ``node`` at cost ``new_g`` by ``via``, or lower its cost (an open node, not a closed
    one: the caller skips those); returns the heap's size."""
    if stamp[node] == tag:
        if new_g >= g[node]:
            return size
        g[node] = new_g
        parent[node] = via
        heap_decrease(heap_nodes, keys, pos, node, pack_key(new_g + h, h))
        return size
    stamp[node] = tag
    g[node] = new_g
    parent[node] = via
    return heap_push(heap_nodes, keys, pos, size, node, pack_key(new_g + h, h))


@jit
def refine(
    passable: npt.NDArray[np.uint8],
    weights: npt.NDArray[np.float64],
    stride: int,
    pad: int,
    csize: int,
    nx: int,
    lattice: Lattice,
    cells: npt.NDArray[np.int64],
    g: npt.NDArray[np.float64],
    parent: npt.NDArray[np.int32],
    stamp: npt.NDArray[np.int32],
    pos: npt.NDArray[np.int32],
    heap_nodes: npt.NDArray[np.int32],
    heap_keys: npt.NDArray[np.float64],
    tag: int,
) -> tuple[npt.NDArray[np.int64], float, int]:
    """The cell path through padded ``cells`` (start, transitions, goal): consecutive cells of one
    cluster joined by the cheapest path inside it, of two clusters by their one move.

    Returns:
        ``(path, cost, tag)``: padded node ids (empty when a leg has no path: a stale graph),
        the path's cost, and the last tag used.
    """
    cap = 64
    path = np.empty(cap, dtype=np.int64)
    path[0] = cells[0]
    count = 1
    cost = 0.0
    leg = np.empty(0, dtype=np.int64)
    for i in range(cells.shape[0] - 1):
        a, b = cells[i], cells[i + 1]
        if a == b:
            continue
        if cluster_of(a, stride, pad, csize, nx) != cluster_of(b, stride, pad, csize, nx):
            step = move_step(passable, stride, a, b, lattice)
            if step == math.inf:
                return np.empty(0, dtype=np.int64), math.inf, tag
            cost += step * weights[b]
            leg = np.empty(1, dtype=np.int64)
            leg[0] = b
        else:
            tag += 2
            cluster_search(
                passable, weights, stride, pad, csize, nx, lattice, a, b, False,
                g, parent, stamp, pos, heap_nodes, heap_keys, tag,
            )  # fmt: skip
            if stamp[b] != tag + 1:
                return np.empty(0, dtype=np.int64), math.inf, tag
            cost += g[b]
            length = 0
            node = b
            while node != a:
                length += 1
                node = parent[node]
            leg = np.empty(length, dtype=np.int64)
            node = b
            for j in range(length - 1, -1, -1):
                leg[j] = node
                node = parent[node]
        while count + leg.shape[0] > cap:
            cap *= 2
            path = np.concatenate((path, np.empty(cap - path.shape[0], dtype=np.int64)))
        path[count : count + leg.shape[0]] = leg
        count += leg.shape[0]
    return path[:count], cost, tag


@jit
def components(indptr: npt.NDArray[np.int64], targets: npt.NDArray[np.int32]) -> npt.NDArray[np.int32]:
    """Component number of each node of the abstract graph (edges come in both directions)."""
    n = indptr.shape[0] - 1
    label = np.full(n, -1, dtype=np.int32)
    stack = np.empty(max(n, 1), dtype=np.int64)
    count = 0
    for seed in range(n):
        if label[seed] >= 0:
            continue
        label[seed] = count
        stack[0] = seed
        top = 1
        while top > 0:
            top -= 1
            node = stack[top]
            for e in range(indptr[node], indptr[node + 1]):
                nbr = targets[e]
                if label[nbr] < 0:
                    label[nbr] = count
                    stack[top] = nbr
                    top += 1
        count += 1
    return label
