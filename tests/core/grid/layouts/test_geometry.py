"""Our tile geometry equals the engine's exactly: map_to_local, get_surrounding_cells, the corner
cells of get_neighbor_cell and local_to_map, on every shape, layout and offset axis Godot offers."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from python_core.errors import InvalidGraphError, InvalidQueryError, OutOfBoundsError
from python_core.grid.layouts import TileGrid, TileLayout
from python_core.grid.layouts.geometry import centres, neighbour_table
from tests.core.grid.layouts.godot_dump import dump, layer_id, layers, layout_of

LAYERS = layers()


def _grid(layer: dict[str, Any], origin: tuple[float, float] = (0.0, 0.0)) -> TileGrid:
    _, _, w, h = dump()["region"]
    return TileGrid(
        np.ones((h, w), bool), layout=layout_of(layer), cell_size=layer["tile_size"], origin=origin
    )


def _map_cells() -> tuple[np.ndarray, np.ndarray]:
    x0, y0, w, h = dump()["region"]
    ys, xs = np.divmod(np.arange(w * h), w)
    return xs + x0, ys + y0


def test_the_dump_covers_every_shape_layout_and_axis() -> None:
    seen = {(la["shape"], la["layout"], la["offset_axis"]) for la in LAYERS}
    expected = {(0, 0, 0)} | {(s, lay, a) for s in (1, 2, 3) for lay in range(6) for a in (0, 1)}
    assert seen == expected
    assert dump()["godot"].startswith("4.")


@pytest.mark.parametrize("layer", LAYERS, ids=layer_id)
def test_centres_equal_map_to_local(layer: dict[str, Any]) -> None:
    mx, my = _map_cells()
    ours = centres(layout_of(layer), mx, my, layer["tile_size"])
    np.testing.assert_array_equal(ours, np.array(layer["centres"]))
    # a TileGrid places cell (0, 0) at its origin and the others as the engine does around it
    first = np.array(layer["centres"][0])
    grid = _grid(layer, origin=(float(first[0]) + 5.0, float(first[1]) - 3.0))
    np.testing.assert_allclose(
        grid.cell_points(np.arange(len(mx))), np.array(layer["centres"]) + np.array([5.0, -3.0])
    )


@pytest.mark.parametrize("layer", LAYERS, ids=layer_id)
def test_sides_and_corners_equal_the_engines(layer: dict[str, Any]) -> None:
    layout = layout_of(layer)
    table = neighbour_table(layout)
    mx, my = _map_cells()
    for i, (x, y) in enumerate(zip(mx.tolist(), my.tolist(), strict=True)):
        if layout.parity_axis < 0:
            parity = 0
        else:
            along = y if layout.parity_axis == 1 else x
            parity = along % 2 if layout.layout == 0 else 1 - along % 2
        sides = {(x + dx, y + dy) for dx, dy in table.sides[parity].tolist()}
        corners = {(x + dx, y + dy) for dx, dy in table.corners[parity].tolist()}
        assert sides == {tuple(c) for c in layer["surrounding"][i]}, (x, y)
        assert corners == {tuple(c) for c in layer["corners"][i]}, (x, y)
        for k, (a, b) in enumerate(table.corner_sides[parity].tolist()):
            # the two sides beside a corner are sides of the corner cell too (by the engine's table)
            cx, cy = x + table.corners[parity, k, 0], y + table.corners[parity, k, 1]
            for side in (a, b):
                sx, sy = x + table.sides[parity, side, 0], y + table.sides[parity, side, 1]
                assert abs(sx - cx) <= 1 or abs(sy - cy) <= 1


@pytest.mark.parametrize("layer", LAYERS, ids=layer_id)
def test_world_to_cell_equals_local_to_map(layer: dict[str, Any]) -> None:
    grid = _grid(layer, origin=tuple(layer["centres"][0]))
    x0, y0, w, h = dump()["region"]
    checked = 0
    for px, py, mx, my in layer["probes"]:
        cell = (mx - x0, my - y0)
        if 0 <= cell[0] < w and 0 <= cell[1] < h:
            assert grid.world_to_cell((px, py)) == cell, (px, py)
            checked += 1
        else:
            with pytest.raises(OutOfBoundsError):
                grid.world_to_cell((px, py))
    assert checked >= 20


def test_bad_layouts_and_positions_are_refused() -> None:
    with pytest.raises(InvalidGraphError, match="layout must be an integer in"):
        TileLayout("hexagon", layout=6)
    with pytest.raises(InvalidGraphError, match="offset_axis"):
        TileLayout("hexagon", offset_axis=True)
    with pytest.raises(InvalidGraphError, match="map_origin must be two integers"):
        TileLayout("isometric", map_origin=(0.5, 1))  # type: ignore[arg-type]
    with pytest.raises(InvalidGraphError, match="unknown tile shape"):
        TileLayout("triangle")
    grid = TileGrid(np.ones((2, 2), bool), layout="hexagon")
    with pytest.raises(InvalidQueryError, match="finite"):
        grid.world_to_cell((float("nan"), 0.0))
    with pytest.raises(OutOfBoundsError):
        grid.world_to_cell((1e300, 0.0))
