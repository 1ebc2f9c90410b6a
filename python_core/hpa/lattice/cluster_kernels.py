"""Compiled work inside one cluster of a tile lattice: searches, component labels, border crossings.

Quick start (:class:`~python_core.hpa.lattice.LatticeHierarchy` calls these)::

    from python_core.hpa.lattice.cluster_kernels import cluster_search, local_labels, crossings

The grid is the padded copy the lattice's exact search uses (:mod:`python_core.grid.layouts.kernel`):
node ``row * stride + col``, cell ``(col - pad, row - pad)``, a blocked border ``pad`` cells wide,
moves per parity class, corners under the diagonal rule. A cluster is a ``csize`` x ``csize``
block of MAP cells (grid cells): cluster ``(x // csize, y // csize)``, numbered row by row. Every
search here stays inside the cluster of its source. The ``lattice`` argument packs the move table
as one tuple: ``(moves, steps, corner_sides, n_sides, n_moves, diagonal, parity_axis, parity_shift)``.
A move and its reverse join the same two cells with the same length, and the diagonal rule looks
at the same two side cells either way, so a reverse search (``reverse=True``: ``g`` is the cost
from a node TO the source, each step weighing the cell it enters on the forward way) walks the
same moves.
"""

# Compiled kernels take their arguments positionally: numba.njit does not compile keywords.
# ruff: noqa: PLR0917

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from python_core._types import DIAG_ALWAYS, DIAG_AT_LEAST_ONE_WALKABLE
from python_core.compiled import jit
from python_core.grid.layouts.kernel import _parity
from python_core.heaps.packed import heap_decrease, heap_pop, heap_push, pack_key

__all__ = ["cluster_of", "cluster_search", "crossings", "intra_costs", "local_labels", "move_step"]

Lattice = tuple[Any, ...]
"""``(moves, steps, corner_sides, n_sides, n_moves, diagonal, parity_axis, parity_shift)``."""


@jit
def cluster_of(node: int, stride: int, pad: int, csize: int, nx: int) -> int:
    """The cluster number of a padded node."""
    row = node // stride
    return ((row - pad) // csize) * nx + (node - row * stride - pad) // csize


@jit
def _allowed(passable: npt.NDArray[np.uint8], node: int, p: int, k: int, lattice: Lattice) -> bool:
    """Whether move ``k`` of a class-``p`` node is open: its target is, and a corner obeys the rule."""
    moves, corner_sides, n_sides, diagonal = lattice[0], lattice[2], lattice[3], lattice[5]
    if not passable[node + moves[p, k]]:
        return False
    if k < n_sides or diagonal == DIAG_ALWAYS:
        return True
    # Godot's diagonal rule over the two side cells beside the corner
    a = passable[node + moves[p, corner_sides[p, k - n_sides, 0]]]
    b = passable[node + moves[p, corner_sides[p, k - n_sides, 1]]]
    return bool(a or b) if diagonal == DIAG_AT_LEAST_ONE_WALKABLE else bool(a and b)


@jit
def move_step(passable: npt.NDArray[np.uint8], stride: int, a: int, b: int, lattice: Lattice) -> float:
    """World length of the open move from ``a`` to ``b``; ``inf`` when none joins them."""
    moves, steps, n_moves, axis, shift = lattice[0], lattice[1], lattice[4], lattice[6], lattice[7]
    p = _parity(a, stride, axis, shift)
    for k in range(n_moves):
        if a + moves[p, k] == b and _allowed(passable, a, p, k, lattice):
            return float(steps[p, k])
    return math.inf


@jit
def cluster_search(
    passable: npt.NDArray[np.uint8],
    weights: npt.NDArray[np.float64],
    stride: int,
    pad: int,
    csize: int,
    nx: int,
    lattice: Lattice,
    source: int,
    stop: int,
    reverse: bool,
    g: npt.NDArray[np.float64],
    parent: npt.NDArray[np.int32],
    stamp: npt.NDArray[np.int32],
    pos: npt.NDArray[np.int32],
    heap_nodes: npt.NDArray[np.int32],
    heap_keys: npt.NDArray[np.float64],
    tag: int,
) -> int:
    """Dijkstra from ``source`` over the moves that stay in its cluster.

    Afterwards ``stamp[n] == tag + 1`` marks the settled nodes, ``g[n]`` their cost (from the
    source, or with ``reverse`` to it) and ``parent[n]`` the previous node (-1 at the source).
    ``stop >= 0`` ends the search when that node settles. Returns the nodes settled.
    """
    moves, steps, n_moves, axis, shift = lattice[0], lattice[1], lattice[4], lattice[6], lattice[7]
    keys = heap_keys.view(np.int64)
    closed = tag + 1
    home = cluster_of(source, stride, pad, csize, nx)
    row0 = pad + (home // nx) * csize
    col0 = pad + (home % nx) * csize
    g[source] = 0.0
    parent[source] = -1
    stamp[source] = tag
    size = heap_push(heap_nodes, keys, pos, 0, source, pack_key(0.0, 0.0))
    settled = 0
    while size > 0:
        node, size = heap_pop(heap_nodes, keys, pos, size)
        stamp[node] = closed
        settled += 1
        if node == stop:
            break
        g_node = g[node]
        p = _parity(node, stride, axis, shift)
        for k in range(n_moves):
            nbr = node + moves[p, k]
            row = nbr // stride
            col = nbr - row * stride
            if row < row0 or row >= row0 + csize or col < col0 or col >= col0 + csize:
                continue  # the padding is blocked, so the grid's edge needs no test of its own
            if not _allowed(passable, node, p, k, lattice):
                continue
            mark = stamp[nbr]
            if mark == closed:
                continue
            new_g = g_node + steps[p, k] * (weights[node] if reverse else weights[nbr])
            if mark == tag and new_g >= g[nbr]:
                continue
            g[nbr] = new_g
            parent[nbr] = node
            if mark == tag:
                heap_decrease(heap_nodes, keys, pos, nbr, pack_key(new_g, 0.0))
            else:
                stamp[nbr] = tag
                size = heap_push(heap_nodes, keys, pos, size, nbr, pack_key(new_g, 0.0))
    return settled


@jit
def intra_costs(
    passable: npt.NDArray[np.uint8],
    weights: npt.NDArray[np.float64],
    stride: int,
    pad: int,
    csize: int,
    nx: int,
    lattice: Lattice,
    nodes: npt.NDArray[np.int64],
    offsets: npt.NDArray[np.int64],
    out_offsets: npt.NDArray[np.int64],
    out: npt.NDArray[np.float64],
    g: npt.NDArray[np.float64],
    parent: npt.NDArray[np.int32],
    stamp: npt.NDArray[np.int32],
    pos: npt.NDArray[np.int32],
    heap_nodes: npt.NDArray[np.int32],
    heap_keys: npt.NDArray[np.float64],
    tag: int,
) -> int:
    """For each group ``nodes[offsets[c]:offsets[c + 1]]`` (one cluster's transitions), the
    ``n x n`` matrix of in-cluster costs, row = from, written row-major at ``out[out_offsets[c]:]``
    (``inf``: no path inside the cluster). Returns the last tag used."""
    for c in range(offsets.shape[0] - 1):
        lo, hi = offsets[c], offsets[c + 1]
        n = hi - lo
        base = out_offsets[c]
        for i in range(n):
            tag += 2
            cluster_search(
                passable, weights, stride, pad, csize, nx, lattice, nodes[lo + i], -1, False,
                g, parent, stamp, pos, heap_nodes, heap_keys, tag,
            )  # fmt: skip
            for j in range(n):
                target = nodes[lo + j]
                out[base + i * n + j] = g[target] if stamp[target] == tag + 1 else math.inf
    return tag


@jit
def local_labels(
    passable: npt.NDArray[np.uint8],
    stride: int,
    pad: int,
    csize: int,
    nx: int,
    width: int,
    height: int,
    lattice: Lattice,
    clusters: npt.NDArray[np.int64],
    labels: npt.NDArray[np.int64],
    stack: npt.NDArray[np.int64],
) -> None:
    """Label the cells of the given clusters by their component inside the cluster: a component's
    label is its first cell's padded id (unique across clusters); walls get -1."""
    moves, n_moves, axis, shift = lattice[0], lattice[4], lattice[6], lattice[7]
    for c in clusters:
        row0 = pad + (c // nx) * csize
        col0 = pad + (c % nx) * csize
        row1 = min(row0 + csize, pad + height)
        col1 = min(col0 + csize, pad + width)
        for row in range(row0, row1):
            for col in range(col0, col1):
                labels[row * stride + col] = -2  # not labelled yet
        for row in range(row0, row1):
            for col in range(col0, col1):
                seed = row * stride + col
                if labels[seed] != -2:
                    continue
                if not passable[seed]:
                    labels[seed] = -1
                    continue
                labels[seed] = seed
                top = 0
                stack[0] = seed
                top = 1
                while top > 0:
                    top -= 1
                    node = stack[top]
                    p = _parity(node, stride, axis, shift)
                    for k in range(n_moves):
                        nbr = node + moves[p, k]
                        r = nbr // stride
                        q = nbr - r * stride
                        if r < row0 or r >= row1 or q < col0 or q >= col1 or labels[nbr] != -2:
                            continue
                        if _allowed(passable, node, p, k, lattice):
                            labels[nbr] = seed
                            stack[top] = nbr
                            top += 1


@jit
def crossings(
    passable: npt.NDArray[np.uint8],
    stride: int,
    pad: int,
    csize: int,
    nx: int,
    width: int,
    height: int,
    lattice: Lattice,
    clusters: npt.NDArray[np.int64],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """Every open move from a cell of the given clusters into another cluster: ``(a, b, length)``
    with ``a`` in the lower-numbered of the two clusters (a crossing found from both sides comes
    twice; the caller drops the copy)."""
    moves, steps, n_moves, axis, shift = lattice[0], lattice[1], lattice[4], lattice[6], lattice[7]
    count = 0
    cap = 64
    out_a = np.empty(cap, dtype=np.int64)
    out_b = np.empty(cap, dtype=np.int64)
    out_s = np.empty(cap, dtype=np.float64)
    for c in clusters:
        row0 = pad + (c // nx) * csize
        col0 = pad + (c % nx) * csize
        for row in range(row0, min(row0 + csize, pad + height)):
            for col in range(col0, min(col0 + csize, pad + width)):
                node = row * stride + col
                if not passable[node]:
                    continue
                p = _parity(node, stride, axis, shift)
                for k in range(n_moves):
                    nbr = node + moves[p, k]
                    other = cluster_of(nbr, stride, pad, csize, nx)
                    if other == c or not _allowed(passable, node, p, k, lattice):
                        continue
                    if count == cap:
                        cap *= 2
                        out_a = np.concatenate((out_a, np.empty(cap - count, dtype=np.int64)))
                        out_b = np.concatenate((out_b, np.empty(cap - count, dtype=np.int64)))
                        out_s = np.concatenate((out_s, np.empty(cap - count, dtype=np.float64)))
                    low = other > c
                    out_a[count] = node if low else nbr
                    out_b[count] = nbr if low else node
                    out_s[count] = steps[p, k]
                    count += 1
    return out_a[:count], out_b[:count], out_s[:count]
