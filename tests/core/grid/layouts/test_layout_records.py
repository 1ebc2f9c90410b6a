"""A grid record (what graph.load_grid and graph files hold) carries its layout: loads as a TileGrid,
writes the layout back, refuses bad layouts; a square TileSet is today's grid; the navigator answers
on the lattice and refuses a hierarchy."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from python_core.errors import InvalidGraphError, UnsupportedOperationError
from python_core.flowfield import FlowField
from python_core.formats.records import from_record, to_record
from python_core.grid import GridGraph
from python_core.grid.layouts import TileGrid, TileLayout
from python_core.hpa import HierarchicalGrid
from python_core.navigation import HierarchyOptions, PlaceAgent, SetWalkable
from python_core.navigation.tile_grid import TileNavigator


def _record(**layout: Any) -> dict[str, Any]:
    return {
        "width": 4,
        "height": 3,
        "cells": b"\x01" * 12,
        "diagonal": "only_if_no_obstacles",
        "layout": layout,
    }


def test_a_layout_loads_as_a_tile_grid_and_round_trips() -> None:
    grid = from_record("grid", _record(shape="hexagon", layout=1, offset_axis=1, map_origin=[-1, 2]))
    assert isinstance(grid, TileGrid)
    assert grid.layout == TileLayout("hexagon", layout=1, offset_axis=1, map_origin=(-1, 2))
    kind, record = to_record(grid)
    again = from_record(kind, record)
    assert isinstance(again, TileGrid)
    assert again.layout == grid.layout
    assert again.find_path((0, 0), (3, 2)).cost == grid.find_path((0, 0), (3, 2)).cost
    square = from_record("grid", _record(shape="square"))
    assert type(square) is GridGraph
    assert "layout" not in to_record(square)[1]


@pytest.mark.parametrize(
    ("layout", "message"),
    [
        ({"shape": "hexagon", "layout": 7}, "layout must be an integer in"),
        ({"shape": "hexagon", "offset_axis": -1}, "offset_axis must be"),
        ({"shape": "hexagon", "map_origin": [0]}, "map_origin must be two integers"),
        ({"shape": "rhombus"}, "unknown tile shape"),
        ({"layout": 1}, "needs a 'shape'"),
        ({"shape": "hexagon", "tile_size": [1, 1]}, "unknown layout field"),
    ],
)
def test_bad_layouts_are_invalid_graphs(layout: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidGraphError, match=message):
        from_record("grid", _record(**layout))
    with pytest.raises(InvalidGraphError, match="layout must be a map"):
        from_record("grid", {**_record(), "layout": [1, 2]})


def test_the_navigator_answers_on_the_lattice_with_or_without_a_hierarchy() -> None:
    grid = TileGrid(np.ones((3, 4), bool), layout=TileLayout("hexagon"), cell_size=(10.0, 10.0))
    nav = TileNavigator(grid, world=True)
    start, goal = nav.resolve(grid.cell_to_world((0, 0))), nav.resolve(grid.cell_to_world((3, 2)))
    assert (start, goal) == ((0, 0), (3, 2))
    assert nav.find_path(start, goal).cost == grid.find_path((0, 0), (3, 2)).cost
    nav.apply([SetWalkable(np.array([[1, 0]]), np.array([False])), PlaceAgent(1, (1, 1))])
    assert [r.found for r in nav.find_many([(0, 0)], [(3, 2)])] == [True]
    assert nav.find_batch(np.array([[0, 0]]), np.array([[3, 2]])).result(0).found
    assert nav.describe()["layout"]["shape"] == "hexagon"
    assert nav.work_estimates(np.zeros((1, 2)), np.ones((1, 2)) * 30, hierarchical=False).shape == (1,)
    with pytest.raises(InvalidGraphError, match="no hierarchy"):
        nav.find_path(start, goal, hierarchical=True)
    nav.build_hierarchy(HierarchyOptions(cluster_size=8))  # python_core.hpa.lattice (issue 39)
    assert nav.find_path(start, goal, hierarchical=True).cost == grid.find_path(start, goal).cost
    with pytest.raises(UnsupportedOperationError, match="flow fields on a hexagon layout are LatticeField"):
        FlowField(grid, [(3, 2)])
    with pytest.raises(UnsupportedOperationError, match="HPA"):  # built directly, as the CLI does
        HierarchicalGrid(grid, cluster_size=8)
