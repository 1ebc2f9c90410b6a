"""An indexed binary min-heap on flat arrays: the open list of the HPA* kernels.

Quick start::

    import numpy as np
    from python_core.heaps.indexed import heap_pop, heap_push
    nodes, keys, pos, g = np.zeros(4, np.int32), np.zeros(4), np.zeros(4, np.int32), np.zeros(4)
    size = heap_push(nodes, keys, pos, g, 0, 2, 5.0)
    node, size = heap_pop(nodes, keys, pos, g, size)   # -> (2, 0)

Invariants: ``heap_nodes[:size]`` holds the open nodes, ``heap_keys[i]`` is the f value of
``heap_nodes[i]``, and ``pos[node]`` is the slot of an open node (stale for other nodes, so the
caller tracks membership itself, e.g. with a per-query stamp). Order: smaller f first; equal f pops
the larger ``g[node]`` first (the deeper node, which is nearer the goal), then the smaller node id.
That order is total, so searches are deterministic without an insertion counter. Decrease-key
keeps each node in the heap once, so the heap never grows past the node count.

Keys are stored rounded to 32 significant bits (:func:`quantize`). Sums of 1 and sqrt(2) taken in
different orders differ in the last bits, so f values that are equal in exact arithmetic (every
cell between start and goal on an open map) would otherwise be ordered by rounding noise instead
of by the deeper-first rule, and the search would fan out over all of them. The rounding can let a
node pop at most one part in 2**32 of f early, so a path found is optimal to within that
(2e-10 relative: below any cost tolerance, invisible in float32 waypoints).
"""

# Compiled kernels take their arguments positionally: numba.njit does not compile keywords.
# ruff: noqa: PLR0917

from __future__ import annotations

from typing import Any

from python_core._types import F64, I32
from python_core.compiled import jit

__all__ = ["heap_decrease", "heap_pop", "heap_push", "quantize"]


_KEY_BITS = 32


_SPLIT = float(2 ** (53 - _KEY_BITS) + 1)
"""Veltkamp's splitter for :func:`quantize`: ``x * _SPLIT`` minus ``(x * _SPLIT - x)`` is ``x`` rounded
to the ``_KEY_BITS`` high bits of its 53-bit significand."""
_SPLIT_MAX = 1e300
"""Above this a product with ``_SPLIT`` could overflow; such keys (and inf, nan) stay as they are."""


@jit
def quantize(key: float) -> float:
    """``key`` rounded to :data:`_KEY_BITS` significant bits (exact for small integers and inf).

    Three float operations (Veltkamp's split; numba compiles without fast-math, so they are not
    reassociated away), where ``frexp`` / ``floor`` / ``ldexp`` cost 11 ns a key: a tenth of a
    millisecond per 10,000 pushes, which the abstract search of HPA* makes per query on open maps.

    Example:
        >>> quantize(1.0 + 2.0**-40) == quantize(1.0) == 1.0
        True
    """
    if not abs(key) < _SPLIT_MAX:
        return key
    scaled = key * _SPLIT
    return scaled - (scaled - key)


@jit
def _before(key_a: float, node_a: int, key_b: float, node_b: int, g: Any) -> bool:
    """True when the entry (key_a, node_a) must pop before (key_b, node_b)."""
    if key_a != key_b:
        return key_a < key_b
    if g[node_a] != g[node_b]:
        return bool(g[node_a] > g[node_b])
    return node_a < node_b


@jit
def _sift_up(nodes: I32, keys: F64, pos: I32, g: F64, i: int) -> None:
    """Move the entry in slot ``i`` up to its place."""
    node, key = nodes[i], keys[i]
    while i > 0:
        up = (i - 1) >> 1
        if not _before(key, node, keys[up], nodes[up], g):
            break
        nodes[i], keys[i] = nodes[up], keys[up]
        pos[nodes[i]] = i
        i = up
    nodes[i], keys[i] = node, key
    pos[node] = i


@jit
def heap_push(nodes: I32, keys: F64, pos: I32, g: F64, size: int, node: int, key: float) -> int:
    """Insert ``node`` (not already open) with f ``key``; return the new size.

    Example:
        >>> import numpy as np
        >>> nodes, keys, pos, g = np.zeros(2, np.int32), np.zeros(2), np.zeros(2, np.int32), np.zeros(2)
        >>> heap_push(nodes, keys, pos, g, 0, 1, 3.0), int(pos[1])
        (1, 0)
    """
    nodes[size] = node
    keys[size] = quantize(key)
    _sift_up(nodes, keys, pos, g, size)
    return size + 1


@jit
def heap_decrease(nodes: I32, keys: F64, pos: I32, g: F64, node: int, key: float) -> None:
    """Lower the f of an open ``node`` to ``key`` (its ``g`` already lowered); restore the order."""
    i = pos[node]
    keys[i] = quantize(key)
    _sift_up(nodes, keys, pos, g, i)


@jit
def heap_pop(nodes: I32, keys: F64, pos: I32, g: F64, size: int) -> tuple[int, int]:
    """Remove the first entry; return ``(node, new size)``. ``size`` must be positive.

    Example:
        >>> import numpy as np
        >>> nodes, keys, pos, g = np.zeros(2, np.int32), np.zeros(2), np.zeros(2, np.int32), np.zeros(2)
        >>> size = heap_push(nodes, keys, pos, g, 0, 0, 2.0)
        >>> size = heap_push(nodes, keys, pos, g, size, 1, 1.0)
        >>> heap_pop(nodes, keys, pos, g, size)
        (1, 1)
    """
    top = int(nodes[0])
    size -= 1
    if size == 0:
        return top, 0
    node, key = nodes[size], keys[size]
    i = 0
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        right = child + 1
        if right < size and _before(keys[right], nodes[right], keys[child], nodes[child], g):
            child = right
        if not _before(keys[child], nodes[child], key, node, g):
            break
        nodes[i], keys[i] = nodes[child], keys[child]
        pos[nodes[i]] = i
        i = child
    nodes[i], keys[i] = node, key
    pos[node] = i
    return top, size
