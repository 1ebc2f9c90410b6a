"""Property tests: WaypointGraph costs equal scipy's Dijkstra on an independently built matrix."""

from __future__ import annotations

import itertools
import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from python_core.csr.waypoints import WaypointGraph
from python_core.result import PathStatus


@st.composite
def random_graphs(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, list[tuple[int, int, bool]], np.ndarray]:
    n = draw(st.integers(2, 12))
    coord = st.floats(-50, 50, allow_nan=False, allow_infinity=False).map(lambda v: round(v, 3))
    pos = np.array([[draw(coord), draw(coord)] for _ in range(n)])
    weights = np.array([draw(st.sampled_from([0.5, 1.0, 1.5, 2.0, 4.0])) for _ in range(n)])
    pairs = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1), st.booleans())
    edges = [e for e in draw(st.lists(pairs, max_size=3 * n)) if e[0] != e[1]]
    disabled = np.array([draw(st.booleans()) and draw(st.booleans()) for _ in range(n)])
    return pos, weights, edges, disabled


def oracle_matrix(pos: np.ndarray, weights: np.ndarray, edges: list[tuple[int, int, bool]],
                  disabled: np.ndarray) -> csr_matrix:  # fmt: skip
    n = pos.shape[0]
    cost = np.full((n, n), np.inf)
    for a, b, two_way in edges:
        for u, v in ((a, b), (b, a)) if two_way else ((a, b),):
            if not disabled[v]:
                cost[u, v] = math.dist(pos[u], pos[v]) * weights[v]
    dense = np.where(np.isfinite(cost), cost, 0.0)
    # a true zero-length edge would vanish from the sparse matrix: give it a tiny positive cost
    dense[np.isfinite(cost) & (cost == 0)] = 1e-300
    return csr_matrix(dense)


@settings(max_examples=150, deadline=None)
@given(random_graphs(), st.data())
def test_cost_matches_scipy_dijkstra(graph: tuple, data: st.DataObject) -> None:
    pos, weights, edges, disabled = graph
    n = pos.shape[0]
    ids = np.arange(n) * 3 + 1  # ids are not slots
    wp = WaypointGraph.from_arrays(
        ids, pos, weights, [[ids[a], ids[b]] for a, b, _ in edges],
        bidirectional=[t for _, _, t in edges] if edges else True, disabled=disabled,
    )  # fmt: skip
    dist = dijkstra(oracle_matrix(pos, weights, edges, disabled), directed=True)
    s = data.draw(st.integers(0, n - 1))
    t = data.draw(st.integers(0, n - 1))
    res = wp.find_path(int(ids[s]), int(ids[t]))
    if s == t:
        assert res.found
        assert res.cost == 0.0
        return
    expected = math.inf if disabled[s] else dist[s, t]
    if math.isinf(expected):
        assert res.status is PathStatus.NO_PATH
        return
    assert res.found
    assert res.cost == np.float64(expected) or abs(res.cost - expected) <= 1e-9 * max(1.0, expected)
    # the returned node sequence really costs what is reported
    slots = [(int(i) - 1) // 3 for i in res.nodes]
    walked = sum(math.dist(pos[u], pos[v]) * weights[v] for u, v in itertools.pairwise(slots))
    assert abs(walked - res.cost) <= 1e-9 * max(1.0, walked)
