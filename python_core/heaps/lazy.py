"""A lazy binary min-heap of ``(float key, int item)`` that grows: the open list of the flow fields.

Quick start::

    import numpy as np
    from python_core.heaps.lazy import heap_pop, heap_push
    keys, items, size = np.empty(4), np.empty(4, np.int64), 0
    keys, items, size = heap_push(keys, items, size, 5.0, 2)
    key, item, size = heap_pop(keys, items, size)   # -> (5.0, 2, 0)

Lazy: an item is pushed again when its key drops and the caller skips stale entries on pop (its
settled flag or a key above the cost it holds), so there is no position index to keep, which suits
searches that touch each cell's storage a tile at a time. Order: the smaller key; equal keys pop in
the heap's own order (the same pushes give the same order, but it follows neither depth nor item).
Costs do not depend on it (the searches are Dijkstras to exact costs), but a cell keeps the
direction of the first neighbour that reached its cost, so directions on equal-cost ties do: the
order is part of what the flow field tests assert, and this heap keeps it as it was.
"""

# Compiled kernels take their arguments positionally: numba.njit does not compile keywords.

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from python_core.compiled import jit

__all__ = ["heap_pop", "heap_push"]


@jit
def heap_push(
    keys: npt.NDArray[np.float64], items: npt.NDArray[np.int64], size: int, key: float, item: int
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64], int]:
    """Push ``(key, item)``; return the arrays (new ones, twice as long, when they were full) and
    the new size.

    Example:
        >>> import numpy as np
        >>> keys, items, size = heap_push(np.empty(1), np.empty(1, np.int64), 0, 2.0, 7)
        >>> keys, items, size = heap_push(keys, items, size, 1.0, 8)   # full: grows
        >>> keys.shape[0], size
        (2, 2)
    """
    if size == keys.shape[0]:
        bigger_k = np.empty(2 * size, dtype=np.float64)
        bigger_i = np.empty(2 * size, dtype=np.int64)
        bigger_k[:size] = keys
        bigger_i[:size] = items
        keys, items = bigger_k, bigger_i
    i = size
    while i > 0:
        up = (i - 1) >> 1
        if keys[up] <= key:
            break
        keys[i], items[i] = keys[up], items[up]
        i = up
    keys[i], items[i] = key, item
    return keys, items, size + 1


@jit
def heap_pop(
    keys: npt.NDArray[np.float64], items: npt.NDArray[np.int64], size: int
) -> tuple[float, int, int]:
    """Remove the entry with the smallest key; return ``(key, item, new size)``. ``size`` must be > 0.

    Example:
        >>> import numpy as np
        >>> keys, items, size = heap_push(np.empty(2), np.empty(2, np.int64), 0, 2.0, 7)
        >>> keys, items, size = heap_push(keys, items, size, 1.0, 8)
        >>> heap_pop(keys, items, size)
        (1.0, 8, 1)
    """
    key, item = keys[0], items[0]
    size -= 1
    last_k, last_i = keys[size], items[size]
    i = 0
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and keys[child + 1] < keys[child]:
            child += 1
        if keys[child] >= last_k:
            break
        keys[i], items[i] = keys[child], items[child]
        i = child
    if size > 0:
        keys[i], items[i] = last_k, last_i
    return key, item, size
