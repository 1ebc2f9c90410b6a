"""Conformal meshes: shared edges, T-junctions, partial overlaps and region borders within a margin."""

from __future__ import annotations

import numpy as np
import pytest

from python_core.navmesh import NavMesh
from python_core.navmesh.build import corner_links
from python_core.result import PathStatus


def _one_neighbour_per_edge(mesh: NavMesh) -> None:
    """Every edge with a neighbour has exactly that neighbour's reversed edge (within 1e-6)."""
    twin = mesh._twin
    _, nxt = corner_links(mesh.poly_ptr)
    for c in np.flatnonzero(twin >= 0):
        t = twin[c]
        assert twin[t] == c
        a, b = mesh.vertices[mesh.poly_verts[c]], mesh.vertices[mesh.poly_verts[nxt[c]]]
        p, q = mesh.vertices[mesh.poly_verts[t]], mesh.vertices[mesh.poly_verts[nxt[t]]]
        assert np.allclose(a, q, atol=1e-6)
        assert np.allclose(b, p, atol=1e-6)


def test_t_junction_splits_the_long_edge_and_joins_both_neighbours() -> None:
    # square 0's right edge x = 2 meets two squares that share the vertex (2, 1) on it
    verts = [[0, 0], [2, 0], [2, 2], [0, 2], [3, 0], [3, 1], [2, 1], [3, 2]]
    mesh = NavMesh(verts, [[0, 1, 2, 3], [1, 4, 5, 6], [6, 5, 7, 2]])
    assert mesh.polygon(0).tolist() == [0, 1, 6, 2, 3]  # the junction's vertex is reused
    assert sorted(set(mesh.neighbours[mesh.poly_ptr[0] : mesh.poly_ptr[1]].tolist())) == [-1, 1, 2]
    _one_neighbour_per_edge(mesh)
    assert mesh.find_path((0.5, 1.5), (2.5, 0.5)).found
    assert mesh.find_path((0.5, 0.5), (2.5, 1.5)).nodes.tolist() == [0, 2]


def test_partially_overlapping_edges_join_along_the_overlap_only() -> None:
    # square 1 is shifted up by 1: its left edge overlaps square 0's right edge on y in [1, 2]
    verts = [[0, 0], [2, 0], [2, 2], [0, 2], [2, 1], [4, 1], [4, 3], [2, 3]]
    mesh = NavMesh(verts, [[0, 1, 2, 3], [4, 5, 6, 7]])
    assert mesh.vertices.shape[0] == 8  # both splits reuse the other edge's end
    _one_neighbour_per_edge(mesh)
    assert mesh.find_path((1.0, 0.5), (3.0, 2.5)).points.shape[0] == 2  # straight across
    res = mesh.find_path((0.5, 0.2), (2.2, 2.9))
    assert res.found
    assert res.points.tolist()[1:-1] == [[2.0, 2.0]]  # bends at the overlap's upper end


def test_overlap_within_one_region_needs_touching_edges() -> None:
    verts = [[0, 0], [2, 0], [2, 2], [0, 2], [2.3, 1], [4, 1], [4, 3], [2.3, 3]]
    same = NavMesh(verts, [[0, 1, 2, 3], [4, 5, 6, 7]], edge_margin=1.0)
    assert same.find_path((1, 1.5), (3, 1.5)).status is PathStatus.NO_PATH  # margin: regions only
    two = NavMesh(verts, [[0, 1, 2, 3], [4, 5, 6, 7]], edge_margin=1.0, regions=[0, 1])
    res = two.find_path((1, 1.5), (3, 1.5))
    assert res.found
    _one_neighbour_per_edge_pairs = two.neighbours[two.neighbours >= 0].tolist()
    assert sorted(_one_neighbour_per_edge_pairs) == [0, 1]
    tight = NavMesh(verts, [[0, 1, 2, 3], [4, 5, 6, 7]], edge_margin=0.2, regions=[0, 1])
    assert tight.find_path((1, 1.5), (3, 1.5)).status is PathStatus.NO_PATH


def test_a_3d_junction_splits_in_3d() -> None:
    verts = [[0, 0, 0], [2, 0, 0], [2, 0, 2], [0, 0, 2], [3, 0, 0], [3, 0, 1], [2, 0, 1], [3, 0, 2]]
    mesh = NavMesh(verts, [[0, 1, 2, 3], [1, 4, 5, 6], [6, 5, 7, 2]], up_axis=1)
    _one_neighbour_per_edge(mesh)
    assert mesh.find_path((0.5, 0, 1.5), (2.5, 0, 0.5)).found


@pytest.mark.parametrize("margin", [-1.0, float("nan")])
def test_bad_margin_is_rejected(margin: float) -> None:
    from python_core.errors import InvalidGraphError

    with pytest.raises(InvalidGraphError, match="edge_margin"):
        NavMesh([[0, 0], [1, 0], [1, 1]], [[0, 1, 2]], edge_margin=margin)
