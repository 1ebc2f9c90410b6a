"""Heuristic values, names, defaults and admissibility on grids."""

from __future__ import annotations

import math

import numpy as np
import pytest

from python_core.errors import InvalidQueryError
from python_core.grid import GridGraph
from python_core.grid.search.heuristics import (
    HEURISTIC_CODES,
    HEURISTICS,
    chebyshev,
    euclidean,
    grid_estimate,
    manhattan,
    octile,
    resolve_heuristic,
    zero,
)
from python_core.result import QueryOptions


def test_values_on_a_known_displacement() -> None:
    assert manhattan(3.0, -4.0) == 7.0
    assert octile(3.0, -4.0) == pytest.approx(4.0 + 3.0 * (math.sqrt(2) - 1))
    assert euclidean(3.0, -4.0) == 5.0
    assert chebyshev(3.0, -4.0) == 4.0
    assert zero(3.0, -4.0) == 0.0


def test_every_heuristic_is_zero_at_zero_displacement() -> None:
    for fn in HEURISTICS.values():
        assert fn(0.0, 0.0) == 0.0


def test_names_and_codes_cover_the_same_heuristics() -> None:
    assert (
        set(HEURISTICS) == set(HEURISTIC_CODES) == {"manhattan", "octile", "euclidean", "chebyshev", "zero"}
    )
    assert sorted(HEURISTIC_CODES.values()) == list(range(5))


def test_default_is_the_admissible_one_per_connectivity() -> None:
    assert resolve_heuristic(None, eight_connected=True) == "octile"
    assert resolve_heuristic(None, eight_connected=False) == "manhattan"
    assert resolve_heuristic("zero", eight_connected=True) == "zero"


@pytest.mark.parametrize("name", ["Octile", "", "astar", 3])
def test_unknown_heuristic_raises_invalid_query_error(name: object) -> None:
    with pytest.raises(InvalidQueryError, match="unknown heuristic"):
        resolve_heuristic(name, eight_connected=True)  # type: ignore[arg-type]


def test_grid_estimate_matches_the_plain_functions_on_square_cells() -> None:
    for name, fn in HEURISTICS.items():
        for nx, ny in [(0, 0), (3, 1), (1, 7), (5, 5)]:
            got = grid_estimate(HEURISTIC_CODES[name], nx, ny, 2.0, 2.0, 0.5)
            assert got == pytest.approx(0.5 * fn(2.0 * nx, 2.0 * ny))


@pytest.mark.parametrize("cell_size", [(1.0, 1.0), (1.0, 3.0), (2.5, 0.5)])
def test_rectangular_octile_is_exact_on_an_open_grid(cell_size: tuple[float, float]) -> None:
    grid = GridGraph(np.ones((6, 9), dtype=bool), diagonal="always", cell_size=cell_size)
    for goal in [(8, 5), (3, 5), (8, 1), (0, 4)]:
        cost = grid.find_path((0, 0), goal, options=QueryOptions(heuristic="zero")).cost
        estimate = grid_estimate(HEURISTIC_CODES["octile"], goal[0], goal[1], *cell_size, 1.0)
        assert estimate == pytest.approx(cost)


def test_plain_octile_overestimates_on_rectangular_cells_which_is_why_grids_use_grid_estimate() -> None:
    # one diagonal step of a 1 x 2 cell costs hypot(1, 2) = 2.236 < octile(1, 2) = 2.414
    assert octile(1.0, 2.0) > math.hypot(1.0, 2.0)
    assert grid_estimate(HEURISTIC_CODES["octile"], 1, 1, 1.0, 2.0, 1.0) == pytest.approx(
        math.hypot(1.0, 2.0)
    )


def test_min_weight_scaling_keeps_the_estimate_below_the_true_cost() -> None:
    weights = np.full((5, 5), 0.25)
    grid = GridGraph(np.ones((5, 5), dtype=bool), weights=weights)
    cost = grid.find_path((0, 0), (4, 4)).cost
    assert grid_estimate(HEURISTIC_CODES["octile"], 4, 4, 1.0, 1.0, 0.25) <= cost + 1e-12
    assert cost == pytest.approx(0.25 * 4 * math.sqrt(2))
