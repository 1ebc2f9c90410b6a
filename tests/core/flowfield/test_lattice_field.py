"""Flow fields on hexagonal, isometric and half-offset layers (issue 39), against Godot's own graph:
scipy's Dijkstra from the goals over the engine's neighbours (tests/data/tile_layouts/godot_dump.json,
get_surrounding_cells and the corner cells, map_to_local) gives every cell's distance; following
the field's directions from every reachable cell costs exactly that, every step between engine
neighbours, and ends on a goal; cells that cannot reach one say so."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
from scipy.sparse import csr_matrix  # type: ignore[import-untyped]
from scipy.sparse.csgraph import dijkstra  # type: ignore[import-untyped]

from python_core.errors import InvalidQueryError, UnsupportedOperationError
from python_core.flowfield import GOAL, UNREACHABLE, WALL, FieldCache, FlowField, LatticeField
from python_core.grid import GridGraph
from python_core.grid.layouts import TileGrid
from tests.core.grid.layouts.godot_dump import dump, layer_id, layers, layout_of
from tests.core.grid.layouts.test_oracle import _engine_moves

SHOWN = [la for la in layers() if la["shape"] != 0]  # every hexagonal, isometric and half-offset layer


def _oracle(
    layer: dict[str, Any], walkable: np.ndarray, weights: np.ndarray, goals: list[int], diagonal: str
) -> Any:
    """Distance of every cell to the nearest goal on the engine's graph (entering cell's weight)."""
    _, _, w, h = dump()["region"]
    moves = _engine_moves(layer, walkable, diagonal)
    rows, cols = zip(*moves, strict=True)
    costs = [moves[e] * weights.ravel()[e[1]] for e in moves]
    matrix = csr_matrix((costs, (rows, cols)), shape=(w * h, w * h))
    return dijkstra(matrix.T.tocsr(), indices=goals, min_only=True), moves


def _walk(field: LatticeField, cell: tuple[int, int]) -> list[int]:
    """The cells the directions lead through from ``cell`` (flat ids), read byte by byte."""
    w = field.grid.width
    out = [cell[1] * w + cell[0]]
    for _ in range(field.grid.node_count):
        k = field.direction_at(cell)
        assert k is not None
        if k >= GOAL:
            break
        dx, dy = field.moves_of(cell)[k]
        cell = (cell[0] + dx, cell[1] + dy)
        out.append(cell[1] * w + cell[0])
    return out


def _check(layer: dict[str, Any], diagonal: str, seed: int, *, agents: bool = False) -> None:
    rng = np.random.default_rng(seed)
    _, _, w, h = dump()["region"]
    walkable = rng.random((h, w)) > 0.3
    weights = rng.choice([1.0, 1.0, 1.5, 2.5], size=(h, w))
    grid = TileGrid(
        walkable, layout=layout_of(layer), weights=weights, diagonal=diagonal, cell_size=layer["tile_size"]
    )
    open_ids = np.flatnonzero(walkable.ravel())
    goals = sorted(set(rng.choice(open_ids, size=2).tolist()))
    blocked = walkable.copy()
    if agents:  # agents' cells are never entered (but their own cell gets the way out)
        for i, node in enumerate(rng.choice(np.setdiff1d(open_ids, goals), size=6, replace=False).tolist()):
            grid.place_agent(i, (node % w, node // w))
            blocked.ravel()[node] = False
    field = LatticeField(grid, [(g % w, g // w) for g in goals], tile_size=5, agents_block=agents)
    assert field.extend([(0, 0)]) == list(range(field.tiles_x * field.tiles_y))
    assert field.extend([(w - 1, h - 1)]) == []  # computed once
    dist, moves = _oracle(layer, blocked, weights, goals, diagonal)
    if agents:  # an agent's cell leaves by any open neighbour (as a path's start does)
        _, out_moves = _oracle(layer, walkable, weights, goals, diagonal)
        for node in np.flatnonzero(walkable.ravel() & ~blocked.ravel()).tolist():
            outs = [
                dist[b] + c * weights.ravel()[b]
                for (a, b), c in out_moves.items()
                if a == node and blocked.ravel()[b]
            ]
            dist[node] = min(outs, default=np.inf)
            moves.update({(a, b): c for (a, b), c in out_moves.items() if a == node})
    for node in range(w * h):
        cell = (node % w, node // w)
        byte = field.direction_at(cell)
        if not walkable.ravel()[node]:
            assert byte == WALL, cell
            continue
        if not np.isfinite(dist[node]):
            assert byte == UNREACHABLE, cell
            assert field.cost_at(cell) == np.inf, cell
            continue
        assert field.cost_at(cell) == pytest.approx(dist[node], rel=1e-5, abs=1e-9), cell
        cost, end, code = field.follow(cell)
        assert code == GOAL, cell
        assert end[1] * w + end[0] in goals, cell
        assert cost == pytest.approx(dist[node], rel=1e-5, abs=1e-9), cell
        path = _walk(field, cell)
        assert path[-1] in goals
        assert all((a, b) in moves for a, b in itertools.pairwise(path)), (cell, path)


@pytest.mark.parametrize("layer", SHOWN, ids=layer_id)
def test_following_the_field_costs_the_engines_distance(layer: dict[str, Any]) -> None:
    _check(
        layer, "only_if_no_obstacles", seed=layer["shape"] * 100 + layer["layout"] * 2 + layer["offset_axis"]
    )


@pytest.mark.parametrize("diagonal", ["always", "at_least_one_walkable", "never"])
def test_every_diagonal_rule_on_isometric_layers(diagonal: str) -> None:
    for layer in [la for la in SHOWN if la["shape"] == 1 and la["layout"] in (0, 4)]:
        _check(layer, diagonal, seed=7)


def test_agents_block_on_hexes_and_stacked_isometric() -> None:
    for layer in [la for la in SHOWN if (la["shape"], la["layout"]) in ((3, 0), (3, 1), (1, 0))]:
        _check(layer, "only_if_no_obstacles", seed=11, agents=True)


def test_repair_after_walls_and_weights_matches_a_fresh_field() -> None:
    layer = next(la for la in SHOWN if la["shape"] == 3 and la["layout"] == 1 and la["offset_axis"] == 1)
    _, _, w, h = dump()["region"]
    grid = TileGrid(np.ones((h, w), bool), layout=layout_of(layer), cell_size=layer["tile_size"])
    cache = FieldCache(budget_bytes=1 << 20)
    fid, field, _ = cache.request("hex", grid, [(0, 0)], [(w - 1, h - 1)], tile_size=4)
    assert isinstance(field, LatticeField)
    before = field.cost_at((w - 1, h - 1))
    wall = [(x, 4) for x in range(w - 1)]
    grid.set_walkable(wall, False)
    grid.set_weights([(w - 1, 5)], 3.0)
    report = cache.cells_changed("hex", dearer=[*wall, (w - 1, 5)], cheaper=[(w - 1, 5)])[fid]
    assert report.changed
    _same_as_fresh(field, grid)
    after = field.cost_at((w - 1, h - 1))
    assert after is not None
    assert before is not None
    assert after > before
    grid.set_walkable(wall, True)  # opened again: the detour is gone
    assert cache.cells_changed("hex", cheaper=wall)[fid].changed
    _same_as_fresh(field, grid)
    assert field.cost_at((w - 1, h - 1)) == before


def _same_as_fresh(field: LatticeField, grid: TileGrid) -> None:
    fresh = LatticeField(grid, [(0, 0)], tile_size=4)
    fresh.extend([(0, 0)])
    for t in range(field.tiles_x * field.tiles_y):
        np.testing.assert_array_equal(field.tile_arrays(t)[0], fresh.tile_arrays(t)[0])
        np.testing.assert_array_equal(field.tile_arrays(t)[1], fresh.tile_arrays(t)[1])


def test_bad_input_is_refused() -> None:
    grid = TileGrid(np.ones((4, 4), bool), layout="hexagon")
    with pytest.raises(UnsupportedOperationError, match="LatticeField"):
        FlowField(grid, [(0, 0)])
    with pytest.raises(InvalidQueryError, match="at least one goal"):
        LatticeField(grid, [])
    with pytest.raises(InvalidQueryError, match="size"):
        LatticeField(grid, [(0, 0)], size=0)
    with pytest.raises(InvalidQueryError, match="TileGrid"):
        LatticeField(GridGraph(np.ones((2, 2), bool)), [(0, 0)])  # type: ignore[arg-type]
    with pytest.raises(InvalidQueryError, match="tile_size"):
        LatticeField(grid, [(0, 0)], tile_size=1)
