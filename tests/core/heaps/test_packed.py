"""The grid kernels' open list: packed keys order by f, then deeper first; the heap pops in key order."""

from __future__ import annotations

import heapq
import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from python_core.heaps.packed import heap_decrease, heap_pop, heap_push, pack_key

finite = st.floats(0.0, 1e7, allow_nan=False, allow_infinity=False)


def test_sums_equal_in_exact_arithmetic_get_one_key() -> None:
    root = math.sqrt(2.0)
    assert pack_key(7 * root + 3.0, 1.0) == pack_key(3.0 + root * 7, 1.0)
    assert pack_key(1.0 + 2.0**-40, 0.5) == pack_key(1.0, 0.5)
    assert pack_key(0.1 + 0.2, 0.0) == pack_key(0.3, 0.0)


def test_equal_f_pops_the_smaller_h_first() -> None:
    # Smaller h at the same f is larger g: the deeper node, nearer the goal.
    assert pack_key(10.0, 2.0) < pack_key(10.0, 3.0) < pack_key(10.0, 10.0)
    assert pack_key(10.0, 0.0) < pack_key(10.0, 1e-300)


@given(finite, finite, finite, finite)
def test_f_decides_before_h(f1: float, f2: float, h1: float, h2: float) -> None:
    h1, h2 = min(h1, f1), min(h2, f2)
    if f1 < f2 * (1.0 - 2.0**-30):
        assert pack_key(f1, h1) < pack_key(f2, h2)
    if f1 == f2 and h1 < h2 * (1.0 - 2.0**-9):
        assert pack_key(f1, h1) < pack_key(f2, h2)


ops = st.lists(st.tuples(st.integers(0, 63), finite), min_size=1, max_size=200)


@settings(max_examples=200, deadline=None)
@given(ops)
def test_pops_come_in_key_order_after_pushes_and_decreases(entries: list[tuple[int, float]]) -> None:
    """Oracle: Python's heapq over the final key of each node (a push, or a decrease to a lower f)."""
    n = 64
    nodes, keys, pos = np.zeros(n, np.int32), np.zeros(n, np.int64), np.zeros(n, np.int32)
    final: dict[int, int] = {}
    size = 0
    for node, f in entries:
        key = pack_key(f, 0.0)
        if node not in final:
            size = heap_push(nodes, keys, pos, size, node, key)
            final[node] = key
        elif key < final[node]:
            heap_decrease(nodes, keys, pos, node, key)
            final[node] = key
    oracle = [(key, node) for node, key in final.items()]
    heapq.heapify(oracle)
    popped = []
    while size:
        node, size = heap_pop(nodes, keys, pos, size)
        popped.append(final[node])
    assert popped == sorted(key for key, _ in oracle)
    assert len(popped) == len(final)
