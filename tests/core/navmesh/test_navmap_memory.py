"""A region change rebuilds the map's mesh without graph-sized temporaries (issue 37: a region
``move`` on 64,009 polygons grew the sidecar by 690-850 MB), and the search graph's compiled edges
equal a numpy reference."""

from __future__ import annotations

import tracemalloc

import numpy as np

from python_core.navmesh import NavMesh, graph
from python_core.navmesh.links import NavLink
from python_core.navmesh.navmap import NavMap, NavRegion


def _squares(side: int, offset: float = 0.0) -> NavRegion:
    """``side x side`` unit squares starting at x = ``offset`` (as bench/fault_abuse.py's navmesh)."""
    xs, ys = np.meshgrid(np.arange(side + 1), np.arange(side + 1))
    vertices = np.stack([xs.ravel() + offset, ys.ravel()], axis=1).astype(np.float64)
    y, x = np.divmod(np.arange(side * side), side)
    a = y * (side + 1) + x
    polygons = np.stack([a, a + 1, a + side + 2, a + side + 1], axis=1).reshape(-1)
    return NavRegion(vertices, polygons, sizes=np.full(side * side, 4))


def test_a_region_move_holds_little_more_than_the_new_mesh() -> None:
    side = 90
    nav = NavMap(dim=2)
    nav.set_region(1, _squares(side))
    nav.set_region(2, _squares(4, offset=side + 10))
    nav.set_link(1, NavLink(np.array([0.5, 0.5]), np.array([side + 11.5, 0.5])))
    nav.mesh  # noqa: B018 - the mesh before the move, as a loaded map has it
    nav.move_region(2, [1, 0, 0, 1, 1.0, 0])
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        moved = nav.mesh
        kept, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    kept -= before
    peak -= before
    # The old code built two search graphs (one only to attach the links) and the edges of each
    # through several graph-sized arrays: a peak of about 4.2 times the mesh it kept.
    assert peak < 1.6 * kept, f"peak {peak / 2**20:.1f} MB for a mesh of {kept / 2**20:.1f} MB"
    assert moved.find_path((0.5, 0.5), (side + 12.5, 2.5)).found


def _reference_edges(
    g: graph.SearchGraph, travel: np.ndarray, link_cost: np.ndarray
) -> tuple[np.ndarray, ...]:
    """The CSR edges by numpy alone (what the compiled search_edges must give): node ``u``
    entering ``dst[u]`` leads to every node leaving it but straight back; a link's start to its end."""
    n, m = g.node_count, link_cost.shape[0]
    link_starts = n - 2 * m
    degree = np.where(g.dst >= 0, np.diff(g.out_ptr)[np.maximum(g.dst, 0)], 0)
    u = np.repeat(np.arange(n), degree)
    local = np.arange(u.shape[0]) - np.repeat(np.cumsum(degree) - degree, degree)
    v = g.out_nodes[g.out_ptr[g.dst[u]] + local]
    back = (g.left[u] == g.right[v]) & (g.right[u] == g.left[v]) & (g.left[u] >= 0)
    u, v = u[~back], v[~back]
    cost = np.linalg.norm(g.pos[v] - g.pos[u], axis=1) * travel[g.dst[u]] + g.enter[u]
    starts = np.arange(link_starts, link_starts + m)
    u = np.concatenate([u, starts])
    v = np.concatenate([v, starts + m])
    cost = np.concatenate([cost, link_cost])
    order = np.argsort(u, kind="stable")
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(u, minlength=n), out=indptr[1:])
    return indptr, v[order], cost[order]


def test_the_compiled_edges_equal_a_numpy_reference() -> None:
    rng = np.random.default_rng(5)
    side = 12
    region = _squares(side)
    vertices = np.asarray(region.vertices) + rng.uniform(-0.2, 0.2, (np.asarray(region.vertices).shape))
    count = side * side
    links = [
        NavLink(np.array([1.5, 1.5]), np.array([9.5, 7.5]), travel_cost=0.5),
        NavLink(np.array([2.5, 10.5]), np.array([7.5, 2.5]), bidirectional=False, enter_cost=2.0),
    ]
    travel = rng.uniform(1, 3, count)
    mesh = NavMesh(
        vertices, region.polygons, sizes=region.sizes, links=links, regions=np.arange(count) // 40,
        enter_costs=rng.uniform(0, 2, count), travel_costs=travel, layers=1 + np.arange(count) % 3,
    )  # fmt: skip
    g = mesh.search_graph
    link_cost = np.array([lk.cost for lk in (links[0], links[0], links[1])])  # both ways, one way
    indptr, indices, costs = _reference_edges(g, travel, link_cost)
    assert indices.shape[0] > 1000
    assert np.array_equal(g.indptr, indptr)
    assert np.array_equal(g.indices, indices)
    assert np.allclose(g.costs, costs, rtol=1e-12, atol=0.0)
