"""The grid kernels' open list: an indexed 4-ary min-heap whose order is one integer compare.

Quick start::

    import numpy as np
    from python_core.heaps.packed import pack_key, heap_pop, heap_push
    nodes, keys, pos = np.zeros(4, np.int32), np.zeros(4, np.int64), np.zeros(4, np.int32)
    size = heap_push(nodes, keys, pos, 0, 2, pack_key(5.0, 1.0))
    node, size = heap_pop(nodes, keys, pos, size)   # -> (2, 0)

A key packs ``f = g + h`` and the tie-break into one int64 (:func:`pack_key`): the bits of the
float ``f`` (non-negative, so its bit pattern orders like the number) rounded to 32 significant
bits, and in the 21 low bits freed by the rounding the top bits of ``h``. Order: smaller f first,
on equal rounded f the smaller h (the larger g: the deeper node, nearer the goal). The heap of
:mod:`.indexed` compares the same order with ``g[node]`` read on every tie, a load from a
far-away array inside the sift loops; here a compare is one integer compare, and the 4-ary layout
halves the depth (its four children share a cache line of keys).

Why the rounding: sums of 1 and sqrt(2) taken in different orders differ in the last bits, so f
values that are equal in exact arithmetic would otherwise be ordered by rounding noise instead of by
the deeper-first rule, and the search would fan out over them. The rounding lets a node pop at most
one part in 2**32 of f early, so a path found is optimal to within that (2e-10 relative: below any
cost tolerance). The tie bits hold h's exponent and the top 10 bits of its significand, so ties between h
values within 0.1% of each other fall to the heap's internal order (still deterministic).

Invariants: ``nodes[:size]`` are the open nodes, ``keys[i]`` the key of ``nodes[i]``, and
``pos[node]`` the slot of an open node (stale for other nodes: the caller tracks membership, e.g.
with a per-query stamp). Decrease-key keeps each node in the heap once, so the heap never grows
past the node count.
"""

# Compiled kernels take their arguments positionally: numba.njit does not compile keywords.
# ruff: noqa: PLR0917

from __future__ import annotations

import numpy as np

from python_core._types import I32, I64
from python_core.compiled import jit

__all__ = ["heap_decrease", "heap_pop", "heap_push", "pack_key"]

_FREE_BITS = 21
"""Significand bits below the 32 kept of f's 52: they hold the tie-break."""
_ROUND = 1 << (_FREE_BITS - 1)
_KEEP = -(1 << _FREE_BITS)  # ...111000...0: clears the free bits
_TIE_SHIFT = 64 - _FREE_BITS - 1  # h's sign bit is 0: its top 21 bits after it fit the free bits
_ARITY = 4


@jit
def pack_key(f: float, h: float) -> int:
    """The heap key of an entry with total estimate ``f >= 0`` and remaining estimate ``h >= 0``.

    Example:
        >>> pack_key(3.0, 1.0) < pack_key(3.0, 2.0) < pack_key(3.0 + 1e-6, 0.0)
        True
        >>> pack_key(1.0 + 2.0**-40, 0.0) == pack_key(1.0, 0.0)   # rounding noise ties
        True
    """
    bits = np.int64(np.float64(f).view(np.int64))
    rounded = (bits + _ROUND) & _KEEP  # round half up in the bit pattern; a carry bumps the exponent
    return int(rounded | (np.int64(np.float64(h).view(np.int64)) >> _TIE_SHIFT))


@jit
def _sift_up(nodes: I32, keys: I64, pos: I32, i: int, node: int, key: int) -> None:
    """Place ``(node, key)`` at slot ``i`` or above, moving larger parents down."""
    while i > 0:
        up = (i - 1) >> 2
        up_key = keys[up]
        if key >= up_key:
            break
        nodes[i] = nodes[up]
        keys[i] = up_key
        pos[nodes[i]] = i
        i = up
    nodes[i] = node
    keys[i] = key
    pos[node] = i


@jit
def heap_push(nodes: I32, keys: I64, pos: I32, size: int, node: int, key: int) -> int:
    """Insert ``node`` (not already open) with ``key``; return the new size.

    Example:
        >>> import numpy as np
        >>> nodes, keys, pos = np.zeros(2, np.int32), np.zeros(2, np.int64), np.zeros(2, np.int32)
        >>> heap_push(nodes, keys, pos, 0, 1, pack_key(3.0, 0.0)), int(pos[1])
        (1, 0)
    """
    _sift_up(nodes, keys, pos, size, node, key)
    return size + 1


@jit
def heap_decrease(nodes: I32, keys: I64, pos: I32, node: int, key: int) -> None:
    """Lower the key of an open ``node`` to ``key`` and restore the order."""
    _sift_up(nodes, keys, pos, pos[node], node, key)


@jit
def heap_pop(nodes: I32, keys: I64, pos: I32, size: int) -> tuple[int, int]:
    """Remove the entry with the smallest key; return ``(node, new size)``. ``size`` must be > 0.

    Example:
        >>> import numpy as np
        >>> nodes, keys, pos = np.zeros(2, np.int32), np.zeros(2, np.int64), np.zeros(2, np.int32)
        >>> size = heap_push(nodes, keys, pos, 0, 0, pack_key(2.0, 0.0))
        >>> size = heap_push(nodes, keys, pos, size, 1, pack_key(1.0, 0.0))
        >>> heap_pop(nodes, keys, pos, size)
        (1, 1)
    """
    top = int(nodes[0])
    size -= 1
    if size == 0:
        return top, 0
    node, key = nodes[size], keys[size]
    i = 0
    while True:
        first = _ARITY * i + 1
        if first >= size:
            break
        child, child_key = first, keys[first]
        last = min(first + _ARITY, size)
        for c in range(first + 1, last):
            if keys[c] < child_key:
                child, child_key = c, keys[c]
        if child_key >= key:
            break
        nodes[i] = nodes[child]
        keys[i] = child_key
        pos[nodes[i]] = i
        i = child
    nodes[i] = node
    keys[i] = key
    pos[node] = i
    return top, size
