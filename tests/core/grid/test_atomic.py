"""``GridGraph.atomic``: a batch of wall, weight and agent changes is all or nothing (the sidecar
applies ``graph.update`` in place inside it instead of on a copy of the grid)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from python_core.errors import AStarError
from python_core.grid import GridGraph

SIZE = 10
Change = Callable[[GridGraph], None]


def _state(grid: GridGraph) -> tuple[object, ...]:
    """Everything a change can touch; ``_occupancy`` is the per-cell agent count the searches
    block on, the bookkeeping an undo has to get right when agents share or swap cells."""
    return (
        grid.walkable.tolist(),
        grid.weights.tolist(),
        sorted(grid.agents.items()),
        grid._occupancy.tolist(),
    )


def _valid_change(rng: np.random.Generator, grid: GridGraph) -> Change:
    """A random change that succeeds on ``grid`` as it is now."""
    cells = rng.integers(0, SIZE, (int(rng.integers(1, 5)), 2))
    placed = list(grid.agents)
    kind = int(rng.integers(0, 5))
    if kind == 0:
        flags = rng.random(len(cells)) < 0.5
        return lambda g: g.set_walkable(cells, flags)
    if kind == 1:
        weights = rng.uniform(0.5, 4.0, len(cells))
        return lambda g: g.set_weights(cells, weights)
    cell = (int(cells[0, 0]), int(cells[0, 1]))
    if kind == 2 or not placed:
        agent = max(placed, default=0) + 1
        return lambda g: g.place_agent(agent, cell)
    agent = placed[int(rng.integers(0, len(placed)))]
    if kind == 3:
        return lambda g: g.move_agent(agent, cell)
    return lambda g: g.remove_agent(agent)


def _batch(grid: GridGraph, changes: list[Change]) -> None:
    with grid.atomic():
        for change in changes:
            change(grid)


FAILING: list[Change] = [
    lambda g: g.set_walkable([(0, 0), (SIZE, 0)], False),  # out of bounds
    lambda g: g.set_weights([(1, 1)], -2.0),
    lambda g: g.move_agent(999, (0, 0)),
    lambda g: g.remove_agent(999),
    lambda g: g.place_agent(1000, (-1, 0)),
]


@pytest.mark.parametrize("seed", range(40))
def test_a_failing_change_undoes_every_change_of_the_block(seed: int) -> None:
    rng = np.random.default_rng(seed)
    grid = GridGraph(rng.random((SIZE, SIZE)) < 0.8)
    for _ in range(int(rng.integers(0, 8))):  # some state before the block, agents included
        _valid_change(rng, grid)(grid)
    before = _state(grid)
    failing = FAILING[seed % len(FAILING)]
    changes = []
    probe = GridGraph(grid.walkable, weights=grid.weights)  # draws valid changes as they go on
    for agent, cell in grid.agents.items():
        probe.place_agent(agent, cell)
    for _ in range(int(rng.integers(0, 12))):
        changes.append(_valid_change(rng, probe))
        changes[-1](probe)
    with pytest.raises(AStarError):
        _batch(grid, [*changes, failing])
    assert _state(grid) == before
    grid.place_agent(2000, (0, 0))  # still usable, and no block is open any more
    with pytest.raises(AStarError):
        grid.remove_agent(999)
    assert 2000 in grid.agents


def test_a_block_that_succeeds_keeps_its_changes_and_blocks_nest() -> None:
    grid = GridGraph(np.ones((3, 3), dtype=bool))
    with grid.atomic():
        grid.set_walkable([(1, 1)], False)
        with grid.atomic():
            grid.place_agent(1, (0, 1))
    assert not grid.walkable[1, 1]
    assert dict(grid.agents) == {1: (0, 1)}
    inner: Change = lambda g: _batch(g, [lambda h: h.move_agent(1, (2, 1))])  # noqa: E731
    with pytest.raises(AStarError):  # an inner block joins the outer one: its changes go too
        _batch(grid, [lambda g: g.set_weights([(2, 2)], 5.0), inner, lambda g: g.remove_agent(7)])
    assert dict(grid.agents) == {1: (0, 1)}
    assert grid.weights[2, 2] == 1.0


def test_paths_after_an_undo_match_the_grid_before_it() -> None:
    rng = np.random.default_rng(5)
    grid = GridGraph(rng.random((SIZE, SIZE)) < 0.75, diagonal="never")
    grid.place_agent(1, (4, 4))
    open_cells = np.argwhere(grid.walkable)[:, ::-1]
    ends = rng.integers(0, len(open_cells), (20, 2))
    pairs = [(tuple(open_cells[i]), tuple(open_cells[j])) for i, j in ends]
    expected = [grid.find_path(s, g).cost for s, g in pairs]
    changes: list[Change] = [
        lambda g: g.set_walkable(open_cells[::3], False),
        lambda g: g.move_agent(1, (0, 0)),
        lambda g: g.set_weights(open_cells[1::3], 3.0),
        lambda g: g.place_agent(1, (1, 1)),  # already placed
    ]
    with pytest.raises(AStarError):
        _batch(grid, changes)
    assert [grid.find_path(s, g).cost for s, g in pairs] == expected
