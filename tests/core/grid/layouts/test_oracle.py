"""The issue's oracle: a graph built from Godot's own dump (get_surrounding_cells, the corner cells,
map_to_local), solved by scipy's Dijkstra, gives the optimal cost of 200 random queries per layer;
our paths have those costs (relative 1e-5) and step only between the engine's neighbours."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
from scipy.sparse import csr_matrix  # type: ignore[import-untyped]
from scipy.sparse.csgraph import dijkstra  # type: ignore[import-untyped]

from python_core.grid.layouts import TileGrid
from tests.core.grid.layouts.godot_dump import dump, layer_id, layers, layout_of

QUERIES = 200


def _engine_moves(layer: dict[str, Any], walkable: np.ndarray, diagonal: str) -> dict[tuple[int, int], float]:
    """``(i, j) -> step length`` of every move the engine's neighbours allow between open cells:
    sides, and corners under the diagonal rule over the cells that are sides of both."""
    x0, y0, w, h = dump()["region"]
    index = {(x0 + i % w, y0 + i // w): i for i in range(w * h)}
    centre = np.array(layer["centres"])
    is_open = walkable.ravel()

    def open_cell(cell: tuple[int, ...]) -> bool:
        return cell in index and bool(is_open[index[cell]])

    moves: dict[tuple[int, int], float] = {}
    for i in range(w * h):
        if not is_open[i]:
            continue
        sides = {tuple(c) for c in layer["surrounding"][i]}
        for cell in sides:
            if open_cell(cell):
                moves[i, index[cell]] = float(np.hypot(*(centre[index[cell]] - centre[i])))
        if diagonal == "never":
            continue
        for corner in map(tuple, layer["corners"][i]):
            if not open_cell(corner):
                continue
            between = sides & {tuple(c) for c in layer["surrounding"][index[corner]]}
            assert len(between) == 2
            free = [open_cell(c) for c in between]
            if diagonal == "always" or (any(free) if diagonal == "at_least_one_walkable" else all(free)):
                moves[i, index[corner]] = float(np.hypot(*(centre[index[corner]] - centre[i])))
    return moves


def _check_layer(layer: dict[str, Any], diagonal: str, seed: int, queries: int) -> None:
    rng = np.random.default_rng(seed)
    _, _, w, h = dump()["region"]
    walkable = rng.random((h, w)) > 0.25
    weights = rng.choice([1.0, 1.0, 1.5, 2.5], size=(h, w))
    grid = TileGrid(
        walkable, layout=layout_of(layer), weights=weights, diagonal=diagonal, cell_size=layer["tile_size"]
    )
    moves = _engine_moves(layer, walkable, diagonal)
    rows, cols = zip(*moves, strict=True)
    costs = [moves[e] * weights.ravel()[e[1]] for e in moves]
    matrix = csr_matrix((costs, (rows, cols)), shape=(w * h, w * h))
    open_ids = np.flatnonzero(walkable.ravel())
    starts = rng.choice(open_ids, size=queries)
    goals = rng.choice(open_ids, size=queries)
    best = dijkstra(matrix, indices=np.unique(starts))
    row_of = {s: k for k, s in enumerate(np.unique(starts).tolist())}
    for s, t in zip(starts.tolist(), goals.tolist(), strict=True):
        result = grid.find_path((s % w, s // w), (t % w, t // w))
        want = best[row_of[s], t]
        assert result.found == bool(np.isfinite(want)), (s, t)
        if not result.found:
            continue
        assert result.cost == pytest.approx(want, rel=1e-5), (s, t)
        path = result.nodes.tolist()
        assert path[0] == s
        assert path[-1] == t
        assert all(step in moves for step in itertools.pairwise(path)), path
        np.testing.assert_allclose(result.points, grid.cell_points(result.nodes))


@pytest.mark.parametrize("layer", layers(), ids=layer_id)
def test_costs_equal_dijkstra_on_the_engines_graph(layer: dict[str, Any]) -> None:
    _check_layer(
        layer,
        "only_if_no_obstacles",
        seed=layer["shape"] * 100 + layer["layout"] * 2 + layer["offset_axis"],
        queries=QUERIES,
    )


@pytest.mark.parametrize("diagonal", ["always", "at_least_one_walkable", "never"])
@pytest.mark.parametrize("layout", [4, 5])
def test_every_diagonal_rule_on_isometric_diamonds(diagonal: str, layout: int) -> None:
    layer = next(
        la for la in layers() if la["shape"] == 1 and la["layout"] == layout and la["offset_axis"] == 0
    )
    _check_layer(layer, diagonal, seed=layout, queries=QUERIES)
