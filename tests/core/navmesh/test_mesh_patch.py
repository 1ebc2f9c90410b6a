"""Navmesh updates patch the derived arrays (issue 40): after an obstacle or region change the bucket
grid and the search graph are patched from the last mesh's (python_core/navmesh/patch.py), not
built again. A long random sequence of obstacle moves, removals and region moves answers as a
fresh build of the final state (exact lengths, statuses; paths inside the walkable area minus the
obstacles, computed with shapely); the search graph keeps the nodes an update did not reach."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import shapely

from python_core import QueryOptions
from python_core.navigation import NavMeshNavigator
from python_core.navigation.updates import MoveRegion
from python_core.navmesh import NavMesh, cut
from python_core.navmesh.build import corner_links
from python_core.navmesh.graph import SearchGraph
from python_core.navmesh.navmap import NavMap, NavRegion
from python_core.navmesh.stitch import Conformed
from python_core.obstacles import ObstacleShape
from tests.core.navmesh.shrink_oracle import segments, walkable_area

TILES = 3
SIZE = 2.0


def tile(x0: float, y0: float) -> NavRegion:
    """A 3 x 3 tile of squares, each cut into two triangles, from ``(x0, y0)``."""
    xs, ys = np.meshgrid(np.arange(4) * SIZE + x0, np.arange(4) * SIZE + y0)
    verts = np.stack([xs.ravel(), ys.ravel()], axis=1)
    polys = []
    for y in range(3):
        for x in range(3):
            a = y * 4 + x
            polys += [[a, a + 1, a + 5], [a, a + 5, a + 4]]
    return NavRegion(verts, polys)


def tiles(nav: NavMap, *, regions: bool = True) -> None:
    """A 3 x 3 map of tiles, 6 units each (tile 4 in the middle), or one region of them all."""
    parts = [tile(6.0 * (k % TILES), 6.0 * (k // TILES)) for k in range(TILES * TILES)]
    if regions:
        for k, part in enumerate(parts):
            nav.set_region(k, part)
        return
    verts = np.vstack([np.asarray(p.vertices) for p in parts])
    polys = [
        [v + 16 * k for v in poly] for k, p in enumerate(parts) for poly in np.asarray(p.polygons).tolist()
    ]
    nav.set_region(0, NavRegion(verts, polys))


def area_of(nav: NavMap, obstacles: dict[int, ObstacleShape]) -> shapely.Geometry:
    """The map's walkable area minus the obstacles, from the regions' own polygons (shapely only)."""
    polys = []
    for region in nav.regions.values():
        world, ptr, flat = region.checked(2)
        polys += [shapely.Polygon(world[flat[a:b]]) for a, b in itertools.pairwise(ptr.tolist())]
    walk = shapely.union_all(polys)
    blocked = [s.geometry() for s in obstacles.values()]
    return walk.difference(shapely.union_all(blocked)) if blocked else walk


def run_sequence(
    steps: int, seed: int, *, regions: bool, moves: bool = False
) -> tuple[NavMeshNavigator, NavMap, dict[int, ObstacleShape]]:
    """``steps`` random updates on a navigator of the tiles (as regions, or as one region):
    obstacle moves (one, or several at once), removals and returns, and with ``moves`` moves of
    the middle tile; returns it, a map of the final regions (built in full) and the final
    obstacles."""
    nav_map = NavMap(dim=2, edge_margin=0.5)
    tiles(nav_map, regions=regions)
    nav = NavMeshNavigator(nav_map)
    rng = np.random.default_rng(seed)
    centres = rng.uniform(1.0, 17.0, size=(6, 2))
    held = {i: ObstacleShape.circle(centres[i], 0.9) for i in range(6)}
    nav.update_obstacles(held)
    shift = 0.0
    for _ in range(steps):
        kind = rng.integers(0, 10 if moves else 8)
        if kind < 5:  # one or three obstacles move
            moving = rng.choice(6, size=1 if kind < 3 else 3, replace=False).tolist()
            moved = {}
            for i in moving:
                centres[i] = np.clip(centres[i] + rng.normal(0.0, 1.0, size=2), 0.5, 17.5)
                moved[i] = ObstacleShape.circle(centres[i], 0.9)
            nav.update_obstacles(moved)
            held |= moved
        elif kind < 8:  # one goes, or comes back
            gone = [i for i in range(6) if i not in held]
            if gone and kind == 7:
                back = {gone[0]: ObstacleShape.circle(centres[gone[0]], 0.9)}
                nav.update_obstacles(back)
                held |= back
            elif len(held) > 1:
                key = sorted(held)[int(rng.integers(0, len(held)))]
                nav.update_obstacles({}, remove=[key])
                del held[key]
        else:  # the middle tile moves away (an island) or back into its place
            shift = 30.0 if shift == 0.0 else 0.0
            nav.apply([MoveRegion(4, [[1.0, 0.0, 0.0], [0.0, 1.0, shift]])])
    final = NavMap(dim=2, edge_margin=0.5)
    tiles(final, regions=regions)
    if moves:
        final.move_region(4, [[1.0, 0.0, 0.0], [0.0, 1.0, shift]])
    final.update_obstacles(held)
    return nav, final, held


def same_answers(nav: NavMeshNavigator, final: NavMap, held: dict[int, ObstacleShape], seed: int) -> None:
    fresh = NavMeshNavigator(final)
    area = area_of(final, held)
    cover = area.buffer(1e-6)
    inner = area.buffer(-0.05)
    rng = np.random.default_rng(seed)
    pts = rng.uniform((0.0, 0.0), (18.0, 42.0), size=(1200, 2))
    pts = pts[shapely.contains_xy(inner, pts[:, 0], pts[:, 1])][:32]
    assert pts.shape[0] == 32
    for s, g in zip(pts[::2], pts[1::2], strict=True):
        exact = nav.find_path(s, g, QueryOptions(optimal=True))
        expect = fresh.find_path(s, g, QueryOptions(optimal=True))
        assert exact.status is expect.status
        assert exact.cost == pytest.approx(expect.cost, rel=1e-9, abs=1e-9)
        # the default mode's corridor depends on how the polygons were stitched (a fresh build of
        # the same state differs too): found alike, inside the area, never below the optimum
        funnel = nav.find_path(s, g, QueryOptions(optimal=False))
        assert funnel.status is expect.status
        for res in (exact, funnel) if funnel.found else ():
            for seg in segments(res.points):
                assert cover.covers(seg), f"{seg} leaves the walkable area minus the obstacles"
        assert not funnel.found or funnel.cost >= expect.cost - 1e-9


def test_a_long_random_sequence_of_obstacle_updates_answers_as_a_fresh_build() -> None:
    nav, final, held = run_sequence(40, 1, regions=False)  # one region: the cut mesh is patched
    same_answers(nav, final, held, 1)


def test_obstacles_and_region_moves_on_a_map_of_regions_answer_as_a_fresh_build() -> None:
    # seed 1 moved the tile back onto a mesh that kept the obstacles' holes; without region moves
    # every obstacle update is a local patch (regions joined across the edge margin), not a re-cut
    for seed, moves in ((1, True), (3, True), (2, False)):
        nav, final, held = run_sequence(40, seed, regions=True, moves=moves)
        assert moves or (nav.mesh._cuts is not None and nav.mesh._cuts.patches == 40)
        same_geometry(nav.mesh, final.mesh)
        same_answers(nav, final, held, seed)


def same_geometry(patched: NavMesh, fresh: NavMesh) -> None:
    """The same walkable area, and the same stretches of edge joined to a neighbour (a patch may
    keep extra vertices on an edge, so the edges are compared as lines, with shapely)."""
    a, b = walkable_area(patched), walkable_area(fresh)
    assert shapely.symmetric_difference(a, b).area < 1e-9
    assert abs(a.area - b.area) < 1e-9
    pa, pb = joined_lines(patched), joined_lines(fresh)
    assert shapely.symmetric_difference(pa, pb).length < 1e-6, shapely.symmetric_difference(pa, pb)


def joined_lines(mesh: NavMesh) -> shapely.Geometry:
    """The union of the edges paired with a neighbour."""
    _, nxt = corner_links(mesh.poly_ptr)
    c = np.flatnonzero(mesh._twin >= 0)
    ends = np.stack([mesh.vertices[mesh.poly_verts[c]], mesh.vertices[mesh.poly_verts[nxt[c]]]], axis=1)
    return shapely.line_merge(shapely.union_all(shapely.linestrings(ends)))


def test_patches_every_few_updates_recut_from_the_loaded_mesh_and_still_agree(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(cut, "PATCHES", 3)  # a full re-cut every fourth obstacle update
    nav, final, held = run_sequence(16, 5, regions=False)
    same_answers(nav, final, held, 5)


def test_an_obstacle_move_keeps_the_search_graph_where_it_did_not_reach() -> None:
    nav_map = NavMap(dim=2, edge_margin=0.5)
    tiles(nav_map, regions=False)
    mesh = nav_map.mesh
    mesh.update_obstacles({1: ObstacleShape.circle((3.0, 3.0), 0.9)})
    before = mesh.search_graph
    grid = mesh._locator
    mesh.update_obstacles({1: ObstacleShape.circle((3.5, 3.0), 0.9)})
    after = mesh.search_graph
    assert after is not before
    assert after.node_count >= before.node_count
    assert (after.node_count - before.node_count) < before.node_count // 4
    # nodes on portals far from both footprints keep their ids, points and rows
    live = before.dst >= 0  # a portal gone earlier leaves its ids to the next new portals
    far = np.flatnonzero(live & (np.linalg.norm(before.pos - [3.25, 3.0], axis=1) > 7.0))
    assert far.size > before.node_count // 3
    assert np.array_equal(after.pos[far], before.pos[far])
    for u in far[:: max(1, far.size // 50)].tolist():
        row = slice(before.indptr[u], before.indptr[u + 1])
        assert np.array_equal(after.indices[after.indptr[u] : after.indptr[u + 1]], before.indices[row])
        assert np.array_equal(after.costs[after.indptr[u] : after.indptr[u + 1]], before.costs[row])
    # the bucket grid is the same grid, its buckets patched
    assert (mesh._locator.cell, mesh._locator.cols, mesh._locator.rows) == (grid.cell, grid.cols, grid.rows)
    # the same nodes and edges as the stitched polygons' graph built in full (up to numbering:
    # the default mode may then break a tie between equal corridors another way)
    same = Conformed(mesh.vertices, mesh.poly_ptr, mesh.poly_verts, mesh._twin, 0)
    whole = NavMesh(
        mesh.vertices, mesh.poly_verts, sizes=np.diff(mesh.poly_ptr), edge_margin=0.5, stitched=same
    )
    assert rows_of(after) == rows_of(whole.search_graph)
    rng = np.random.default_rng(8)
    for s, g in zip(rng.uniform(0.0, 18.0, (20, 2)), rng.uniform(0.0, 18.0, (20, 2)), strict=True):
        assert mesh.locate(s) == whole.locate(s)
        assert mesh.find_path(s, g).status is whole.find_path(s, g).status


def rows_of(graph: SearchGraph) -> dict[tuple[object, ...], list[tuple[object, ...]]]:
    """Per live node (its polygons and point), the nodes its edges lead to and their costs."""
    out: dict[tuple[object, ...], list[tuple[object, ...]]] = {}
    for u in np.flatnonzero(graph.dst >= 0).tolist():
        row = range(graph.indptr[u], graph.indptr[u + 1])
        out[(int(graph.src[u]), int(graph.dst[u]), tuple(np.round(graph.pos[u], 9).tolist()))] = sorted(
            (tuple(np.round(graph.pos[graph.indices[j]], 9).tolist()), int(graph.src[graph.indices[j]]),
             int(graph.dst[graph.indices[j]]), round(float(graph.costs[j]), 9))
            for j in row
        )  # fmt: skip
    return out
