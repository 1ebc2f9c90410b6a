"""Clearance, unit-size options and the eroded view of a grid (issue 38's shared contract).

The oracle for clearance is the definition itself, checked by brute force with numpy slicing: the
largest k whose k x k square from the cell lies inside the grid on walkable cells.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import ndimage

from python_core.errors import InvalidGraphError, InvalidQueryError
from python_core.grid import GridGraph
from python_core.grid.cells import check_options
from python_core.grid.clearance import MAX_UNIT_SIZE, clearance_of, fill_clearance, repair_clearance
from python_core.grid.sized_view import footprint_max, sized_view
from python_core.result import QueryOptions


def brute_clearance(mask: np.ndarray) -> np.ndarray:
    h, w = mask.shape
    out = np.zeros((h, w), dtype=np.uint8)
    for y in range(h):
        for x in range(w):
            k = 0
            while y + k < h and x + k < w and k < MAX_UNIT_SIZE and mask[y : y + k + 1, x : x + k + 1].all():
                k += 1
            out[y, x] = k
    return out


@pytest.mark.parametrize("seed", range(6))
def test_clearance_is_the_largest_square_that_fits(seed: int) -> None:
    rng = np.random.default_rng(seed)
    h, w = rng.integers(1, 25, 2)
    mask = rng.random((h, w)) > rng.uniform(0.0, 0.4)
    got = clearance_of(mask)
    assert got.dtype == np.uint8
    assert got.shape == (h, w)
    assert np.array_equal(got, brute_clearance(mask))


def test_clearance_caps_at_255_and_stays_inside_the_grid() -> None:
    got = clearance_of(np.ones((300, 260), dtype=bool))
    assert got[0, 0] == MAX_UNIT_SIZE == 255
    assert got[299, 0] == 1
    assert got[0, 259] == 1
    assert got[40, 5] == 255
    assert got[100, 10] == 200


@pytest.mark.parametrize("height", [1, 3, 4, 5, 9])
def test_clearance_of_every_input_layout(height: int) -> None:
    # the pass counts runs four rows at a time: heights around four test the rows left over; bools
    # are read in place, uint8 values above 1 are walkable too, slices and read-only arrays alike
    rng = np.random.default_rng(height)
    mask = rng.random((height + 3, 2 * 11)) > 0.2
    expected = brute_clearance(mask[1 : height + 1, ::2])
    assert np.array_equal(clearance_of(mask[1 : height + 1, ::2]), expected)
    values = (mask * rng.integers(1, 255, mask.shape)).astype(np.uint8)
    values.flags.writeable = False
    assert np.array_equal(clearance_of(values[1 : height + 1, ::2]), expected)
    assert np.array_equal(clearance_of(mask[1 : height + 1, ::2].astype(np.float64)), expected)
    padded = np.zeros((height + 2, 13), dtype=np.uint8)
    fill_clearance(np.ascontiguousarray(mask[1 : height + 1, ::2]), padded[1:-1, 1:-1])
    assert np.array_equal(padded[1:-1, 1:-1], expected)
    assert not padded[[0, -1]].any()
    assert not padded[:, [0, -1]].any()


def test_clearance_rejects_a_non_2d_array() -> None:
    with pytest.raises(InvalidGraphError, match="shape"):
        clearance_of(np.ones(4))
    with pytest.raises(InvalidGraphError, match="shape"):
        clearance_of(np.ones((0, 3)))


@pytest.mark.parametrize("seed", range(4))
def test_local_repair_equals_a_fresh_computation(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    h, w = rng.integers(2, 40, 2)
    mask = (rng.random((h, w)) > 0.15).astype(np.uint8)
    clear = clearance_of(mask)
    for _ in range(30):
        x0, y0 = int(rng.integers(0, w)), int(rng.integers(0, h))
        x1, y1 = min(w - 1, x0 + int(rng.integers(0, 4))), min(h - 1, y0 + int(rng.integers(0, 4)))
        mask[y0 : y1 + 1, x0 : x1 + 1] = rng.random((y1 - y0 + 1, x1 - x0 + 1)) > 0.5
        repair_clearance(mask, clear, (x0, y0, x1, y1))
        assert np.array_equal(clear, clearance_of(mask))


def test_repair_of_a_door_touches_only_cells_up_left() -> None:
    mask = np.ones((64, 64), dtype=np.uint8)
    clear = clearance_of(mask)
    mask[30, 40] = 0
    changed = repair_clearance(mask, clear, (40, 30, 40, 30))
    assert np.array_equal(clear, clearance_of(mask))
    assert 0 < changed <= 31 * 41
    mask[30, 40] = 1
    repair_clearance(mask, clear, (40, 30, 40, 30))
    assert np.array_equal(clear, clearance_of(np.ones((64, 64))))


def test_grid_clearance_follows_changes_and_is_read_only() -> None:
    grid = GridGraph.from_strings(["....", "....", "...."])
    assert grid.clearance.tolist() == [[3, 3, 2, 1], [2, 2, 2, 1], [1, 1, 1, 1]]
    grid.set_walkable([(1, 1)], False)
    assert np.array_equal(grid.clearance, clearance_of(grid.walkable))
    with pytest.raises(ValueError, match="read-only"):
        grid.clearance[0, 0] = 9


def test_size_for_radius_is_the_footprint_as_wide_as_the_unit() -> None:
    grid = GridGraph(np.ones((4, 4)), cell_size=(2.0, 3.0))
    assert [grid.size_for_radius(r) for r in (0.1, 1.0, 1.0001, 3.0, 5.0)] == [1, 1, 2, 3, 5]
    for bad in (0.0, -1.0, math.inf, math.nan, True, "1"):
        with pytest.raises(InvalidQueryError, match="radius"):
            grid.size_for_radius(bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidQueryError, match="largest size"):
        grid.size_for_radius(300.0)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (QueryOptions(size=0), "size"),
        (QueryOptions(size=256), "size"),
        (QueryOptions(size=True), "size"),
        (QueryOptions(size=2.0), "size"),  # type: ignore[arg-type]
        (QueryOptions(radius=0.0), "radius"),
        (QueryOptions(radius=math.inf), "radius"),
        (QueryOptions(radius="1"), "radius"),  # type: ignore[arg-type]
        (QueryOptions(size=2, radius=1.0), "not both"),
    ],
)
def test_bad_size_or_radius_is_an_invalid_query(options: QueryOptions, message: str) -> None:
    with pytest.raises(InvalidQueryError, match=message):
        check_options(options)


def test_good_size_and_radius_pass() -> None:
    check_options(QueryOptions(size=255))
    check_options(QueryOptions(size=1, radius=0.5))
    check_options(QueryOptions(size=np.int64(3)))  # type: ignore[arg-type]


@pytest.mark.parametrize("size", [1, 2, 3, 5, 9])
def test_footprint_max_equals_scipy_maximum_filter(size: int) -> None:
    weights = np.random.default_rng(size).uniform(0.5, 4.0, (13, 17))
    # maximum_filter centres the window; origin shifts it so the anchor is its top-left corner,
    # and padding with 0 (weights are >= 0) cuts it at the grid's edge
    padded = np.pad(weights, ((0, size), (0, size)))
    expected = ndimage.maximum_filter(padded, size=size, origin=-(size // 2), mode="constant")[:13, :17]
    assert np.array_equal(footprint_max(weights, size), expected)


def test_sized_view_is_the_eroded_grid() -> None:
    weights = np.ones((4, 5))
    weights[2, 3] = 7.0
    grid = GridGraph.from_strings(
        [".....", ".....", "....@", "....."],
        weights=weights,
        cell_size=2.0,
        origin=(1.0, 1.0),
        diagonal="never",
    )
    grid.place_agent(4, (0, 0))
    view = sized_view(grid, 2)
    assert view.walkable.tolist() == [
        [True, True, True, True, False],
        [True, True, True, False, False],
        [True, True, True, False, False],
        [False, False, False, False, False],
    ]
    assert view.weights[1, 2] == 7.0
    assert view.weights[1, 1] == 1.0
    assert view.weights[2, 2] == 7.0
    assert view.origin == (2.0, 2.0)  # half a cell of 2 from (1, 1)
    assert view.cell_size == (2.0, 2.0)
    assert (view.width, view.height, view.diagonal, view.size) == (5, 4, grid.diagonal, 2)
    assert view.version == grid.version
    assert dict(view.agents) == {4: (0, 0)}
    assert not view.walkable.flags.writeable
    assert not view.weights.flags.writeable
    one = sized_view(grid, 1)
    assert np.array_equal(one.walkable, grid.walkable)
    assert one.origin == grid.origin


def test_sized_view_rejects_a_bad_size() -> None:
    grid = GridGraph.from_strings(["..", ".."])
    for bad in (0, 256, 1.5, True):
        with pytest.raises(InvalidQueryError, match="size"):
            sized_view(grid, bad)  # type: ignore[arg-type]
