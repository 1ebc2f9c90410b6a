"""Obstacles on tile layouts (issue 40): a cell is blocked where an obstacle overlaps its own tile
(its outline about ``map_to_local``) by a positive area, against shapely's intersection areas;
the lattice search, its clearance and unit sizes after obstacle changes equal a grid loaded fresh
with the same walls; clearing gives the loaded walls back."""

from __future__ import annotations

import numpy as np
import pytest
import shapely

from python_core.grid.layouts import TileGrid, TileLayout
from python_core.grid.layouts.footprint import tile_outline
from python_core.obstacles import ObstacleShape
from python_core.result import QueryOptions

LAYOUTS = [
    TileLayout("hexagon"),
    TileLayout("hexagon", offset_axis=1, map_origin=(1, -2)),
    TileLayout("isometric", layout=2),
    TileLayout("half_offset_square", layout=1, offset_axis=1),
    TileLayout("astar_isometric_down"),
]


def tiles_of(grid: TileGrid) -> np.ndarray:
    """Every cell's tile, row-major, placed at its world centre."""
    centres = np.array([grid.cell_to_world((x, y)) for y in range(grid.height) for x in range(grid.width)])
    tiles: np.ndarray = shapely.polygons(
        centres[:, None, :] + tile_outline(grid.layout)[None] * np.array(grid.cell_size)
    )
    return tiles


@pytest.mark.parametrize(
    "layout", LAYOUTS, ids=lambda lay: f"{lay.kind.value}-{lay.layout}-{lay.offset_axis}"
)
def test_blocked_cells_are_the_tiles_an_obstacle_overlaps(layout: TileLayout) -> None:
    rng = np.random.default_rng(7)
    grid = TileGrid(np.ones((11, 14), dtype=bool), layout=layout, cell_size=(2.0, 1.5), origin=(0.5, -1.0))
    tiles = tiles_of(grid)
    union = shapely.union_all(tiles)
    assert union.area == pytest.approx(shapely.area(tiles).sum())  # the tiles do not overlap
    corner = shapely.get_coordinates(union.envelope)
    low, high = corner.min(axis=0) - 2, corner.max(axis=0) + 2
    for _ in range(6):
        shape = ObstacleShape.circle(rng.uniform(low, high), rng.uniform(0.3, 6.0))
        grid.update_obstacles({0: shape}, clear=True)
        want = shapely.area(shapely.intersection(shape.geometry(), tiles)) > 0
        assert np.array_equal(~grid.walkable.ravel(), want)
    grid.update_obstacles(clear=True)
    assert grid.walkable.all()


@pytest.mark.parametrize("shape", ["hexagon", "isometric", "astar_isometric_right"])
def test_searches_after_obstacles_equal_a_fresh_grid(shape: str) -> None:
    rng = np.random.default_rng(4)
    mask = rng.random((18, 22)) > 0.1
    grid = TileGrid(mask, layout=shape, cell_size=(2.0, 2.0))
    grid.find_path((0, 0), (1, 0), options=QueryOptions(allow_partial=True))  # the copy patched in place
    for _ in range(3):
        grid.update_obstacles({i: ObstacleShape.circle(rng.uniform(0, 40, 2), 3.0) for i in range(4)})
        fresh = TileGrid(grid.walkable, layout=shape, cell_size=(2.0, 2.0))
        assert np.array_equal(grid.clearance, fresh.clearance)
        open_ = np.flatnonzero(grid.walkable)
        for a, b in rng.choice(open_, (8, 2)).tolist():
            for k in (1, 2):
                ends = ((a % 22, a // 22), (b % 22, b // 22))
                assert _answer(grid, *ends, k) == _answer(fresh, *ends, k), (ends, k)
    grid.update_obstacles(clear=True)
    assert np.array_equal(grid.walkable, mask)
    assert np.array_equal(grid.clearance, TileGrid(mask, layout=shape, cell_size=(2.0, 2.0)).clearance)


def _answer(grid: TileGrid, a: tuple[int, int], b: tuple[int, int], k: int) -> object:
    try:
        result = grid.find_path(a, b, options=QueryOptions(size=k))
    except ValueError as exc:  # no room for the unit at the start: the same error both ways
        return type(exc).__name__
    return (result.found, result.cost if result.found else None, result.nodes.tolist())
