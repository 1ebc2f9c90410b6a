"""Polyanya's exact paths, with landmarks, on a map of regions whose border vertices are not welded
(several vertex ids on one point). The polygons holding a point on a seam were found through one
id's polygons only: a landmark on a seam vertex measured detours as distances, and ALT pruned the
optimum (N4's repro, issue 40: 21.61 instead of 14.92); a start or goal on a seam got a detour too.
And an obstacle corner on a seam was a turning point for one region's ids only (arena as 4 x 4
regions: paths too long, with landmarks or without)."""

from __future__ import annotations

import numpy as np
import pytest
import shapely

from python_core.formats.polyanya import load_polyanya_mesh
from python_core.navmesh import NavMesh
from python_core.navmesh.navmap import NavMap, NavRegion
from python_core.navmesh.polyanya import build_landmarks, find_optimal_path, landmark_count
from python_core.navmesh.weld import point_groups, point_polygons, seam_pairs
from python_core.obstacles import ObstacleShape
from tests.core.navmesh.shrink_oracle import VisibilityOnArea, walkable_area
from tests.core.navmesh.test_mesh_patch import tile
from tests.core.navmesh.test_polyanya_landmarks import DATA

# Border points of the ring: tile corners held by two or three regions' ids.
SEAMS = [(12.0, 6.0), (12.0, 4.0), (6.0, 3.0), (3.0, 6.0), (12.0, 12.0), (6.0, 6.0), (12.0, 0.0), (18.0, 6.0)]


def _ring() -> NavMap:
    """Eight 6 x 6 regions around a hole (6..12 x 6..12), each with vertex ids of its own."""
    nav = NavMap(dim=2, edge_margin=0.5)
    for k in range(9):
        if k != 4:
            nav.set_region(k, tile(6.0 * (k % 3), 6.0 * (k // 3)))
    return nav


def _ring_area() -> shapely.Geometry:
    return shapely.box(0, 0, 18, 18).difference(shapely.box(6, 6, 12, 12))


def _points(area: shapely.Geometry, count: int, seed: int) -> np.ndarray:
    pts = np.random.default_rng(seed).uniform(0.0, 18.0, size=(count * 3, 2))
    inside = pts[shapely.contains_xy(area.buffer(-0.05), pts[:, 0], pts[:, 1])][:count]
    return np.vstack([np.array(SEAMS), inside])


def test_the_repro_keeps_its_landmarks_and_the_exact_length() -> None:
    mesh = _ring().mesh
    start, goal = np.array([15.18823012, 17.81247239]), np.array([10.27232615, 3.94149644])
    assert build_landmarks(mesh) == landmark_count(mesh) == 16
    corner = np.array([12.0, 6.0])  # straight to the hole's corner and on: the shortest path
    expected = np.linalg.norm(corner - start) + np.linalg.norm(goal - corner)
    assert find_optimal_path(mesh, start, goal).cost == pytest.approx(expected, rel=1e-12)


def test_lengths_from_and_to_seams_equal_the_visibility_optimum_with_and_without_landmarks() -> None:
    mesh = _ring().mesh
    oracle = VisibilityOnArea(_ring_area())
    pts = _points(_ring_area(), 24, 5)
    pairs = [(i, j) for i in range(len(SEAMS)) for j in range(len(pts)) if i != j][::3]
    pairs += [(j, i) for i, j in pairs[::2]]
    expect = [oracle.length(pts[i], pts[j]) for i, j in pairs]
    plain = [find_optimal_path(mesh, pts[i], pts[j]).cost for i, j in pairs]
    assert build_landmarks(mesh) == 16
    guided = [find_optimal_path(mesh, pts[i], pts[j]).cost for i, j in pairs]
    assert plain == pytest.approx(expect, rel=1e-7, abs=1e-7)
    assert guided == pytest.approx(expect, rel=1e-7, abs=1e-7)


def test_the_ring_cut_by_obstacles_keeps_its_table_and_exact_lengths() -> None:
    nav = _ring()
    build_landmarks(nav.mesh)
    shapes = {1: ObstacleShape.polygon([(13.0, 2.0), (16.0, 2.0), (16.0, 7.0), (13.0, 7.0)])}
    shapes[2] = ObstacleShape.circle((3.0, 14.0), 1.5)
    nav.update_obstacles(shapes)
    mesh = nav.mesh
    assert landmark_count(mesh) == 16  # the loaded regions' table bounds the cut mesh too
    cut = _ring_area().difference(shapely.union_all([shapely.Polygon(s.outline) for s in shapes.values()]))
    oracle = VisibilityOnArea(cut)
    pts = _points(cut, 16, 9)
    for s, g in zip(pts[::2], pts[1::2], strict=True):
        assert find_optimal_path(mesh, s, g).cost == pytest.approx(oracle.length(s, g), rel=1e-7, abs=1e-7)


def _as_regions(mesh: NavMesh, tiles: int) -> NavMap:
    """The mesh's polygons as ``tiles`` x ``tiles`` regions (by their centres), each with vertex
    ids of its own: every border the split makes is an unwelded seam, some through obstacle corners."""
    centres = np.add.reduceat(mesh.vertices[mesh.poly_verts], mesh.poly_ptr[:-1], axis=0)
    centres /= np.diff(mesh.poly_ptr)[:, None]
    lo, hi = mesh.vertices.min(axis=0), mesh.vertices.max(axis=0)
    cell = np.minimum(((centres - lo) / (hi - lo) * tiles).astype(int), tiles - 1)
    nav = NavMap(dim=2, edge_margin=0.0)
    for t in np.unique(cell[:, 1] * tiles + cell[:, 0]).tolist():
        polys = [mesh.polygon(p) for p in np.flatnonzero(cell[:, 1] * tiles + cell[:, 0] == t).tolist()]
        used = np.unique(np.concatenate(polys))
        remap = np.full(mesh.vertices.shape[0], -1)
        remap[used] = np.arange(used.shape[0])
        nav.set_region(t, NavRegion(mesh.vertices[used], [remap[p].tolist() for p in polys]))
    return nav


def test_arena_as_regions_has_the_visibility_optimum_through_obstacle_corners_on_seams() -> None:
    arena = load_polyanya_mesh(DATA / "arena.mesh")
    mesh = _as_regions(arena, 4).mesh
    area = walkable_area(arena)
    oracle = VisibilityOnArea(area)
    pts = np.random.default_rng(40).uniform(area.bounds[:2], area.bounds[2:], size=(400, 2))
    pts = pts[shapely.contains_xy(area.buffer(-0.05), pts[:, 0], pts[:, 1])][:60]
    expect = [oracle.length(s, g) for s, g in zip(pts[::2], pts[1::2], strict=True)]
    plain = [find_optimal_path(mesh, s, g).cost for s, g in zip(pts[::2], pts[1::2], strict=True)]
    assert build_landmarks(mesh) == 16
    guided = [find_optimal_path(mesh, s, g).cost for s, g in zip(pts[::2], pts[1::2], strict=True)]
    assert plain == pytest.approx(expect, rel=1e-7, abs=1e-7)
    assert guided == pytest.approx(expect, rel=1e-7, abs=1e-7)


def test_ids_on_one_point_share_its_polygons() -> None:
    # two unit squares side by side, the right one's ids 4..7, its left edge a hair off x = 1
    xy = np.array([[0, 0], [1, 0], [1, 1], [0, 1], [1 + 1e-12, 0], [2, 0], [2, 1], [1, 1]], float)
    verts = np.array([0, 1, 2, 3, 4, 5, 6, 7])
    cpoly = np.repeat([0, 1], 4)
    nxt = np.array([1, 2, 3, 0, 5, 6, 7, 4])
    twin = np.array([-1, 7, -1, -1, -1, -1, -1, 1])  # square 0's edge 1 -> 2 is square 1's 7 -> 4
    pairs = seam_pairs(xy, verts, nxt, twin)
    group = point_groups(xy, pairs)
    assert group.tolist() == [0, 1, 2, 3, 1, 5, 6, 2]  # 7 by position, 4 by the shared edge
    vp_ptr, vp = point_polygons(group, verts, cpoly)
    assert sorted(vp[vp_ptr[4] : vp_ptr[5]].tolist()) == [0, 1]  # id 4 is on square 0's corner too
    assert vp[vp_ptr[0] : vp_ptr[1]].tolist() == [0]
