"""Polyanya's landmarks (issue 40): the same optimal lengths with fewer expansions, on the mesh as
loaded, under a layer mask and cut by obstacles (the loaded mesh's table stays a lower bound there:
lengths equal a visibility-graph optimum of the cut area computed with shapely); a mesh rebuilt with
new area (a moved region) has none until built again."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import shapely

from python_core import QueryOptions
from python_core.errors import InvalidQueryError
from python_core.formats.polyanya import load_polyanya_mesh, read_mesh_scenarios
from python_core.navigation import NavMeshNavigator
from python_core.navmesh import NavMesh
from python_core.navmesh.navmap import NavMap, NavRegion
from python_core.navmesh.polyanya import build_landmarks, find_optimal_path, landmark_count
from python_core.obstacles import ObstacleShape
from python_core.result import PathStatus
from tests.core.navmesh.shrink_oracle import VisibilityOnArea, walkable_area

DATA = Path(__file__).resolve().parents[2] / "data" / "mesh"


def _plain(mesh: NavMesh) -> NavMesh:
    """The same polygons in arrays of their own: a mesh no landmark table belongs to."""
    return NavMesh(mesh.vertices.copy(), [mesh.polygon(p).tolist() for p in range(mesh.polygon_count)])


def _sample(area: shapely.Geometry, count: int, seed: int) -> np.ndarray:
    x0, y0, x1, y1 = area.bounds
    pts = np.random.default_rng(seed).uniform((x0, y0), (x1, y1), size=(count * 8, 2))
    inner = area.buffer(-0.05)
    return pts[shapely.contains_xy(inner, pts[:, 0], pts[:, 1])][:count]


def test_aurora_lengths_are_unchanged_and_expansions_fall() -> None:
    mesh = load_polyanya_mesh(DATA / "aurora.mesh")
    rows = read_mesh_scenarios(DATA / "aurora.scen")
    rows = [rows[i] for i in np.linspace(0, len(rows) - 1, 40).astype(int)]
    plain = [find_optimal_path(mesh, r.start, r.goal) for r in rows]
    assert landmark_count(mesh) == 0
    assert build_landmarks(mesh) == landmark_count(mesh) == 16
    guided = [find_optimal_path(mesh, r.start, r.goal) for r in rows]
    for a, b in zip(plain, guided, strict=True):
        assert b.status is a.status is PathStatus.FOUND
        assert b.cost == pytest.approx(a.cost, rel=1e-9, abs=1e-9)
        assert b.expanded <= a.expanded
    before, after = sum(r.expanded for r in plain), sum(r.expanded for r in guided)
    assert after < 0.5 * before, (before, after)


def test_arena_lengths_equal_the_visibility_optimum_with_landmarks_under_a_mask_too() -> None:
    mesh = load_polyanya_mesh(DATA / "arena.mesh")
    assert build_landmarks(mesh, 4) == 4
    area = walkable_area(mesh)
    oracle = VisibilityOnArea(area)
    pts = _sample(area, 40, 3)
    for s, g in zip(pts[::2], pts[1::2], strict=True):
        assert find_optimal_path(mesh, s, g).cost == pytest.approx(oracle.length(s, g), rel=1e-7, abs=1e-7)
    # polygons masked off are walls: the loaded distances still bound the rest from below
    usable = np.ones(mesh.polygon_count, dtype=np.bool_)
    usable[::7] = False
    plain = _plain(mesh)
    for s, g in zip(pts[::2], pts[1::2], strict=True):
        a = find_optimal_path(plain, s, g, traversable=usable)
        b = find_optimal_path(mesh, s, g, traversable=usable)
        assert (b.status, round(b.cost, 7)) == (a.status, round(a.cost, 7))


def test_a_mesh_cut_by_obstacles_keeps_the_loaded_table_and_exact_lengths() -> None:
    mesh = load_polyanya_mesh(DATA / "arena.mesh")
    area = walkable_area(mesh)
    build_landmarks(mesh, 6)
    shapes = {
        1: ObstacleShape.polygon([(10.0, 10.0), (18.0, 10.0), (18.0, 14.0), (10.0, 14.0)]),
        2: ObstacleShape.circle((20.0, 32.0), 2.5),
        3: ObstacleShape.polygon([(26.0, 20.0), (32.0, 20.0), (32.0, 26.0), (26.0, 26.0)]),
    }
    mesh.update_obstacles(shapes)
    assert mesh.polygon_count > 120  # pieces of the loaded polygons
    assert landmark_count(mesh) == 6
    cut = area.difference(shapely.union_all([shapely.Polygon(s.outline) for s in shapes.values()]))
    oracle = VisibilityOnArea(cut)
    pts = _sample(cut, 40, 11)
    for s, g in zip(pts[::2], pts[1::2], strict=True):
        expect = oracle.length(s, g)
        res = find_optimal_path(mesh, s, g)
        if np.isfinite(expect):
            assert res.cost == pytest.approx(expect, rel=1e-7, abs=1e-7)
        else:
            assert res.status is PathStatus.NO_PATH
    mesh.update_obstacles({}, clear=True)  # the loaded mesh again, its table with it
    assert (mesh.polygon_count, landmark_count(mesh)) == (120, 6)


def test_the_navigator_builds_them_and_a_moved_region_drops_them() -> None:
    mesh = load_polyanya_mesh(DATA / "arena.mesh")
    nav = NavMeshNavigator(mesh)
    assert landmark_count(nav.mesh) > 0  # built with the mode probes
    square = NavRegion(np.array([[0.0, 0.0], [4.0, 0.0], [4.0, 4.0], [0.0, 4.0]]), [[0, 1, 2, 3]])
    navmap = NavMap(dim=2)
    navmap.set_region(1, square)
    built = navmap.mesh
    build_landmarks(built, 2)
    navmap.move_region(1, np.array([[1.0, 0.0, 10.0], [0.0, 1.0, 0.0]]))
    assert landmark_count(navmap.mesh) == 0  # new area: the old distances are no bound there
    res = find_optimal_path(navmap.mesh, (10.5, 0.5), (13.5, 3.5), options=QueryOptions())
    assert res.cost == pytest.approx(np.hypot(3.0, 3.0))


def test_a_negative_count_is_refused() -> None:
    with pytest.raises(InvalidQueryError, match="count must be >= 0"):
        build_landmarks(load_polyanya_mesh(DATA / "arena.mesh"), -1)


def test_a_landmark_sweep_that_runs_away_bounds_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """``one_to_all`` stops at ``ROOM_PER_CORNER`` nodes per corner, as the query search does (a
    sweep over a mesh whose joins disagree made nodes without end): past it the landmark's table
    is all ``inf`` (no bound), never lengths cut short. Run as plain Python with no room per
    corner, so its 1,024 spare nodes are too few for aurora; compiled, the room suffices."""
    from python_core.navmesh import polyanya_landmarks
    from python_core.navmesh.polyanya_places import polygons_at
    from python_core.navmesh.polyanya_prepare import prepare

    prep = prepare(load_polyanya_mesh(DATA / "aurora.mesh"))
    args = (prep.xy, prep.ptr, prep.verts, prep.cpoly, prep.nxt, prep.nbr, prep.twin, prep.corner)
    x, y = (float(v) for v in prep.xy[prep.verts[0]])
    at = prep.vp[prep.vp_ptr[prep.verts[0]]]
    first = polygons_at(prep.xy, prep.ptr, prep.verts, prep.vp_ptr, prep.vp, prep.all_usable, at, x, y)
    table = polyanya_landmarks.one_to_all(*args, x, y, first, prep.group)
    assert np.isfinite(table).mean() > 0.9  # the whole map, in room
    monkeypatch.setattr(polyanya_landmarks, "ROOM_PER_CORNER", 0)
    plain = getattr(polyanya_landmarks.one_to_all, "py_func", polyanya_landmarks.one_to_all)
    assert np.isinf(plain(*args, x, y, first, prep.group)).all()
