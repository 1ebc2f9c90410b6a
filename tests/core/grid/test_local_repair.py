"""Local repair of the searches' padded copy (issue 38): after walls or weights change, the copy
is patched in place (never rebuilt) and equals a fresh build; clearance equals a fresh
clearance_of; paths for every size equal the reference's again."""

from __future__ import annotations

import numpy as np
import pytest

from python_core.errors import UnknownPointError
from python_core.grid import DiagonalMode, GridGraph
from python_core.grid.clearance import clearance_of
from python_core.grid.search import reference
from python_core.grid.search.prepared import Prepared, _build, pad, prepared_for
from python_core.grid.sized_view import footprint_max
from python_core.result import QueryOptions

SIZES = (1, 2, 3, 4)


def assert_like_fresh(grid: GridGraph, p: Prepared) -> None:
    """The patched copy equals what a rebuild would make, field by field."""
    fresh = _build(grid)
    assert p is prepared_for(grid)  # still the same object: patched, not rebuilt
    assert np.array_equal(p.passable, fresh.passable)
    assert np.array_equal(grid.clearance, clearance_of(grid.walkable))
    assert (p.uniform_weight, p.min_weight, p.max_weight) == (
        fresh.uniform_weight,
        fresh.min_weight,
        fresh.max_weight,
    )
    assert (p.low_count, p.high_count, p.open_count) == (fresh.low_count, fresh.high_count, fresh.open_count)
    assert np.array_equal(p.weights, fresh.weights)
    for size, sized in p.sized_weights.items():
        assert np.array_equal(sized, pad(footprint_max(grid.weights, size), np.float64)), size
    for work in p.spare:
        if work.passable is not None:
            assert np.array_equal(work.passable, p.passable)


def assert_paths_like_reference(
    grid: GridGraph, pairs: list[tuple[tuple[int, int], tuple[int, int]]]
) -> None:
    for size in SIZES:
        for s, t in pairs:
            opts = QueryOptions(size=size, allow_partial=True)
            if grid.clearance[s[1], s[0]] < size:
                continue
            got, want = grid.find_path(s, t, options=opts), reference.find_path(grid, s, t, options=opts)
            assert got.status == want.status, (size, s, t)
            assert got.cost == pytest.approx(want.cost, rel=1e-12), (size, s, t)


@pytest.mark.parametrize("weighted", [False, True])
def test_random_changes_are_patched_in_place(weighted: bool) -> None:
    rng = np.random.default_rng(11 + weighted)
    mask = rng.random((40, 48)) > 0.2
    weights = rng.choice([1.0, 2.0, 5.0], mask.shape) if weighted else None
    grid = GridGraph(mask, diagonal=DiagonalMode.ONLY_IF_NO_OBSTACLES, weights=weights)
    grid.place_agent(1, (0, 0))
    pairs = [((1, 1), (46, 38)), ((30, 2), (3, 35)), ((20, 20), (45, 5))]
    p = prepared_for(grid)
    p.weights_for(grid, 3)  # what a size-3 query caches on a weighted grid
    for step in range(40):
        cells = rng.integers(0, [48, 40], size=(int(rng.integers(1, 30)), 2))
        if step % 3 == 2:
            grid.set_weights(cells, rng.choice([1.0, 2.0, 5.0], len(cells)))
        else:
            grid.set_walkable(cells, rng.random(len(cells)) > 0.5)
        assert_like_fresh(grid, p)
    assert_paths_like_reference(grid, pairs)
    assert_like_fresh(grid, p)


def test_a_door_closing_and_opening_repairs_clearance_and_paths() -> None:
    rows = ["." * 30] * 30
    grid = GridGraph.from_strings(rows, diagonal="never")
    grid.set_walkable([(15, y) for y in range(30) if not 12 <= y < 18], False)  # a wall with a 6-cell door
    before = grid.clearance.copy()
    pairs = [((2, 14), (25, 14)), ((0, 0), (29, 29))]
    assert grid.find_path((2, 14), (25, 14), options=QueryOptions(size=4)).found
    p = prepared_for(grid)
    door = [(15, y) for y in range(12, 18)]
    grid.set_walkable(door, False)
    assert_like_fresh(grid, p)
    assert not grid.find_path((2, 14), (25, 14), options=QueryOptions(size=1)).found
    grid.set_walkable(door, True)
    assert_like_fresh(grid, p)
    assert np.array_equal(grid.clearance, before)
    assert_paths_like_reference(grid, pairs)
    assert grid.find_path((2, 14), (25, 14), options=QueryOptions(size=4)).cost == 23.0


def test_uniform_weights_become_mixed_and_uniform_again() -> None:
    grid = GridGraph(np.ones((12, 12), dtype=bool), diagonal="always")
    grid.find_path((0, 0), (11, 11))
    p = prepared_for(grid)
    grid.set_weights([(5, 5)], 3.0)
    assert_like_fresh(grid, p)
    assert p.uniform_weight == -1.0
    assert grid.find_path((0, 0), (10, 10), options=QueryOptions(size=2)).found  # size 2 maxima
    grid.set_weights([(6, 5)], 4.0)
    assert_like_fresh(grid, p)
    grid.set_walkable([(6, 5)], False)  # the one cell at the highest weight closes
    assert_like_fresh(grid, p)
    grid.set_weights([(5, 5)], 1.0)
    assert_like_fresh(grid, p)
    assert p.uniform_weight == 1.0
    grid.set_walkable(np.argwhere(np.ones((12, 12)))[:, ::-1], False)  # no open cell left
    assert_like_fresh(grid, p)


def test_an_undone_change_is_repaired_back() -> None:
    rng = np.random.default_rng(4)
    grid = GridGraph(rng.random((20, 20)) > 0.1, weights=rng.uniform(1.0, 2.0, (20, 20)))
    grid.find_path((0, 0), (0, 0))
    p = prepared_for(grid)
    before = grid.clearance.copy()

    def fails() -> None:
        with grid.atomic():
            grid.set_walkable([(5, 5), (6, 6), (7, 5)], False)
            grid.set_weights([(3, 3)], 9.0)
            grid.move_agent(99, (0, 0))

    with pytest.raises(UnknownPointError):
        fails()
    assert_like_fresh(grid, p)
    assert np.array_equal(grid.clearance, before)


def test_agents_queries_see_repaired_private_copies() -> None:
    grid = GridGraph.from_strings(["." * 12] * 8, diagonal="never")
    grid.place_agent(1, (6, 0), size=2)
    grid.find_path((0, 0), (11, 7), options=QueryOptions(size=2))  # makes the private copy
    p = prepared_for(grid)
    grid.set_walkable([(6, y) for y in range(2, 8)], False)  # with the agent: no way through
    assert_like_fresh(grid, p)
    for size in (1, 2):
        opts = QueryOptions(size=size)
        assert grid.find_path((0, 4), (11, 4), options=opts).found is False
        assert reference.find_path(grid, (0, 4), (11, 4), options=opts).found is False
