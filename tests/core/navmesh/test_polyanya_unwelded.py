"""Polyanya's exact paths on a map of regions whose border vertices are not welded (several vertex
ids on one point): with landmarks built it gave a too long path (N4's repro, issue 40); such a
mesh now gets no landmarks and plain Polyanya's exact answer."""

from __future__ import annotations

import numpy as np

from python_core.navmesh.navmap import NavMap
from python_core.navmesh.polyanya import build_landmarks, find_optimal_path, landmark_count
from tests.core.navmesh.test_mesh_patch import tile


def test_unwelded_region_corners_keep_the_exact_length() -> None:
    nav = NavMap(dim=2, edge_margin=0.5)
    for k in range(9):
        if k != 4:  # a ring of tiles around a hole
            nav.set_region(k, tile(6.0 * (k % 3), 6.0 * (k // 3)))
    mesh = nav.mesh
    start, goal = np.array([15.18823012, 17.81247239]), np.array([10.27232615, 3.94149644])
    plain = find_optimal_path(mesh, start, goal).cost
    assert build_landmarks(mesh) == 0
    assert landmark_count(mesh) == 0
    assert find_optimal_path(mesh, start, goal).cost == plain
    corner = np.array([12.0, 6.0])  # straight to the hole's corner and on: the shortest path
    expected = np.linalg.norm(corner - start) + np.linalg.norm(goal - corner)
    assert np.isclose(plain, expected)
