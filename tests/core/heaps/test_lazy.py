"""The flow fields' lazy heap: pops in key order, grows when full, and keeps its own
order on equal keys (the order the flow field's directions on ties were asserted with)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from python_core.heaps.lazy import heap_pop, heap_push


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0.0, 1e6, allow_nan=False), min_size=1, max_size=80))
def test_pops_keys_in_order_and_grows_from_one_slot(values: list[float]) -> None:
    keys, items, size = np.empty(1), np.empty(1, np.int64), 0
    for item, key in enumerate(values):
        keys, items, size = heap_push(keys, items, size, key, item)
    assert size == len(values)
    assert keys.shape[0] >= len(values)
    popped = []
    while size:
        key, item, size = heap_pop(keys, items, size)
        assert values[item] == key
        popped.append(key)
    assert popped == sorted(values)


def test_equal_keys_pop_in_the_heaps_own_order() -> None:
    keys, items, size = np.empty(8), np.empty(8, np.int64), 0
    for item in range(5):
        keys, items, size = heap_push(keys, items, size, 1.0, item)
    order = []
    while size:
        _, item, size = heap_pop(keys, items, size)
        order.append(item)
    assert order == [0, 4, 3, 2, 1]
