"""Navigation maps: regions and links by id, updates without a reload, layers, costs, location."""

from __future__ import annotations

import math

import numpy as np
import pytest

from python_core.errors import InvalidGraphError, InvalidQueryError, UnsupportedOperationError
from python_core.navigation import (
    MoveRegion,
    NavMeshNavigator,
    RemoveLink,
    RemoveRegion,
    SetLink,
    SetLinkEnabled,
    SetRegion,
    SetRegionCosts,
    SetRegionLayers,
)
from python_core.navmesh import NavMesh
from python_core.navmesh.links import NavLink
from python_core.navmesh.navmap import NavMap, NavRegion
from python_core.result import PathStatus, QueryOptions

SQUARE = [[0, 0], [10, 0], [10, 10], [0, 10]]


def _map() -> NavMap:
    nav = NavMap(dim=2)
    nav.set_region(1, NavRegion(SQUARE, [[0, 1, 2, 3]]))
    nav.set_region(2, NavRegion(SQUARE, [[0, 1, 2, 3]], transform=[1, 0, 0, 1, 10, 0]))
    return nav


def test_regions_placed_by_their_transform_join_along_the_shared_border() -> None:
    res = _map().mesh.find_path((5, 5), (15, 5))
    assert res.found
    assert res.cost == pytest.approx(10.0)


def test_updates_add_move_remove_regions_and_toggle_links() -> None:
    nav = NavMeshNavigator(_map())
    nav.apply([SetRegion(3, NavRegion(SQUARE, [[0, 1, 2, 3]], transform=[1, 0, 0, 1, 40, 0]))])
    assert nav.find_path(nav.resolve((5, 5)), nav.resolve((45, 5))).status is PathStatus.NO_PATH
    nav.apply([SetLink(7, NavLink(np.array([18.0, 5.0]), np.array([42.0, 5.0]), bidirectional=False))])
    over = nav.find_path(nav.resolve((5, 5)), nav.resolve((45, 5)))
    assert over.found
    assert over.cost == pytest.approx(40.0)
    assert nav.find_path(nav.resolve((45, 5)), nav.resolve((5, 5))).status is PathStatus.NO_PATH
    before = nav.mesh
    nav.apply([SetLinkEnabled(7, False)])
    assert nav.mesh is before  # switched in place, nothing rebuilt
    assert nav.find_path(nav.resolve((5, 5)), nav.resolve((45, 5))).status is PathStatus.NO_PATH
    nav.apply([SetLinkEnabled(7, True), MoveRegion(3, [1, 0, 0, 1, 20, 0])])  # now it touches region 2
    moved = nav.find_path(nav.resolve((5, 5)), nav.resolve((25, 5)))
    assert moved.found
    assert moved.cost == pytest.approx(20.0)
    nav.apply([RemoveRegion(2), RemoveLink(7)])
    assert nav.find_path(nav.resolve((5, 5)), nav.resolve((25, 5))).status is PathStatus.NO_PATH
    small = {"mode": "funnel", "reason": "small", "funnel_us": 0.0, "optimal_us": 0.0}  # not probed
    assert nav.describe() == {"default_mode": small, "obstacles": 0, "regions": 2, "links": 0}


def test_a_failed_batch_changes_nothing() -> None:
    nav = NavMeshNavigator(_map())
    mesh = nav.mesh
    with pytest.raises(InvalidGraphError, match="no region 9"):
        nav.apply([SetRegionLayers(1, 2), RemoveRegion(9)])
    assert nav.mesh is mesh
    assert nav.mesh.layers.tolist() == [1, 1]
    with pytest.raises(InvalidGraphError, match="not convex"):
        nav.apply([SetRegion(4, NavRegion([[0, 0], [2, 0], [1, 0.2], [2, 2], [0, 2]], [[0, 1, 2, 3, 4]]))])
    assert nav.mesh is mesh
    assert nav.find_path(nav.resolve((5, 5)), nav.resolve((15, 5))).found


def test_layers_change_in_place_and_filter_location() -> None:
    nav = NavMeshNavigator(_map())
    nav.apply([SetRegionLayers(2, 4)])
    only_first = QueryOptions(layers=1)
    res = nav.find_path(nav.resolve((5, 5)), nav.resolve((15, 5)), only_first)
    assert res.points[-1].tolist() == [10.0, 5.0]  # the goal is clamped onto a polygon on layer 1
    assert nav.mesh.locate((15, 5), layers=1) == -1
    assert nav.mesh.locate((15, 5), layers=4) == 1
    assert nav.find_path(nav.resolve((5, 5)), nav.resolve((15, 5)), QueryOptions(layers=8)).status is (
        PathStatus.NO_PATH
    )
    with pytest.raises(InvalidQueryError, match="no polygon"):
        nav.mesh.closest_point((5, 5), layers=8)


def test_travel_and_enter_costs_weigh_the_path() -> None:
    nav = NavMeshNavigator(_map())
    nav.apply([SetRegionCosts(2, 3.0, 2.0)])
    res = nav.find_path(nav.resolve((5, 5)), nav.resolve((15, 5)))
    assert res.cost == pytest.approx(5.0 + 3.0 + 2.0 * 5.0)


def test_closest_point_finds_the_nearest_polygon_far_off_the_mesh() -> None:
    rng = np.random.default_rng(3)
    verts = rng.uniform(0, 100, (40, 2))
    from scipy.spatial import Delaunay

    tris = Delaunay(verts).simplices
    mesh = NavMesh(verts, tris.tolist())
    for point in rng.uniform(-50, 150, (200, 2)):
        pt, _poly = mesh.closest_point(point)
        # brute force over every polygon edge: the distance must be the least
        best = math.inf
        for p in range(mesh.polygon_count):
            ring = mesh.vertices[mesh.polygon(p)]
            inside = mesh.locate(point) == p
            if inside:
                best = 0.0
            for a, b in zip(ring, np.roll(ring, -1, axis=0), strict=True):
                t = np.clip(np.dot(point - a, b - a) / np.dot(b - a, b - a), 0, 1)
                best = min(best, float(np.linalg.norm(a + t * (b - a) - point)))
        assert np.linalg.norm(pt - point) == pytest.approx(best, abs=1e-9)
        assert mesh.locate(pt, eps=1e-6) >= 0


def test_a_one_piece_mesh_refuses_updates_and_bad_inputs_raise() -> None:
    nav = NavMeshNavigator(NavMesh(SQUARE, [[0, 1, 2, 3]]))
    with pytest.raises(UnsupportedOperationError):
        nav.apply([SetRegionLayers(0, 2)])
    with pytest.raises(InvalidQueryError, match="layers"):
        nav.mesh.find_path((1, 1), (2, 2), layers=-1)
    with pytest.raises(InvalidGraphError, match="link travel_cost"):
        NavLink(np.zeros(2), np.ones(2), travel_cost=-1.0)
    with pytest.raises(InvalidGraphError, match="transform"):
        NavMap(dim=2).set_region(1, NavRegion(SQUARE, [[0, 1, 2, 3]], transform=[1, 2, 3]))
    with pytest.raises(InvalidGraphError, match="at least one region"):
        _ = NavMap(dim=3).mesh
    with pytest.raises(InvalidGraphError, match="layers"):
        NavMesh(SQUARE, [[0, 1, 2, 3]], layers=[-5])
