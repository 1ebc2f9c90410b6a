"""Flow fields on hexagonal, isometric and half-offset layers through a real sidecar (issue 39):
field.request on a grid loaded with a "layout" answers the layout's move table ("layout_moves");
following the fetched direction bytes along it from every reachable cell costs the engine graph's
Dijkstra distance (tests/data/tile_layouts/godot_dump.json) and ends on a goal; a wall put up
with graph.update is repaired in the field."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from bridge.client import Client
from python_core.flowfield import GOAL, UNREACHABLE, WALL
from tests.core.flowfield.test_lattice_field import _oracle
from tests.core.grid.layouts.godot_dump import dump, layer_id, layers

SHOWN = [
    la
    for la in layers()
    if (la["shape"], la["layout"], la["offset_axis"])
    in ((3, 0, 0), (3, 1, 1), (1, 0, 0), (1, 4, 0), (2, 1, 0))
]


def _field(
    client: Client, walkable: np.ndarray, goals: list[int]
) -> tuple[dict[str, Any], np.ndarray, np.ndarray]:
    """The whole field, as ``(answer, directions (h, w), costs (h, w))``."""
    h, w = walkable.shape
    answer = client.request_field("layer", [(g % w, g // w) for g in goals], [(0, 0)])
    cs, tx, ty = answer["tile_size"], answer["tiles_x"], answer["tiles_y"]
    tiles = client.field_tiles(answer["field"], list(range(tx * ty)), costs=True)
    dirs = np.full((ty * cs, tx * cs), WALL, dtype=np.uint8)
    costs = np.full(dirs.shape, np.inf, dtype=np.float32)
    for t, (d, c) in tiles.items():
        y0, x0 = (t // tx) * cs, (t % tx) * cs
        dirs[y0 : y0 + cs, x0 : x0 + cs] = d.reshape(cs, cs)
        assert c is not None
        costs[y0 : y0 + cs, x0 : x0 + cs] = c.reshape(cs, cs)
    return answer, dirs[:h, :w], costs[:h, :w]


def _check(  # noqa: PLR0917 (the field as fetched, and the oracle)
    answer: dict[str, Any],
    dirs: np.ndarray,
    costs: np.ndarray,
    walkable: np.ndarray,
    dist: np.ndarray,
    moves: dict[tuple[int, int], float],
    goals: list[int],
) -> None:
    table = answer["layout_moves"]
    axis, shift = table["parity_axis"], table["parity_shift"]
    h, w = walkable.shape
    for node in range(w * h):
        x, y = node % w, node // w
        if not walkable[y, x]:
            assert dirs[y, x] == WALL
            continue
        if not np.isfinite(dist[node]):
            assert dirs[y, x] == UNREACHABLE
            continue
        assert costs[y, x] == pytest.approx(dist[node], rel=1e-5)
        total, cur = 0.0, node
        while dirs[cur // w, cur % w] != GOAL:
            cx, cy = cur % w, cur // w
            q = 0 if axis < 0 else ((cy if axis == 1 else cx) + shift) % 2
            dx, dy = table["moves"][q][dirs[cy, cx]]
            nxt = (cy + dy) * w + cx + dx
            assert (cur, nxt) in moves, (node, cur, nxt)
            total += moves[cur, nxt]
            cur = nxt
        assert cur in goals
        assert total == pytest.approx(dist[node], rel=1e-5)


@pytest.mark.parametrize("layer", SHOWN, ids=layer_id)
def test_a_field_over_the_wire_leads_along_the_engines_neighbours(
    client: Client, layer: dict[str, Any]
) -> None:
    x0, y0, w, h = dump()["region"]
    rng = np.random.default_rng(layer["layout"] * 10 + layer["shape"])
    walkable = rng.random((h, w)) > 0.25
    goals = sorted(set(rng.choice(np.flatnonzero(walkable.ravel()), size=2).tolist()))
    shape = ["square", "isometric", "half_offset_square", "hexagon"][layer["shape"]]
    layout = {
        "shape": shape,
        "layout": layer["layout"],
        "offset_axis": layer["offset_axis"],
        "map_origin": [x0, y0],
    }
    client.call("graph.load_grid", {
        "id": "layer", "width": w, "height": h, "cells": walkable.astype(np.uint8).tobytes(),
        "diagonal": "only_if_no_obstacles", "cell_size": list(layer["tile_size"]), "layout": layout,
    })  # fmt: skip
    weights = np.ones((h, w))
    answer, dirs, costs = _field(client, walkable, goals)
    dist, moves = _oracle(layer, walkable, weights, goals, "only_if_no_obstacles")
    _check(answer, dirs, costs, walkable, dist, moves, goals)
    # a wall across the middle row (goals kept open): the field is repaired on the sidecar
    row = [(x, h // 2) for x in range(w - 1) if (h // 2) * w + x not in goals]
    client.update("layer", cells=np.array(row, "<i4").tobytes(), walkable=False)
    for x, y in row:
        walkable[y, x] = False
    again, dirs, costs = _field(client, walkable, goals)
    assert again["field"] == answer["field"]
    dist, moves = _oracle(layer, walkable, weights, goals, "only_if_no_obstacles")
    _check(again, dirs, costs, walkable, dist, moves, goals)
