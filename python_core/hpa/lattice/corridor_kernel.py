"""The corridor pass of the lattice hierarchy: an exact A* confined to the clusters a path crosses.

Quick start (:meth:`LatticeHierarchy.find_path <python_core.hpa.lattice.LatticeHierarchy.find_path>`
calls it on every refined path)::

    from python_core.hpa.lattice.corridor_kernel import corridor_astar

A refined HPA* path passes through one transition per border; the best path through the same
clusters may cross each border elsewhere. The search here sees every cell of those clusters (and
only them), so its path is never dearer than the refined one (which lies inside) and is usually
the optimum; it touches a few hundred cells per cluster, not the map.
"""

# Compiled kernels take their arguments positionally: numba.njit does not compile keywords.
# ruff: noqa: PLR0917

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from python_core.compiled import jit
from python_core.grid.layouts.kernel import _centre, _distance, _parity
from python_core.heaps.packed import heap_decrease, heap_pop, heap_push, pack_key
from python_core.hpa.lattice.cluster_kernels import Lattice, _allowed, cluster_of

__all__ = ["corridor_astar"]


@jit
def corridor_astar(
    passable: npt.NDArray[np.uint8],
    weights: npt.NDArray[np.float64],
    stride: int,
    pad: int,
    csize: int,
    nx: int,
    lattice: Lattice,
    inside: npt.NDArray[np.uint8],
    frame: npt.NDArray[np.float64],
    facets: npt.NDArray[np.float64],
    h_scale: float,
    start: int,
    goal: int,
    g: npt.NDArray[np.float64],
    parent: npt.NDArray[np.int32],
    stamp: npt.NDArray[np.int32],
    pos: npt.NDArray[np.int32],
    heap_nodes: npt.NDArray[np.int32],
    heap_keys: npt.NDArray[np.float64],
    tag: int,
) -> tuple[npt.NDArray[np.int64], float]:
    """A* from ``start`` to ``goal`` over cells whose cluster has ``inside[c] != 0``.

    ``frame``: the lattice search's affine centre map (:func:`python_core.grid.layouts.kernel._centre`).

    Returns:
        ``(path, cost)``: padded node ids, or an empty path and ``inf`` when the corridor has none.
    """
    moves, steps, n_moves, axis, shift = lattice[0], lattice[1], lattice[4], lattice[6], lattice[7]
    keys = heap_keys.view(np.int64)
    closed = tag + 1
    gx, gy = _centre(goal, stride, frame, axis, shift)
    g[start] = 0.0
    parent[start] = -1
    stamp[start] = tag
    size = heap_push(heap_nodes, keys, pos, 0, start, pack_key(0.0, 0.0))
    found = False
    while size > 0:
        node, size = heap_pop(heap_nodes, keys, pos, size)
        stamp[node] = closed
        if node == goal:
            found = True
            break
        g_node = g[node]
        p = _parity(node, stride, axis, shift)
        for k in range(n_moves):
            nbr = node + moves[p, k]
            if not passable[nbr] or not inside[cluster_of(nbr, stride, pad, csize, nx)]:
                continue
            if not _allowed(passable, node, p, k, lattice):
                continue
            mark = stamp[nbr]
            if mark == closed:
                continue
            new_g = g_node + steps[p, k] * weights[nbr]
            if mark == tag and new_g >= g[nbr]:
                continue
            g[nbr] = new_g
            parent[nbr] = node
            cx, cy = _centre(nbr, stride, frame, axis, shift)
            h = h_scale * _distance(gx - cx, gy - cy, facets)
            if mark == tag:
                heap_decrease(heap_nodes, keys, pos, nbr, pack_key(new_g + h, h))
            else:
                stamp[nbr] = tag
                size = heap_push(heap_nodes, keys, pos, size, nbr, pack_key(new_g + h, h))
    if not found:
        return np.empty(0, dtype=np.int64), math.inf
    count = 1
    node = goal
    while parent[node] >= 0:
        node = parent[node]
        count += 1
    path = np.empty(count, dtype=np.int64)
    node = goal
    for i in range(count - 1, -1, -1):
        path[i] = node
        node = parent[node]
    return path, g[goal]
