"""GridGraph construction, properties, coordinates, diagonal modes, weights and mutations."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from python_core.errors import InvalidGraphError, InvalidQueryError, OutOfBoundsError
from python_core.grid import DiagonalMode, GridGraph
from python_core.result import PathStatus

DATA = Path(__file__).resolve().parents[2] / "data" / "movingai"
SQRT2 = math.sqrt(2.0)


def test_from_bool_and_numeric_arrays_agree() -> None:
    a = GridGraph(np.array([[True, False], [True, True]]))
    b = GridGraph(np.array([[2.5, 0.0], [1.0, 7.0]]))
    assert a.walkable.tolist() == b.walkable.tolist() == [[True, False], [True, True]]
    assert (a.width, a.height, a.node_count) == (2, 2, 4)


def test_from_strings_uses_moving_ai_letters() -> None:
    grid = GridGraph.from_strings([".GS", "@OT", "W.."])
    assert grid.walkable.tolist() == [[True, True, True], [False, False, False], [False, True, True]]
    assert GridGraph.from_strings("..\n.@").walkable.tolist() == [[True, True], [True, False]]


def test_from_movingai_defaults_to_no_corner_cutting() -> None:
    grid = GridGraph.from_movingai(DATA / "arena.map")
    assert (grid.width, grid.height) == (49, 49)
    assert int(grid.walkable.sum()) == 2054
    assert grid.diagonal is DiagonalMode.ONLY_IF_NO_OBSTACLES


def test_default_diagonal_mode_is_godots_always() -> None:
    assert GridGraph(np.ones((2, 2))).diagonal is DiagonalMode.ALWAYS


def test_diagonal_mode_values_are_godots_names() -> None:
    assert [m.value for m in DiagonalMode] == [
        "always",
        "never",
        "at_least_one_walkable",
        "only_if_no_obstacles",
    ]


@pytest.mark.parametrize(
    "walkable",
    [np.ones(4), np.ones((0, 3)), np.ones((2, 2, 2)), np.array([["a", "b"]]), [[1, 2], [3]]],
)
def test_bad_shapes_raise_invalid_graph_error(walkable: object) -> None:
    with pytest.raises(InvalidGraphError):
        GridGraph(walkable)  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [math.nan, math.inf, -1.0])
def test_bad_mask_values_raise_invalid_graph_error_naming_the_cell(value: float) -> None:
    mask = np.ones((2, 3))
    mask[1, 2] = value
    with pytest.raises(InvalidGraphError, match=r"at cell \(2, 1\)"):
        GridGraph(mask)


@pytest.mark.parametrize("value", [math.nan, -0.5, math.inf])
def test_bad_weights_raise_invalid_graph_error_naming_value_and_cell(value: float) -> None:
    weights = np.ones((2, 3))
    weights[0, 1] = value
    with pytest.raises(InvalidGraphError, match=rf"got {value!r} at cell \(1, 0\)"):
        GridGraph(np.ones((2, 3)), weights=weights)


def test_weights_of_the_wrong_shape_raise_invalid_graph_error() -> None:
    with pytest.raises(InvalidGraphError, match="shape"):
        GridGraph(np.ones((2, 3)), weights=np.ones((3, 2)))


@pytest.mark.parametrize("cell_size", [0.0, -1.0, (1.0, math.nan), (1.0,), "ab"])
def test_bad_cell_size_raises_invalid_graph_error(cell_size: object) -> None:
    with pytest.raises(InvalidGraphError, match="cell_size"):
        GridGraph(np.ones((2, 2)), cell_size=cell_size)  # type: ignore[arg-type]


def test_bad_origin_and_mode_raise_invalid_graph_error() -> None:
    with pytest.raises(InvalidGraphError, match="origin"):
        GridGraph(np.ones((2, 2)), origin=(0.0, math.inf))
    with pytest.raises(InvalidGraphError, match="diagonal mode 'sometimes'"):
        GridGraph(np.ones((2, 2)), diagonal="sometimes")


def test_unknown_character_raises_invalid_graph_error() -> None:
    with pytest.raises(InvalidGraphError, match=r"'x' at \(1, 0\)"):
        GridGraph.from_strings([".x", ".."])
    with pytest.raises(InvalidGraphError):
        GridGraph.from_strings([".", ".."])
    with pytest.raises(InvalidGraphError):
        GridGraph.from_strings([])


def test_views_are_read_only_and_constructor_copies_its_input() -> None:
    mask = np.ones((2, 2), dtype=bool)
    grid = GridGraph(mask)
    mask[0, 0] = False
    assert grid.walkable[0, 0]
    with pytest.raises(ValueError, match="read-only"):
        grid.walkable[0, 0] = False
    with pytest.raises(ValueError, match="read-only"):
        grid.weights[0, 0] = 3.0


def test_cell_to_world_and_back() -> None:
    grid = GridGraph(np.ones((3, 4)), cell_size=(2.0, 3.0), origin=(10.0, -5.0))
    assert grid.cell_to_world((3, 2)) == (16.0, 1.0)
    assert grid.world_to_cell((16.0, 1.0)) == (3, 2)
    assert grid.world_to_cell((16.9, -0.4)) == (3, 2)
    with pytest.raises(OutOfBoundsError):
        grid.cell_to_world((4, 0))
    with pytest.raises(OutOfBoundsError):
        grid.world_to_cell((100.0, 0.0))
    with pytest.raises(InvalidQueryError):
        grid.world_to_cell((math.nan, 0.0))


def test_path_points_nodes_and_cost_use_cell_size_and_origin() -> None:
    grid = GridGraph(np.ones((2, 3), dtype=bool), diagonal="always", cell_size=(2.0, 1.0), origin=(1.0, 1.0))
    result = grid.find_path((0, 0), (2, 1))
    assert result.status is PathStatus.FOUND
    assert result.nodes.tolist() in ([0, 1, 5], [0, 4, 5])
    assert result.points[0].tolist() == [1.0, 1.0]
    assert result.points[-1].tolist() == [5.0, 2.0]
    assert result.cost == pytest.approx(2.0 + math.hypot(2.0, 1.0))


# Diagonal rules around a wall at (1, 0): the step (0, 0) -> (1, 1) squeezes between (1, 0) and (0, 1).
CORNER = [".@", ".."]
BOTH_BLOCKED = [".@", "@."]


@pytest.mark.parametrize(
    ("mode", "rows", "expected"),
    [
        ("always", CORNER, SQRT2),
        ("always", BOTH_BLOCKED, SQRT2),
        ("at_least_one_walkable", CORNER, SQRT2),
        ("at_least_one_walkable", BOTH_BLOCKED, math.inf),
        ("only_if_no_obstacles", CORNER, 2.0),
        ("only_if_no_obstacles", BOTH_BLOCKED, math.inf),
        ("never", CORNER, 2.0),
        ("never", [".."] * 2, 2.0),
    ],
)
def test_diagonal_modes_follow_godot(mode: str, rows: list[str], expected: float) -> None:
    result = GridGraph.from_strings(rows, diagonal=mode).find_path((0, 0), (1, 1))
    assert result.cost == pytest.approx(expected)
    assert result.found == math.isfinite(expected)


def test_weight_of_the_entered_cell_scales_the_step() -> None:
    weights = np.array([[5.0, 2.0, 1.0]])
    grid = GridGraph(np.ones((1, 3), dtype=bool), weights=weights)
    assert grid.find_path((0, 0), (2, 0)).cost == 3.0  # enters (1,0) at 2 and (2,0) at 1, not (0,0)
    assert grid.find_path((2, 0), (0, 0)).cost == 7.0


def test_expensive_cells_are_avoided() -> None:
    weights = np.ones((3, 3))
    weights[1, 1] = 10.0
    grid = GridGraph(np.ones((3, 3), dtype=bool), diagonal="never", weights=weights)
    result = grid.find_path((0, 1), (2, 1))
    assert result.cost == 4.0
    assert 4 not in result.nodes.tolist()


def test_set_walkable_opens_and_closes_cells() -> None:
    grid = GridGraph.from_strings(["...", "@@.", "..."], diagonal="never")
    assert grid.find_path((0, 0), (0, 2)).cost == 6.0
    grid.set_walkable((0, 1), True)
    assert grid.find_path((0, 0), (0, 2)).cost == 2.0
    grid.set_walkable([(0, 1), (2, 1)], [False, False])
    assert grid.find_path((0, 0), (0, 2)).status is PathStatus.NO_PATH
    assert grid.walkable[1].tolist() == [False, False, False]


def test_set_weights_changes_costs() -> None:
    grid = GridGraph(np.ones((1, 3), dtype=bool))
    grid.set_weights([(1, 0), (2, 0)], [2.0, 4.0])
    assert grid.find_path((0, 0), (2, 0)).cost == 6.0
    grid.set_weight((2, 0), 0.0)
    assert grid.find_path((0, 0), (2, 0)).cost == 2.0
    assert grid.weights.tolist() == [[1.0, 2.0, 0.0]]


def test_failed_mutations_leave_the_graph_unchanged() -> None:
    grid = GridGraph(np.ones((2, 2), dtype=bool))
    with pytest.raises(OutOfBoundsError, match=r"\(2, 0\)"):
        grid.set_walkable([(0, 0), (2, 0)], False)
    with pytest.raises(InvalidGraphError, match=r"got -1\.0 at cell \(1, 1\)"):
        grid.set_weights([(0, 0), (1, 1)], [3.0, -1.0])
    with pytest.raises(InvalidGraphError, match="nan"):
        grid.set_weight((0, 0), math.nan)
    with pytest.raises(InvalidQueryError):
        grid.set_walkable([(0.5, 0)], False)
    with pytest.raises(InvalidQueryError):
        grid.set_walkable([(0, 0), (1, 0)], [True, False, True])
    with pytest.raises(InvalidQueryError):
        grid.set_weights([(0, 0)], "heavy")
    assert grid.walkable.all()
    assert (grid.weights == 1.0).all()


@pytest.mark.parametrize("seed", range(5))
def test_agents_on_matches_the_placed_agents(seed: int) -> None:
    """Against the definition over ``agents``, with agents sharing cells (then one of them set
    aside still leaves the cell taken)."""
    rng = np.random.default_rng(seed)
    grid = GridGraph(np.ones((6, 6), dtype=bool))
    for agent in range(8):
        grid.place_agent(agent, tuple(int(v) for v in rng.integers(0, 3, 2)))
    for _ in range(50):
        nodes = rng.integers(0, 36, int(rng.integers(0, 6)))
        besides = None if rng.random() < 0.3 else int(rng.integers(0, 10))
        taken = {y * 6 + x for agent, (x, y) in grid.agents.items() if agent != besides}
        assert grid.agents_on(nodes, besides=besides) == bool(taken & set(nodes.tolist()))
