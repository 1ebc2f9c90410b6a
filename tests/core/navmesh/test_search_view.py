"""The merged search view (issue 40): Polyanya searches the mesh's polygons joined into fewer convex
ones, with the same answers: lengths equal to the visibility-graph optimum, corridors of the mesh's
own polygons (their taut path is the path), a mask that splits a merged polygon searching the mesh
itself, and the same after obstacle cuts and region moves."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
import shapely

from python_core.formats.polyanya import load_polyanya_mesh, read_mesh_scenarios
from python_core.navmesh import NavMesh, polyanya_prepare
from python_core.navmesh.funnel import funnel_points
from python_core.navmesh.navmap import NavMap, NavRegion
from python_core.navmesh.optimal_batch import find_optimal_batch
from python_core.navmesh.polyanya import find_optimal_path
from python_core.navmesh.polyanya_prepare import search_arrays
from python_core.navmesh.search_view import merged_view
from python_core.obstacles import ObstacleShape
from python_core.result import QueryOptions
from tests.core.navmesh.mesh_oracle import MeshOracle, VisibilityOptimum

DATA = Path(__file__).resolve().parents[2] / "data" / "mesh"


@pytest.fixture(scope="module")
def arena() -> NavMesh:
    return load_polyanya_mesh(DATA / "arena.mesh")


def _taut(mesh: NavMesh, points: np.ndarray, corridor: np.ndarray) -> float:
    """The funnel's length inside ``corridor`` (consecutive polygons must be the mesh's neighbours)."""
    left, right = [], []
    for p, q in itertools.pairwise(corridor):
        corners = np.flatnonzero(mesh.neighbours[mesh.poly_ptr[p] : mesh.poly_ptr[p + 1]] == q)
        assert corners.size >= 1, f"polygons {p} and {q} of the corridor are not neighbours"
        poly = mesh.polygon(p)
        right.append(mesh.vertices[poly[int(corners[0])]])
        left.append(mesh.vertices[poly[(int(corners[0]) + 1) % len(poly)]])
    pts = funnel_points(points[0], points[-1], np.reshape(left, (-1, 2)), np.reshape(right, (-1, 2)))
    return float(np.linalg.norm(np.diff(pts, axis=0), axis=1).sum())


def _check_path(mesh: NavMesh, exact: VisibilityOptimum, start: np.ndarray, goal: np.ndarray) -> int:
    """One query on the view: the optimum's length, a corridor of the mesh's polygons from the
    start's polygon to the goal's whose taut path is the path. Returns its expansions."""
    res = find_optimal_path(mesh, start, goal)
    assert res.found, (start, goal)
    best = exact.length(np.asarray(start, float), np.asarray(goal, float))
    assert res.cost == pytest.approx(best, rel=1e-9, abs=1e-9), (start, goal)
    assert mesh.locate(res.points[0]) in res.nodes[:1] or res.nodes.size == 1
    assert _taut(mesh, res.points, res.nodes) == pytest.approx(res.cost, rel=1e-9, abs=1e-9)
    return res.expanded


def test_merged_polygons_are_convex_and_cover_the_mesh(arena: NavMesh) -> None:
    view = merged_view(arena)
    assert view.count < arena.polygon_count // 2  # arena: 120 -> 53
    for v in range(view.count):
        loop = arena.vertices[view.verts[view.ptr[v] : view.ptr[v + 1]]]
        edges = np.roll(loop, -1, axis=0) - loop
        turns = edges[:, 0] * np.roll(edges[:, 1], -1) - edges[:, 1] * np.roll(edges[:, 0], -1)
        assert np.all(turns >= -1e-9 * np.linalg.norm(edges, axis=1).max() ** 2), v
        members = view.members[view.member_ptr[v] : view.member_ptr[v + 1]]
        union = shapely.union_all([shapely.Polygon(arena.vertices[arena.polygon(p)]) for p in members])
        assert union.symmetric_difference(shapely.Polygon(loop)).area < 1e-9, v
        assert np.all(view.view_of[members] == v)
    assert sorted(view.members.tolist()) == list(range(arena.polygon_count))


def test_arena_paths_on_the_view_are_optimal_with_fewer_expansions(
    arena: NavMesh, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every arena scenario: the optimum, a valid corridor; fewer expansions than on the mesh."""
    rows = read_mesh_scenarios(DATA / "arena.anyangle.scen")
    assert search_arrays(arena, None).prep.ptr.shape[0] - 1 == merged_view(arena).count
    exact = VisibilityOptimum(MeshOracle(arena))
    merged = sum(_check_path(arena, exact, np.array(r.start), np.array(r.goal)) for r in rows)
    monkeypatch.setattr(polyanya_prepare, "MERGED", False)
    plain = sum(find_optimal_path(arena, r.start, r.goal).expanded for r in rows)
    assert merged < plain


def test_the_batch_on_the_view_equals_single_queries(arena: NavMesh) -> None:
    rows = read_mesh_scenarios(DATA / "arena.anyangle.scen")[::4]
    starts, goals = np.array([r.start for r in rows]), np.array([r.goal for r in rows])
    batch = find_optimal_batch(arena, starts, goals)
    for i, (s, g) in enumerate(zip(starts, goals, strict=True)):
        one, single = batch.result(i), find_optimal_path(arena, s, g)
        assert one.cost == single.cost
        np.testing.assert_array_equal(one.points, single.points)
        np.testing.assert_array_equal(one.nodes, single.nodes)


def _strip(layers: list[int]) -> NavMesh:
    """Three unit squares in a row, each two triangles (one rectangle in the view where their
    layers agree)."""
    verts = [[0, 0], [1, 0], [1, 1], [0, 1], [2, 0], [2, 1], [3, 0], [3, 1]]
    tris = [[0, 1, 2], [0, 2, 3], [1, 4, 5], [1, 5, 2], [4, 6, 7], [4, 7, 5]]
    return NavMesh(verts, tris, layers=layers)


def _chained(mesh: NavMesh, nodes: np.ndarray) -> bool:
    return all(
        q in mesh.neighbours[mesh.poly_ptr[p] : mesh.poly_ptr[p + 1]] for p, q in itertools.pairwise(nodes)
    )


def test_a_mask_splitting_a_merged_polygon_searches_the_mesh_itself() -> None:
    one = _strip([1] * 6)
    assert search_arrays(one, None).prep.ptr.shape[0] - 1 == 1
    split = np.array([True] * 4 + [False, True])  # half of the last square
    assert search_arrays(one, split).view is None
    res = find_optimal_path(one, (0.2, 0.8), (2.2, 0.8), traversable=split)
    assert res.cost == pytest.approx(2.0)
    assert res.nodes[0] == 1
    assert res.nodes[-1] == 5
    assert _chained(one, res.nodes)
    # polygons of other layers are never joined: a mask of layers keeps the view
    two = _strip([1, 1, 1, 1, 2, 2])
    mask = np.array([True] * 4 + [False] * 2)
    arrays = search_arrays(two, mask)
    assert arrays.view is not None
    assert arrays.prep.ptr.shape[0] - 1 == 2
    partial = QueryOptions(allow_partial=True)
    res = find_optimal_path(two, (0.2, 0.8), (2.5, 0.5), options=partial, traversable=mask)
    assert res.status.value == "partial"
    assert res.points[-1].tolist() == [2.0, 0.5]
    assert res.nodes[0] == 1
    assert res.nodes[-1] == 2
    assert _chained(two, res.nodes)


def test_paths_stay_optimal_on_the_view_after_obstacle_cuts(arena: NavMesh) -> None:
    rows = read_mesh_scenarios(DATA / "arena.anyangle.scen")[::5]
    mesh = NavMesh(arena.vertices, [arena.polygon(p) for p in range(arena.polygon_count)])
    mesh.update_obstacles(
        {1: ObstacleShape.circle((20.0, 20.0), 2.5), 2: ObstacleShape.circle((30.0, 12.0), 1.5)}
    )
    mesh.update_obstacles({1: ObstacleShape.circle((22.0, 18.0), 2.5)})  # one moves
    assert search_arrays(mesh, None).view is None  # a new cut: its own polygons for a while
    arrays = search_arrays(mesh, None, polyanya_prepare.VIEW_AFTER)  # then its view
    assert arrays.view is not None
    assert arrays.prep.ptr.shape[0] - 1 < mesh.polygon_count
    exact = VisibilityOptimum(MeshOracle(mesh))
    for r in rows:
        if mesh.locate(r.start) >= 0 and mesh.locate(r.goal) >= 0:
            _check_path(mesh, exact, np.array(r.start), np.array(r.goal))


def test_paths_stay_optimal_on_the_view_after_a_region_move() -> None:
    """Two 4 x 4 rooms of squares (two triangles each) joined by a bridge region that moves: each
    mesh's view is searched and its paths have the optimum's length."""
    xs, ys = np.meshgrid(np.arange(5) * 2.5, np.arange(5) * 2.5)
    verts = np.stack([xs.ravel(), ys.ravel()], axis=1)
    y, x = np.divmod(np.arange(16), 4)
    a = y * 5 + x
    cells = np.concatenate(
        [np.stack([a, a + 1, a + 6], axis=1), np.stack([a, a + 6, a + 5], axis=1)]
    ).tolist()
    nav = NavMap(dim=2, edge_margin=0.5)
    nav.set_region(1, NavRegion(verts, cells))
    nav.set_region(2, NavRegion(verts + np.array([12.0, 0.0]), cells))
    bridge = [[0, 0], [2, 0], [2, 2], [0, 2]]
    rng = np.random.default_rng(5)
    for height in (1.0, 6.5):
        nav.set_region(3, NavRegion(bridge, [[0, 1, 2, 3]], transform=[[1.0, 0.0, 10.0], [0.0, 1.0, height]]))
        mesh = nav.mesh
        assert search_arrays(mesh, None).prep.ptr.shape[0] - 1 < mesh.polygon_count
        exact = VisibilityOptimum(MeshOracle(mesh))
        for _ in range(8):
            _check_path(mesh, exact, rng.uniform((0, 0), (10, 10)), rng.uniform((12, 0), (22, 10)))
