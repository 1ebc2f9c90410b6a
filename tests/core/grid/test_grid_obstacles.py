"""Obstacles on square grids (issue 40): the cells they block against an independent shapely
computation, and the grid around them (clearance for every size, paths of sizes 1-3, the HPA*
hierarchy) against oracles that never read our code, after each place, move and remove.

The oracle of blocked cells builds every cell's square in world coordinates and asks shapely for
the area of its intersection with the obstacle (blocked when > 0); the grid decides with shapely's
predicates (intersecting and not only touching) over the cells of the obstacle's bounding box.
Walls set while an obstacle stands are the walls the obstacle leaves behind: a wall opened under an
obstacle opens when the obstacle goes, an open cell closed under it stays closed.
"""

from __future__ import annotations

import numpy as np
import pytest
import shapely

from python_core.errors import InvalidGraphError, UnknownPointError
from python_core.grid import DiagonalMode, GridGraph
from python_core.grid.clearance import clearance_of
from python_core.navigation import GridNavigator, HierarchyOptions, MoveAgent, SetObstacles, SetWalkable
from python_core.obstacles import ObstacleShape
from python_core.result import QueryOptions
from tests.core.grid.test_unit_size_oracle import check_against_oracle, eroded

SIZES = (1, 2, 3)


def blocked_by(shapes: list[ObstacleShape], grid: GridGraph) -> np.ndarray:
    """``(height, width)`` True where a shape overlaps the cell's square by a positive area."""
    (ox, oy), (cw, ch) = grid.origin, grid.cell_size
    ys, xs = np.mgrid[0 : grid.height, 0 : grid.width]
    boxes = shapely.box(
        ox + (xs - 0.5) * cw, oy + (ys - 0.5) * ch, ox + (xs + 0.5) * cw, oy + (ys + 0.5) * ch
    )
    out = np.zeros(xs.shape, dtype=bool)
    for shape in shapes:
        out |= shapely.area(shapely.intersection(shape.geometry(), boxes)) > 0
    return out


def random_shape(rng: np.random.Generator, span: tuple[float, float], kind: int) -> ObstacleShape:
    """A circle, a convex polygon or a star-shaped (non-convex) one somewhere over ``span``."""
    cx, cy = rng.uniform(-3, span[0] + 3), rng.uniform(-3, span[1] + 3)
    if kind == 0:
        return ObstacleShape.circle((cx, cy), rng.uniform(0.2, 6.0))
    if kind == 1:
        hull = shapely.MultiPoint(rng.uniform(-8, 8, (7, 2)) + np.array([cx, cy])).convex_hull
        return ObstacleShape.polygon(np.asarray(hull.exterior.coords))
    angles = (np.arange(9) + rng.uniform(0.0, 0.9, 9)) * (2 * np.pi / 9)  # gaps < pi: simple
    radii = rng.uniform(0.5, 7.0, 9)
    return ObstacleShape.polygon(np.column_stack((cx + radii * np.cos(angles), cy + radii * np.sin(angles))))


@pytest.mark.parametrize("seed", range(6))
def test_blocked_cells_equal_the_shapely_area_oracle(seed: int) -> None:
    rng = np.random.default_rng(seed)
    cell = (float(rng.uniform(0.5, 2.0)), float(rng.uniform(0.5, 2.0)))
    origin = (float(rng.uniform(-3, 3)), float(rng.uniform(-3, 3)))
    mask = rng.random((40, 50)) > 0.2
    grid = GridGraph(mask, cell_size=cell, origin=origin)
    span = (50 * cell[0], 40 * cell[1])
    shapes = [random_shape(rng, span, i % 3) for i in range(12)]
    if seed == 0:  # one larger than a block side (16 cells): blocks inside it are taken whole
        shapes.append(ObstacleShape.circle((span[0] / 2, span[1] / 2), 0.4 * span[1]))
    grid.update_obstacles(dict(enumerate(shapes)))
    assert np.array_equal(grid.walkable, mask & ~blocked_by(shapes, grid))
    assert np.array_equal(grid.base_walkable, mask)
    assert grid.obstacle_count == len(shapes)


def test_touching_an_edge_or_a_corner_does_not_block() -> None:
    grid = GridGraph(np.ones((5, 5), dtype=bool), origin=(0.5, 0.5))  # cell (x, y) is [x, x+1]
    square = ObstacleShape.polygon([(1, 1), (3, 1), (3, 3), (1, 3)])  # exactly cells 1-2 x 1-2
    diamond = ObstacleShape.polygon([(4, 3), (5, 4), (4, 5), (3, 4)])  # corners on cell corners
    changed = grid.update_obstacles({0: square, 1: diamond})
    want = np.ones((5, 5), dtype=bool)
    want[1:3, 1:3] = False
    want[3:5, 3:5] = False  # the diamond overlaps the four cells around (4, 4)
    assert np.array_equal(grid.walkable, want)
    assert changed.tolist() == sorted(np.flatnonzero(~want.ravel()).tolist())
    sliver = ObstacleShape.polygon([(0, 0), (5, 0), (5, 1e-9)])  # a positive area, however thin
    grid.update_obstacles({2: sliver})
    assert not grid.walkable[0, :].any()


def test_set_move_remove_keep_clearance_and_paths_of_every_size_exact() -> None:
    rng = np.random.default_rng(11)
    mask = rng.random((36, 44)) > 0.12
    mask[:, ::9] = True
    grid = GridGraph(mask, diagonal=DiagonalMode.ONLY_IF_NO_OBSTACLES, cell_size=(1.0, 1.5))
    ones = np.ones(mask.shape)
    grid.find_path((0, 0), (1, 0))  # builds the padded copy the obstacle changes repair in place
    for k in SIZES:
        grid.find_path((0, 0), (1, 0), options=QueryOptions(size=k, allow_partial=True))
    placed: dict[int, ObstacleShape] = {}
    for step in range(4):
        moves = {i: ObstacleShape.circle((rng.uniform(0, 44), rng.uniform(0, 54)), 2.0) for i in range(5)}
        removes = [i for i in placed if i % 2] if step == 3 else []
        grid.update_obstacles(moves, removes)
        placed = {i: s for i, s in placed.items() if i not in removes} | moves
        walls = mask & ~blocked_by(list(placed.values()), grid)
        assert np.array_equal(grid.walkable, walls)
        assert np.array_equal(grid.clearance, clearance_of(walls))
        check_against_oracle(grid, walls, ones, rng)
    grid.update_obstacles(clear=True)
    assert np.array_equal(grid.walkable, mask)
    assert np.array_equal(grid.clearance, clearance_of(mask))
    assert grid.obstacle_count == 0


def test_walls_set_under_an_obstacle_are_the_walls_it_leaves() -> None:
    grid = GridGraph.from_strings(["....", ".@..", "...."], diagonal="never")
    cover = ObstacleShape.polygon([(0.5, 0.5), (2.5, 0.5), (2.5, 1.5), (0.5, 1.5)])  # cells (1,1), (2,1)
    grid.update_obstacles({5: cover})
    grid.set_walkable([(1, 1)], True)  # the wall under it opens: still blocked while it stands
    grid.set_walkable([(2, 1)], False)  # an open cell under it closes
    assert not grid.walkable[1, 1:3].any()
    assert grid.base_walkable[1].tolist() == [True, True, False, True]
    grid.update_obstacles(remove=[5])
    assert grid.walkable[1].tolist() == [True, True, False, True]
    assert np.array_equal(grid.clearance, clearance_of(grid.walkable))


def test_overlapping_obstacles_block_until_the_last_goes() -> None:
    grid = GridGraph(np.ones((3, 3), dtype=bool))
    a = ObstacleShape.circle((1.0, 1.0), 0.3)
    grid.update_obstacles({1: a, 2: a})
    grid.update_obstacles(remove=[1])
    assert not grid.walkable[1, 1]
    grid.update_obstacles({2: ObstacleShape.circle((2.0, 2.0), 0.3)})  # a move
    assert grid.walkable[1, 1]
    assert not grid.walkable[2, 2]


def test_a_bad_call_changes_nothing() -> None:
    grid = GridGraph(np.ones((4, 4), dtype=bool))
    grid.update_obstacles({3: ObstacleShape.circle((1.0, 1.0), 0.3)})
    before, version = grid.walkable.copy(), grid.version
    with pytest.raises(InvalidGraphError, match="no obstacle with id 4"):
        grid.update_obstacles({0: ObstacleShape.circle((2.0, 2.0), 0.3)}, remove=[3, 4])
    with pytest.raises(InvalidGraphError, match="ObstacleShape"):
        grid.update_obstacles({0: [(0, 0), (1, 0), (0, 1)]})  # type: ignore[dict-item]
    with pytest.raises(InvalidGraphError, match="integer >= 0"):
        grid.update_obstacles({-1: ObstacleShape.circle((2.0, 2.0), 0.3)})
    with pytest.raises(InvalidGraphError, match="integer >= 0"):
        grid.update_obstacles(remove=[True])
    with pytest.raises(InvalidGraphError, match="clear must be a bool"):
        grid.update_obstacles(clear=1)  # type: ignore[arg-type]
    assert np.array_equal(grid.walkable, before)
    assert grid.version == version
    assert list(grid.obstacles) == [3]
    assert grid.update_obstacles({9: ObstacleShape.circle((-50.0, -50.0), 1.0)}).size == 0  # off the grid
    assert grid.version == version


def test_a_failed_batch_takes_its_obstacles_back_and_the_hierarchy_with_them() -> None:
    mask = np.ones((24, 24), dtype=bool)
    nav = GridNavigator(GridGraph(mask, diagonal="never"))
    nav.build_hierarchy(HierarchyOptions(cluster_size=8))
    wall = ObstacleShape.polygon([(11.6, -1), (12.4, -1), (12.4, 30), (11.6, 30)])  # column 12
    with pytest.raises(UnknownPointError):
        nav.apply([SetObstacles({1: wall}), MoveAgent(99, (0, 0))])
    assert nav.grid.obstacle_count == 0
    assert nav.grid.walkable.all()
    assert nav.obstacle_flips.size == 0
    assert nav.is_reachable((0, 0), (23, 0))
    nav.apply([SetWalkable(np.array([[12, 5]]), np.array([False])), SetObstacles({1: wall})])
    assert nav.obstacle_flips.tolist() == [y * 24 + 12 for y in range(24) if y != 5]
    assert not nav.is_reachable((0, 0), (23, 0))
    assert not nav.find_path((0, 0), (23, 0), hierarchical=True).found
    assert nav.describe()["obstacles"] == 1
    nav.apply([SetObstacles(remove=(1,))])
    assert nav.grid.walkable.sum() == 24 * 24 - 1  # the wall set by `cells` stays
    assert nav.is_reachable((0, 0), (23, 0))


def test_hierarchy_layers_of_every_size_follow_the_obstacles() -> None:
    rng = np.random.default_rng(5)
    mask = rng.random((32, 32)) > 0.1
    nav = GridNavigator(GridGraph(mask, diagonal="only_if_no_obstacles"))
    nav.build_hierarchy(HierarchyOptions(cluster_size=8))
    shapes = {i: ObstacleShape.circle((rng.uniform(0, 32), rng.uniform(0, 32)), 2.0) for i in range(6)}
    nav.apply([SetObstacles(shapes)])
    walls = mask & ~blocked_by(list(shapes.values()), nav.grid)
    for k in SIZES:
        anchors = np.flatnonzero(eroded(walls, k))
        exact = nav.grid
        for start, goal in rng.choice(anchors, (6, 2)).tolist():
            s, g = (start % 32, start // 32), (goal % 32, goal // 32)
            found = exact.find_path(s, g, options=QueryOptions(size=k)).found
            assert nav.is_reachable(s, g, QueryOptions(size=k)) == found, (k, s, g)
            hierarchical = nav.find_path(s, g, QueryOptions(size=k), hierarchical=True)
            assert hierarchical.found == found
            for node in hierarchical.nodes.tolist():
                x, y = node % 32, node // 32
                assert walls[y : y + k, x : x + k].all()
