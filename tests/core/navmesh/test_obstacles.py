"""Obstacles cut navmeshes (issue 40): paths stay in the walkable area minus the obstacles, computed
here with shapely from the loaded polygons and the obstacles' outlines; optimal lengths equal a
visibility-graph optimum of that area; removing, moving and bad updates (all or nothing)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import shapely

from python_core import QueryOptions
from python_core.errors import InvalidGraphError
from python_core.formats.polyanya import load_polyanya_mesh
from python_core.navigation import NavMeshNavigator
from python_core.navmesh import NavMesh
from python_core.navmesh.links import NavLink
from python_core.obstacles import ObstacleShape
from python_core.result import PathResult, PathStatus
from tests.core.navmesh.shrink_oracle import VisibilityOnArea, segments, walkable_area

DATA = Path(__file__).resolve().parents[2] / "data" / "mesh"
TOL = 1e-6


def arena() -> NavMesh:
    return load_polyanya_mesh(DATA / "arena.mesh")


@pytest.fixture(scope="module")
def arena_area() -> shapely.Geometry:
    return walkable_area(arena())


# Obstacles on arena's open floor (a crate across a passage, a barrel, two overlapping boxes).
CRATE = [(10.0, 10.0), (18.0, 10.0), (18.0, 14.0), (10.0, 14.0)]
BOXES = ([(26.0, 20.0), (32.0, 20.0), (32.0, 26.0), (26.0, 26.0)], [(30.0, 24.0), (36.0, 22.0), (34.0, 30.0)])


def obstacles() -> dict[int, ObstacleShape]:
    return {
        1: ObstacleShape.polygon(CRATE),
        2: ObstacleShape.circle((20.0, 32.0), 2.5),
        3: ObstacleShape.polygon(BOXES[0]),
        4: ObstacleShape.polygon(BOXES[1]),
    }


def cut_area(area: shapely.Geometry, shapes: dict[int, ObstacleShape]) -> shapely.Geometry:
    """The loaded area minus the obstacles, from their outlines (shapely only)."""
    return area.difference(shapely.union_all([shapely.Polygon(s.outline) for s in shapes.values()]))


def sample(area: shapely.Geometry, count: int, seed: int) -> np.ndarray:
    inner = area.buffer(-0.05)
    x0, y0, x1, y1 = area.bounds
    rng = np.random.default_rng(seed)
    pts = rng.uniform((x0, y0), (x1, y1), size=(count * 8, 2))
    return pts[shapely.contains_xy(inner, pts[:, 0], pts[:, 1])][:count]


def assert_inside(res: PathResult, area: shapely.Geometry) -> None:
    cover = area.buffer(TOL)
    for seg in segments(res.points):
        assert cover.covers(seg), f"{seg} leaves the walkable area minus the obstacles"


def answers(nav: NavMeshNavigator, pts: np.ndarray) -> list[tuple[str, list[list[float]], float, list[int]]]:
    out = []
    for s, g in zip(pts[::2], pts[1::2], strict=True):
        for optimal in (False, True):
            r = nav.find_path(s, g, QueryOptions(optimal=optimal))
            out.append((r.status.value, np.round(r.points, 9).tolist(), round(r.cost, 9), r.nodes.tolist()))
    return out


def test_paths_stay_in_the_cut_area_and_optimal_lengths_equal_the_visibility_optimum(
    arena_area: shapely.Geometry,
) -> None:
    nav = NavMeshNavigator(arena())
    shapes = obstacles()
    nav.update_obstacles(shapes)
    assert nav.obstacle_count == 4
    area = cut_area(arena_area, shapes)
    oracle = VisibilityOnArea(area)
    pts = sample(area, 32, 40)
    detoured = 0
    for s, g in zip(pts[::2], pts[1::2], strict=True):
        expect = oracle.length(s, g)
        for optimal in (False, True):
            res = nav.find_path(s, g, QueryOptions(optimal=optimal))
            if not np.isfinite(expect):
                assert res.status is PathStatus.NO_PATH
                continue
            assert res.found
            assert_inside(res, area)
            assert np.all((res.nodes >= 0) & (res.nodes < 120))  # the loaded polygons' ids
            if optimal:
                assert res.cost == pytest.approx(expect, rel=1e-7, abs=1e-7)
            else:
                assert res.cost >= expect - 1e-7
        detoured += int(np.isfinite(expect) and expect > float(np.hypot(*(g - s))) + 1e-6)
    assert detoured >= 3
    # a query ending inside an obstacle snaps out of it
    res = nav.find_path(pts[0], (14.0, 12.0))
    assert res.found
    assert not shapely.Polygon(CRATE).buffer(-TOL).contains(shapely.Point(res.points[-1]))


def test_only_polygons_the_obstacles_touch_are_cut() -> None:
    mesh = arena()
    corners = [mesh.vertices[mesh.polygon(p)] for p in range(mesh.polygon_count)]
    loaded = [frozenset(map(tuple, c.tolist())) for c in corners]
    mesh.update_obstacles(obstacles())
    source = mesh.polygon_source
    union = shapely.union_all([shapely.Polygon(s.outline) for s in obstacles().values()])
    met = {q for q, c in enumerate(corners) if shapely.Polygon(c).intersects(union)}
    for p in range(mesh.polygon_count):
        if frozenset(map(tuple, mesh.vertices[mesh.polygon(p)].tolist())) != loaded[int(source[p])]:
            assert int(source[p]) in met  # a polygon that changed is one an obstacle meets
    assert set(range(120)) - met <= set(source.tolist())  # every other one is there as loaded
    assert len(met) < 40


def test_removing_the_obstacles_gives_back_the_original_answers(arena_area: shapely.Geometry) -> None:
    nav = NavMeshNavigator(arena())
    pts = sample(arena_area, 24, 7)
    before = answers(nav, pts)
    nav.update_obstacles(obstacles())
    assert answers(nav, pts) != before
    nav.update_obstacles({}, remove=[1, 2])
    nav.update_obstacles({}, clear=True)
    assert (nav.obstacle_count, nav.mesh.polygon_count) == (0, 120)
    assert answers(nav, pts) == before


def polygon_set(mesh: NavMesh) -> set[frozenset[tuple[float, float]]]:
    corners = [np.round(mesh.vertices[mesh.polygon(p)], 9) for p in range(mesh.polygon_count)]
    return {frozenset(map(tuple, c.tolist())) for c in corners}


def test_moving_an_obstacle_many_times_equals_placing_it_once_at_the_end(
    arena_area: shapely.Geometry,
) -> None:
    moved, placed = NavMeshNavigator(arena()), NavMeshNavigator(arena())
    moved.update_obstacles(obstacles())
    rng = np.random.default_rng(3)
    for x, y in rng.uniform((8, 8), (40, 40), size=(25, 2)):
        moved.update_obstacles({2: ObstacleShape.circle((x, y), 2.0), 5: ObstacleShape.circle((y, x), 1.5)})
    end = {2: ObstacleShape.circle((24.0, 16.0), 2.0), 5: ObstacleShape.circle((16.0, 24.0), 1.5)}
    moved.update_obstacles(end)
    placed.update_obstacles(obstacles() | end)
    assert polygon_set(moved.mesh) == polygon_set(placed.mesh)
    pts = sample(cut_area(arena_area, obstacles() | end), 24, 11)
    assert answers(moved, pts) == answers(placed, pts)


def test_a_bad_update_changes_nothing(arena_area: shapely.Geometry) -> None:
    nav = NavMeshNavigator(arena())
    nav.update_obstacles(obstacles())
    pts = sample(arena_area, 16, 5)
    before, count = answers(nav, pts), nav.mesh.polygon_count
    crate = ObstacleShape.polygon([(2, 2), (4, 2), (4, 4)])
    with pytest.raises(InvalidGraphError, match="no obstacle 9"):
        nav.update_obstacles({1: crate}, remove=[2, 9])
    with pytest.raises(InvalidGraphError, match="ObstacleShape"):
        nav.update_obstacles({1: crate, 6: [(0, 0), (1, 0), (0, 1)]})  # type: ignore[dict-item]
    with pytest.raises(InvalidGraphError, match="id"):
        nav.update_obstacles({-1: crate})
    with pytest.raises(InvalidGraphError, match="cover the whole mesh"):
        nav.update_obstacles({7: ObstacleShape.polygon([(-9, -9), (99, -9), (99, 99), (-9, 99)])})
    assert (nav.obstacle_count, nav.mesh.polygon_count) == (4, count)
    assert answers(nav, pts) == before


def test_a_link_with_an_end_inside_an_obstacle_is_unused_while_it_stands() -> None:
    verts = [[0, 0], [4, 0], [4, 4], [0, 4], [10, 0], [14, 0], [14, 4], [10, 4]]
    mesh = NavMesh(verts, [[0, 1, 2, 3], [4, 5, 6, 7]], links=[NavLink((3.0, 2.0), (11.0, 2.0))])
    assert mesh.find_path((1, 2), (13, 2)).found
    mesh.update_obstacles({1: ObstacleShape.circle((11.0, 2.0), 0.5)})
    assert mesh.find_path((1, 2), (13, 2)).status is PathStatus.NO_PATH
    mesh.set_link_enabled(0, True)  # switching it on does not lift the obstacle
    assert mesh.find_path((1, 2), (13, 2)).status is PathStatus.NO_PATH
    mesh.update_obstacles({1: ObstacleShape.circle((12.5, 2.0), 0.5)})
    res = mesh.find_path((1, 2), (13, 3))
    assert res.found
    assert [11.0, 2.0] in res.points.tolist()


def two_floors() -> NavMesh:
    """A floor at height 0 and a deck at height 5 over it (Y up), not joined."""
    verts = [[0, 0, 0], [10, 0, 0], [10, 0, 10], [0, 0, 10], [0, 5, 0], [10, 5, 0], [10, 5, 10], [0, 5, 10]]
    return NavMesh(verts, [[0, 1, 2, 3], [4, 5, 6, 7]])


@pytest.mark.parametrize("optimal", [False, True])
def test_3d_obstacles_cut_only_the_floors_their_height_meets(optimal: bool) -> None:
    nav = NavMeshNavigator(two_floors())
    wall = ObstacleShape.polygon([(4, -1), (6, -1), (6, 8), (4, 8)], base=-0.5, height=2.0)  # x, z
    nav.update_obstacles({1: wall})
    opts = QueryOptions(optimal=optimal)
    low = nav.find_path((1, 0, 2), (9, 0, 2), opts)
    high = nav.find_path((1, 5, 2), (9, 5, 2), opts)
    assert low.found
    assert high.found
    assert high.cost == pytest.approx(8.0)
    area = shapely.box(0, 0, 10, 10).difference(shapely.Polygon(wall.outline))
    assert_inside(PathResult(low.status, low.points[:, [0, 2]]), area)
    assert np.allclose(low.points[:, 1], 0.0)
    around = 2 * float(np.hypot(3, 6)) + 2.0  # over the wall's end at z = 8
    assert low.cost == pytest.approx(around) if optimal else low.cost >= around - TOL
    nav.update_obstacles({1: ObstacleShape.polygon(wall.outline, base=4.0, height=2.0)})
    assert nav.find_path((1, 0, 2), (9, 0, 2), opts).cost == pytest.approx(8.0)
    assert nav.find_path((1, 5, 2), (9, 5, 2), opts).cost > 12.0


def test_an_agent_radius_keeps_away_from_the_obstacles_too(arena_area: shapely.Geometry) -> None:
    radius = 1.0
    nav = NavMeshNavigator(arena(), agent_radius=radius)
    pts = sample(arena_area.buffer(-2 * radius), 20, 21)
    nav.update_obstacles(obstacles())
    shapes = [shapely.Polygon(s.outline) for s in obstacles().values()]
    walls = arena_area.boundary
    found = 0
    for s, g in zip(pts[::2], pts[1::2], strict=True):
        for optimal in (False, True):
            res = nav.find_path(s, g, QueryOptions(optimal=optimal))
            if not res.found:
                continue
            found += 1
            for seg in segments(res.points):
                assert min(seg.distance(o) for o in shapes) >= radius - TOL
                assert seg.distance(walls) >= radius - TOL
    assert found >= 10
    # the cached shrink is re-cut when an obstacle moves: the old spot is free again
    across = QueryOptions(optimal=True)
    assert nav.find_path((8.0, 12.0), (20.0, 12.0), across).cost > 15.0
    nav.update_obstacles({1: ObstacleShape.polygon(np.add(CRATE, (0.0, 30.0)))})
    assert nav.shrinks.misses == 1
    assert nav.find_path((8.0, 12.0), (20.0, 12.0), across).cost == pytest.approx(12.0)


def pairs(mesh: NavMesh) -> set[frozenset[frozenset[tuple[float, float]]]]:
    """Neighbouring polygons, each as the set of its corners."""
    loops = [
        frozenset(map(tuple, mesh.vertices[mesh.polygon(p)].tolist())) for p in range(mesh.polygon_count)
    ]
    owner = np.repeat(np.arange(mesh.polygon_count), np.diff(mesh.poly_ptr))
    return {frozenset((loops[a], loops[b])) for a, b in zip(owner, mesh.neighbours, strict=True) if b >= 0}


def test_the_local_stitch_equals_stitching_the_whole_cut_mesh(arena_area: shapely.Geometry) -> None:
    mesh = arena()
    # a box flush with the mesh's integer grid edges: T-junctions on untouched neighbours
    flush = {6: ObstacleShape.polygon([(5.0, 30.0), (9.0, 30.0), (9.0, 33.0), (5.0, 33.0)])}
    mesh.update_obstacles(obstacles() | flush)
    mesh.update_obstacles({2: ObstacleShape.circle((21.0, 30.0), 2.5)}, remove=[3])
    whole = NavMesh(mesh.vertices, [mesh.polygon(p) for p in range(mesh.polygon_count)])
    assert pairs(mesh) == pairs(whole)
    area = cut_area(arena_area, {k: s for k, s in (obstacles() | flush).items() if k != 3})
    pts = sample(area, 30, 9)
    for s, g in zip(pts[::2], pts[1::2], strict=True):
        a, b = mesh.find_path(s, g), whole.find_path(s, g)
        assert a.status is b.status
        assert np.allclose(a.points, b.points)
