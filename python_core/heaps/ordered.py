"""A lazy binary min-heap of ``(float key, int node)`` that grows, ties to the smaller node: the
navmesh corridor search's open list.

Quick start::

    import numpy as np
    from python_core.heaps.ordered import heap_pop, heap_push
    keys, nodes, size = np.empty(4), np.empty(4, np.int64), 0
    keys, nodes, size = heap_push(keys, nodes, size, 5.0, 2)
    key, node, size = heap_pop(keys, nodes, size)   # -> (5.0, 2, 0)

Lazy like :mod:`.lazy`: a node is pushed again when its key drops and the caller skips stale
entries on pop. Order: the smaller key; equal keys pop the smaller node first, a total order, so
the pops do not depend on the order of the pushes. The navmesh corridor search pushes groups of
portal points whose keys often tie (points of one portal at the same distance); which group pops
first decides which of two equal-cost corridors a query returns, and the navmesh tests assert
those corridors.
"""

# Compiled kernels take their arguments positionally: numba.njit does not compile keywords.

from __future__ import annotations

import numpy as np

from python_core._types import F64, I64
from python_core.compiled import jit

__all__ = ["heap_pop", "heap_push"]


@jit
def heap_push(keys: F64, nodes: I64, size: int, f: float, node: int) -> tuple[F64, I64, int]:
    """Push ``(f, node)``; return the arrays (new ones, twice as long, when they were full) and
    the new size. Equal keys pop the smaller node first, so results do not depend on push order.

    Example:
        >>> import numpy as np
        >>> keys, nodes, size = heap_push(np.empty(1), np.empty(1, np.int64), 0, 1.0, 9)
        >>> keys, nodes, size = heap_push(keys, nodes, size, 1.0, 3)   # full: grows
        >>> keys.shape[0], size, int(nodes[0])
        (2, 2, 3)
    """
    if size == keys.shape[0]:
        keys = np.concatenate((keys, np.empty(size)))
        nodes = np.concatenate((nodes, np.empty(size, np.int64)))
    i = size
    while i > 0:
        up = (i - 1) >> 1
        if keys[up] < f or (keys[up] == f and nodes[up] <= node):
            break
        keys[i], nodes[i] = keys[up], nodes[up]
        i = up
    keys[i], nodes[i] = f, node
    return keys, nodes, size + 1


@jit
def heap_pop(keys: F64, nodes: I64, size: int) -> tuple[float, int, int]:
    """Remove the smallest entry (of equal keys, the smaller node); return ``(key, node, new
    size)``. ``size`` must be > 0.

    Example:
        >>> import numpy as np
        >>> keys, nodes, size = heap_push(np.empty(2), np.empty(2, np.int64), 0, 2.0, 7)
        >>> keys, nodes, size = heap_push(keys, nodes, size, 2.0, 4)
        >>> heap_pop(keys, nodes, size)
        (2.0, 4, 1)
    """
    key, node = keys[0], nodes[0]
    size -= 1
    f, n = keys[size], nodes[size]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        if c + 1 < size and (keys[c + 1] < keys[c] or (keys[c + 1] == keys[c] and nodes[c + 1] < nodes[c])):
            c += 1
        if keys[c] > f or (keys[c] == f and nodes[c] >= n):
            break
        keys[i], nodes[i] = keys[c], nodes[c]
        i = c
    keys[i], nodes[i] = f, n
    return key, node, size
