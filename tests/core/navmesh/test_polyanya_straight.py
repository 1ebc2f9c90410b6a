"""Polyanya's landmark distances where polygons have straight (180 degree) corners on unwelded seams
(issue 40, N9): a polygon's corner at a point of the seam's other side, each side with ids of its
own. ``one_to_all`` recorded an interval's ends by the ids of the polygon it left, never by those
of the polygon it entered: those ids got the length of a detour around the map (the ring of squares
below: 32.6 instead of 6.3), and ALT read that as a lower bound. A T-junction of a plain mesh is
such a corner too. Checked against the visibility-graph optimum of the area (shapely and scipy)."""

from __future__ import annotations

import numpy as np
import pytest
import shapely

from python_core.navmesh import NavMesh
from python_core.navmesh.navmap import NavMap, NavRegion
from python_core.navmesh.polyanya import _from_vertex, build_landmarks, find_optimal_path
from python_core.navmesh.polyanya_prepare import prepare
from tests.core.navmesh.shrink_oracle import VisibilityOnArea, walkable_area


def _square(x0: float, y0: float) -> NavRegion:
    """A 6 x 6 square as one polygon with corners every 2 units: straight ones along its sides."""
    steps = (0.0, 2.0, 4.0)
    pts = [(x0 + a, y0) for a in steps] + [(x0 + 6.0, y0 + a) for a in steps]
    pts += [(x0 + 6.0 - a, y0 + 6.0) for a in steps] + [(x0, y0 + 6.0 - a) for a in steps]
    return NavRegion(np.array(pts), [list(range(12))])


def _ring_of_squares() -> NavMesh:
    """Eight such squares around a hole (6..12 x 6..12), each region with ids of its own."""
    nav = NavMap(dim=2, edge_margin=0.5)
    for k in range(9):
        if k != 4:
            nav.set_region(k, _square(6.0 * (k % 3), 6.0 * (k // 3)))
    return nav.mesh


def _t_junctions() -> NavMesh:
    """A wide room over two narrow ones (its floor's middle vertex a straight corner, the
    T-junction), each room with ids of its own; the lower two meet above a notch's tip only."""
    pts = [(0, 0), (2, 0), (4, 0), (4, 2), (0, 2), (0, -2), (1.8, -2), (2, -1), (2, 0), (0, 0)]
    pts += [(2.2, -2), (4, -2), (4, 0), (2, 0), (2, -1)]
    return NavMesh(np.array(pts, float), [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9], [10, 11, 12, 13, 14]])


def _exact_tables(mesh: NavMesh, oracle: VisibilityOnArea, every: int) -> None:
    prep = prepare(mesh)
    for source in range(0, prep.xy.shape[0], every):
        got = _from_vertex(prep, source)
        expect = [oracle.length(prep.xy[source], prep.xy[v]) for v in range(prep.xy.shape[0])]
        assert got.tolist() == pytest.approx(expect, rel=1e-9, abs=1e-9), source


def test_landmark_distances_are_exact_at_straight_corners_on_unwelded_seams() -> None:
    mesh = _ring_of_squares()
    _exact_tables(mesh, VisibilityOnArea(shapely.box(0, 0, 18, 18).difference(shapely.box(6, 6, 12, 12))), 5)


def test_landmark_distances_are_exact_at_t_junctions() -> None:
    mesh = _t_junctions()
    _exact_tables(mesh, VisibilityOnArea(walkable_area(mesh)), 1)


def test_optimal_paths_with_and_without_landmarks_equal_the_visibility_optimum_at_straight_corners() -> None:
    mesh = _ring_of_squares()
    area = shapely.box(0, 0, 18, 18).difference(shapely.box(6, 6, 12, 12))
    oracle = VisibilityOnArea(area)
    pts = np.random.default_rng(9).uniform(0.0, 18.0, size=(90, 2))
    pts = pts[shapely.contains_xy(area.buffer(-0.05), pts[:, 0], pts[:, 1])][:40]
    pts = np.vstack([prepare(mesh).xy[::3], pts])  # straight corners too
    pairs = [(s, g) for s, g in zip(pts[::2], pts[1::2], strict=True)]
    expect = [oracle.length(s, g) for s, g in pairs]
    plain = [find_optimal_path(mesh, s, g).cost for s, g in pairs]  # the query search: no such fault
    assert build_landmarks(mesh) == 16
    guided = [find_optimal_path(mesh, s, g).cost for s, g in pairs]
    assert plain == pytest.approx(expect, rel=1e-7, abs=1e-7)
    assert guided == pytest.approx(expect, rel=1e-7, abs=1e-7)
