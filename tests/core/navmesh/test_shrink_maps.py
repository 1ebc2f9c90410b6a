"""Navigation maps shrunk for an agent radius: region layers and costs stay where they were, links
keep (or lose, with a reason) their ends, region gaps within the edge margin stay joined, and
updates reach the cached shrinks."""

from __future__ import annotations

import numpy as np
import pytest

from python_core.errors import InvalidGraphError
from python_core.navigation import MoveRegion, NavMeshNavigator, SetLinkEnabled, SetRegionLayers
from python_core.navmesh.links import NavLink
from python_core.navmesh.navmap import NavMap, NavRegion
from python_core.navmesh.shrink import shrink_mesh
from python_core.result import PathStatus, QueryOptions
from tests.core.navmesh.shrink_oracle import eroded_area, walkable_area

SQUARE = [[0, 0], [10, 0], [10, 10], [0, 10]]


def _placed(x: float, y: float = 0.0, **kw: object) -> NavRegion:
    return NavRegion(SQUARE, [[0, 1, 2, 3]], transform=[1, 0, 0, 1, x, y], **kw)  # type: ignore[arg-type]


def _row(*regions: NavRegion, margin: float = 1.0) -> NavMap:
    nav = NavMap(dim=2, edge_margin=margin)
    for i, region in enumerate(regions, start=1):
        nav.set_region(i, region)
    return nav


def test_layers_and_costs_stay_with_their_regions() -> None:
    nav = NavMeshNavigator(_row(_placed(0), _placed(10, layers=2, travel_cost=3.0), _placed(20)))
    radius = QueryOptions(radius=1.0)
    shrunk = nav.shrunk(1.0)
    assert shrunk.mesh is not None
    assert np.array_equal(shrunk.mesh.layers, nav.mesh.layers[shrunk.source])
    assert np.array_equal(shrunk.mesh.travel_costs, nav.mesh.travel_costs[shrunk.source])
    res = nav.find_path(np.array([5.0, 5.0]), np.array([25.0, 5.0]), radius)
    assert res.found
    assert res.cost == pytest.approx(5 + 3 * 10 + 5)  # a straight line; 10 of it in region 2
    assert res.nodes.tolist() == [0, 1, 2]  # the original polygons
    masked = QueryOptions(radius=1.0, layers=1)
    assert nav.find_path(np.array([5.0, 5.0]), np.array([25.0, 5.0]), masked).status is PathStatus.NO_PATH


def test_regions_joined_across_a_gap_within_the_edge_margin_stay_joined() -> None:
    nav = NavMeshNavigator(_row(_placed(0), _placed(10.5)))  # 0.5 apart, margin 1
    res = nav.find_path(np.array([5.0, 5.0]), np.array([15.0, 5.0]), QueryOptions(radius=1.0))
    assert res.found
    assert res.cost == pytest.approx(10.0)


def test_links_keep_their_ends_moved_onto_the_shrunk_area() -> None:
    islands = _row(_placed(0), _placed(30), margin=0.0)
    islands.set_link(4, NavLink(np.array([9.5, 5.0]), np.array([30.5, 5.0])))
    nav = NavMeshNavigator(islands)
    res = nav.find_path(np.array([5.0, 5.0]), np.array([35.0, 5.0]), QueryOptions(radius=1.0))
    assert res.found
    assert res.points[1] == pytest.approx([10 - 1.0, 5.0], abs=0.01)  # the start end, pulled in
    assert res.points[2] == pytest.approx([30 + 1.0, 5.0], abs=0.01)
    shrunk = nav.shrunk(1.0)
    assert shrunk.dropped_links == ()


def test_a_link_whose_end_has_no_room_is_dropped_with_its_reason() -> None:
    islands = _row(_placed(0), NavRegion([[0, 0], [20, 0], [20, 1], [0, 1]], [[0, 1, 2, 3]],
                                         transform=[1, 0, 0, 1, 30, 0]), margin=0.0)  # fmt: skip
    islands.set_link(4, NavLink(np.array([9.5, 5.0]), np.array([45.0, 0.5])))
    islands.set_link(5, NavLink(np.array([1.0, 1.0]), np.array([2.0, 2.0])))
    nav = NavMeshNavigator(islands)
    shrunk = nav.shrunk(2.0)  # the strip is 1 wide: nothing of it is left
    assert [i for i, _ in shrunk.dropped_links] == [0]
    assert "no room for radius 2" in shrunk.dropped_links[0][1]
    assert shrunk.mesh is not None
    assert not shrunk.mesh.links[0].enabled
    assert shrunk.mesh.links[1].enabled  # moved onto the room's shrunk area
    assert nav.find_path(np.array([5.0, 5.0]), np.array([45.0, 0.5]), QueryOptions(radius=0.4)).found
    nav.apply([SetLinkEnabled(4, True)])  # a switch in place must not revive the dropped link
    assert not nav.shrunk(2.0).mesh.links[0].enabled  # type: ignore[union-attr]


def test_layer_switches_reach_the_cached_shrinks_and_moves_make_new_ones() -> None:
    nav = NavMeshNavigator(_row(_placed(0), _placed(10), _placed(20)))
    go = (np.array([5.0, 5.0]), np.array([25.0, 5.0]))
    masked = QueryOptions(radius=1.0, layers=1)
    assert nav.find_path(*go, masked).found
    cached = nav.shrunk(1.0)
    nav.apply([SetRegionLayers(2, 2)])
    assert nav.shrunk(1.0) is cached  # changed in place
    assert nav.find_path(*go, masked).status is PathStatus.NO_PATH
    nav.apply([SetRegionLayers(2, 1), MoveRegion(3, [1, 0, 0, 1, 40, 0])])
    assert nav.shrinks.radii == []  # a new mesh, a new cache
    assert nav.find_path(*go, masked).found  # the goal snaps to region 2's shrunk edge
    assert nav.find_path(*go, masked).points[-1] == pytest.approx([19.0, 5.0], abs=0.01)


def test_an_update_that_leaves_no_room_for_the_agent_radius_changes_nothing() -> None:
    nav = NavMeshNavigator(_row(_placed(0), _placed(10)), agent_radius=3.0)
    before = nav.find_path(np.array([5.0, 5.0]), np.array([15.0, 5.0]))
    assert before.found
    with pytest.raises(InvalidGraphError, match="leaves no room"):
        nav.apply([MoveRegion(1, [0.2, 0, 0, 0.2, 0, 0]), MoveRegion(2, [0.2, 0, 0, 0.2, 50, 0])])
    after = nav.find_path(np.array([5.0, 5.0]), np.array([15.0, 5.0]))
    assert np.array_equal(before.points, after.points)
    assert nav.shrinks.radii == [3.0]


def test_the_shrunk_area_is_the_eroded_union() -> None:
    room = _row(_placed(0), _placed(10, 5)).mesh  # an offset pair: a notch on each side
    shrunk = shrink_mesh(room, 1.5)
    assert shrunk.mesh is not None
    got = walkable_area(shrunk.mesh)
    want = eroded_area(walkable_area(room), 1.5)
    assert got.symmetric_difference(want).area < 1e-9
