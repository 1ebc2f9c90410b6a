"""The grid feature set on every shape: agents as obstacles, partial paths, budgets, wall and weight
updates (the padded copy follows the version), atomic changes, batches and the errors."""

from __future__ import annotations

import numpy as np
import pytest

from python_core.errors import BlockedEndpointError, InvalidQueryError, OutOfBoundsError, UnknownPointError
from python_core.grid.layouts import TileGrid, TileLayout
from python_core.result import PathStatus, QueryOptions

SHAPES = [
    TileLayout("hexagon", layout=0),
    TileLayout("hexagon", layout=3, offset_axis=1, map_origin=(-3, 5)),
    TileLayout("half_offset_square", layout=1),
    TileLayout("isometric", layout=4),
    TileLayout("isometric", layout=0, map_origin=(1, 1)),
    TileLayout("astar_isometric_right"),
]


def _corridor(layout: TileLayout) -> TileGrid:
    """An open 6 x 5 grid (every cell joins every other on every shape)."""
    return TileGrid(np.ones((5, 6), bool), layout=layout, cell_size=(32.0, 28.0), origin=(10.0, 20.0))


@pytest.mark.parametrize("layout", SHAPES, ids=str)
def test_a_wall_of_agents_blocks_others_but_never_the_agent_itself(layout: TileLayout) -> None:
    grid = _corridor(layout)
    free = grid.find_path((0, 2), (5, 2))
    assert free.found
    # stand agents on every cell of column 2 and 3: nothing crosses two full columns on any shape
    ids = 0
    for y in range(grid.height):
        for x in (2, 3):
            ids += 1
            grid.place_agent(ids, (x, y))
    assert grid.find_path((0, 2), (5, 2)).status is PathStatus.NO_PATH
    assert grid.find_path((0, 2), (5, 2), options=QueryOptions(ignore_agents=True)).cost == free.cost
    partial = grid.find_path((0, 2), (5, 2), options=QueryOptions(allow_partial=True))
    assert partial.status is PathStatus.PARTIAL
    assert all(n % grid.width < 2 for n in partial.nodes.tolist())
    # an agent standing on the start is never blocked by itself, and its goal may be its own cell
    grid.place_agent(99, (0, 2))
    assert grid.find_path((0, 2), (1, 2), options=QueryOptions(agent=99)).found
    with pytest.raises(UnknownPointError):
        grid.find_path((0, 2), (1, 2), options=QueryOptions(agent=1234))


@pytest.mark.parametrize("layout", SHAPES, ids=str)
def test_walls_and_weights_change_the_next_answer(layout: TileLayout) -> None:
    grid = _corridor(layout)
    before = grid.find_path((0, 0), (5, 4))
    middle = [(int(n % grid.width), int(n // grid.width)) for n in before.nodes[1:-1].tolist()]
    grid.set_walkable(middle, False)
    after = grid.find_path((0, 0), (5, 4))  # around the new walls, or none (a stairs lattice is thin)
    assert not set(after.nodes.tolist()) & set(before.nodes[1:-1].tolist())
    assert after.cost >= before.cost - 1e-9
    grid.set_walkable(middle, True)
    grid.set_weights([(x, y) for y in range(5) for x in range(6)], 3.0)
    assert grid.find_path((0, 0), (5, 4)).cost == pytest.approx(3.0 * before.cost)

    def half_done() -> None:  # the second change fails: the first is undone
        with grid.atomic():
            grid.set_weights([(0, 0)], 1.0)
            grid.set_walkable([(6, 0)], False)

    with pytest.raises(OutOfBoundsError):
        half_done()
    assert grid.find_path((0, 0), (5, 4)).cost == pytest.approx(3.0 * before.cost)


@pytest.mark.parametrize("layout", SHAPES, ids=str)
def test_budgets_partial_paths_and_endpoints(layout: TileLayout) -> None:
    grid = _corridor(layout)
    assert (
        grid.find_path((0, 0), (5, 4), options=QueryOptions(max_expansions=2)).status
        is PathStatus.BUDGET_EXHAUSTED
    )
    budget = grid.find_path((0, 0), (5, 4), options=QueryOptions(max_expansions=2, allow_partial=True))
    assert budget.status is PathStatus.BUDGET_EXHAUSTED
    assert len(budget.nodes) >= 1
    assert grid.find_path((1, 1), (1, 1)).cost == 0.0
    grid.set_walkable([(5, 4)], False)
    assert grid.find_path((0, 0), (5, 4)).status is PathStatus.NO_PATH  # a wall as the goal: no path
    closest = grid.find_path((0, 0), (5, 4), options=QueryOptions(allow_partial=True))
    assert closest.status is PathStatus.PARTIAL
    assert closest.nodes[-1] != 5 + 4 * 6
    with pytest.raises(BlockedEndpointError):
        grid.find_path((5, 4), (0, 0))
    with pytest.raises(OutOfBoundsError, match="start"):
        grid.find_path((-1, 0), (0, 0))
    with pytest.raises(InvalidQueryError):
        grid.find_path((0.5, 0), (0, 0))  # type: ignore[arg-type]
    # units of any size (tests/core/grid/layouts/test_layout_sizes.py): a footprint past the edge
    # (a lattice's rings around the cell; AStarGrid2D's k x k from the anchor)
    edge = (0, 0) if grid.layout.lattice else (5, 0)
    with pytest.raises(BlockedEndpointError, match="size 2"):
        grid.find_path(edge, (1, 1), options=QueryOptions(size=2))
    if grid.layout.lattice:  # an agent at the edge is placed: its footprint is cut there
        grid.place_agent(7, edge, size=2)
        grid.remove_agent(7)
    else:
        with pytest.raises(OutOfBoundsError, match="does not fit"):
            grid.place_agent(7, edge, size=2)
    assert 7 not in grid.agents
    with pytest.raises(InvalidQueryError, match="size must be an integer"):
        grid.world_to_cell((0.0, 0.0), size=0)


def test_lattices_refuse_square_heuristics_and_methods() -> None:
    grid = _corridor(TileLayout("hexagon"))
    with pytest.raises(InvalidQueryError, match="heuristic 'octile'"):
        grid.find_path((0, 0), (1, 0), options=QueryOptions(heuristic="octile"))
    with pytest.raises(InvalidQueryError, match="method 'jps'"):
        grid.find_path((0, 0), (1, 0), method="jps")
    exact = grid.find_path((0, 0), (5, 4))
    assert grid.find_path((0, 0), (5, 4), options=QueryOptions(heuristic="zero")).cost == pytest.approx(
        exact.cost
    )
    euclidean = grid.find_path((0, 0), (5, 4), options=QueryOptions(heuristic="euclidean"))
    assert euclidean.cost == pytest.approx(exact.cost)
    assert euclidean.expanded >= exact.expanded  # the lattice's norm is the tighter heuristic
    assert [r.cost for r in grid.find_many([(0, 0), (5, 4)], [(5, 4), (0, 0)])] == pytest.approx(
        [exact.cost] * 2
    )
    with pytest.raises(InvalidQueryError, match="2 starts but 1 goals"):
        grid.find_many([(0, 0), (1, 1)], [(0, 0)])


def test_threads_share_a_grid() -> None:
    from concurrent.futures import ThreadPoolExecutor

    grid = _corridor(TileLayout("hexagon", layout=1))
    grid.place_agent(1, (3, 2))
    want = grid.find_path((0, 0), (5, 4)).cost
    with ThreadPoolExecutor(4) as pool:
        costs = list(pool.map(lambda _: grid.find_path((0, 0), (5, 4)).cost, range(40)))
    assert costs == [want] * 40
