"""Polyanya's open list: a 4-ary min-heap on flat arrays, ordered as the tuples ``(f, -g, node)``.

Quick start::

    import numpy as np
    from python_core.navmesh.polyanya_open import open_list, open_pop, open_push
    keys, nodes = open_list(4)
    size = open_push(keys, nodes, 0, 2.0, -1.0, 7)
    node, size = open_pop(keys, nodes, size)   # -> (7, 0)

Why not ``heapq`` on a list of tuples: in compiled code each push and pop went through the list's
boxed tuples, a large share of a search on aurora. The order is the same total order (``node`` is
unique), so the nodes pop in exactly the order ``heapq`` popped them: the same paths, the same
``expanded`` counts. Not one of :mod:`python_core.heaps`: none of them orders by this triple.
"""

from __future__ import annotations

import numpy as np

from python_core._types import F64, I64
from python_core.compiled import jit
from python_core.navmesh.polyanya_intervals import helper_jit

__all__ = ["open_list", "open_pop", "open_push"]

_ARITY = 4


@jit
def open_list(capacity: int) -> tuple[F64, I64]:
    """An empty open list with room for ``capacity`` entries: keys ``(f, -g)`` and nodes."""
    return np.empty((max(capacity, 1), 2)), np.empty(max(capacity, 1), dtype=np.int64)


@helper_jit
def _before(keys: F64, nodes: I64, i: int, f: float, ng: float, node: int) -> bool:  # noqa: PLR0917 - numba kernel
    """Whether entry ``i`` comes before ``(f, ng, node)``."""
    if keys[i, 0] != f:
        return bool(keys[i, 0] < f)
    if keys[i, 1] != ng:
        return bool(keys[i, 1] < ng)
    return bool(nodes[i] < node)


@helper_jit
def open_push(  # noqa: PLR0917 - numba kernel
    keys: F64, nodes: I64, size: int, f: float, ng: float, node: int
) -> int:
    """Insert ``node`` with total estimate ``f`` and ``ng = -g`` (room left: ``size`` below the
    arrays' length); the new size."""
    i = size
    while i > 0:
        up = (i - 1) // _ARITY
        if _before(keys, nodes, up, f, ng, node):
            break
        keys[i, 0], keys[i, 1], nodes[i] = keys[up, 0], keys[up, 1], nodes[up]
        i = up
    keys[i, 0], keys[i, 1], nodes[i] = f, ng, node
    return size + 1


@helper_jit
def open_pop(keys: F64, nodes: I64, size: int) -> tuple[int, int]:
    """Remove the first entry (``size`` > 0); return its node and the new size."""
    top = int(nodes[0])
    size -= 1
    if size == 0:
        return top, 0
    f, ng, node = keys[size, 0], keys[size, 1], nodes[size]
    i = 0
    while True:
        first = _ARITY * i + 1
        if first >= size:
            break
        child = first
        for c in range(first + 1, min(first + _ARITY, size)):
            if _before(keys, nodes, c, keys[child, 0], keys[child, 1], nodes[child]):
                child = c
        if not _before(keys, nodes, child, f, ng, node):
            break
        keys[i, 0], keys[i, 1], nodes[i] = keys[child, 0], keys[child, 1], nodes[child]
        i = child
    keys[i, 0], keys[i, 1], nodes[i] = f, ng, node
    return top, size
