"""The navmesh corridor search's heap: pops in key order, grows when full, and on equal keys pops
the smaller node first whatever the order of the pushes (the corridors the navmesh tests assert)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from python_core.heaps.ordered import heap_pop, heap_push


def _pop_all(keys: np.ndarray, nodes: np.ndarray, size: int) -> list[tuple[float, int]]:
    popped = []
    while size:
        key, node, size = heap_pop(keys, nodes, size)
        popped.append((key, node))
    return popped


# Few distinct keys, so most entries tie.
entry = st.tuples(st.sampled_from([0.0, 0.5, 1.0, 2.5]), st.integers(0, 50))


@settings(max_examples=60, deadline=None)
@given(st.lists(entry, min_size=1, max_size=80))
def test_pops_by_key_then_smaller_node_and_grows_from_one_slot(entries: list[tuple[float, int]]) -> None:
    keys, nodes, size = np.empty(1), np.empty(1, np.int64), 0
    for key, node in entries:
        keys, nodes, size = heap_push(keys, nodes, size, key, node)
    assert size == len(entries)
    assert keys.shape[0] >= len(entries)
    assert _pop_all(keys, nodes, size) == sorted(entries)


def test_equal_keys_pop_the_smaller_node_first_not_in_heap_order() -> None:
    # The lazy heap pops these five ties as [0, 4, 3, 2, 1] (its own order); this one by node.
    keys, nodes, size = np.empty(8), np.empty(8, np.int64), 0
    for node in range(5):
        keys, nodes, size = heap_push(keys, nodes, size, 1.0, node)
    assert [node for _, node in _pop_all(keys, nodes, size)] == [0, 1, 2, 3, 4]
    size = 0  # emptied by the pops
    for node in (4, 1, 3, 0, 2):
        keys, nodes, size = heap_push(keys, nodes, size, 1.0, node)
    assert [node for _, node in _pop_all(keys, nodes, size)] == [0, 1, 2, 3, 4]
