"""The fast kernels' open list: key rounding, and the deeper-first tie-break it makes effective."""

from __future__ import annotations

import math

import numpy as np
import pytest

from python_core import compiled
from python_core.grid import GridGraph
from python_core.grid.search import dispatch
from python_core.heaps.indexed import heap_pop, heap_push, quantize


def test_quantize_rounds_noise_away_and_keeps_exact_values() -> None:
    assert quantize(1.0 + 2.0**-40) == 1.0
    assert quantize(3.0) == 3.0
    assert quantize(0.0) == 0.0
    assert quantize(math.inf) == math.inf
    root = math.sqrt(2.0)
    assert abs(quantize(root) - root) <= root * 2.0**-32
    assert quantize(7 * root + 3.0) == quantize(3.0 + root * 7)  # sums in another order tie


def test_equal_keys_pop_the_deeper_node_first() -> None:
    nodes, keys, pos = np.zeros(3, np.int32), np.zeros(3), np.zeros(3, np.int32)
    g = np.array([1.0, 5.0, 3.0])
    size = 0
    for node, key in ((0, 10.0), (1, 10.0 + 1e-13), (2, 10.0 - 1e-13)):  # equal up to rounding noise
        size = heap_push(nodes, keys, pos, g, size, node, key)
    order = []
    while size:
        node, size = heap_pop(nodes, keys, pos, g, size)
        order.append(node)
    assert order == [1, 2, 0]


@pytest.mark.parametrize("method", ["astar", "jps"])
def test_open_ground_is_crossed_without_fanning_out(method: dispatch.Method) -> None:
    # Every cell of the parallelogram between start and goal has the same exact f; with ties
    # ordered by rounding noise A* expanded a large share of it, deeper-first walks straight on.
    grid = GridGraph(np.ones((200, 300), dtype=bool), diagonal="only_if_no_obstacles")
    result = dispatch.find_path(grid, (0, 0), (299, 130), method=method)
    assert result.cost == pytest.approx(169 + 130 * math.sqrt(2.0))
    assert result.expanded <= 2 * len(result.points)


def test_compiled_code_is_cached_per_source_version() -> None:
    if not compiled.JIT_ENABLED:
        pytest.skip("numba disabled by ASTAR_BRIDGE_NO_JIT")
    import numba

    assert numba.config.CACHE_DIR.endswith(f"numba-{compiled._sources_hash(numba.__version__)}")
    assert compiled._sources_hash("0.0") != compiled._sources_hash(numba.__version__)
