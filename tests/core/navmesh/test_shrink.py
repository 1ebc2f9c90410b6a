"""A navmesh shrunk for an agent radius: paths keep the radius from every wall (checked with
shapely on the original polygons), optimal lengths equal a visibility-graph optimum of the eroded
area, narrow gaps stop wide agents, and the cache, layers, costs and links behave."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
import shapely

from python_core import QueryOptions
from python_core.errors import InvalidGraphError, InvalidQueryError, UnsupportedOperationError
from python_core.formats.polyanya import load_polyanya_mesh, read_mesh_scenarios
from python_core.navigation import NavMeshNavigator
from python_core.navmesh import NavMesh
from python_core.navmesh.shrink import ShrinkCache, shrink_mesh
from python_core.result import PathStatus
from tests.core.navmesh.shrink_oracle import (
    VisibilityOnArea,
    eroded_area,
    segments,
    walkable_area,
)

DATA = Path(__file__).resolve().parents[2] / "data" / "mesh"
TOL = 1e-6


@pytest.fixture(scope="module")
def arena() -> NavMesh:
    return load_polyanya_mesh(DATA / "arena.mesh")


def two_rooms(door: float = 2.0) -> NavMesh:
    """Rooms [0, 10]^2 and [12, 22] x [0, 10] joined by a corridor of width ``door`` at y = 5."""
    lo, hi = 5 - door / 2, 5 + door / 2
    verts = [[0, 0], [10, 0], [10, lo], [10, hi], [10, 10], [0, 10],
             [12, 0], [22, 0], [22, 10], [12, 10], [12, hi], [12, lo]]  # fmt: skip
    return NavMesh(verts, [[0, 1, 2, 3, 4, 5], [2, 11, 10, 3], [6, 7, 8, 9, 10, 11]])


def assert_clear(points: np.ndarray, area: shapely.Geometry, radius: float) -> None:
    """Every piece of the path lies in the area, at least ``radius`` from its boundary."""
    boundary, cover = area.boundary, area.buffer(TOL)
    for seg in segments(points):
        assert cover.covers(seg), f"{seg} leaves the walkable area"
        assert seg.distance(boundary) >= radius - TOL, f"{seg} is {seg.distance(boundary)} from a wall"


@pytest.mark.parametrize("radius", [0.5, 1.0])
def test_arena_paths_keep_the_radius_from_every_wall(arena: NavMesh, radius: float) -> None:
    nav = NavMeshNavigator(arena)
    area = walkable_area(arena)
    found = 0
    for row in read_mesh_scenarios(DATA / "arena.scen")[::8]:
        for optimal in (False, True):
            res = nav.find_path(row.start, row.goal, QueryOptions(radius=radius, optimal=optimal))
            if res.found:
                found += 1
                assert_clear(res.points, area, radius)
                assert np.all((res.nodes >= 0) & (res.nodes < arena.polygon_count))
    assert found >= 20
    assert nav.shrinks.misses == 1


def folded() -> NavMesh:
    """A floor, a ramp up, a landing and a deck back over the floor: one part over itself."""
    verts = [[0, 0, 0], [6, 0, 0], [6, 0, 6], [0, 0, 6], [10, 2, 0], [10, 2, 2], [6, 0, 2], [12, 2, 0],
             [12, 2, 6], [10, 2, 6], [10, 2, 4], [2, 2, 4], [2, 2, 6]]  # fmt: skip
    return NavMesh(verts, [[0, 1, 2, 3], [1, 4, 5, 6], [4, 7, 8, 9], [11, 10, 9, 12]])


def test_arena_optimal_length_equals_the_visibility_optimum_of_the_eroded_area(arena: NavMesh) -> None:
    radius = 1.0
    eroded = eroded_area(walkable_area(arena), radius)
    oracle = VisibilityOnArea(eroded)
    inner = eroded.buffer(-1e-3)
    rng = np.random.default_rng(38)
    x0, y0, x1, y1 = eroded.bounds
    points = [p for p in rng.uniform((x0, y0), (x1, y1), size=(400, 2)) if inner.contains(shapely.Point(p))]
    shrunk = shrink_mesh(arena, radius)
    assert shrunk.mesh is not None
    checked = 0
    for start, goal in zip(points[0:16], points[16:32], strict=True):
        expect = oracle.length(start, goal)
        res = NavMeshNavigator(shrunk.mesh).find_path(start, goal, QueryOptions(optimal=True))
        if not np.isfinite(expect):
            assert res.status is PathStatus.NO_PATH
            continue
        checked += 1
        assert res.found
        assert res.cost == pytest.approx(expect, rel=1e-7, abs=1e-7)
    assert checked >= 8


@pytest.mark.parametrize("optimal", [False, True])
def test_a_gap_narrower_than_the_diameter_is_not_passed(optimal: bool) -> None:
    nav = NavMeshNavigator(two_rooms(door=2.0))
    start, goal = np.array([2.0, 5.0]), np.array([20.0, 5.0])
    narrow = nav.find_path(start, goal, QueryOptions(radius=0.98, optimal=optimal))
    assert narrow.found
    assert_clear(narrow.points, walkable_area(nav.mesh), 0.98)
    assert nav.find_path(start, goal, QueryOptions(radius=1.0, optimal=optimal)).status is PathStatus.NO_PATH
    partial = nav.find_path(start, goal, QueryOptions(radius=1.5, optimal=optimal, allow_partial=True))
    assert partial.status is PathStatus.PARTIAL
    pieces = shapely.get_parts(eroded_area(walkable_area(nav.mesh), 1.5))
    room = next(p for p in pieces if p.contains(shapely.Point(start)))  # the part the start is in
    nearest = shapely.get_coordinates(shapely.shortest_line(room, shapely.Point(goal)))[0]
    assert len(pieces) == 2
    assert 8.5 < nearest[0] < 10.0
    assert partial.points[-1] == pytest.approx(nearest, abs=1e-6)  # in room 1's bulge toward the door


def test_endpoints_outside_the_shrunk_area_snap_to_its_nearest_point() -> None:
    nav = NavMeshNavigator(two_rooms())
    res = nav.find_path((0.0, 0.0), (30.0, 5.0), QueryOptions(radius=0.5))
    eroded = eroded_area(walkable_area(nav.mesh), 0.5)
    assert res.found
    for end, point in (((0.0, 0.0), res.points[0]), ((30.0, 5.0), res.points[-1])):
        assert np.hypot(*(point - end)) == pytest.approx(eroded.distance(shapely.Point(end)), abs=1e-6)


def test_the_cache_shrinks_once_per_radius_and_keeps_the_latest() -> None:
    nav = NavMeshNavigator(two_rooms())
    first = nav.find_path((2, 5), (20, 5), QueryOptions(radius=0.5))
    again = nav.find_path((2, 5), (20, 5), QueryOptions(radius=0.5))
    assert (nav.shrinks.misses, nav.shrinks.hits) == (1, 1)
    assert np.array_equal(first.points, again.points)
    assert nav.shrunk(0.5) is nav.shrunk(0.5)
    assert not nav.ready_for(QueryOptions(radius=0.25))
    assert nav.ready_for(QueryOptions(radius=0.5))
    assert nav.ready_for(None)
    for r in (0.1, 0.2, 0.3, 0.4):
        nav.shrunk(r)
    assert nav.shrinks.radii == [0.1, 0.2, 0.3, 0.4]  # capacity 4: 0.5, least recently used, is gone
    assert nav.describe()["shrunk_radii"] == [0.1, 0.2, 0.3, 0.4]


def test_agent_radius_is_the_default_and_a_query_radius_overrides_it() -> None:
    nav = NavMeshNavigator(two_rooms(), agent_radius=1.2)
    assert nav.describe()["agent_radius"] == 1.2
    assert nav.find_path((2, 5), (20, 5)).status is PathStatus.NO_PATH
    assert nav.find_path((2, 5), (20, 5), QueryOptions()).status is PathStatus.NO_PATH
    assert nav.find_path((2, 5), (20, 5), QueryOptions(radius=0.5)).found


def test_bad_radii_raise_and_nothing_is_lost() -> None:
    nav = NavMeshNavigator(two_rooms())
    before = nav.find_path((2, 5), (20, 5), QueryOptions(radius=0.5))
    for options in (QueryOptions(radius=0.0), QueryOptions(radius=-1.0), QueryOptions(radius=float("nan")),
                    QueryOptions(radius=float("inf")), QueryOptions(size=2)):  # fmt: skip
        with pytest.raises(InvalidQueryError):
            nav.find_path((2, 5), (20, 5), options)
    with pytest.raises(InvalidQueryError, match="radius must be"):
        ShrinkCache(nav.mesh).get(True)  # type: ignore[arg-type]
    after = nav.find_path((2, 5), (20, 5), QueryOptions(radius=0.5))
    assert np.array_equal(before.points, after.points)
    assert nav.find_path((2, 5), (20, 5), QueryOptions(radius=100.0)).status is PathStatus.NO_PATH
    for bad in (0.0, -2.0, float("nan"), "1"):
        with pytest.raises(InvalidGraphError, match="agent_radius"):
            NavMeshNavigator(two_rooms(), agent_radius=bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidGraphError, match="leaves no room"):
        NavMeshNavigator(two_rooms(), agent_radius=6.0)


def _ramp() -> NavMesh:
    """A floor at y = 0, a ramp 4 wide up to a floor at y = 5 (x and z across, y up)."""
    verts = [[0, 0, 0], [10, 0, 0], [10, 0, 3], [10, 0, 7], [10, 0, 10], [0, 0, 10], [20, 5, 3], [20, 5, 7],
             [20, 5, 0], [30, 5, 0], [30, 5, 10], [20, 5, 10]]  # fmt: skip
    return NavMesh(verts, [[0, 1, 2, 3, 4, 5], [2, 6, 7, 3], [8, 9, 10, 11, 7, 6]])


@pytest.mark.parametrize("optimal", [False, True])
def test_3d_paths_keep_the_radius_in_the_plane_and_stay_on_the_surfaces(optimal: bool) -> None:
    mesh = _ramp()
    nav = NavMeshNavigator(mesh)
    plane = shapely.union_all([shapely.Polygon(mesh.vertices[mesh.polygon(p)][:, [0, 2]])
                               for p in range(mesh.polygon_count)])  # fmt: skip
    start, goal = np.array([1.0, 0.0, 1.0]), np.array([29.0, 5.0, 9.0])
    res = nav.find_path(start, goal, QueryOptions(radius=1.0, optimal=optimal))
    assert res.found
    assert res.nodes.tolist() == [0, 1, 2]
    assert_clear(res.points[:, [0, 2]], plane, 1.0)
    for point in res.points:  # every waypoint on a polygon of the original mesh, at its height
        assert np.linalg.norm(mesh.closest_point(point)[0] - point) < 1e-6
    narrow = nav.find_path(start, goal, QueryOptions(radius=2.1, optimal=optimal))
    assert narrow.status is PathStatus.NO_PATH  # the ramp is 4 wide


def test_3d_floors_above_each_other_shrink_apart_and_a_part_over_itself_is_refused() -> None:
    square = [[0, 0, 0], [6, 0, 0], [6, 0, 6], [0, 0, 6]]
    stacked = NavMesh(square + [[x, 3, z] for x, _, z in square], [[0, 1, 2, 3], [4, 5, 6, 7]])
    shrunk = shrink_mesh(stacked, 1.0)
    assert shrunk.mesh is not None
    assert sorted(set(shrunk.source.tolist())) == [0, 1]
    upper = NavMeshNavigator(stacked).find_path((1, 3, 1), (5, 3, 5), QueryOptions(radius=1.0))
    assert upper.found
    assert upper.points[:, 1].tolist() == [3.0, 3.0]
    # a bridge joined to the floor under it: one part over itself in the plane
    bridge = folded()
    with pytest.raises(UnsupportedOperationError, match="over itself"):
        NavMeshNavigator(bridge).find_path((1, 0, 1), (4, 2, 5), QueryOptions(radius=0.5))
    assert NavMeshNavigator(bridge).find_path((1, 0, 1), (4, 2, 5)).found


def test_threads_asking_for_one_radius_shrink_it_once(arena: NavMesh) -> None:
    cache = ShrinkCache(arena)
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(cache.get, [0.75] * 8))
    assert all(g is got[0] for g in got)
    assert (cache.misses, cache.hits) == (1, 7)
