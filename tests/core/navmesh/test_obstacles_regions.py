"""Local region rebuilds (issue 40): adding, moving or removing a region of a navigation map stitches
only its polygons and those beside them; the mesh equals a full build of the same regions (the
same polygons up to collinear vertices, the same neighbours, the same optimal paths; default-mode
lengths within 2 %: a kept polygon may keep a collinear vertex of an earlier stitch), obstacles
included."""

from __future__ import annotations

import numpy as np
import pytest
import shapely

from python_core import QueryOptions
from python_core.errors import InvalidGraphError, UnsupportedOperationError
from python_core.navigation import NavMeshNavigator
from python_core.navigation.updates import MoveRegion, RemoveRegion, SetObstacles, SetRegion
from python_core.navmesh import NavMesh
from python_core.navmesh.navmap import NavMap, NavRegion
from python_core.obstacles import ObstacleShape


def room(x0: float, cells: int = 4, size: float = 2.5) -> NavRegion:
    """A square room of ``cells`` x ``cells`` squares from x = ``x0``."""
    xs, ys = np.meshgrid(np.arange(cells + 1) * size + x0, np.arange(cells + 1) * size)
    verts = np.stack([xs.ravel(), ys.ravel()], axis=1)
    y, x = np.divmod(np.arange(cells * cells), cells)
    a = y * (cells + 1) + x
    return NavRegion(verts, np.stack([a, a + 1, a + cells + 2, a + cells + 1], axis=1).tolist())


BRIDGE = NavRegion([[0, 0], [2, 0], [2, 2], [0, 2]], [[0, 1, 2, 3]])


def shifted(y: float) -> list[list[float]]:
    return [[1.0, 0.0, 10.0], [0.0, 1.0, y]]


def fresh(nav: NavMap) -> NavMap:
    """The same regions, links and obstacles in a new map: built in full."""
    out = NavMap(dim=2, edge_margin=nav.edge_margin)
    for rid, region in nav.regions.items():
        out.set_region(rid, region)
    out.update_obstacles(nav.obstacles)
    return out


def shapes(mesh: NavMesh) -> tuple[set[bytes], set[frozenset[bytes]]]:
    """Polygons (collinear vertices dropped) and neighbouring pairs, as comparable values."""
    polys = [shapely.normalize(shapely.Polygon(mesh.vertices[mesh.polygon(p)]).simplify(0)).wkb
             for p in range(mesh.polygon_count)]  # fmt: skip
    owner = np.repeat(np.arange(mesh.polygon_count), np.diff(mesh.poly_ptr))
    pairs = {frozenset((polys[a], polys[b])) for a, b in zip(owner, mesh.neighbours, strict=True) if b >= 0}
    return set(polys), pairs


def same_paths(a: NavMesh, b: NavMesh) -> None:
    rng = np.random.default_rng(4)
    for s, g in zip(
        rng.uniform((0, 0), (22, 10), (12, 2)), rng.uniform((0, 0), (22, 10), (12, 2)), strict=True
    ):
        for optimal in (False, True):
            x = NavMeshNavigator(a).find_path(s, g, QueryOptions(optimal=optimal))
            y = NavMeshNavigator(b).find_path(s, g, QueryOptions(optimal=optimal))
            assert x.status is y.status
            if optimal:  # the exact length is the mesh's, whatever its decomposition
                assert x.cost == pytest.approx(y.cost, rel=1e-9, abs=1e-9)
            else:  # a kept polygon may keep a collinear vertex of an earlier stitch: more portals
                assert x.cost == pytest.approx(y.cost, rel=0.02)


def test_a_moving_bridge_rebuilt_locally_equals_a_full_build() -> None:
    nav = NavMap(dim=2, edge_margin=0.5)
    nav.set_region(1, room(0.0))
    nav.set_region(2, room(12.0))
    nav.set_region(3, replace_transform(BRIDGE, shifted(1.0)))
    first = nav.mesh
    for y in (4.0, 6.5, 0.0, 8.0, 3.3):
        nav.move_region(3, shifted(y))
        built = nav.mesh
        assert built is not first
        whole = fresh(nav).mesh
        assert shapes(built) == shapes(whole)
        same_paths(built, whole)
    assert nav.mesh.find_path((1, 9), (21, 9)).found  # the bridge at y 8..10 joins the rooms


def same_area(a: NavMesh, b: NavMesh) -> None:
    """The same walkable area (cut pieces of a polygon with a kept collinear vertex may be split
    another way)."""
    ua, ub = (shapely.union_all([shapely.Polygon(m.vertices[m.polygon(p)]) for p in range(m.polygon_count)])
              for m in (a, b))  # fmt: skip
    assert ua.symmetric_difference(ub).area < 1e-9


def replace_transform(region: NavRegion, transform: list[list[float]]) -> NavRegion:
    return NavRegion(region.vertices, region.polygons, transform=transform)


def test_adding_and_removing_regions_with_obstacles_equals_a_full_build() -> None:
    nav = NavMap(dim=2, edge_margin=0.5)
    nav.set_region(1, room(0.0))
    nav.set_region(2, room(12.0))
    nav.update_obstacles(
        {1: ObstacleShape.circle((5.0, 5.0), 1.5), 2: ObstacleShape.circle((11.0, 5.0), 0.6)}
    )
    nav.mesh  # noqa: B018 - built once in full
    nav.set_region(3, replace_transform(BRIDGE, shifted(4.0)))
    same_area(nav.mesh, fresh(nav).mesh)
    same_paths(nav.mesh, fresh(nav).mesh)
    nav.remove_region(1)
    same_area(nav.mesh, fresh(nav).mesh)
    same_paths(nav.mesh, fresh(nav).mesh)
    assert nav.obstacle_count == 2
    assert nav.region_polygons(2).shape[0] == 16


def test_the_navigator_moves_a_region_without_a_new_mode_probe() -> None:
    regions = {1: room(0.0), 2: room(12.0), 3: replace_transform(BRIDGE, shifted(1.0))}
    nav_map = NavMap(dim=2, edge_margin=0.5)
    for rid, region in regions.items():
        nav_map.set_region(rid, region)
    nav = NavMeshNavigator(nav_map)
    choice = nav.mode_choice
    nav.apply([MoveRegion(3, shifted(6.0))])
    assert nav.mode_choice is choice
    nav.apply([SetRegion(4, room(30.0)), RemoveRegion(4)])
    other = NavMap(dim=2, edge_margin=0.5)
    for rid, region in regions.items():
        other.set_region(rid, region)
    other.move_region(3, shifted(6.0))
    same_paths(nav.mesh, other.mesh)


def test_the_navigator_takes_obstacles_in_a_batch_all_or_nothing() -> None:
    single = NavMeshNavigator(NavMesh(room(0.0).vertices, room(0.0).polygons))
    crate = ObstacleShape.polygon([(2.0, 2.0), (8.0, 2.0), (8.0, 3.0), (2.0, 3.0)])
    single.apply([SetObstacles({1: crate})])
    assert single.describe()["obstacles"] == 1
    assert single.find_path(np.array([5.0, 1.0]), np.array([5.0, 4.0])).cost > 3.0
    with pytest.raises(UnsupportedOperationError):
        single.apply([MoveRegion(1, shifted(0.0)), SetObstacles(clear=True)])
    with pytest.raises(InvalidGraphError, match="no obstacle 7"):
        single.apply([SetObstacles(clear=True), SetObstacles(remove=(7,))])
    assert single.obstacle_count == 1
    nav_map = NavMap(dim=2, edge_margin=0.5)
    for rid, region in {1: room(0.0), 2: room(12.0), 3: replace_transform(BRIDGE, shifted(8.0))}.items():
        nav_map.set_region(rid, region)
    nav = NavMeshNavigator(nav_map)
    with pytest.raises(InvalidGraphError, match="no obstacle 3"):
        nav.apply([MoveRegion(3, shifted(4.0)), SetObstacles({1: crate}, remove=(3,))])
    assert nav.find_path(np.array([9.0, 5.0]), np.array([13.0, 9.0])).found  # nothing moved
    nav.apply([MoveRegion(3, shifted(4.0)), SetObstacles({1: crate})])
    assert nav.obstacle_count == 1
    assert nav.find_path(np.array([9.0, 5.0]), np.array([13.0, 5.0])).cost == pytest.approx(4.0)
    assert nav.find_path(np.array([5.0, 1.0]), np.array([5.0, 4.0])).cost > 3.0
