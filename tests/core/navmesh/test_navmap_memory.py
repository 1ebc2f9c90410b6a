"""A region change rebuilds the map's mesh without graph-sized temporaries (issue 37: a region
``move`` on 64,009 polygons grew the sidecar by 690-850 MB), and the search graph built in pieces
is the graph built in one."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

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


@pytest.mark.parametrize("chunk", [1, 5, 64, 1 << 18])
def test_the_graph_built_in_pieces_is_the_graph_built_at_once(
    monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    rng = np.random.default_rng(5)
    side = 12
    region = _squares(side)
    vertices = np.asarray(region.vertices) + rng.uniform(-0.2, 0.2, (np.asarray(region.vertices).shape))
    count = side * side
    links = [
        NavLink(np.array([1.5, 1.5]), np.array([9.5, 7.5]), travel_cost=0.5),
        NavLink(np.array([2.5, 10.5]), np.array([7.5, 2.5]), bidirectional=False, enter_cost=2.0),
    ]
    kwargs = {
        "sizes": region.sizes,
        "links": links,
        "regions": np.arange(count) // 40,
        "enter_costs": rng.uniform(0, 2, count),
        "travel_costs": rng.uniform(1, 3, count),
        "layers": 1 + np.arange(count) % 3,
    }
    whole = NavMesh(vertices, region.polygons, **kwargs).search_graph  # type: ignore[arg-type]
    monkeypatch.setattr(graph, "_CHUNK_EDGES", chunk)
    pieces = NavMesh(vertices, region.polygons, **kwargs).search_graph  # type: ignore[arg-type]
    assert whole.indices.shape[0] > 1000
    for field in graph.SearchGraph.__slots__:
        a, b = getattr(whole, field), getattr(pieces, field)
        if isinstance(a, np.ndarray):
            assert a.dtype == b.dtype, field
            assert np.array_equal(a, b), field
        else:
            assert a == b, field
